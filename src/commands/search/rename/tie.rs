//! Java: whether a use of a member NAME is the picked definition's when
//! another class of ours also defines NAME (its rivals). A use that cannot be
//! tied to one of them (a receiver whose type is not declared in reach, a bare
//! call a superclass may answer) makes the rename refuse rather than guess.

use super::java::{declared_type, has_override};
use super::{Parsed, RenameArgs, show};
use crate::protocol::json::Json;
use crate::protocol::{CmdError, Repair, code, shell};
use crate::text::syntax::defs::TreeDef;
use crate::text::syntax::refs::{Occurrence, RefKind};
use crate::workspace::Ctx;
use std::path::{Path, PathBuf};

/// The class a member definition belongs to (`A.B` of `A.B.f`).
fn owner(d: &TreeDef) -> &str {
    d.qualified.rsplit_once('.').map_or("", |(c, _)| c)
}

fn simple(q: &str) -> &str {
    q.rsplit('.').next().unwrap_or(q)
}

/// The picked Java member and the other classes of ours defining NAME.
pub(super) struct Rivals<'a> {
    t: &'a TreeDef,
    /// The rival definitions: (file, definition).
    defs: Vec<(&'a Path, &'a TreeDef)>,
    /// Some definition of NAME overrides (@Override) another: which ones
    /// are tied by inheritance is not known.
    overrides: bool,
    /// The picked definition is a Java member.
    member: bool,
}

impl<'a> Rivals<'a> {
    /// The rivals of `t` (picked in `files[i]`), when it is a Java member.
    pub(super) fn of(files: &'a [(PathBuf, Parsed)], i: usize, t: &'a TreeDef) -> Rivals<'a> {
        let mut defs = Vec::new();
        let mut overrides = false;
        let java = files[i].1.grammar == crate::text::syntax::grammar::Grammar::Java;
        let member = matches!(t.kind, "method" | "field") && t.container.is_some();
        if java && member {
            for (p, f) in files {
                for d in f.defs.iter().filter(|d| d.kind == t.kind) {
                    if t.kind == "method" && has_override(f, d) {
                        overrides = true;
                    }
                    // Overloads in the picked class are renamed with it.
                    if owner(d) != owner(t) {
                        defs.push((p.as_path(), d));
                    }
                }
            }
        }
        Rivals {
            t,
            defs,
            overrides,
            member: java && member,
        }
    }

    pub(super) fn any(&self) -> bool {
        !self.defs.is_empty()
    }

    /// Whether the definitions override one another (or may).
    pub(super) fn overrides(&self) -> bool {
        self.any() && self.overrides
    }

    fn defined_in(&self, f: &Parsed, class: &str) -> bool {
        f.defs
            .iter()
            .any(|d| d.kind == self.t.kind && owner(d) == class)
    }

    fn rival_named(&self, class: &str) -> bool {
        self.defs.iter().any(|(_, d)| simple(owner(d)) == class)
    }

    /// Whether `o` (a use the rename would change) is the picked definition's:
    /// `Some(None)` yes, `Some(Some(why))` not (left as `why`), `None` unknown.
    pub(super) fn tie(
        &self,
        o: &Occurrence,
        f: &Parsed,
        in_target_file: bool,
    ) -> Option<Option<&'static str>> {
        // `import static a.Other.NAME;` (String.join) brings in another class's NAME.
        if self.member
            && let Some(class) = static_import_of(f, o)
            && class != simple(owner(self.t))
        {
            return Some(Some(if self.rival_named(class) {
                "member"
            } else {
                "external"
            }));
        }
        if !self.any()
            || matches!(
                o.kind,
                RefKind::Definition | RefKind::Import | RefKind::String | RefKind::Comment
            )
        {
            return Some(None);
        }
        let own = owner(self.t);
        let dotted = f
            .text
            .get(..o.start)
            .unwrap_or("")
            .trim_end()
            .ends_with('.');
        let classes = enclosing(f, o.line);
        match &o.member_of {
            // A bare NAME: the innermost enclosing class defining NAME is it.
            None | Some(None) if !dotted => {
                for c in classes {
                    if c == own && in_target_file {
                        return Some(None);
                    }
                    if self.defined_in(f, c) {
                        return Some(Some("shadowed"));
                    }
                }
                // No enclosing class defines it: a static import's, else inherited.
                let imported = f.occ.iter().find_map(|i| static_import_of(f, i));
                match imported {
                    Some(c) if c == simple(own) => Some(None),
                    Some(c) if self.rival_named(c) => Some(Some("member")),
                    Some(_) => Some(Some("external")),
                    None => None,
                }
            }
            Some(Some(obj)) if obj == "this" => {
                let c = classes.first()?;
                if *c == own && in_target_file {
                    Some(None)
                } else if self.defined_in(f, c) {
                    Some(Some("shadowed"))
                } else {
                    None
                }
            }
            Some(Some(obj)) => {
                let ty = if obj.starts_with(|c: char| c.is_ascii_uppercase()) {
                    Some(obj.as_str())
                } else {
                    declared_type(f, obj)
                };
                let ty = ty?;
                let mine = ty == simple(own);
                match (mine, self.rival_named(ty)) {
                    (true, false) => Some(None),
                    (true, true) if in_target_file => Some(None),
                    (false, true) => Some(Some("member")),
                    _ => None,
                }
            }
            // `f().NAME`, `super.NAME`: a receiver whose type is not known.
            _ => None,
        }
    }

    /// The refusal of a rename with uses that could not be told apart
    /// (`untied`: path, line), or of definitions overriding one another.
    pub(super) fn refusal(
        &self,
        ctx: &Ctx,
        args: &RenameArgs,
        tpath: &Path,
        untied: &[(String, u64)],
    ) -> CmdError {
        let name = self.t.name.as_str();
        let mut quals: Vec<String> = vec![self.t.qualified.clone()];
        for (_, d) in &self.defs {
            if !quals.contains(&d.qualified) {
                quals.push(d.qualified.clone());
            }
        }
        let defs: Vec<String> = std::iter::once((tpath, self.t))
            .chain(self.defs.iter().copied())
            .take(8)
            .map(|(p, d)| format!("{} at {}:{}", d.qualified, show(&ctx.root, p), d.start_line))
            .collect();
        let why = if untied.is_empty() {
            format!(
                "some of them override (@Override) another, and which ones a rename of {} must follow is not known",
                self.t.qualified
            )
        } else {
            let uses: Vec<String> = untied
                .iter()
                .take(6)
                .map(|(p, l)| format!("{p}:{l}"))
                .collect();
            format!(
                "{} use{} of {name} could be any of them (the receiver's type is not declared in reach): {}{}",
                untied.len(),
                if untied.len() == 1 { "" } else { "s" },
                uses.join(", "),
                if untied.len() > 6 { ", ..." } else { "" }
            )
        };
        let mut refs = vec!["code".to_string(), "refs".into(), name.into()];
        refs.extend(args.path.clone());
        let mut err = CmdError::new(
            code::AMBIGUOUS,
            format!(
                "{name} is defined by {} of our classes: {}; {why}. Nothing was renamed: a guess could leave code that no longer compiles.",
                quals.len(),
                defs.join("; ")
            ),
            Repair::new(
                "refs",
                format!("See every use of {name} and rename the right ones by hand (replace --in FILE)."),
                shell::aitools(refs),
            ),
        )
        .with_candidates(Json::Arr(quals.into_iter().map(Json::Str).collect()));
        if crate::workspace::lsp::server_for(tpath).is_ok() && !args.lsp.wanted() {
            let mut argv = ctx.argv.clone();
            argv.push("--lsp".into());
            err = err.with_repair(Repair::new(
                "lsp",
                "Ask the language server, which knows every receiver's type.",
                shell::aitools(argv),
            ));
        }
        err
    }
}

/// The class a Java `import static a.b.C.NAME;` holding `o` imports NAME from (`C`).
fn static_import_of<'f>(f: &'f Parsed, o: &Occurrence) -> Option<&'f str> {
    if o.kind != RefKind::Import {
        return None;
    }
    let start = f.text.get(..o.start)?.rfind('\n').map_or(0, |i| i + 1);
    let head = f.text.get(start..o.start)?.trim();
    let path = head
        .strip_prefix("import")?
        .trim_start()
        .strip_prefix("static")?;
    let class = path.trim().strip_suffix('.')?;
    Some(class.rsplit('.').next().unwrap_or(class).trim())
}

/// The qualified names of the classes enclosing `line` in `f`, innermost first.
fn enclosing(f: &Parsed, line: u64) -> Vec<&str> {
    let mut cs: Vec<&TreeDef> = f
        .scopes
        .iter()
        .filter(|d| matches!(d.kind, "class" | "interface" | "enum" | "record"))
        .filter(|d| line >= d.start_line && line <= d.end_line)
        .collect();
    cs.sort_by_key(|d| d.end_line - d.start_line);
    cs.into_iter().map(|d| d.qualified.as_str()).collect()
}

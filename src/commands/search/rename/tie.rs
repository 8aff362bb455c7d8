//! Java: whether a use of a member NAME is the picked definition's when
//! another class of ours also defines NAME (its rivals). A use that cannot be
//! tied to one of them (a receiver whose type is not declared in reach, a bare
//! call a superclass may answer) makes the rename refuse rather than guess.

use super::hierarchy::{Classes, line_start, simple};
use super::java::{declared_type, has_override};
use super::{Parsed, RenameArgs, show};
use crate::protocol::json::Json;
use crate::protocol::{CmdError, Repair, code, shell};
use crate::text::syntax::defs::TreeDef;
use crate::text::syntax::refs::{Occurrence, RefKind};
use crate::workspace::Ctx;
use std::collections::HashSet;
use std::path::{Path, PathBuf};

/// The class a member definition belongs to (`A.B` of `A.B.f`).
fn owner(d: &TreeDef) -> &str {
    d.qualified.rsplit_once('.').map_or("", |(c, _)| c)
}

/// The picked Java member, the definitions renamed with it (its overrides,
/// and what it overrides, in our classes) and the other classes of ours
/// defining NAME (its rivals).
pub(super) struct Rivals<'a> {
    t: &'a TreeDef,
    files: &'a [(PathBuf, Parsed)],
    /// Every Java definition of NAME of the target's kind: (file, definition).
    all: Vec<(&'a Path, &'a TreeDef)>,
    /// The picked definition and those overriding it or overridden by it.
    family: Vec<(&'a Path, &'a TreeDef)>,
    /// The rival definitions: (file, definition).
    defs: Vec<(&'a Path, &'a TreeDef)>,
    classes: Classes<'a>,
    /// A rival overrides (@Override) a method of a type that is not known
    /// (an anonymous class's, a class not scanned): it may be the target's.
    overrides: bool,
    /// A definition renamed overrides a method no class of ours declares.
    external: Option<(&'a Path, &'a TreeDef)>,
    /// The picked definition is a Java member.
    member: bool,
}

/// What a class sees as NAME: one of the family, a rival, several, none.
#[derive(Clone, Copy, PartialEq)]
enum Seen {
    Family,
    Rival,
    Mixed,
    None,
}

impl Seen {
    fn and(self, o: Seen) -> Seen {
        match (self, o) {
            (Seen::None, x) | (x, Seen::None) => x,
            (a, b) if a == b => a,
            _ => Seen::Mixed,
        }
    }
}

impl<'a> Rivals<'a> {
    /// The rivals of `t` (picked in `files[i]`), when it is a Java member.
    pub(super) fn of(files: &'a [(PathBuf, Parsed)], i: usize, t: &'a TreeDef) -> Rivals<'a> {
        let java = files[i].1.grammar == crate::text::syntax::grammar::Grammar::Java;
        let member = java && matches!(t.kind, "method" | "field") && t.container.is_some();
        let mut r = Rivals {
            t,
            files,
            all: Vec::new(),
            family: vec![(files[i].0.as_path(), t)],
            defs: Vec::new(),
            classes: Classes::of(files),
            overrides: false,
            external: None,
            member,
        };
        if !member {
            return r;
        }
        for (p, f) in files
            .iter()
            .filter(|(_, f)| f.grammar == files[i].1.grammar)
        {
            for d in f
                .defs
                .iter()
                .filter(|d| d.kind == t.kind && d.container.is_some())
            {
                r.all.push((p.as_path(), d));
            }
        }
        if t.kind == "method" {
            r.grow_family();
        }
        for &(p, d) in &r.all {
            // Overloads in the picked class are renamed with it.
            if owner(d) != owner(t) && !r.in_family(p, d) {
                r.defs.push((p, d));
            }
        }
        if t.kind == "method" {
            r.judge_overrides(files);
        }
        r
    }

    fn class_of(&self, p: &Path, d: &TreeDef) -> Option<usize> {
        self.classes.find(p, owner(d))
    }

    fn in_family(&self, p: &Path, d: &TreeDef) -> bool {
        self.family
            .iter()
            .any(|(fp, fd)| *fp == p && fd.qualified == d.qualified)
    }

    /// Adds every definition whose class is above or below a family member's.
    fn grow_family(&mut self) {
        loop {
            let mut added = false;
            for &(p, d) in &self.all {
                if self.in_family(p, d) {
                    continue;
                }
                let Some(c) = self.class_of(p, d) else {
                    continue;
                };
                let above = self.classes.ancestors(c).0;
                let related = self.family.iter().any(|&(fp, fd)| {
                    self.class_of(fp, fd).is_some_and(|fc| {
                        above.contains(&fc) || self.classes.ancestors(fc).0.contains(&c)
                    })
                });
                if related {
                    self.family.push((p, d));
                    added = true;
                }
            }
            if !added {
                return;
            }
        }
    }

    /// Whether `c` has a class above it that defines NAME.
    fn overrides_ours(&self, c: usize) -> bool {
        let above = self.classes.ancestors(c).0;
        self.all
            .iter()
            .any(|&(p, d)| self.class_of(p, d).is_some_and(|k| above.contains(&k)))
    }

    /// Marks a family member overriding a method none of our classes
    /// declares, and a rival overriding one of a type that is not known.
    fn judge_overrides(&mut self, files: &'a [(PathBuf, Parsed)]) {
        let parsed = |p: &Path| files.iter().find(|(fp, _)| fp == p).map(|(_, f)| f);
        for &(p, d) in &self.family {
            if parsed(p).is_some_and(|f| has_override(f, d))
                && self.class_of(p, d).is_none_or(|c| !self.overrides_ours(c))
            {
                self.external = Some((p, d));
            }
        }
        for &(p, d) in &self.defs {
            if !parsed(p).is_some_and(|f| has_override(f, d)) {
                continue;
            }
            self.overrides |= match self.class_of(p, d) {
                // A method of an anonymous or local class.
                None => true,
                Some(c) => !self.overrides_ours(c) && self.classes.ancestors(c).1,
            };
        }
    }

    /// A definition renamed with the target that overrides a method none of
    /// our classes declares (a library's or the JDK's).
    pub(super) fn external(&self) -> Option<(&'a Path, &'a TreeDef)> {
        self.external
    }

    /// What the class `c` sees as NAME (its own, else its supertypes').
    fn seen(&self, c: usize) -> Seen {
        self.seen_from(c, &mut HashSet::new())
    }

    /// `seen`, each class looked at once (`visited`): a diamond or a cycle
    /// of supertypes (hostile Java) adds nothing the first visit did not.
    fn seen_from(&self, c: usize, visited: &mut HashSet<usize>) -> Seen {
        if !visited.insert(c) {
            return Seen::None;
        }
        let cl = self.classes.get(c);
        if let Some(&(p, d)) = self
            .all
            .iter()
            .find(|(p, d)| *p == cl.path && owner(d) == cl.qualified)
        {
            return if self.in_family(p, d) {
                Seen::Family
            } else {
                Seen::Rival
            };
        }
        self.classes
            .supers(c)
            .into_iter()
            .fold(Seen::None, |s, k| s.and(self.seen_from(k, visited)))
    }

    /// What a bare NAME in the body `(from, to, ty)` of an anonymous class
    /// sees: what its created type `ty` sees (`None`, the enclosing class's
    /// then, when that type's supertypes are all known). Unknown when the
    /// body defines NAME itself or `ty` is not one of our classes.
    fn anon_seen(
        &self,
        f: &Parsed,
        path: &Path,
        (from, to, ty): (usize, usize, &str),
    ) -> Option<Seen> {
        let line_of = |at: usize| {
            f.text
                .get(..at)
                .map_or(0, |t| t.matches('\n').count() as u64 + 1)
        };
        let (first, last) = (line_of(from), line_of(to));
        if (f.defs.iter())
            .any(|d| d.kind == self.t.kind && d.start_line >= first && d.end_line <= last)
        {
            return None;
        }
        let classes = self.classes.named(ty, path);
        if classes.is_empty() || classes.iter().any(|&c| self.classes.ancestors(c).1) {
            return None;
        }
        Some(self.seen_in(classes))
    }

    /// What the classes `classes` (the ones a type may be) see as NAME.
    fn seen_in(&self, classes: Vec<usize>) -> Seen {
        classes
            .into_iter()
            .fold(Seen::None, |s, k| s.and(self.seen(k)))
    }

    /// The classes the expression that `before` ends with may be (`x`,
    /// `this`, `Foo`, `new Foo(..)`, `((Foo) x)`, `a.get(..)` by the declared
    /// return type of `get`, fluent chains of these), when all are known.
    fn expr_classes(
        &self,
        f: &Parsed,
        path: &Path,
        line: u64,
        before: &str,
        depth: u8,
    ) -> Option<Vec<usize>> {
        let ident = |b: u8| b.is_ascii_alphanumeric() || b == b'_' || b == b'$';
        let before = before.trim_end();
        let here = || {
            enclosing(f, line)
                .first()
                .and_then(|c| self.classes.find(path, c))
        };
        let Some(args) = before.strip_suffix(')') else {
            let rs = before.bytes().rposition(|b| !ident(b)).map_or(0, |i| i + 1);
            let x = &before[rs..];
            if before[..rs].trim_end().ends_with(['.', ')']) || x.is_empty() {
                return None;
            }
            return Some(if x == "this" {
                vec![here()?]
            } else if x.starts_with(|c: char| c.is_ascii_uppercase()) {
                self.classes.named(x, path)
            } else {
                self.classes
                    .named(declared_dotted(f, x, offset(f, x)?)?, path)
            });
        };
        let mut open_depth = 1;
        let open = args.bytes().rposition(|b| {
            open_depth += match b {
                b')' => 1,
                b'(' => -1,
                _ => 0,
            };
            open_depth == 0
        })?;
        let callee = args[..open].trim_end();
        let start = callee.bytes().rposition(|b| !ident(b)).map_or(0, |i| i + 1);
        let method = &callee[start..];
        if method.is_empty() {
            // `((Foo) x).NAME`: a Foo.
            let cast = args[open + 1..].trim_start().strip_prefix('(')?;
            let ty = cast[..cast.find(')')?].trim();
            let plain = ty.bytes().all(|b| ident(b) || b == b'.')
                && simple(ty).starts_with(|c: char| c.is_ascii_uppercase());
            return plain.then(|| self.classes.named(ty, path));
        }
        // `new Foo(...).NAME`: a Foo.
        let head = callee[..start].trim_end();
        if head.ends_with("new")
            && !head[..head.len() - 3].ends_with(|c: char| ident(c as u8))
            && method.starts_with(|c: char| c.is_ascii_uppercase())
        {
            return Some(self.classes.named(method, path));
        }
        let classes = match head.strip_suffix('.') {
            None => vec![here()?],
            Some(_) if depth > 8 => return None,
            Some(r) => self.expr_classes(f, path, line, r, depth + 1)?,
        };
        // What `method` returns in each class: all must be known and agree.
        let mut out: Option<Vec<usize>> = None;
        for k in classes {
            let cl = self.classes.get(k);
            let (_, pf) = self.files.iter().find(|(p, _)| p == cl.path)?;
            let d = pf
                .scopes
                .iter()
                .find(|d| d.kind == "method" && d.name == method && owner(d) == cl.qualified)?;
            let rt = self.classes.named(return_type(&pf.text, d)?, cl.path);
            if out.as_ref().is_some_and(|o| *o != rt) {
                return None;
            }
            out = Some(rt);
        }
        out.filter(|o| !o.is_empty())
    }

    /// A use of NAME judged by the classes: the definition its receiver's
    /// class (or the enclosing class, for a bare NAME) has or inherits.
    /// `Some(None)` renamed, `Some(Some(why))` left, `None` not known here.
    pub(super) fn resolve(
        &self,
        o: &Occurrence,
        f: &Parsed,
        path: &Path,
    ) -> Option<Option<&'static str>> {
        if !self.member {
            return None;
        }
        if o.kind == RefKind::Definition {
            let d = f
                .defs
                .iter()
                .filter(|d| d.kind == self.t.kind && o.line >= d.start_line && o.line <= d.end_line)
                .min_by_key(|d| d.end_line - d.start_line)?;
            return self.in_family(path, d).then_some(None);
        }
        if matches!(o.kind, RefKind::Import | RefKind::String | RefKind::Comment) {
            return None;
        }
        let dotted = after_dot(f, o);
        let here = enclosing(f, o.line);
        let inner = || here.first().and_then(|c| self.classes.find(path, c));
        let (seen, bare) = match &o.member_of {
            // `x::NAME`: judged by its receiver, never by the enclosing class.
            None if let Some(recv) = method_ref(f, o) => {
                let word = recv.rsplit(|c: char| !is_ident(c)).next().unwrap_or(recv);
                match word {
                    "super" if !recv[..recv.len() - 5].ends_with('.') => {
                        let s = (self.classes.supers(inner()?).into_iter())
                            .fold(Seen::None, |s, k| s.and(self.seen(k)));
                        (s, true)
                    }
                    "this" => (self.seen(inner()?), true),
                    _ => {
                        let classes = self.expr_classes(f, path, o.line, recv, 0)?;
                        (self.seen_in(classes), false)
                    }
                }
            }
            None | Some(None) if !dotted => {
                let mut s = match anonymous_type(f, o) {
                    Some(t) => self.anon_seen(f, path, t)?,
                    None => Seen::None,
                };
                for c in &here {
                    if s != Seen::None {
                        break;
                    }
                    s = self
                        .classes
                        .find(path, c)
                        .map_or(Seen::None, |k| self.seen(k));
                }
                (s, true)
            }
            Some(Some(obj)) if obj == "this" => match anonymous_type(f, o) {
                Some(t) => (self.anon_seen(f, path, t)?, true),
                None => (self.seen(inner()?), true),
            },
            Some(_) if receiver_is_super(f, o) => {
                let s = (self.classes.supers(inner()?).into_iter())
                    .fold(Seen::None, |s, k| s.and(self.seen(k)));
                (s, true)
            }
            Some(Some(obj)) => {
                let classes = if obj.starts_with(|c: char| c.is_ascii_uppercase()) {
                    self.classes.named(obj, path)
                } else {
                    self.classes.named(declared_dotted(f, obj, o.start)?, path)
                };
                (self.seen_in(classes), false)
            }
            Some(None) => {
                let before = f.text.get(..o.start)?.trim_end().strip_suffix('.')?;
                let classes = self.expr_classes(f, path, o.line, before, 0)?;
                (self.seen_in(classes), false)
            }
            None => return None,
        };
        match seen {
            Seen::Family => Some(None),
            Seen::Rival if bare => Some(Some("shadowed")),
            Seen::Rival => Some(Some("member")),
            _ => None,
        }
    }

    pub(super) fn any(&self) -> bool {
        !self.defs.is_empty()
    }

    /// Whether a rival overrides a method of a type that is not known.
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
        let this = matches!(&o.member_of, Some(Some(obj)) if obj == "this");
        if method_ref(f, o).is_some()
            || (anonymous_type(f, o).is_some() && (this || !dotted_at(f, o)))
        {
            // `x::NAME` whose receiver's class was not known.
            return None;
        }
        let own = owner(self.t);
        let dotted = after_dot(f, o);
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
                let mine =
                    ty == simple(own) || self.family.iter().any(|(_, d)| simple(owner(d)) == ty);
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

/// The declared return type of the method `d` of `text` (`Foo` of `static
/// Foo<T> get(`), when it is a class name.
fn return_type<'t>(text: &'t str, d: &TreeDef) -> Option<&'t str> {
    let from = line_start(text, d.start_line);
    let at = crate::text::syntax::refs::word_hits(text.as_bytes(), d.name.as_bytes())
        .into_iter()
        .find(|&at| {
            at >= from
                && text
                    .get(at + d.name.len()..)
                    .is_some_and(|r| r.trim_start().starts_with('('))
        })?;
    let mut ty = text.get(from..at)?.trim_end();
    if let Some(open) = ty
        .strip_suffix('>')
        .and_then(|t| t.find('<').map(|i| &t[..i]))
    {
        ty = open.trim_end();
    }
    let start = ty
        .bytes()
        .rposition(|b| !(b.is_ascii_alphanumeric() || b == b'_' || b == b'$'))
        .map_or(0, |i| i + 1);
    let name = &ty[start..];
    name.starts_with(|c: char| c.is_ascii_uppercase())
        .then_some(name)
}

fn is_ident(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '$'
}

/// The text before `o` up to its method reference's receiver (`..x` of `x::NAME`).
fn method_ref<'f>(f: &'f Parsed, o: &Occurrence) -> Option<&'f str> {
    let recv = f.text.get(..o.start)?.trim_end().strip_suffix("::")?;
    Some(recv.trim_end())
}

/// Whether `o` is `super.NAME`.
fn receiver_is_super(f: &Parsed, o: &Occurrence) -> bool {
    f.text
        .get(..o.start)
        .and_then(|t| t.trim_end().strip_suffix('.'))
        .and_then(|t| t.trim_end().strip_suffix("super"))
        .is_some_and(|t| {
            !t.ends_with(|c: char| c.is_ascii_alphanumeric() || c == '_' || c == '$' || c == '.')
        })
}

/// Whether `o` follows a `.` (`x.NAME`).
fn dotted_at(f: &Parsed, o: &Occurrence) -> bool {
    f.text
        .get(..o.start)
        .unwrap_or("")
        .trim_end()
        .ends_with('.')
}

/// The innermost anonymous class body holding `o`, when no named class
/// inside it holds `o`: (its byte span, its created type).
fn anonymous_type<'f>(f: &'f Parsed, o: &Occurrence) -> Option<(usize, usize, &'f str)> {
    let body = (f.anon.iter())
        .filter(|(a, b, _)| *a < o.start && o.start < *b)
        .max_by_key(|(a, _, _)| *a)?;
    let body_line = f.text.get(..body.0)?.matches('\n').count() as u64 + 1;
    let named_inside = (f.scopes.iter())
        .filter(|d| matches!(d.kind, "class" | "interface" | "enum" | "record"))
        .any(|d| d.start_line > body_line && (d.start_line..=d.end_line).contains(&o.line));
    (!named_inside).then_some((body.0, body.1, body.2.as_str()))
}

/// Where `part` (a slice of `f`'s text) starts in it.
fn offset(f: &Parsed, part: &str) -> Option<usize> {
    let at = (part.as_ptr() as usize).checked_sub(f.text.as_ptr() as usize)?;
    (at + part.len() <= f.text.len()).then_some(at)
}

/// The type `obj` (used at byte `at`) is declared with in `f`, qualified as
/// written (`CodeBlock.Builder` of `CodeBlock.Builder obj;`): the nearest
/// declaration before the use in its innermost method, else one in the
/// innermost enclosing class outside its methods (a field, a lambda's).
fn declared_dotted<'a>(f: &'a Parsed, obj: &str, at: usize) -> Option<&'a str> {
    let decls = super::java::declared_types(f, obj);
    let line_of = |at: usize| {
        f.text
            .get(..at)
            .map_or(0, |t| t.matches('\n').count() as u64 + 1)
    };
    let line = line_of(at);
    let within = |d: &TreeDef, l: u64| (d.start_line..=d.end_line).contains(&l);
    let methods: Vec<&TreeDef> = (f.scopes.iter())
        .filter(|d| matches!(d.kind, "method" | "constructor"))
        .collect();
    let method = (methods.iter())
        .filter(|d| within(d, line))
        .min_by_key(|d| d.end_line - d.start_line);
    let local = method.and_then(|m| {
        (decls.iter())
            .filter(|(d, _)| *d < at && within(m, line_of(*d)))
            .max_by_key(|(d, _)| *d)
    });
    let in_class = |q: &str, d: usize| {
        let l = line_of(d);
        f.scopes.iter().any(|c| c.qualified == q && within(c, l))
            && !methods.iter().any(|m| within(m, l))
    };
    let ty = local
        .or_else(|| {
            enclosing(f, line)
                .into_iter()
                .find_map(|c| decls.iter().find(|(d, _)| in_class(c, *d)))
        })
        .map(|&(_, t)| t)?;
    let end = (ty.as_ptr() as usize).checked_sub(f.text.as_ptr() as usize)? + ty.len();
    let head = f.text.get(..end)?;
    let start = head
        .bytes()
        .rposition(|b| !(b.is_ascii_alphanumeric() || b == b'_' || b == b'$' || b == b'.'))
        .map_or(0, |i| i + 1);
    head.get(start..)
}

/// Whether the use `o` in `f` follows a `.` (`x.NAME`, `f().NAME`): a member
/// access, whatever the grammar named its receiver.
fn after_dot(f: &Parsed, o: &Occurrence) -> bool {
    f.text
        .get(..o.start)
        .unwrap_or("")
        .trim_end()
        .ends_with('.')
}

//! The scan's filters: `--glob`/`--type` globs, size and hidden-file rules, as
//! compiled once per walk and asked for each entry.

#[allow(unused_imports)]
use super::*;

pub(super) struct Glob {
    pub(super) how: GlobMatch,
    /// Matches the workspace-relative path rather than the base name.
    pub(super) whole: bool,
}

/// Most globs are names (`.git`) or one star between literals (`.aitools-*.tmp`,
/// `*.rs`); compiling those to a regex costs more than a scan of a small tree, so
/// only the rest go to globset.
pub(super) enum GlobMatch {
    Exact(String),
    /// `prefix*suffix` with no `/` (a star does not cross a separator).
    Star(String, String),
    Compiled(GlobMatcher),
}

impl Glob {
    pub(super) fn is_match(&self, rel: &Path, base: &std::ffi::OsStr) -> bool {
        let subject = if self.whole { rel.as_os_str() } else { base };
        let bytes = subject.as_encoded_bytes();
        match &self.how {
            GlobMatch::Exact(text) => bytes == text.as_bytes(),
            GlobMatch::Star(pre, suf) => {
                bytes.len() >= pre.len() + suf.len()
                    && bytes.starts_with(pre.as_bytes())
                    && bytes.ends_with(suf.as_bytes())
                    && !bytes[pre.len()..bytes.len() - suf.len()].contains(&b'/')
            }
            GlobMatch::Compiled(m) => m.is_match(subject),
        }
    }
}

pub(super) fn compile_glob(text: &str) -> Result<Glob, ScanError> {
    let body = text.trim_end_matches('/');
    let whole = body.contains('/');
    let body = body.trim_start_matches('/');
    let meta = |c: char| matches!(c, '*' | '?' | '[' | ']' | '{' | '}' | '\\');
    if !body.contains(meta) {
        return Ok(Glob {
            how: GlobMatch::Exact(body.to_string()),
            whole,
        });
    }
    if let Some((pre, suf)) = body.split_once('*')
        && !pre.contains(meta)
        && !suf.contains(meta)
        && !pre.contains('/')
        && !suf.contains('/')
    {
        return Ok(Glob {
            how: GlobMatch::Star(pre.to_string(), suf.to_string()),
            whole,
        });
    }
    let matcher = GlobBuilder::new(body)
        .literal_separator(true)
        .backslash_escape(true)
        .build()
        .map_err(|e| ScanError::BadGlob {
            glob: text.to_string(),
            message: e.kind().to_string(),
        })?
        .compile_matcher();
    Ok(Glob {
        how: GlobMatch::Compiled(matcher),
        whole,
    })
}

/// The compiled filters of one scan.
pub(super) struct Filters {
    pub(super) root: PathBuf,
    pub(super) includes: Vec<Glob>,
    pub(super) excludes: Vec<Glob>,
    pub(super) always: Vec<Glob>,
    pub(super) builtin_dirs: Vec<Glob>,
    pub(super) lang: Option<&'static crate::text::lang::Language>,
    pub(super) newer: Option<SystemTime>,
    pub(super) skip_larger_than: Option<u64>,
    pub(super) include_dirs: bool,
}

impl Filters {
    pub(super) fn new(
        root: &Path,
        opts: &ScanOptions,
        builtin: bool,
    ) -> Result<Filters, ScanError> {
        let mut includes = Vec::new();
        let mut excludes = Vec::new();
        for g in &opts.globs {
            match g.strip_prefix('!') {
                Some(ex) => excludes.push(compile_glob(ex)?),
                None => includes.push(compile_glob(g)?),
            }
        }
        let mut always = Vec::new();
        let mut builtin_dirs = Vec::new();
        for line in EXCLUDES.lines() {
            if let Some((kind, glob)) = line.split_once('\t') {
                match kind {
                    "always" => always.push(compile_glob(glob)?),
                    "no-git" if builtin => builtin_dirs.push(compile_glob(glob)?),
                    _ => {}
                }
            }
        }
        let lang = match &opts.lang {
            Some(l) => {
                Some(crate::text::lang::named(l).ok_or_else(|| ScanError::UnknownLang(l.clone()))?)
            }
            None => None,
        };
        Ok(Filters {
            root: root.to_path_buf(),
            includes,
            excludes,
            always,
            builtin_dirs,
            lang,
            newer: opts.newer,
            skip_larger_than: opts.skip_larger_than,
            include_dirs: opts.include_dirs,
        })
    }

    pub(super) fn rel<'p>(&self, path: &'p Path) -> &'p Path {
        strip_root(path, &self.root)
    }

    /// Whether a walked entry (below a start) is pruned with everything below it.
    pub(super) fn prune(&self, dent: &ignore::DirEntry) -> bool {
        let is_dir = dent.file_type().is_some_and(|t| t.is_dir());
        self.prune_path(dent.path(), is_dir)
    }

    pub(super) fn prune_path(&self, path: &Path, is_dir: bool) -> bool {
        let Some(base) = super::order::file_name(path) else {
            return false;
        };
        let rel = self.rel(path);
        if self.always.iter().any(|g| g.is_match(rel, base)) {
            return true;
        }
        if is_dir && self.builtin_dirs.iter().any(|g| g.is_match(rel, base)) {
            return true;
        }
        self.excludes.iter().any(|g| g.is_match(rel, base))
    }

    /// The filters `Local::handle` applies after pruning, for a staged entry.
    pub(super) fn admits(&self, path: &Path, kind: Kind, len: u64) -> Option<bool> {
        if kind != Kind::File && !self.include_dirs {
            return None;
        }
        let base = super::order::file_name(path)?;
        let rel = self.rel(path);
        if !self.includes.is_empty() && !self.includes.iter().any(|g| g.is_match(rel, base)) {
            return None;
        }
        if let Some(lang) = self.lang {
            let name = base.to_string_lossy();
            if kind != Kind::File
                || crate::text::lang::of_file(&name).is_none_or(|l| l.name != lang.name)
            {
                return None;
            }
        }
        if let (Some(max), Kind::File) = (self.skip_larger_than, kind)
            && len > max
        {
            return Some(false);
        }
        Some(true)
    }
}

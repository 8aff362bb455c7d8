//! The masking pass over a JSON tree, and the rules both passes share: which strings
//! are one file's lines (one line machine across an array's line items), which object
//! members are `key: value` pairs (a secret-named key masks its string value, also
//! when a `pointer` member names the value shown beside it). The tree pass
//! (`mask_tree`) passes over a string the prefilter rules out, as the streaming
//! writer does; `mask_tree_reference` runs the detectors on every string: the plain
//! reference both are tested against.

use super::echo;
use super::json::Json;
use super::lines::{self, Lines, Span};
use super::paths;
use super::second::Recorded;
use super::{PLACEHOLDER, policy, prefilter};
use std::ops::Range;

/// Counts and values of one masking pass.
#[derive(Default)]
pub struct Masker {
    pub recorded: Recorded,
    pub count: usize,
    /// Every string runs the detectors, none is ruled out by the prefilter first
    /// (`mask_tree_reference`: what the prefilter is tested against).
    pub thorough: bool,
    /// The names of the `find --tree` nodes down to the one whose `children` are
    /// being walked: a child's `name` is judged under them (`paths::name_spans_under`).
    pub dir: Option<String>,
}

impl Masker {
    /// `s` masked, continuing `lines`'s state; `None` when nothing is masked.
    pub fn string(&mut self, s: &str, lines: &mut Lines) -> Option<String> {
        // In a normal state a string the prefilter rules out has no secret and
        // leaves the machine as it was (the writer's rule).
        if !self.thorough
            && lines.state == lines::State::Normal
            && !prefilter::may_hold_secret(s.as_bytes())
        {
            return None;
        }
        let spans = lines::spans_in(s, lines);
        self.apply(s, spans)
    }

    /// A string that is not one of a file's lines (a path, a message, a command, a
    /// diff): the line pass, then the echo sub-passes when the string can hold one.
    pub fn standalone(&mut self, s: &str) -> Option<String> {
        if !self.thorough && !prefilter::may_hold_secret(s.as_bytes()) {
            return None;
        }
        let mut spans = lines::spans_in(s, &mut Lines::default());
        if echo::may_echo(s.as_bytes()) {
            for range in echo::spans(s) {
                let counted = !spans
                    .iter()
                    .any(|sp| sp.range.start < range.end && range.start < sp.range.end);
                spans.push(Span {
                    range,
                    counted,
                    again: counted,
                });
            }
            spans.sort_by_key(|sp| sp.range.start);
        }
        self.apply(s, spans)
    }

    /// A path (`paths`): masked whole as a string of its own, and each of its
    /// names on its own.
    pub fn path(&mut self, s: &str) -> Option<String> {
        self.path_under(None, s)
    }

    /// `path` for `s` listed under the directory `dir` (a tree node's name under
    /// its parent's: `password=` masks the name below it).
    pub fn path_under(&mut self, dir: Option<&str>, s: &str) -> Option<String> {
        if !self.thorough
            && !prefilter::may_hold_secret(s.as_bytes())
            && paths::dir_key_of(dir).is_none()
        {
            return None;
        }
        let mut spans = lines::spans_in(s, &mut Lines::default());
        // A value read across a name's end (`password=/K`) starts at its name:
        // the slash stays shown.
        for sp in &mut spans {
            let slashes = s[sp.range.clone()]
                .bytes()
                .take_while(|&b| b == b'/')
                .count();
            sp.range.start += slashes.min(sp.range.len().saturating_sub(1));
        }
        // A name's value inside a span of the whole is not counted again, but
        // noted (`K` of `api_key=K.txt`, for its bare twins).
        let whole = spans.len();
        for mut sp in paths::name_spans_under(dir, s) {
            let (start, end) = (sp.range.start, sp.range.end);
            sp.counted &= !spans[..whole]
                .iter()
                .any(|o| o.range.start < end && start < o.range.end);
            spans.push(sp);
        }
        spans.sort_by_key(|sp| sp.range.start);
        self.apply(s, spans)
    }

    /// `s` with `spans` (sorted by start; overlapping ones join) masked.
    fn apply(&mut self, s: &str, spans: Vec<Span>) -> Option<String> {
        if spans.is_empty() {
            return None;
        }
        let mut out = String::with_capacity(s.len());
        let mut last = 0;
        for sp in &spans {
            // A span over the mask alone (a block scalar's line a command masked
            // before its envelope, `run`'s output) is a secret counted already.
            if sp.counted && &s[sp.range.clone()] != PLACEHOLDER {
                self.count += 1;
            }
            if sp.again {
                self.recorded.note(&s[sp.range.clone()]);
            }
            if sp.range.start < last {
                // Overlaps the mask just written: that mask covers it too.
                last = last.max(sp.range.end);
                continue;
            }
            out.push_str(&s[last..sp.range.start]);
            out.push_str(PLACEHOLDER);
            last = sp.range.end;
        }
        out.push_str(&s[last..]);
        Some(out)
    }

    /// Whether the member `key: value` is a secret as a pair (`{"password": "x"}`);
    /// then the value is masked whole. Notes the value.
    pub fn member(&mut self, key: &str, value: &Json) -> bool {
        let Json::Str(v) = value else { return false };
        let Some(strength) = policy::key_strength(key.as_bytes()) else {
            return false;
        };
        if v.contains('\n') || !policy::is_secret_value(v.as_bytes(), true, strength) {
            return false;
        }
        self.recorded.note(v);
        self.count += 1;
        true
    }

    /// Whether `value`, an element of a list under the key `key` (`{"api_keys":
    /// ["..."]}`, `json get f /api_keys/0`), is a secret; then it is masked whole.
    /// Judged as after a weak key: the key names the list, and a list of names
    /// (`secrets: ["db-password"]`) stays shown.
    pub fn element(&mut self, key: &str, value: &Json) -> bool {
        let Json::Str(v) = value else { return false };
        if policy::list_key_strength(key.as_bytes()).is_none()
            || v.contains('\n')
            || !policy::is_secret_element(v.as_bytes(), true)
        {
            return false;
        }
        self.recorded.note(v);
        self.count += 1;
        true
    }

    /// Whether `value`, a string at any depth under a key that strongly names a
    /// secret (`"credentials": {"primary": {"value": "..."}}`), is a secret: judged
    /// as a list's element under a secret key. Then it is masked whole.
    pub fn scoped(&mut self, value: &str) -> bool {
        if value.contains('\n') || !policy::is_secret_element(value.as_bytes(), true) {
            return false;
        }
        self.recorded.note(value);
        self.count += 1;
        true
    }

    /// Whether the member `key: value` is judged as pointed at: by the key its
    /// object's `pointer` names (`named`: the key, and whether the pointer ends in an
    /// element's index).
    pub fn pointed(&mut self, key: &str, value: &Json, named: &Option<(String, bool)>) -> bool {
        match named {
            Some((n, indexed)) if shows_pointed(key) => {
                if *indexed {
                    self.element(n, value)
                } else {
                    self.member(n, value)
                }
            }
            _ => false,
        }
    }
}

/// Whether the member `key` holds a list whose elements `Masker::element` judges.
pub fn keyed_list(key: &str, value: &Json) -> bool {
    matches!(value, Json::Arr(_)) && policy::list_key_strength(key.as_bytes()).is_some()
}

/// Whether the member `key: value` holds an object or a list under a key that
/// strongly names a secret (`credentials`, `secrets`): every string nested in it
/// is judged by `Masker::scoped`, as YAML's `credentials:` block is.
pub fn scopes(key: &str, value: &Json) -> bool {
    matches!(value, Json::Obj(_) | Json::Arr(_))
        && policy::list_key_strength(key.as_bytes()) == Some(policy::Strength::Strong)
}

/// Whether an object shows a value from under a key that strongly names a secret:
/// a token of its `pointer` member does (`json get f /credentials/primary/value`).
pub fn pointer_scoped(members: &[(String, Json)]) -> bool {
    let Some((_, Json::Str(p))) = members.iter().find(|(k, _)| k == "pointer") else {
        return false;
    };
    p.split('/').skip(1).any(|t| {
        let t = t.replace("~1", "/").replace("~0", "~");
        policy::list_key_strength(t.as_bytes()) == Some(policy::Strength::Strong)
    })
}

/// The key that names the value an object shows apart from its document: the last
/// token of its `pointer` member (`json get f /db/password` answers
/// `{"pointer":"/db/password","value":"..."}`), `~1` and `~0` decoded; for an
/// element (`/api_keys/0`) the list's key, and `true`.
pub fn pointer_key(members: &[(String, Json)]) -> Option<(String, bool)> {
    let (_, Json::Str(p)) = members.iter().find(|(k, _)| k == "pointer")? else {
        return None;
    };
    let mut tokens = p.strip_prefix('/')?.rsplit('/');
    let mut last = tokens.next().filter(|t| !t.is_empty())?;
    let indexed = last.bytes().all(|b| b.is_ascii_digit());
    if indexed {
        last = tokens.next().filter(|t| !t.is_empty())?;
    }
    Some((last.replace("~1", "/").replace("~0", "~"), indexed))
}

/// The members that show the value a `pointer` member names.
pub fn shows_pointed(key: &str) -> bool {
    matches!(key, "value" | "text" | "value_preview")
}

/// How a member holds paths (`paths`): a path, a list of them (at any depth), or
/// a table whose columns (`true`: a path column) its rows are.
pub enum PathRole {
    One,
    List,
    Table(Vec<bool>),
}

/// The path columns of an object's table (`fields` naming its `items` rows'
/// values), and whether its bare `items` are paths (by its `command`).
pub fn path_context(members: &[(String, Json)]) -> (Option<Vec<bool>>, bool) {
    let mut columns = None;
    let mut bare = false;
    for (k, v) in members {
        match (k.as_str(), v) {
            ("fields", Json::Arr(names)) => {
                let c = names
                    .iter()
                    .map(|n| matches!(n, Json::Str(n) if paths::path_column(n)))
                    .collect::<Vec<bool>>();
                columns = c.iter().any(|&p| p).then_some(c);
            }
            ("command", Json::Str(c)) => bare = paths::bare_path_items(c),
            _ => {}
        }
    }
    (columns, bare)
}

/// The member `key: value`'s paths, given its object's `path_context`.
pub fn path_role(key: &str, value: &Json, ctx: &(Option<Vec<bool>>, bool)) -> Option<PathRole> {
    match value {
        Json::Str(_) if paths::path_member(key) => Some(PathRole::One),
        Json::Arr(_) if paths::path_list(key) => Some(PathRole::List),
        Json::Arr(_) if key == "items" => match ctx {
            (Some(columns), _) => Some(PathRole::Table(columns.clone())),
            (None, true) => Some(PathRole::List),
            _ => None,
        },
        _ => None,
    }
}

/// A value that is a path or a list of them, masked as paths.
fn walk_paths(value: &mut Json, m: &mut Masker) {
    match value {
        Json::Str(s) => {
            if let Some(masked) = m.path(s) {
                *s = masked;
            }
        }
        Json::Arr(items) => items.iter_mut().for_each(|i| walk_paths(i, m)),
        other => walk(other, m, None),
    }
}

/// A member's paths masked by its role.
fn walk_role(value: &mut Json, m: &mut Masker, role: &PathRole) {
    match (role, value) {
        (PathRole::Table(columns), Json::Arr(rows)) => {
            for row in rows {
                match row {
                    Json::Arr(cells) => {
                        for (j, c) in cells.iter_mut().enumerate() {
                            if columns.get(j) == Some(&true) {
                                walk_paths(c, m);
                            } else {
                                walk(c, m, None);
                            }
                        }
                    }
                    other => walk(other, m, None),
                }
            }
        }
        (_, value) => walk_paths(value, m),
    }
}

/// The text of an array element as the line machine sees it: a string, or the `text`
/// member of an object (`read --as strings` items, search matches).
pub fn line_text(item: &Json) -> bool {
    match item {
        Json::Str(_) => true,
        Json::Obj(_) => matches!(item.get("text"), Some(Json::Str(_))),
        _ => false,
    }
}

/// Masks every string and key of the tree in place, then every other occurrence of a
/// masked value; returns how many regions were masked.
pub fn mask_tree(value: &mut Json) -> usize {
    let mut m = Masker::default();
    walk(value, &mut m, None);
    let again = m.recorded.mask_tree(value);
    m.count + again
}

/// `mask_tree` leaving the top-level members `trusted` (by index) as they are, but
/// for the second pass; the other members are judged as the object without them.
pub fn mask_tree_trusting(value: &mut Json, trusted: Range<usize>) -> usize {
    let mut m = Masker::default();
    match value {
        Json::Obj(members) if !trusted.is_empty() && trusted.end <= members.len() => {
            let at = trusted.start;
            let kept: Vec<(String, Json)> = members.drain(trusted).collect();
            walk(value, &mut m, None);
            if let Json::Obj(members) = value {
                members.splice(at..at, kept);
            }
        }
        _ => walk(value, &mut m, None),
    }
    let again = m.recorded.mask_tree(value);
    m.count + again
}

/// `mask_tree` with no string ruled out by the prefilter: the reference the
/// prefilter (here and in the writer) is tested against.
pub fn mask_tree_reference(value: &mut Json) -> usize {
    let mut m = Masker {
        thorough: true,
        ..Masker::default()
    };
    walk(value, &mut m, None);
    let again = m.recorded.mask_tree(value);
    m.count + again
}

/// `mask_tree`, with `values` (secrets a command masked itself before its
/// answer was built) also masked wherever else they appear.
pub fn mask_tree_noted(value: &mut Json, values: &[String]) -> usize {
    let mut m = Masker::default();
    values.iter().for_each(|v| m.recorded.note(v));
    walk(value, &mut m, None);
    let again = m.recorded.mask_tree(value);
    m.count + again
}

/// `mask_tree` continuing `m`: values it masked before are masked here too (the
/// AOI stream masks event after event).
pub fn mask_with(m: &mut Masker, value: &mut Json) -> usize {
    let before = m.count;
    walk(value, m, None);
    let again = m.recorded.mask_tree(value);
    m.count - before + again
}

fn mask_in_place(s: &mut String, m: &mut Masker, lines: Option<&mut Lines>) {
    let masked = match lines {
        Some(l) => m.string(s, l),
        None => m.standalone(s),
    };
    if let Some(masked) = masked {
        *s = masked;
    }
}

/// A value under a key that strongly names a secret (`scopes`): each string in it
/// masked whole when `Masker::scoped` says so, else as a string of its own.
fn walk_scoped(value: &mut Json, m: &mut Masker) {
    match value {
        Json::Str(s) => {
            if m.scoped(s) {
                *value = Json::str(PLACEHOLDER);
            } else {
                mask_in_place(s, m, None);
            }
        }
        Json::Arr(items) => items.iter_mut().for_each(|item| walk_scoped(item, m)),
        Json::Obj(members) if describes(members) => walk(value, m, None),
        Json::Obj(members) => {
            for (k, v) in members.iter_mut() {
                mask_in_place(k, m, Some(&mut Lines::default()));
                walk_scoped(v, m);
            }
        }
        _ => {}
    }
}

/// An object of a schema or API model (a member named by `policy::schema_word`):
/// under a secret key it describes the secret, it holds none.
pub fn describes(members: &[(String, Json)]) -> bool {
    members
        .iter()
        .any(|(k, _)| policy::schema_word(k.as_bytes()))
}

/// `lines`: the machine of the array whose line item `value` is.
fn walk(value: &mut Json, m: &mut Masker, lines: Option<&mut Lines>) {
    match value {
        Json::Str(s) => mask_in_place(s, m, lines),
        Json::Arr(items) => {
            let mut l = Lines::default();
            // Key lines just before the current item, shown so far (`retro`).
            let mut pending: Vec<usize> = Vec::new();
            for i in 0..items.len() {
                if !line_text(&items[i]) {
                    l = Lines::default();
                    pending.clear();
                    walk(&mut items[i], m, None);
                    continue;
                }
                l.closed_unopened = false;
                let changed = match &mut items[i] {
                    Json::Str(s) => match m.string(s, &mut l) {
                        Some(masked) => {
                            *s = masked;
                            true
                        }
                        None => false,
                    },
                    item => {
                        walk(item, m, Some(&mut l));
                        true
                    }
                };
                if l.closed_unopened {
                    // The key lines are the last pending items that are key lines.
                    let keep = pending
                        .iter()
                        .rev()
                        .take_while(
                            |&&p| matches!(&items[p], Json::Str(s) if lines::retro(s).is_some()),
                        )
                        .count();
                    pending.drain(..pending.len() - keep);
                    for &p in &pending {
                        if let Json::Str(s) = &mut items[p]
                            && let Some(r) = lines::retro(s)
                        {
                            s.replace_range(r, PLACEHOLDER);
                        }
                    }
                    pending.clear();
                } else if !changed {
                    // Only the last few can be a key's lines.
                    if pending.len() >= 128 {
                        pending.drain(..64);
                    }
                    pending.push(i);
                } else {
                    pending.clear();
                }
            }
        }
        Json::Obj(members) => walk_object(members, m, lines),
        _ => {}
    }
}

/// An object's members (`walk`'s rules for a member: a secret-named pair, a
/// scope, paths, a keyed list, a `text` line of the array's machine `lines`).
fn walk_object(members: &mut [(String, Json)], m: &mut Masker, lines: Option<&mut Lines>) {
    let mut lines = lines;
    let named = pointer_key(members);
    let pointed_scope = pointer_scoped(members);
    let path_ctx = path_context(members);
    // A tree node: its `name` is judged under its parent's, its children's under its own.
    let under = m.dir.take();
    let dir = paths::tree_dir(members);
    for (k, v) in members.iter_mut() {
        if let (Some(d), "children") = (&dir, k.as_str()) {
            m.dir = Some(paths::child_dir(under.as_deref(), d));
            walk(v, m, None);
            m.dir = None;
            continue;
        }
        if let (Some(_), "name", Json::Str(s)) = (&under, k.as_str(), &mut *v) {
            if let Some(masked) = m.path_under(under.as_deref(), s) {
                *s = masked;
            }
            continue;
        }
        let role = path_role(k, v, &path_ctx);
        let pair = m.member(k, v) || m.pointed(k, v, &named);
        let list = keyed_list(k, v).then(|| k.clone());
        let scope = scopes(k, v) || (pointed_scope && shows_pointed(k));
        mask_in_place(k, m, Some(&mut Lines::default()));
        if pair {
            *v = Json::str(PLACEHOLDER);
            continue;
        }
        if scope {
            walk_scoped(v, m);
            continue;
        }
        if let Some(role) = role {
            walk_role(v, m, &role);
            continue;
        }
        if let (Some(key), Json::Arr(items)) = (list, &mut *v) {
            for item in items.iter_mut() {
                if m.element(&key, item) {
                    *item = Json::str(PLACEHOLDER);
                } else {
                    walk(item, m, None);
                }
            }
            continue;
        }
        if k == "text"
            && matches!(v, Json::Str(_))
            && let Some(l) = lines.as_deref_mut()
        {
            walk(v, m, Some(l));
            continue;
        }
        walk(v, m, None);
    }
    m.dir = under;
    let _ = lines.take();
}

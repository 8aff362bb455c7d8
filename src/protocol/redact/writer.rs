//! The streaming writer: the compact JSON text of an envelope with every secret
//! masked, written in one walk with no copy of the tree. Each string is checked by
//! the SIMD prefilter first; only strings it cannot rule out run the detectors. The
//! walk follows `tree`'s rules (array line items share one line machine, secret-named
//! members mask their value), then the second pass runs over the text.

use super::json::{self, Buf, Json, list};
use super::lines::{self, Lines, State};
use super::tree::{
    Masker, PathRole, describes, keyed_list, line_text, path_context, path_role, pointer_key,
    pointer_scoped, scopes, shows_pointed,
};
use super::{PLACEHOLDER, paths, prefilter};
use std::ops::Range;

fn write_str(out: &mut Vec<u8>, s: &str) {
    // Writing to a Vec cannot fail.
    let _ = serde_json::to_writer(&mut *out, s);
}

struct Writer {
    out: Vec<u8>,
    m: Masker,
    /// The top-level object's members (by index) written as they are (taken by
    /// the first object written).
    trusted: Range<usize>,
}

impl Buf for Writer {
    fn buf(&mut self) -> &mut Vec<u8> {
        &mut self.out
    }
}

impl Writer {
    /// Writes `s` masked; whether anything was.
    fn string(&mut self, s: &str, lines: &mut Lines) -> bool {
        // In a normal state a string the prefilter rules out has no secret and leaves
        // the machine as it was.
        if lines.state == State::Normal && !prefilter::may_hold_secret(s.as_bytes()) {
            write_str(&mut self.out, s);
            return false;
        }
        match self.m.string(s, lines) {
            Some(masked) => {
                write_str(&mut self.out, &masked);
                true
            }
            None => {
                write_str(&mut self.out, s);
                false
            }
        }
    }

    /// The elements of a list under a secret-named key (`tree`'s rule).
    fn keyed_items(&mut self, key: &str, items: &[Json]) {
        list(self, b"[]", items, |w, item| {
            if w.m.element(key, item) {
                write_str(&mut w.out, PLACEHOLDER);
            } else {
                w.value(item, None);
            }
        });
    }

    /// Writes `s`, a string that is not a file's line, masked (`Masker::standalone`).
    fn standalone(&mut self, s: &str) {
        let masked = if prefilter::may_hold_secret(s.as_bytes()) {
            self.m.standalone(s)
        } else {
            None
        };
        write_str(&mut self.out, masked.as_deref().unwrap_or(s));
    }

    /// An object's members (`tree`'s rules: a secret-named member's value, a list
    /// under a secret key, a scope under a key strongly naming one, `text` lines).
    fn object(&mut self, members: &[(String, Json)], mut lines: Option<&mut Lines>) {
        let trusted = std::mem::replace(&mut self.trusted, 0..0);
        // A trusted `pointer` is not one the others are judged by (`tree`'s rule).
        let pointer = members.iter().position(|(k, _)| k == "pointer");
        let judged = !pointer.is_some_and(|p| trusted.contains(&p));
        let named = pointer_key(members).filter(|_| judged);
        let pointed_scope = judged && pointer_scoped(members);
        let path_ctx = path_context(members);
        // A tree node (`tree::walk_object`'s rule).
        let under = self.m.dir.take();
        let dir = paths::tree_dir(members);
        list(self, b"{}", members.iter().enumerate(), |w, (i, (k, v))| {
            if trusted.contains(&i) {
                write_str(&mut w.out, k);
                w.out.push(b':');
                let mut plain = json::Writer {
                    out: std::mem::take(&mut w.out),
                };
                plain.write(v);
                w.out = plain.out;
                return;
            }
            if let (Some(d), "children") = (&dir, k.as_str()) {
                write_str(&mut w.out, k);
                w.out.push(b':');
                w.m.dir = Some(paths::child_dir(under.as_deref(), d));
                w.value(v, None);
                w.m.dir = None;
                return;
            }
            if let (Some(_), "name", Json::Str(s)) = (&under, k.as_str(), v) {
                write_str(&mut w.out, k);
                w.out.push(b':');
                let masked = w.m.path_under(under.as_deref(), s);
                write_str(&mut w.out, masked.as_deref().unwrap_or(s));
                return;
            }
            let pair = w.m.member(k, v) || w.m.pointed(k, v, &named);
            w.string(k, &mut Lines::default());
            w.out.push(b':');
            if pair {
                write_str(&mut w.out, PLACEHOLDER);
                return;
            }
            if scopes(k, v) || (pointed_scope && shows_pointed(k)) {
                w.scoped(v);
                return;
            }
            if let Some(role) = path_role(k, v, &path_ctx) {
                w.role(v, &role);
                return;
            }
            if let (true, Json::Arr(items)) = (keyed_list(k, v), v) {
                w.keyed_items(k, items);
                return;
            }
            if k == "text"
                && matches!(v, Json::Str(_))
                && let Some(l) = lines.as_deref_mut()
            {
                w.value(v, Some(l));
                return;
            }
            w.value(v, None);
        });
        self.m.dir = under;
    }

    /// A value that is a path or a list of them (`tree::walk_paths`).
    fn paths(&mut self, value: &Json) {
        match value {
            Json::Str(s) => {
                let masked = self.m.path(s);
                write_str(&mut self.out, masked.as_deref().unwrap_or(s));
            }
            Json::Arr(items) => list(self, b"[]", items, |w, item| w.paths(item)),
            other => self.value(other, None),
        }
    }

    /// A member's paths by its role (`tree::walk_role`).
    fn role(&mut self, value: &Json, role: &PathRole) {
        let (PathRole::Table(columns), Json::Arr(rows)) = (role, value) else {
            return self.paths(value);
        };
        list(self, b"[]", rows, |w, row| {
            let Json::Arr(cells) = row else {
                return w.value(row, None);
            };
            list(w, b"[]", cells.iter().enumerate(), |w, (j, c)| {
                if columns.get(j) == Some(&true) {
                    w.paths(c);
                } else {
                    w.value(c, None);
                }
            });
        });
    }

    /// A value under a key that strongly names a secret (`tree::walk_scoped`).
    fn scoped(&mut self, value: &Json) {
        match value {
            Json::Str(s) if self.m.scoped(s) => write_str(&mut self.out, PLACEHOLDER),
            Json::Str(s) => self.standalone(s),
            Json::Arr(items) => list(self, b"[]", items, |w, item| w.scoped(item)),
            Json::Obj(members) if describes(members) => self.value(value, None),
            Json::Obj(members) => list(self, b"{}", members, |w, (k, v)| {
                w.string(k, &mut Lines::default());
                w.out.push(b':');
                w.scoped(v);
            }),
            scalar => json::write_scalar(&mut self.out, scalar),
        }
    }

    fn value(&mut self, value: &Json, lines: Option<&mut Lines>) {
        match value {
            Json::Str(s) => {
                match lines {
                    Some(l) => {
                        self.string(s, l);
                    }
                    None => self.standalone(s),
                };
            }
            Json::Arr(items) => {
                let mut l = Lines::default();
                // Key lines just before the current item, written in clear so far
                // (where each starts in `out`, its index): `tree`'s `pending`.
                let mut pending: Vec<(usize, usize)> = Vec::new();
                list(self, b"[]", items.iter().enumerate(), |w, (i, item)| {
                    let start = w.out.len();
                    if !line_text(item) {
                        l = Lines::default();
                        pending.clear();
                        w.value(item, None);
                        return;
                    }
                    l.closed_unopened = false;
                    let changed = match item {
                        Json::Str(s) => w.string(s, &mut l),
                        _ => {
                            w.value(item, Some(&mut l));
                            true
                        }
                    };
                    if l.closed_unopened {
                        // The key lines are the last pending items that are key lines.
                        let keep = pending
                            .iter()
                            .rev()
                            .take_while(|&&(_, p)| matches!(&items[p], Json::Str(s) if lines::retro(s).is_some()))
                            .count();
                        pending.drain(..pending.len() - keep);
                        if let Some(&(first, _)) = pending.first() {
                            let tail = w.out.split_off(first);
                            for (k, &(_, p)) in pending.iter().enumerate() {
                                if k > 0 {
                                    w.out.push(b',');
                                }
                                if let Json::Str(s) = &items[p] {
                                    let mut masked = s.clone();
                                    if let Some(r) = lines::retro(s) {
                                        masked.replace_range(r, PLACEHOLDER);
                                    }
                                    write_str(&mut w.out, &masked);
                                }
                            }
                            w.out.push(b',');
                            w.out
                                .extend_from_slice(tail.get(start - first..).unwrap_or_default());
                        }
                        pending.clear();
                    } else if !changed {
                        // Judged (`retro`) only when an END line asks: most items
                        // are never looked at again.
                        if pending.len() >= 128 {
                            pending.drain(..64);
                        }
                        pending.push((start, i));
                    } else {
                        pending.clear();
                    }
                });
            }
            Json::Obj(members) => self.object(members, lines),
            scalar => json::write_scalar(&mut self.out, scalar),
        }
    }
}

/// The compact JSON text of `value` with every secret masked, and how many were.
/// Prints exactly what `mask_tree` then serializing prints; the tree is not changed.
/// `trusted`: the top-level object's members (by index) written as they are (the
/// command masked them); the second pass still runs over them.
pub fn write_masked(value: &Json, trusted: Range<usize>) -> (String, usize) {
    let mut w = Writer {
        out: Vec::new(),
        m: Masker::default(),
        trusted,
    };
    w.value(value, None);
    // Every piece written is valid UTF-8 (serde_json's escaper, digits, punctuation).
    let text = String::from_utf8(w.out)
        .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned());
    let (text, again) = w.m.recorded.mask_text(text);
    (text, w.m.count + again)
}

//! The mask of a diff's hunks as the files they come from would be masked: each
//! hunk's lines fed to a line machine per side (old, new), primed with the lines
//! before the hunk, so a key's multi-line value (a YAML block scalar or list, a
//! private key) whose opening line is above the hunk is masked in its context,
//! added and removed lines.

use crate::protocol::redact::Primer;

/// The old and new start lines of a hunk header (`@@ -o[,c] +n[,c] @@`): the first
/// line of each side the hunk shows (for an empty side, the line after it).
fn starts(header: &str) -> Option<(u64, u64)> {
    let mut words = header.strip_prefix("@@ ")?.split(' ');
    let side = |w: Option<&str>, sign: char| -> Option<u64> {
        let w = w?.strip_prefix(sign)?;
        let (at, count) = w.split_once(',').unwrap_or((w, "1"));
        let at: u64 = at.parse().ok()?;
        Some(if count == "0" { at + 1 } else { at.max(1) })
    };
    let old = side(words.next(), '-')?;
    let new = side(words.next(), '+')?;
    Some((old, new))
}

/// The machines' states at the start of `hunk` (its header line first), from the
/// same file's hunks with wider context (`wide`: `-U` of at least
/// `redact::LEAD_LINES`), whose lines before the hunk are the file's.
pub fn seed(wide: &[String], hunk: &str) -> (Primer, Primer) {
    let (mut old, mut new) = (Primer::default(), Primer::default());
    let Some((o, n)) = hunk.lines().next().and_then(starts) else {
        return (old, new);
    };
    for h in wide {
        let mut lines = h.lines();
        let Some((mut on, mut nn)) = lines.next().and_then(starts) else {
            continue;
        };
        if on > o || nn > n {
            break;
        }
        (old, new) = (Primer::default(), Primer::default());
        for line in lines {
            if on >= o && nn >= n {
                break;
            }
            let (marker, body) = line.split_at(line.len().min(1));
            let (to_old, to_new) = match marker {
                " " => (true, true),
                "-" => (true, false),
                "+" => (false, true),
                _ => (false, false),
            };
            if to_old {
                if on < o {
                    old.feed(body.as_bytes());
                }
                on += 1;
            }
            if to_new {
                if nn < n {
                    new.feed(body.as_bytes());
                }
                nn += 1;
            }
        }
        if on >= o && nn >= n {
            break;
        }
    }
    (old, new)
}

/// The old and new sides' line machines over a patch's lines, and how many values
/// they masked: each value once (a block scalar's or private key's lines count
/// once, and not at all when the line that opened it is shown, where the envelope's
/// pass counts it), each element of a list under a secret key once.
pub struct Sides {
    old: Primer,
    new: Primer,
    /// The open value's count is taken (a line of it was masked, or its opener shown).
    counted: bool,
    pub masked: usize,
}

impl Sides {
    pub fn new(old: Primer, new: Primer) -> Sides {
        Sides {
            old,
            new,
            counted: false,
            masked: 0,
        }
    }

    /// Feeds one hunk line (its diff marker first); `shown`: the answer's copy of
    /// it, masked in place where it is inside a value on its side. True when masked.
    pub fn line(&mut self, line: &str, shown: Option<&mut String>) -> bool {
        let (marker, body) = line.split_at(line.len().min(1));
        let sides: &mut [&mut Primer] = match marker {
            "+" => &mut [&mut self.new],
            "-" => &mut [&mut self.old],
            " " => &mut [&mut self.old, &mut self.new],
            _ => &mut [],
        };
        let inside = sides.iter().any(|p| p.inside());
        if !inside {
            self.counted = false;
        }
        let is_shown = shown.is_some();
        let mut changed = false;
        if let Some(out) = shown
            && let Some(p) = sides.iter().find(|p| p.inside())
        {
            let mut text = body.to_string();
            if let Some(raw) = p.mask_next_raw(&mut text) {
                *out = format!("{marker}{text}");
                self.masked += if raw > 0 {
                    raw
                } else {
                    usize::from(!self.counted)
                };
                self.counted = true;
                changed = true;
            }
        }
        for p in sides.iter_mut() {
            p.feed(body.as_bytes());
        }
        // A value's opening line shown: the envelope's pass masks and counts what
        // it holds (a private key's BEGIN); its later lines add nothing.
        if !inside && is_shown && sides.iter().any(|p| p.inside()) {
            self.counted = true;
        }
        changed
    }
}

/// Masks the lines of `hunk` (header first, each line after it led by its diff
/// marker) that are inside a multi-line value on the side they belong to, from the
/// states `old`, `new` at its start: the envelope's pass reads each line behind its
/// marker, so it would not see the value's indentation. Returns the masked hunk
/// and how many values it masked (`Sides`), `None` when none.
pub fn mask_hunk(hunk: &str, old: Primer, new: Primer) -> Option<(String, usize)> {
    let mut sides = Sides::new(old, new);
    let mut out: Vec<String> = Vec::new();
    let mut changed = false;
    for (i, line) in hunk.split('\n').enumerate() {
        let mut shown = line.to_string();
        if i > 0 {
            changed |= sides.line(line, Some(&mut shown));
        }
        out.push(shown);
    }
    changed.then(|| (out.join("\n"), sides.masked))
}

#[cfg(test)]
mod tests {
    use super::starts;

    #[test]
    fn hunk_headers_give_each_sides_first_line() {
        assert_eq!(starts("@@ -10,7 +12,8 @@ fn x"), Some((10, 12)));
        assert_eq!(starts("@@ -3 +3 @@"), Some((3, 3)));
        assert_eq!(starts("@@ -0,0 +1,2 @@"), Some((1, 1)));
        assert_eq!(starts("@@ -5,0 +6,2 @@"), Some((6, 6)));
        assert_eq!(starts("not a header"), None);
    }
}

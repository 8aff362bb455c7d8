//! Line anchors: a three-character tag per line (FNV-1a of the line's text, no
//! terminator, in base 36), what `read --anchors` shows and `edit --at LINE:TAG`
//! checks before it touches the line. 46,656 values: a changed line keeps its
//! tag about once in 46,656 cases, cheap to show (6 bytes a line in JSON).

/// The tag of one line's text (no line ending, no BOM).
pub fn tag(line: &str) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in line.as_bytes() {
        h ^= u64::from(*b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    // Fold the high bits in: FNV's low bits mix least.
    h ^= h >> 29;
    let mut v = h % (36 * 36 * 36);
    let mut out = [b'0'; 3];
    for slot in out.iter_mut().rev() {
        let d = (v % 36) as u8;
        *slot = if d < 10 { b'0' + d } else { b'a' + d - 10 };
        v /= 36;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// `LINE:TAG` (1-based line), or why not.
pub fn parse(s: &str) -> Result<(usize, String), String> {
    let (l, t) = s
        .split_once(':')
        .ok_or_else(|| format!("{s:?} is not LINE:TAG (e.g. 12:a3f, from read --anchors)."))?;
    let line: usize = l
        .trim()
        .parse()
        .ok()
        .filter(|n| *n > 0)
        .ok_or_else(|| format!("{s:?}: {l:?} is not a line number (1-based)."))?;
    let t = t.trim().to_ascii_lowercase();
    if t.len() != 3 || !t.bytes().all(|b| b.is_ascii_alphanumeric()) {
        return Err(format!(
            "{s:?}: the tag is the 3 characters read --anchors shows."
        ));
    }
    Ok((line, t))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tags_are_short_stable_and_differ() {
        assert_eq!(tag("fn main() {}").len(), 3);
        assert_eq!(tag("x"), tag("x"));
        assert_ne!(tag("    return 1"), tag("    return 2"));
        assert_eq!(parse("12:A3f").unwrap(), (12, "a3f".to_string()));
        assert!(parse("0:abc").is_err());
        assert!(parse("12").is_err());
    }
}

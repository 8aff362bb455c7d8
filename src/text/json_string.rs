//! A JSON string literal read piece by piece, with where each piece is written:
//! the one decoder of `\` escapes, UTF-16 surrogate pairs and raw runs that the
//! JSON document parser (`json_doc`, strict) and the mask of a notebook's JSON
//! source lines (`redact::bytes`, which needs the bytes each character is
//! written with) both read strings with.

use std::ops::Range;

/// One piece of a string's body, as written at a range of the input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Piece {
    /// Bytes that stand for themselves: no quote, backslash or control character.
    Plain(Range<usize>),
    /// A control character written raw at this byte (not JSON: a strict reader
    /// refuses it, a lenient one keeps the byte).
    Control(usize),
    /// An escape written at the range, and the character it stands for: `None`
    /// for a surrogate that names none (a lone half, or a high half followed by
    /// an escape that is not a low half; the two escapes are then one piece).
    Escape(Option<char>, Range<usize>),
}

/// Why a string does not read, and the byte where it stops.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Broken {
    /// The input ends before the closing quote (at its end).
    Unterminated(usize),
    /// `\u` not followed by four hex digits (where they should start).
    Hex(usize),
    /// A backslash followed by no escape JSON knows (at the byte after it).
    Escape(usize),
}

/// Four hex digits at `b[i..]` (as `u32::from_str_radix` reads them).
pub fn hex4(b: &[u8], i: usize) -> Result<u32, Broken> {
    b.get(i..i + 4)
        .and_then(|h| std::str::from_utf8(h).ok())
        .and_then(|t| u32::from_str_radix(t, 16).ok())
        .ok_or(Broken::Hex(i))
}

/// The escape whose backslash is at `b[i]`: the character, and the byte after it.
fn escape(b: &[u8], i: usize) -> Result<(Option<char>, usize), Broken> {
    let Some(&e) = b.get(i + 1) else {
        return Err(Broken::Unterminated(b.len()));
    };
    let ch = match e {
        b'"' | b'\\' | b'/' => char::from(e),
        b'b' => '\u{8}',
        b'f' => '\u{c}',
        b'n' => '\n',
        b'r' => '\r',
        b't' => '\t',
        b'u' => {
            let hi = hex4(b, i + 2)?;
            if (0xD800..0xDC00).contains(&hi) && b.get(i + 6..i + 8) == Some(b"\\u") {
                let lo = hex4(b, i + 8)?;
                let ch = (0xDC00..0xE000)
                    .contains(&lo)
                    .then(|| char::from_u32(0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00)))
                    .flatten();
                return Ok((ch, i + 12));
            }
            return Ok((char::from_u32(hi), i + 6));
        }
        _ => return Err(Broken::Escape(i + 1)),
    };
    Ok((Some(ch), i + 2))
}

/// Reads the string whose opening quote is at `b[open]`, handing each piece to
/// `piece` in order; the byte after its closing quote.
pub fn read(b: &[u8], open: usize, mut piece: impl FnMut(Piece)) -> Result<usize, Broken> {
    let mut i = open + 1;
    loop {
        let run = i;
        while b
            .get(i)
            .is_some_and(|&c| c != b'"' && c != b'\\' && c >= 0x20)
        {
            i += 1;
        }
        if i > run {
            piece(Piece::Plain(run..i));
        }
        match b.get(i) {
            None => return Err(Broken::Unterminated(b.len())),
            Some(b'"') => return Ok(i + 1),
            Some(b'\\') => {
                let (ch, end) = escape(b, i)?;
                piece(Piece::Escape(ch, i..end));
                i = end;
            }
            Some(_) => {
                piece(Piece::Control(i));
                i += 1;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{Broken, Piece, read};

    fn pieces(s: &str) -> Result<Vec<Piece>, Broken> {
        let mut out = Vec::new();
        read(s.as_bytes(), 0, |p| out.push(p)).map(|_| out)
    }

    #[test]
    fn pieces_say_where_each_character_is_written() {
        use Piece::{Control, Escape, Plain};
        assert_eq!(
            pieces(r#""a\/b\uD83D\uDE00""#),
            Ok(vec![
                Plain(1..2),
                Escape(Some('/'), 2..4),
                Plain(4..5),
                Escape(Some('😀'), 5..17),
            ])
        );
        assert_eq!(
            pieces("\"\\uD83D\\u0041\\uDE00\\uD83Dx\t\""),
            Ok(vec![
                Escape(None, 1..13),
                Escape(None, 13..19),
                Escape(None, 19..25),
                Plain(25..26),
                Control(26),
            ])
        );
        assert_eq!(pieces(r#""ab"#), Err(Broken::Unterminated(3)));
        assert_eq!(pieces(r#""a\"#), Err(Broken::Unterminated(3)));
        assert_eq!(pieces(r#""\q""#), Err(Broken::Escape(2)));
        assert_eq!(pieces(r#""\u12G4""#), Err(Broken::Hex(3)));
        assert_eq!(pieces(r#""\uD83D\uZZZZ""#), Err(Broken::Hex(9)));
    }
}

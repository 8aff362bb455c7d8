//! Replacement templates for `replace`: `$0`, `$1`, `$name`, `${name}`, `$$`, and
//! `${1:filter:filter...}` with the filters upper, lower, capitalize, snake, camel,
//! kebab, trim, inc, dec and padN. Parsed and checked against the pattern's groups
//! before any file is read, so a typo never half-applies.

use regex::{Captures, Regex};

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Group {
    Index(usize),
    Name(String),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Filter {
    Upper,
    Lower,
    Capitalize,
    Snake,
    Camel,
    Kebab,
    Trim,
    Inc,
    Dec,
    Pad(usize),
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Piece {
    Lit(String),
    Ref(Group, Vec<Filter>),
}

/// A parsed template.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Template(Vec<Piece>);

impl Template {
    /// The replacement inserted verbatim (`--literal-replacement`).
    pub fn literal(s: &str) -> Template {
        Template(vec![Piece::Lit(s.to_string())])
    }

    /// Parses a template; the message says what is wrong and how to write it.
    pub fn parse(s: &str) -> Result<Template, String> {
        let mut pieces = Vec::new();
        let mut lit = String::new();
        let mut chars = s.char_indices().peekable();
        while let Some((i, c)) = chars.next() {
            match c {
                '\\' => {
                    if let Some(&(_, d)) = chars.peek()
                        && d.is_ascii_digit()
                    {
                        return Err(format!(
                            "\\{d} is a sed-style reference; write ${d} (or pass --literal-replacement to insert the text as is)."
                        ));
                    }
                    lit.push(c);
                }
                '$' => {
                    let rest = s.get(i + 1..).unwrap_or("");
                    let (piece, used) = parse_ref(rest)?;
                    match piece {
                        None => lit.push('$'),
                        Some(p) => {
                            if !lit.is_empty() {
                                pieces.push(Piece::Lit(std::mem::take(&mut lit)));
                            }
                            pieces.push(p);
                        }
                    }
                    // `used` counts bytes after the `$`; skip the chars they span.
                    let end = i + 1 + used;
                    while chars.peek().is_some_and(|&(j, _)| j < end) {
                        chars.next();
                    }
                }
                _ => lit.push(c),
            }
        }
        if !lit.is_empty() {
            pieces.push(Piece::Lit(lit));
        }
        Ok(Template(pieces))
    }

    /// Checks every reference names a group of `re`.
    pub fn check(&self, re: &Regex) -> Result<(), String> {
        for p in &self.0 {
            if let Piece::Ref(g, _) = p {
                match g {
                    Group::Index(n) if *n >= re.captures_len() => {
                        return Err(format!(
                            "${n} refers to group {n}, but the pattern has {} group(s).",
                            re.captures_len() - 1
                        ));
                    }
                    Group::Name(name) if !re.capture_names().flatten().any(|x| x == name) => {
                        return Err(format!(
                            "${{{name}}} refers to no group of the pattern; name one with (?P<{name}>...)."
                        ));
                    }
                    _ => {}
                }
            }
        }
        Ok(())
    }

    /// Appends the expansion for one match to `out`.
    pub fn expand(&self, caps: &Captures, out: &mut String) -> Result<(), String> {
        for p in &self.0 {
            match p {
                Piece::Lit(s) => out.push_str(s),
                Piece::Ref(g, filters) => {
                    let m = match g {
                        Group::Index(n) => caps.get(*n),
                        Group::Name(name) => caps.name(name),
                    };
                    let mut v = m.map(|m| m.as_str().to_string()).unwrap_or_default();
                    for f in filters {
                        v = apply(f, &v)?;
                    }
                    out.push_str(&v);
                }
            }
        }
        Ok(())
    }
}

/// After a `$`: the reference and the bytes it used; `$$` is a literal `$`.
fn parse_ref(rest: &str) -> Result<(Option<Piece>, usize), String> {
    let lone = || {
        "A lone $ in the replacement; write $$ for a literal $, or $1 / ${name} for a group."
            .to_string()
    };
    let Some(c) = rest.chars().next() else {
        return Err(lone());
    };
    if c == '$' {
        return Ok((None, 1));
    }
    if c.is_ascii_digit() {
        let n: String = rest.chars().take_while(|c| c.is_ascii_digit()).collect();
        let idx = n
            .parse()
            .map_err(|_| format!("${n} is not a group number."))?;
        return Ok((Some(Piece::Ref(Group::Index(idx), Vec::new())), n.len()));
    }
    if c == '_' || c.is_ascii_alphabetic() {
        let n: String = rest
            .chars()
            .take_while(|c| *c == '_' || c.is_ascii_alphanumeric())
            .collect();
        let len = n.len();
        return Ok((Some(Piece::Ref(Group::Name(n), Vec::new())), len));
    }
    if c == '{' {
        let Some(close) = rest.find('}') else {
            return Err("${ has no closing }.".to_string());
        };
        let inner = rest.get(1..close).unwrap_or("");
        let mut parts = inner.split(':');
        let g = parts.next().unwrap_or("");
        let group = if !g.is_empty() && g.bytes().all(|b| b.is_ascii_digit()) {
            Group::Index(
                g.parse()
                    .map_err(|_| format!("${{{g}}} is not a group number."))?,
            )
        } else if !g.is_empty()
            && g.bytes().all(|b| b == b'_' || b.is_ascii_alphanumeric())
            && !g.as_bytes().first().is_some_and(u8::is_ascii_digit)
        {
            Group::Name(g.to_string())
        } else {
            return Err(format!(
                "${{{inner}}}: {g:?} is not a group number or name."
            ));
        };
        let filters = parts.map(parse_filter).collect::<Result<Vec<_>, _>>()?;
        return Ok((Some(Piece::Ref(group, filters)), close + 1));
    }
    Err(lone())
}

fn parse_filter(f: &str) -> Result<Filter, String> {
    Ok(match f {
        "upper" => Filter::Upper,
        "lower" => Filter::Lower,
        "capitalize" => Filter::Capitalize,
        "snake" => Filter::Snake,
        "camel" => Filter::Camel,
        "kebab" => Filter::Kebab,
        "trim" => Filter::Trim,
        "inc" => Filter::Inc,
        "dec" => Filter::Dec,
        _ => match f.strip_prefix("pad") {
            Some(n) if !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) && n.len() <= 4 => {
                Filter::Pad(n.parse().map_err(|_| format!("{f}: bad width"))?)
            }
            _ => {
                return Err(format!(
                    "Unknown filter {f:?}; filters are upper lower capitalize snake camel kebab trim inc dec padN."
                ));
            }
        },
    })
}

/// Splits an identifier into words: at `_`, `-`, blanks and other punctuation, at
/// a lower-to-upper step (`fooBar`), and before the last capital of a run
/// followed by a lower-case letter (`HTTPServer` → HTTP, Server).
fn words(s: &str) -> Vec<String> {
    let chars: Vec<char> = s.chars().collect();
    let mut out: Vec<String> = Vec::new();
    let mut cur = String::new();
    for (i, &c) in chars.iter().enumerate() {
        if !c.is_alphanumeric() {
            if !cur.is_empty() {
                out.push(std::mem::take(&mut cur));
            }
            continue;
        }
        let prev = if i > 0 {
            chars.get(i - 1).copied()
        } else {
            None
        };
        let next = chars.get(i + 1).copied();
        let boundary = c.is_uppercase()
            && prev.is_some_and(|p| {
                p.is_lowercase()
                    || p.is_ascii_digit()
                    || (p.is_uppercase() && next.is_some_and(char::is_lowercase))
            });
        if boundary && !cur.is_empty() {
            out.push(std::mem::take(&mut cur));
        }
        cur.push(c);
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

fn capitalize(w: &str) -> String {
    let mut c = w.chars();
    match c.next() {
        Some(f) => f
            .to_uppercase()
            .chain(c.flat_map(char::to_lowercase))
            .collect(),
        None => String::new(),
    }
}

fn apply(f: &Filter, v: &str) -> Result<String, String> {
    Ok(match f {
        Filter::Upper => v.to_uppercase(),
        Filter::Lower => v.to_lowercase(),
        Filter::Capitalize => capitalize(v),
        Filter::Snake => words(v)
            .iter()
            .map(|w| w.to_lowercase())
            .collect::<Vec<_>>()
            .join("_"),
        Filter::Kebab => words(v)
            .iter()
            .map(|w| w.to_lowercase())
            .collect::<Vec<_>>()
            .join("-"),
        Filter::Camel => words(v)
            .iter()
            .enumerate()
            .map(|(i, w)| {
                if i == 0 {
                    w.to_lowercase()
                } else {
                    capitalize(w)
                }
            })
            .collect(),
        Filter::Trim => v.trim().to_string(),
        Filter::Inc | Filter::Dec => {
            let (neg, digits) = match v.strip_prefix('-') {
                Some(d) => (true, d),
                None => (false, v),
            };
            if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) || digits.len() > 30
            {
                return Err(format!(
                    "{} needs an integer, but the group holds {v:?}.",
                    if *f == Filter::Inc { "inc" } else { "dec" }
                ));
            }
            let n: i128 = digits.parse().map_err(|_| format!("{v:?} is too large"))?;
            let n = if neg { -n } else { n };
            let r = if *f == Filter::Inc { n + 1 } else { n - 1 };
            // Leading zeros keep their width: 007 → 008.
            let width = if digits.len() > 1 && digits.starts_with('0') {
                digits.len()
            } else {
                0
            };
            if r < 0 {
                format!("-{:0width$}", -r)
            } else {
                format!("{r:0width$}")
            }
        }
        Filter::Pad(n) => {
            let len = v.chars().count();
            if len >= *n {
                v.to_string()
            } else if let Some(d) = v
                .strip_prefix('-')
                .filter(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()))
            {
                format!("-{}{d}", "0".repeat(n - len))
            } else if !v.is_empty() && v.bytes().all(|b| b.is_ascii_digit()) {
                format!("{}{v}", "0".repeat(n - len))
            } else {
                format!("{}{v}", " ".repeat(n - len))
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(pat: &str, tpl: &str, hay: &str) -> Result<String, String> {
        let re = Regex::new(pat).unwrap();
        let t = Template::parse(tpl)?;
        t.check(&re)?;
        let mut out = String::new();
        let mut last = 0;
        for c in re.captures_iter(hay) {
            let m = c.get(0).unwrap();
            out.push_str(&hay[last..m.start()]);
            t.expand(&c, &mut out)?;
            last = m.end();
        }
        out.push_str(&hay[last..]);
        Ok(out)
    }

    #[test]
    fn references() {
        assert_eq!(run(r"(\w+)=(\w+)", "$2=$1", "a=b").unwrap(), "b=a");
        assert_eq!(run(r"(?P<k>\w+)", "<${k}>", "ab").unwrap(), "<ab>");
        assert_eq!(run(r"(?P<k>\w+)", "<$k>", "ab").unwrap(), "<ab>");
        assert_eq!(run(r"x", "$$0", "x").unwrap(), "$0");
        assert_eq!(run(r"(a)", "$1b", "a").unwrap(), "ab");
        assert_eq!(run(r"(a)|(b)", "[$2]", "a").unwrap(), "[]");
        assert!(run(r"(a)", "$2", "a").is_err());
        assert!(run(r"(a)", "\\1", "a").is_err());
        assert!(run(r"(a)", "cost $", "a").is_err());
        assert!(run(r"(a)", "${nope}", "a").is_err());
        assert!(run(r"(a)", "${1:shout}", "a").is_err());
    }

    #[test]
    fn filters() {
        assert_eq!(run(r"(\w+)", "${1:upper}", "abc").unwrap(), "ABC");
        assert_eq!(run(r"(\w+)", "${1:capitalize}", "hELLO").unwrap(), "Hello");
        assert_eq!(
            run(r"(\w+)", "${1:snake}", "parseHTTPServer2Go").unwrap(),
            "parse_http_server2_go"
        );
        assert_eq!(
            run(r"(\w+)", "${1:camel}", "user_id_value").unwrap(),
            "userIdValue"
        );
        assert_eq!(
            run(r"(\w+)", "${1:kebab}", "UserIdValue").unwrap(),
            "user-id-value"
        );
        assert_eq!(
            run(r"(\w+)", "${1:snake:upper}", "fooBar").unwrap(),
            "FOO_BAR"
        );
        assert_eq!(run(r"(\d+)", "${1:inc}", "v9 v007").unwrap(), "v10 v008");
        assert_eq!(run(r"(-?\d+)", "${1:dec}", "0").unwrap(), "-1");
        assert_eq!(run(r"(\d+)", "${1:pad3}", "7 1234").unwrap(), "007 1234");
        assert_eq!(run(r"\[(.*)\]", "${1:trim}", "[ a ]").unwrap(), "a");
        assert!(run(r"(\w+)", "${1:inc}", "abc").is_err());
    }
}

//! jq's spelling of a path (`.a.b`, `.a[0]`, `.items[].name`) as pointer tokens:
//! what `json get` and `json select` take from people who write jq.

/// A jq path of member names and indexes (`.`, `.a.b`, `.a[0]`, `.["k"]`,
/// `."k"`) as pointer tokens; `None` for anything else jq can say.
pub fn jq_path(p: &str) -> Option<Vec<String>> {
    let mut rest = p.strip_prefix('.')?;
    let mut out = Vec::new();
    let mut after_dot = true;
    while !rest.is_empty() {
        if let Some(r) = rest.strip_prefix('[') {
            let (inner, tail) = r.split_once(']')?;
            out.push(jq_key(inner).or_else(|| {
                inner
                    .bytes()
                    .all(|b| b.is_ascii_digit())
                    .then(|| inner.to_string())
                    .filter(|i| !i.is_empty())
            })?);
            (rest, after_dot) = (tail, false);
        } else if let Some(r) = rest.strip_prefix('.').filter(|_| !after_dot) {
            (rest, after_dot) = (r, true);
        } else if after_dot && rest.starts_with('"') {
            let end = rest[1..].find('"')? + 2;
            out.push(jq_key(&rest[..end])?);
            (rest, after_dot) = (&rest[end..], false);
        } else if after_dot {
            let end = rest.find(['.', '[']).unwrap_or(rest.len());
            let name = &rest[..end];
            let plain = |c: char| c.is_alphanumeric() || c == '_' || c == '-' || c == '$';
            if name.is_empty() || !name.chars().all(plain) {
                return None;
            }
            out.push(name.to_string());
            (rest, after_dot) = (&rest[end..], false);
        } else {
            return None;
        }
    }
    (!after_dot || out.is_empty()).then_some(out)
}

/// jq's path through one array's elements (`.items[]`, `.items[].name`, `.[]`):
/// the array's pointer and the element's relative pointer (`None`: the element).
/// What json select answers; `None` for anything else.
pub fn jq_each(p: &str) -> Option<(String, Option<String>)> {
    let (array, rest) = p.split_once("[]")?;
    if rest.contains("[]") || !array.starts_with('.') {
        return None;
    }
    let array = jq_path(array)?;
    let rest = match rest {
        "" => None,
        r if r.starts_with('[') => Some(format!(".{r}")),
        r => Some(r.to_string()),
    };
    let pick = match rest {
        Some(r) => Some(jq_path(&r)?).filter(|t| !t.is_empty()),
        None => None,
    };
    Some((
        super::pointer_of(&array),
        pick.map(|t| super::pointer_of(&t)),
    ))
}

/// A JSON string key (`"a b"`) of a jq path.
fn jq_key(s: &str) -> Option<String> {
    if !s.starts_with('"') {
        return None;
    }
    serde_json::from_str::<String>(s).ok()
}

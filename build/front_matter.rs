//! The parser and validator of `agent/` files, shared by `build.rs` (which compiles
//! the folder into the binary and fails the build on a malformed file) and by a test
//! that feeds it malformed inputs, so the rules a file must follow live in one place.

/// One rule or skill: its front matter and its body.
#[derive(Debug, Clone, PartialEq)]
pub struct Doc {
    pub name: String,
    pub description: String,
    pub body: String,
}

/// Parses `---\nname: ...\ndescription: ...\n---\n<body>`; `stem` is the file name
/// without `.md`, which must equal `name` so the file and the id never disagree.
pub fn parse(stem: &str, text: &str) -> Result<Doc, String> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let rest = text
        .strip_prefix("---\n")
        .ok_or("must start with a `---` front matter line")?;
    let end = rest
        .find("\n---\n")
        .or_else(|| rest.strip_suffix("\n---").map(|s| s.len()))
        .ok_or("front matter has no closing `---` line")?;
    let head = &rest[..end];
    let body = rest[end..]
        .trim_start_matches('\n')
        .strip_prefix("---")
        .unwrap_or("")
        .trim();
    let mut name = None;
    let mut description = None;
    for line in head.lines() {
        if line.trim().is_empty() {
            continue;
        }
        let (key, value) = line
            .split_once(':')
            .ok_or_else(|| format!("front matter line {line:?} is not `key: value`"))?;
        let value = unquote(value.trim());
        let slot = match key.trim() {
            "name" => &mut name,
            "description" => &mut description,
            other => {
                return Err(format!(
                    "unknown front matter key {other:?} (only name, description)"
                ));
            }
        };
        if slot.is_some() {
            return Err(format!("front matter key {:?} appears twice", key.trim()));
        }
        *slot = Some(value);
    }
    let name = name.ok_or("front matter has no `name`")?;
    let description = description.ok_or("front matter has no `description`")?;
    if name.is_empty()
        || !name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
        || name.starts_with('-')
    {
        return Err(format!(
            "name {name:?} must be lower-case letters, digits and dashes"
        ));
    }
    if name != stem {
        return Err(format!(
            "name {name:?} differs from the file name {stem:?}.md"
        ));
    }
    if description.is_empty() {
        return Err("description is empty".to_string());
    }
    if body.is_empty() {
        return Err("the body after the front matter is empty".to_string());
    }
    Ok(Doc {
        name,
        description,
        body: body.to_string(),
    })
}

fn unquote(v: &str) -> String {
    for q in ['"', '\''] {
        if v.len() >= 2 && v.starts_with(q) && v.ends_with(q) {
            return v[1..v.len() - 1].to_string();
        }
    }
    v.to_string()
}

/// `brief.md`: plain text, one paragraph, no front matter.
pub fn check_brief(text: &str) -> Result<String, String> {
    let t = text.trim();
    if t.is_empty() {
        return Err("brief.md is empty".to_string());
    }
    if t.starts_with("---") {
        return Err("brief.md takes no front matter".to_string());
    }
    if t.contains("\n\n") {
        return Err("brief.md must be one paragraph".to_string());
    }
    Ok(t.split_whitespace().collect::<Vec<_>>().join(" "))
}

/// The rules every tool must have, and the writeback rule's mandatory wording.
pub fn check_rules(rules: &[Doc]) -> Result<(), String> {
    for required in ["trigger", "workflow", "writeback"] {
        if !rules.iter().any(|r| r.name == required) {
            return Err(format!("agent/rules/{required}.md is missing"));
        }
    }
    if let Some(w) = rules.iter().find(|r| r.name == "writeback")
        && (!w.description.contains("MANDATORY")
            || !w.description.contains("aitools feedback create"))
    {
        return Err(
                "writeback.md's description must say MANDATORY and give the `aitools feedback create` command"
                    .to_string(),
            );
    }
    Ok(())
}

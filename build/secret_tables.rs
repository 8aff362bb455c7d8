//! The secret mask's tables as Rust source, so a process starts with them built
//! (benches/RESULTS.md, "mask set-up"): `data/secret-formats.tsv` becomes the sorted
//! `FORMATS` array of `src/protocol/redact/formats.rs`, `data/redaction.txt` the
//! `POLICY` of `src/protocol/redact/policy.rs`. data/ stays the one source; each
//! module has a test that parses data/ its own way and compares. A malformed row
//! panics here, which fails the build.

/// The alphabet names of the table and the `Alphabet` variants they are.
const ALPHABETS: [(&str, &str); 14] = [
    ("b62", "B62"),
    ("b62u", "B62u"),
    ("b64url", "B64url"),
    ("b64", "B64"),
    ("hex", "Hex"),
    ("hexi", "Hexi"),
    ("hexi-", "HexiDash"),
    ("upnum", "Upnum"),
    ("lownum", "Lownum"),
    ("alnumi", "Alnumi"),
    ("alpha", "Alpha"),
    ("dotted", "Dotted"),
    ("path", "Path"),
    ("any", "Any"),
];

/// `data/secret-formats.tsv` as `const FORMATS: &[Format]`, sorted by the first two
/// bytes of the prefix, longest prefix first among equal ones (a stable sort: rows
/// that tie keep the table's order).
pub fn formats(text: &str) -> Result<String, String> {
    struct Row<'a> {
        name: &'a str,
        prefix: &'a str,
        alphabet: &'static str,
        min: usize,
        max: usize,
        crc32: bool,
        show: bool,
    }
    let mut rows = Vec::new();
    for (n, line) in text.lines().enumerate() {
        if line.starts_with('#') || line.starts_with("name\t") || line.trim().is_empty() {
            continue;
        }
        let bad = |what: &str| format!("data/secret-formats.tsv line {}: {what}", n + 1);
        let cols: Vec<&str> = line.split('\t').collect();
        let [name, prefix, alphabet, min, max, flags] = cols[..] else {
            return Err(bad("not 6 tab-separated columns"));
        };
        let alphabet = ALPHABETS
            .iter()
            .find(|(k, _)| *k == alphabet)
            .map(|(_, v)| *v)
            .ok_or_else(|| bad("unknown alphabet"))?;
        let (Ok(min), Ok(max)) = (min.parse(), max.parse()) else {
            return Err(bad("min or max is not a number"));
        };
        if prefix.len() < 2 {
            return Err(bad("prefix shorter than 2 bytes"));
        }
        rows.push(Row {
            name,
            prefix,
            alphabet,
            min,
            max,
            crc32: flags.contains("crc32"),
            show: flags.contains("show"),
        });
    }
    rows.sort_by(|a, b| {
        a.prefix.as_bytes()[..2]
            .cmp(&b.prefix.as_bytes()[..2])
            .then(b.prefix.len().cmp(&a.prefix.len()))
    });
    let mut out = String::from("const FORMATS: &[Format] = &[\n");
    for r in &rows {
        out.push_str(&format!(
            "    Format {{ name: {:?}, prefix: {:?}.as_bytes(), alphabet: Alphabet::{}, \
             min: {}, max: {}, crc32: {}, show: {} }},\n",
            r.name, r.prefix, r.alphabet, r.min, r.max, r.crc32, r.show
        ));
    }
    out.push_str("];\n");
    Ok(out)
}

/// `data/redaction.txt` as `static POLICY: Policy`: the strong and weak (with the
/// provider) key words by first character (`a`-`z` then `0`-`9`), placeholder
/// values, type words and private PEM labels, each in the file's order.
pub fn policy(text: &str) -> Result<String, String> {
    let mut strong: Vec<Vec<&str>> = vec![Vec::new(); 36];
    let mut weak: Vec<Vec<&str>> = vec![Vec::new(); 36];
    let (mut placeholders, mut types, mut pem_labels) = (Vec::new(), Vec::new(), Vec::new());
    let mut section = "";
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if line.starts_with('[') {
            section = line;
            continue;
        }
        match section {
            "[strong-key-words]" | "[weak-key-words]" | "[provider-words]" => {
                let slot = match line.as_bytes()[0].to_ascii_lowercase() {
                    c @ b'a'..=b'z' => usize::from(c - b'a'),
                    c @ b'0'..=b'9' => 26 + usize::from(c - b'0'),
                    _ => {
                        return Err(format!(
                            "data/redaction.txt line {}: a key word starts with a letter or digit",
                            n + 1
                        ));
                    }
                };
                let list = if section == "[strong-key-words]" {
                    &mut strong
                } else {
                    &mut weak
                };
                list[slot].push(line);
            }
            "[placeholder-values]" => placeholders.push(line),
            "[type-words]" => types.push(line),
            "[pem-labels]" => pem_labels.push(line),
            _ => {
                return Err(format!(
                    "data/redaction.txt line {}: no known section",
                    n + 1
                ));
            }
        }
    }
    let words = |w: &[&str]| format!("&{w:?}");
    let by_letter = |lists: &[Vec<&str>]| {
        let items: Vec<String> = lists.iter().map(|l| words(l)).collect();
        format!("&[\n        {},\n    ]", items.join(",\n        "))
    };
    Ok(format!(
        "static POLICY: Policy = Policy {{\n    strong_by_letter: {},\n    weak_by_letter: {},\n    \
         placeholders: {},\n    types: {},\n    pem_labels: {},\n}};\n",
        by_letter(&strong),
        by_letter(&weak),
        words(&placeholders),
        words(&types),
        words(&pem_labels),
    ))
}

//! Unit tests of the span-preserving JSON editor.
use super::*;

fn set(text: &str, ptr: &str, val: &str) -> String {
    let root = parse(text).unwrap();
    let st = Style::of(text, &root);
    let v = parse(val).unwrap();
    let toks = parse_pointer(ptr).unwrap();
    match lookup(&root, &toks) {
        Ok(n) => apply(text, &replace(text, &st, n, &v, val)),
        Err(_) => {
            let parent = lookup(&root, &toks[..toks.len() - 1]).unwrap();
            let last = toks.last().unwrap();
            let (at, key) = match &parent.kind {
                Kind::Obj(m) => (m.len(), Some(last.as_str())),
                Kind::Arr(a) => (a.len(), None),
                _ => panic!(),
            };
            apply(text, &insert(text, &st, parent, at, key, &v, val))
        }
    }
}

#[test]
fn edits_touch_only_the_value() {
    let t = "{\n    \"b\": 1,\n    \"a\": [1, 2],\n    \"c\": {}\n}\n";
    assert_eq!(
        set(t, "/a/1", "3"),
        "{\n    \"b\": 1,\n    \"a\": [1, 3],\n    \"c\": {}\n}\n"
    );
    assert_eq!(
        set(t, "/z", "{\"x\":true}"),
        "{\n    \"b\": 1,\n    \"a\": [1, 2],\n    \"c\": {},\n    \"z\": {\n        \"x\": true\n    }\n}\n"
    );
    assert_eq!(
        set(t, "/c/k", "null"),
        "{\n    \"b\": 1,\n    \"a\": [1, 2],\n    \"c\": {\n        \"k\": null\n    }\n}\n"
    );
    assert_eq!(
        set(t, "/a/2", "5"),
        "{\n    \"b\": 1,\n    \"a\": [1, 2, 5],\n    \"c\": {}\n}\n"
    );
    let root = parse(t).unwrap();
    assert_eq!(
        apply(t, &remove(t, &root, 0)),
        "{\n    \"a\": [1, 2],\n    \"c\": {}\n}\n"
    );
    assert_eq!(
        apply(t, &remove(t, &root, 2)),
        "{\n    \"b\": 1,\n    \"a\": [1, 2]\n}\n"
    );
}

#[test]
fn syntax_errors_have_positions() {
    let e = parse("{\n  \"a\": 1,\n}").unwrap_err();
    assert_eq!((e.line, e.column), (3, 1));
    assert!(parse("[01]").is_err());
    assert!(parse("\"\\x\"").is_err());
    assert!(parse(&"[".repeat(600)).is_err());
}

#[test]
fn pointers_unescape() {
    assert_eq!(parse_pointer("/a~1b/~0").unwrap(), vec!["a/b", "~"]);
    assert!(parse_pointer("a").is_err());
    assert!(parse_pointer("/~2").is_err());
}

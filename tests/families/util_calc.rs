//! `util calc` and `util random`, black-box, with Python as the oracle: calc's
//! exact value equals `fractions.Fraction`'s and its decimal equals `decimal`'s
//! ROUND_HALF_UP; random's strings stay in their alphabet and spread evenly.

use crate::support::TestEnv;
use serde_json::Value;
use std::process::Command;

fn py(script: &str, arg: &str) -> Value {
    let out = Command::new("python3")
        .arg("-c")
        .arg(script)
        .arg(arg)
        .output()
        .expect("python3");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("oracle json")
}

/// Evaluates with Fraction (numbers as Fractions; Python's % also takes the
/// divisor's sign), then rounds to 10 places half away from zero.
const ORACLE: &str = r#"
import sys, re, json
from fractions import Fraction as F
from decimal import Decimal, ROUND_HALF_UP, getcontext
getcontext().prec = 200
e = sys.argv[1]
v = eval(re.sub(r'(\d+(?:\.\d+)?)', r"F('\1')", e), {'F': F, 'abs': abs, 'min': min, 'max': max})
d = (Decimal(v.numerator) / Decimal(v.denominator)).quantize(Decimal('1e-10'), rounding=ROUND_HALF_UP)
s = format(d.normalize(), 'f') if d != 0 else '0'
print(json.dumps({'result': s, 'exact': None if v.denominator == 1 else f'{v.numerator}/{v.denominator}'}))
"#;

#[test]
fn util_calc_matches_python_fractions() {
    let env = TestEnv::new();
    for e in [
        "1 + 2 * 3 - 4 / 5",
        "(7 - 3) * 5 / 6 + 2**10 % 7",
        "-7 % 3 + 7 % -3",
        "2**3**2 - 2**-3",
        "0.1 + 0.2 - 1/3",
        "max(1.25, 2/3, -4) * min(3, 9) + abs(-2.5)",
        "123456789012345678901234567 * 1000 + 1",
        "-(2/3) - 1/7",
        "170141183460469231731687303715884105727 - 1",
        // Past i128: exact, as Python's big integers and Fractions.
        "2**200",
        "2**200 / 3**50 - 7",
        "1*2*3*4*5*6*7*8*9*10*11*12*13*14*15*16*17*18*19*20*21*22*23*24*25*26*27*28*29*30*31*32*33*34*35",
        "-(2**128) % 7 + (2**127 + 1) * (2**127 - 1)",
        "max(2**130, 3**82) - 1/2**140",
    ] {
        let r = env.run(&["util", "calc", "--", e]);
        assert_eq!(r.code, 0, "{e}: {}", r.stdout);
        let want = py(ORACLE, e);
        assert_eq!(r.json["result"], want["result"], "{e}");
        assert_eq!(
            r.json.get("exact").cloned().unwrap_or(Value::Null),
            want["exact"],
            "{e}"
        );
    }
}

#[test]
fn util_calc_refuses_code_overflow_and_deep_input() {
    let env = TestEnv::new();
    let s = env.run(&["util", "calc", "__import__('os').system('true')"]);
    assert_eq!(s.error_code(), "input.syntax-error");
    let o = env.run(&["util", "calc", "2**100001"]);
    assert_eq!(o.error_code(), "argument.invalid");
    let why = o.json["error"]["message"].as_str().unwrap_or_default();
    assert!(why.contains("100000 bits"), "{why}");
    let z = env.run(&["util", "calc", "1/(2-2)"]);
    assert_eq!(z.error_code(), "argument.invalid");
    let deep = format!("{}1{}", "(".repeat(80), ")".repeat(80));
    assert_eq!(
        env.run(&["util", "calc", &deep]).error_code(),
        "input.syntax-error"
    );
    let r = env.run_stdin(&["util", "calc", "--stdin", "--decimals", "3"], b"2/3\n");
    assert_eq!(r.json["result"], "0.667");
    assert_eq!(r.json["exact"], "2/3");
    let h = env.run(&["util", "calc", "--decimals", "0", "--", "-2.5"]);
    assert_eq!(h.json["result"], "-3");
}

#[test]
fn util_random_alphabets_seed_and_spread() {
    let env = TestEnv::new();
    let r = env.run(&[
        "util",
        "random",
        "--alphabet",
        "hex",
        "--length",
        "64",
        "--count",
        "1000",
    ]);
    assert_eq!(r.code, 0, "{}", r.stdout);
    // Under the test's AITOOLS_SEED the same call answers the same strings.
    assert_eq!(
        env.run(&[
            "util",
            "random",
            "--alphabet",
            "hex",
            "--length",
            "64",
            "--count",
            "1000"
        ])
        .json,
        r.json
    );
    let chi = py(
        "import sys,json,collections; v=json.loads(sys.argv[1]); s=''.join(v); assert all(len(x)==64 for x in v) and set(s) <= set('0123456789abcdef'); c=collections.Counter(s); e=len(s)/16; print(json.dumps(sum((c[k]-e)**2/e for k in '0123456789abcdef')))",
        &r.json["values"].to_string(),
    );
    // 15 degrees of freedom: 37.7 is the 0.1% tail.
    assert!(chi.as_f64().expect("chi") < 37.7, "chi-square {chi}");
    for (alpha, set) in [
        (
            "alnum",
            "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789",
        ),
        (
            "base64url",
            "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_",
        ),
    ] {
        let a = env.run(&["util", "random", "--alphabet", alpha, "--count", "100"]);
        for v in a.json["values"].as_array().expect("values") {
            let v = v.as_str().expect("value");
            assert_eq!(v.len(), 32);
            assert!(v.chars().all(|c| set.contains(c)), "{alpha}: {v}");
        }
    }
    assert_eq!(
        env.run(&["util", "random", "--length", "0"]).error_code(),
        "argument.invalid"
    );
}

#[test]
fn util_decode_to_writes_a_new_file_undoably() {
    let env = TestEnv::new();
    let b64 = "AP8QbGluZQpceDAw";
    let want = Command::new("python3")
        .args([
            "-c",
            "import base64,sys; sys.stdout.buffer.write(base64.b64decode(sys.argv[1]))",
            b64,
        ])
        .output()
        .expect("python3")
        .stdout;
    let dry = env.run(&[
        "util",
        "decode",
        "base64",
        "--content",
        b64,
        "--to",
        "out/d.bin",
        "--dry-run",
    ]);
    assert_eq!(dry.code, 0, "{}", dry.stdout);
    assert!(!env.path("out/d.bin").exists());
    let r = env.run(&[
        "util",
        "decode",
        "base64",
        "--content",
        b64,
        "--to",
        "out/d.bin",
    ]);
    assert_eq!(r.code, 0, "{}", r.stdout);
    assert_eq!(r.json["bytes"], want.len());
    assert_eq!(r.json["changes"][0]["action"], "created");
    assert!(r.json.get("output_hex").is_none());
    assert_eq!(env.read("out/d.bin"), want);
    let again = env.run(&[
        "util",
        "decode",
        "base64",
        "--content",
        b64,
        "--to",
        "out/d.bin",
    ]);
    assert_eq!(again.error_code(), "refusal.exists");
    let outside = env.run(&[
        "util",
        "decode",
        "hex",
        "--content",
        "41",
        "--to",
        "../escape.bin",
    ]);
    assert_eq!(outside.error_code(), "refusal.outside-workspace");
    assert_eq!(env.run(&["undo", &r.op_id()]).code, 0);
    assert!(!env.path("out/d.bin").exists());
}

/// `util random`'s values are its own, not the user's: a 40- or 64-character
/// alnum token (which the mask takes for a secret anywhere else) and a 4,096
/// character string come back whole, with no `redactions`; the same string
/// given to `util redact` is still masked.
#[test]
fn util_random_values_escape_the_secret_mask() {
    let env = TestEnv::new();
    for (alpha, len) in [
        ("alnum", "40"),
        ("alnum", "64"),
        ("base64url", "64"),
        ("hex", "4096"),
    ] {
        let r = env.run(&[
            "util",
            "random",
            "--alphabet",
            alpha,
            "--length",
            len,
            "--count",
            "50",
        ]);
        assert_eq!(r.code, 0, "{}", r.stdout);
        assert!(
            r.json.get("redactions").is_none(),
            "{alpha} {len}: {}",
            r.stdout
        );
        for v in r.json["values"].as_array().expect("values") {
            let v = v.as_str().expect("value");
            assert_eq!(v.len().to_string(), len, "{alpha}: {v}");
            assert!(!v.contains("REDACTED"), "{v}");
        }
    }
    let r = env.run(&["util", "random", "--alphabet", "alnum", "--length", "40"]);
    let token = r.json["values"][0].as_str().expect("value").to_string();
    let masked = env.run(&["util", "redact", "--content", &token]);
    assert_eq!(
        masked.json["text"], "[REDACTED_SECRET]",
        "{}",
        masked.stdout
    );
}

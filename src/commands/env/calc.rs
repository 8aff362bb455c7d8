//! `util calc`: exact arithmetic on integers, decimals and rationals (i128
//! numerator and denominator; a value past them is refused, never rounded),
//! parsed by a small recursive-descent reader with a length and depth budget:
//! numbers, + - * / % ** (or ^), parentheses, min max abs floor ceil round.
//! Nothing is evaluated but arithmetic.

use crate::handler;
use crate::protocol::registry::{CommandSpec, Effects, field};
use crate::protocol::{CmdError, Json, Output, Repair, code, shell};
use crate::workspace::Ctx;
use crate::workspace::input::{self, InputLimit};
use clap::Args;

const MAX_LEN: usize = 4096;
const MAX_DEPTH: usize = 64;

#[derive(Args, Debug)]
pub struct CalcArgs {
    /// The expression: integers, decimals (1.5), + - * / % ** (^ too), parentheses, min max abs floor ceil round. An expression starting with - follows -- (aitools util calc -- -2**2).
    #[arg(value_name = "EXPRESSION")]
    pub expression: Option<String>,
    /// Read the expression from stdin (never read otherwise).
    #[arg(long)]
    pub stdin: bool,
    /// Fractional digits of result, 0 to 1000, rounded half away from zero; trailing zeros are dropped.
    #[arg(long, default_value_t = 10, value_name = "N")]
    pub decimals: usize,
    #[command(flatten)]
    pub limit: InputLimit,
}

pub const CALC: CommandSpec = CommandSpec {
    name: "util calc",
    summary: "Exact integer, decimal and rational arithmetic.",
    description: "Values are exact rationals with i128 numerator and denominator: a value past that range is argument.invalid, never rounded. ** binds tighter than unary minus and is right-associative; its exponent must be an integer. % takes the divisor's sign. round rounds half away from zero. No variables, assignment or other functions. At most 4096 characters and 64 nesting levels.",
    args: <CalcArgs as clap::Args>::augment_args,
    output_fields: &[
        field("input", "The evaluated expression."),
        field(
            "result",
            "The value in decimal, as a string so big integers stay exact.",
        ),
        field(
            "exact",
            "The exact value as N/D; present only when the value is not an integer.",
        ),
    ],
    error_codes: &[code::SYNTAX_ERROR],
    writes: false,
    tx: false,
    workspace: false,
    effects: Effects::NONE,
    run: handler!(CalcArgs, calc),
};

/// An exact rational: `d` > 0, lowest terms.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Q {
    n: i128,
    d: i128,
}

/// What went wrong: a syntax error at a character, or an arithmetic refusal.
#[derive(Debug, PartialEq)]
pub enum Fail {
    Syntax(usize, String),
    Math(String),
}

fn overflow() -> Fail {
    Fail::Math(
        "an intermediate value is past the exact range (i128 numerator and denominator)".into(),
    )
}

fn gcd(mut a: i128, mut b: i128) -> i128 {
    a = a.checked_abs().unwrap_or(i128::MAX);
    b = b.checked_abs().unwrap_or(i128::MAX);
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a.max(1)
}

impl Q {
    fn int(n: i128) -> Q {
        Q { n, d: 1 }
    }
    fn new(n: i128, d: i128) -> Result<Q, Fail> {
        if d == 0 {
            return Err(Fail::Math("division by zero".into()));
        }
        let g = gcd(n, d);
        let (mut n, mut d) = (n / g, d / g);
        if d < 0 {
            n = n.checked_neg().ok_or_else(overflow)?;
            d = d.checked_neg().ok_or_else(overflow)?;
        }
        Ok(Q { n, d })
    }
    fn add(self, o: Q) -> Result<Q, Fail> {
        let g = gcd(self.d, o.d);
        let l = (self.d / g).checked_mul(o.d).ok_or_else(overflow)?;
        let a = self.n.checked_mul(l / self.d).ok_or_else(overflow)?;
        let b = o.n.checked_mul(l / o.d).ok_or_else(overflow)?;
        Q::new(a.checked_add(b).ok_or_else(overflow)?, l)
    }
    fn neg(self) -> Result<Q, Fail> {
        Ok(Q {
            n: self.n.checked_neg().ok_or_else(overflow)?,
            d: self.d,
        })
    }
    fn mul(self, o: Q) -> Result<Q, Fail> {
        let g1 = gcd(self.n, o.d);
        let g2 = gcd(o.n, self.d);
        let n = (self.n / g1).checked_mul(o.n / g2).ok_or_else(overflow)?;
        let d = (self.d / g2).checked_mul(o.d / g1).ok_or_else(overflow)?;
        Q::new(n, d)
    }
    fn div(self, o: Q) -> Result<Q, Fail> {
        if o.n == 0 {
            return Err(Fail::Math("division by zero".into()));
        }
        self.mul(Q::new(o.d, o.n)?)
    }
    fn floor(self) -> Q {
        Q::int(self.n.div_euclid(self.d))
    }
    fn ceil(self) -> Result<Q, Fail> {
        let up = self
            .n
            .checked_neg()
            .ok_or_else(overflow)?
            .div_euclid(self.d);
        Q::int(up).neg()
    }
    /// Half away from zero.
    fn round(self) -> Result<Q, Fail> {
        let half = Q { n: 1, d: 2 };
        if self.n >= 0 {
            Ok(self.add(half)?.floor())
        } else {
            self.neg()?.round()?.neg()
        }
    }
    /// a - b * floor(a / b): the remainder with the divisor's sign.
    fn rem(self, o: Q) -> Result<Q, Fail> {
        let q = self.div(o)?.floor();
        self.add(o.mul(q)?.neg()?)
    }
    fn pow(self, e: Q) -> Result<Q, Fail> {
        if e.d != 1 {
            return Err(Fail::Math("the exponent of ** must be an integer".into()));
        }
        if self.n == 0 && e.n < 0 {
            return Err(Fail::Math(
                "division by zero (0 to a negative power)".into(),
            ));
        }
        if self.d == 1 && (self.n == 0 || self.n == 1) {
            return Ok(if e.n == 0 { Q::int(1) } else { self });
        }
        if self.d == 1 && self.n == -1 {
            return Ok(Q::int(if e.n % 2 == 0 { 1 } else { -1 }));
        }
        let k = u32::try_from(e.n.unsigned_abs()).map_err(|_| overflow())?;
        let n = self.n.checked_pow(k).ok_or_else(overflow)?;
        let d = self.d.checked_pow(k).ok_or_else(overflow)?;
        if e.n < 0 { Q::new(d, n) } else { Q::new(n, d) }
    }
}

struct P<'a> {
    s: &'a [u8],
    i: usize,
    depth: usize,
}

impl P<'_> {
    fn ws(&mut self) {
        while self.s.get(self.i).is_some_and(|c| c.is_ascii_whitespace()) {
            self.i += 1;
        }
    }
    fn eat(&mut self, t: &str) -> bool {
        self.ws();
        if self.s[self.i..].starts_with(t.as_bytes()) {
            self.i += t.len();
            true
        } else {
            false
        }
    }
    fn err<T>(&self, why: &str) -> Result<T, Fail> {
        Err(Fail::Syntax(self.i, why.into()))
    }
    fn nest<T>(&mut self, f: impl FnOnce(&mut Self) -> Result<T, Fail>) -> Result<T, Fail> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return self.err("nesting is deeper than 64 levels");
        }
        let r = f(self);
        self.depth -= 1;
        r
    }
    fn expr(&mut self) -> Result<Q, Fail> {
        let mut v = self.term()?;
        loop {
            if self.eat("+") {
                v = v.add(self.term()?)?;
            } else if self.eat("-") {
                v = v.add(self.term()?.neg()?)?;
            } else {
                return Ok(v);
            }
        }
    }
    fn term(&mut self) -> Result<Q, Fail> {
        let mut v = self.unary()?;
        loop {
            self.ws();
            if self.s[self.i..].starts_with(b"**") {
                return Ok(v);
            } else if self.eat("*") {
                v = v.mul(self.unary()?)?;
            } else if self.eat("/") {
                v = v.div(self.unary()?)?;
            } else if self.eat("%") {
                v = v.rem(self.unary()?)?;
            } else {
                return Ok(v);
            }
        }
    }
    fn unary(&mut self) -> Result<Q, Fail> {
        if self.eat("-") {
            return self.nest(|p| p.unary()?.neg());
        }
        if self.eat("+") {
            return self.nest(|p| p.unary());
        }
        let base = self.atom()?;
        if self.eat("**") || self.eat("^") {
            let e = self.nest(|p| p.unary())?;
            return base.pow(e);
        }
        Ok(base)
    }
    fn atom(&mut self) -> Result<Q, Fail> {
        self.ws();
        let Some(&c) = self.s.get(self.i) else {
            return self.err("the expression ends where a number was expected");
        };
        if c == b'(' {
            self.i += 1;
            let v = self.nest(|p| p.expr())?;
            if !self.eat(")") {
                return self.err("expected )");
            }
            return Ok(v);
        }
        if c.is_ascii_digit() || c == b'.' {
            return self.number();
        }
        if c.is_ascii_alphabetic() {
            return self.call();
        }
        self.err("expected a number, ( or a function")
    }
    fn number(&mut self) -> Result<Q, Fail> {
        let start = self.i;
        let (mut n, mut d, mut frac, mut digits) = (0i128, 1i128, false, 0);
        while let Some(&c) = self.s.get(self.i) {
            if c.is_ascii_digit() {
                n = n
                    .checked_mul(10)
                    .and_then(|n| n.checked_add(i128::from(c - b'0')))
                    .ok_or_else(overflow)?;
                if frac {
                    d = d.checked_mul(10).ok_or_else(overflow)?;
                }
                digits += 1;
            } else if c == b'.' && !frac {
                frac = true;
            } else {
                break;
            }
            self.i += 1;
        }
        if digits == 0 {
            self.i = start;
            return self.err("a number needs a digit");
        }
        Q::new(n, d)
    }
    fn call(&mut self) -> Result<Q, Fail> {
        let start = self.i;
        while self
            .s
            .get(self.i)
            .is_some_and(|c| c.is_ascii_alphanumeric() || *c == b'_')
        {
            self.i += 1;
        }
        let name = String::from_utf8_lossy(&self.s[start..self.i]).into_owned();
        if !["min", "max", "abs", "floor", "ceil", "round"].contains(&name.as_str()) {
            self.i = start;
            return self.err(&format!(
                "unknown name {name:?} (functions: min max abs floor ceil round)"
            ));
        }
        if !self.eat("(") {
            return self.err("expected ( after the function name");
        }
        let mut args = vec![self.nest(|p| p.expr())?];
        while self.eat(",") {
            args.push(self.nest(|p| p.expr())?);
        }
        if !self.eat(")") {
            return self.err("expected , or )");
        }
        let one = |p: &Self| {
            if args.len() == 1 {
                Ok(args[0])
            } else {
                p.err(&format!("{name} takes one argument"))
            }
        };
        match name.as_str() {
            "abs" => {
                let v = one(self)?;
                if v.n < 0 { v.neg() } else { Ok(v) }
            }
            "floor" => Ok(one(self)?.floor()),
            "ceil" => one(self)?.ceil(),
            "round" => one(self)?.round(),
            "min" => Ok(args.iter().copied().min_by(cmp_q).unwrap_or(Q::int(0))),
            _ => Ok(args.iter().copied().max_by(cmp_q).unwrap_or(Q::int(0))),
        }
    }
}

/// Compares exactly (the difference's sign); past i128, as floats.
fn cmp_q(a: &Q, b: &Q) -> std::cmp::Ordering {
    match b.neg().and_then(|nb| a.add(nb)) {
        Ok(d) => d.n.cmp(&0),
        Err(_) => (a.n as f64 / a.d as f64).total_cmp(&(b.n as f64 / b.d as f64)),
    }
}

/// Evaluates `s` exactly.
pub fn eval(s: &str) -> Result<Q, Fail> {
    if s.len() > MAX_LEN {
        return Err(Fail::Syntax(
            MAX_LEN,
            "the expression is longer than 4096 characters".into(),
        ));
    }
    let mut p = P {
        s: s.as_bytes(),
        i: 0,
        depth: 0,
    };
    let v = p.expr()?;
    p.ws();
    if p.i < s.len() {
        return p.err("unexpected text after the expression");
    }
    Ok(v)
}

/// `q` in decimal with at most `decimals` fractional digits, rounded half away
/// from zero, trailing zeros dropped.
pub fn decimal(q: Q, decimals: usize) -> String {
    let neg = q.n < 0;
    let d = q.d.unsigned_abs();
    let a = q.n.unsigned_abs();
    let mut int = a / d;
    let mut r = a % d;
    let mut digits: Vec<u8> = Vec::with_capacity(decimals);
    for _ in 0..decimals {
        let (mut acc, mut digit) = (0u128, 0u8);
        for _ in 0..10 {
            acc += r;
            if acc >= d {
                acc -= d;
                digit += 1;
            }
        }
        digits.push(digit);
        r = acc;
    }
    // Half away from zero: round up when the rest is at least half.
    if r >= d - r {
        let mut k = digits.len();
        loop {
            if k == 0 {
                int += 1;
                break;
            }
            k -= 1;
            if digits[k] == 9 {
                digits[k] = 0;
            } else {
                digits[k] += 1;
                break;
            }
        }
    }
    while digits.last() == Some(&0) {
        digits.pop();
    }
    let mut s = String::new();
    if neg && (int != 0 || !digits.is_empty()) {
        s.push('-');
    }
    s.push_str(&int.to_string());
    if !digits.is_empty() {
        s.push('.');
        s.extend(digits.iter().map(|x| char::from(b'0' + x)));
    }
    s
}

pub fn calc(ctx: &Ctx, a: &CalcArgs) -> Result<Output, CmdError> {
    if a.decimals > 1000 {
        return Err(CmdError::invalid_argument(
            &ctx.command,
            "--decimals must be 0 to 1000.",
        ));
    }
    let text = match (&a.expression, a.stdin) {
        (Some(e), false) => e.clone(),
        (None, true) => {
            let b = input::read_stdin(ctx, a.limit.bytes(&ctx.command)?)?;
            let mut s = String::from_utf8_lossy(&b).into_owned();
            while s.ends_with(['\n', '\r']) {
                s.pop();
            }
            s
        }
        _ => {
            return Err(CmdError::invalid_argument(
                &ctx.command,
                "Give exactly one of EXPRESSION or --stdin.",
            ));
        }
    };
    let v = eval(&text).map_err(|f| match f {
        Fail::Syntax(at, why) => CmdError::new(
            code::SYNTAX_ERROR,
            format!(
                "The expression does not parse at character {}: {why}.",
                at + 1
            ),
            Repair::new(
                "example",
                "An expression of the accepted shape.",
                shell::aitools(["util", "calc", "(1 + 2) * 3 / 4"]),
            ),
        ),
        Fail::Math(why) => CmdError::invalid_argument(
            &ctx.command,
            format!("The expression cannot be evaluated exactly: {why}."),
        ),
    })?;
    let mut o = Json::obj();
    o.push("input", Json::str(text));
    o.push("result", Json::str(decimal(v, a.decimals)));
    if v.d != 1 {
        o.push("exact", Json::str(format!("{}/{}", v.n, v.d)));
    }
    Ok(Output::from_json(o, false))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(s: &str) -> String {
        eval(s)
            .map(|q| decimal(q, 10))
            .unwrap_or_else(|e| format!("{e:?}"))
    }

    #[test]
    fn precedence_and_exactness() {
        assert_eq!(r("1 + 2 * 3"), "7");
        assert_eq!(r("-2**2"), "-4");
        assert_eq!(r("2**3**2"), "512");
        assert_eq!(r("2 ^ -1"), "0.5");
        assert_eq!(r("1/3"), "0.3333333333");
        assert_eq!(r("2/3"), "0.6666666667");
        assert_eq!(r("-7 % 3"), "2");
        assert_eq!(r("7 % -3"), "-2");
        assert_eq!(r("round(-2.5) + floor(1.5) + ceil(1.2) + abs(-3)"), "3");
        assert_eq!(r("max(1, 2.5, 2) - min(4, 3)"), "-0.5");
        assert_eq!(r("0.1 + 0.2"), "0.3");
        assert_eq!(
            r("170141183460469231731687303715884105727"),
            "170141183460469231731687303715884105727"
        );
    }

    #[test]
    fn refusals() {
        assert!(matches!(eval("1/0"), Err(Fail::Math(_))));
        assert!(matches!(eval("2**200"), Err(Fail::Math(_))));
        assert!(matches!(eval("2**0.5"), Err(Fail::Math(_))));
        assert!(matches!(eval("1 +"), Err(Fail::Syntax(..))));
        assert!(matches!(eval("__import__('os')"), Err(Fail::Syntax(..))));
        assert!(matches!(eval(&"(".repeat(100)), Err(Fail::Syntax(..))));
        assert!(matches!(eval(&"1+".repeat(3000)), Err(Fail::Syntax(..))));
    }
}

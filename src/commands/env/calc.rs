//! `util calc`: exact arithmetic on integers, decimals and rationals (big
//! integers, up to 100,000 bits; a value past them is refused, never rounded),
//! parsed by a small recursive-descent reader with a length and depth budget:
//! numbers, + - * / % ** (or ^), parentheses, min max abs floor ceil round.
//! Nothing is evaluated but arithmetic.

use crate::handler;
use crate::protocol::registry::{CommandSpec, Effects, field};
use crate::protocol::{CmdError, Json, Output, Repair, code, shell};
use crate::workspace::Ctx;
use crate::workspace::input::{self, InputLimit};
use clap::Args;
use num_bigint::{BigInt, Sign};
use num_integer::Integer;
use num_traits::{One, Signed, ToPrimitive, Zero};

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
    description: "Values are exact rationals of big integers (up to 100,000 bits each, about 30,000 digits): a value past that is argument.invalid, never rounded. ** binds tighter than unary minus and is right-associative; its exponent must be an integer. % takes the divisor's sign. round rounds half away from zero. No variables, assignment or other functions. At most 4096 characters and 64 nesting levels.",
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
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Q {
    n: BigInt,
    d: BigInt,
}

/// What went wrong: a syntax error at a character, or an arithmetic refusal.
#[derive(Debug, PartialEq)]
pub enum Fail {
    Syntax(usize, String),
    Math(String),
}

/// The most bits a numerator or denominator may take (about 30,000 decimal
/// digits): enough for 1000! or 2**65536, small enough to stay instant.
const MAX_BITS: u64 = 100_000;

fn overflow() -> Fail {
    Fail::Math(format!(
        "an intermediate value passes {MAX_BITS} bits (about 30,000 digits), the exact range"
    ))
}

impl Q {
    fn int(n: impl Into<BigInt>) -> Q {
        Q {
            n: n.into(),
            d: BigInt::one(),
        }
    }
    fn new(n: BigInt, d: BigInt) -> Result<Q, Fail> {
        if d.is_zero() {
            return Err(Fail::Math("division by zero".into()));
        }
        let g = n.gcd(&d);
        let (mut n, mut d) = (n / &g, d / &g);
        if d.is_negative() {
            (n, d) = (-n, -d);
        }
        if n.bits() > MAX_BITS || d.bits() > MAX_BITS {
            return Err(overflow());
        }
        Ok(Q { n, d })
    }
    fn is_int(&self) -> bool {
        self.d.is_one()
    }
    fn add(&self, o: &Q) -> Result<Q, Fail> {
        Q::new(&self.n * &o.d + &o.n * &self.d, &self.d * &o.d)
    }
    fn neg(&self) -> Q {
        Q {
            n: -&self.n,
            d: self.d.clone(),
        }
    }
    fn mul(&self, o: &Q) -> Result<Q, Fail> {
        Q::new(&self.n * &o.n, &self.d * &o.d)
    }
    fn div(&self, o: &Q) -> Result<Q, Fail> {
        if o.n.is_zero() {
            return Err(Fail::Math("division by zero".into()));
        }
        Q::new(&self.n * &o.d, &self.d * &o.n)
    }
    fn floor(&self) -> Q {
        Q::int(self.n.div_floor(&self.d))
    }
    fn ceil(&self) -> Q {
        Q::int(-((-&self.n).div_floor(&self.d)))
    }
    /// Half away from zero.
    fn round(&self) -> Result<Q, Fail> {
        let half = Q::new(BigInt::one(), BigInt::from(2))?;
        if self.n.is_negative() {
            Ok(self.neg().round()?.neg())
        } else {
            Ok(self.add(&half)?.floor())
        }
    }
    /// a - b * floor(a / b): the remainder with the divisor's sign.
    fn rem(&self, o: &Q) -> Result<Q, Fail> {
        let q = self.div(o)?.floor();
        self.add(&o.mul(&q)?.neg())
    }
    fn pow(&self, e: &Q) -> Result<Q, Fail> {
        if !e.is_int() {
            return Err(Fail::Math("the exponent of ** must be an integer".into()));
        }
        if self.n.is_zero() && e.n.is_negative() {
            return Err(Fail::Math(
                "division by zero (0 to a negative power)".into(),
            ));
        }
        if self.is_int() && (self.n.is_zero() || self.n.is_one()) {
            return Ok(if e.n.is_zero() {
                Q::int(1)
            } else {
                self.clone()
            });
        }
        if self.is_int() && self.n == BigInt::from(-1) {
            return Ok(Q::int(if e.n.is_even() { 1 } else { -1 }));
        }
        // |base| >= 2 (or a fraction): the result takes at least k bits.
        let k =
            e.n.magnitude()
                .to_u32()
                .filter(|k| u64::from(*k) <= MAX_BITS);
        let k = k.ok_or_else(overflow)?;
        let bits = self.n.bits().max(self.d.bits()).saturating_sub(1).max(1);
        if bits.saturating_mul(u64::from(k)) > MAX_BITS {
            return Err(overflow());
        }
        let (n, d) = (self.n.pow(k), self.d.pow(k));
        if e.n.is_negative() {
            Q::new(d, n)
        } else {
            Q::new(n, d)
        }
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
                v = v.add(&self.term()?)?;
            } else if self.eat("-") {
                v = v.add(&self.term()?.neg())?;
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
                v = v.mul(&self.unary()?)?;
            } else if self.eat("/") {
                v = v.div(&self.unary()?)?;
            } else if self.eat("%") {
                v = v.rem(&self.unary()?)?;
            } else {
                return Ok(v);
            }
        }
    }
    fn unary(&mut self) -> Result<Q, Fail> {
        if self.eat("-") {
            return self.nest(|p| Ok(p.unary()?.neg()));
        }
        if self.eat("+") {
            return self.nest(|p| p.unary());
        }
        let base = self.atom()?;
        if self.eat("**") || self.eat("^") {
            let e = self.nest(|p| p.unary())?;
            return base.pow(&e);
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
        let (mut digits, mut frac_digits, mut frac) = (String::new(), 0u32, false);
        while let Some(&c) = self.s.get(self.i) {
            if c.is_ascii_digit() {
                digits.push(char::from(c));
                if frac {
                    frac_digits += 1;
                }
            } else if c == b'.' && !frac {
                frac = true;
            } else {
                break;
            }
            self.i += 1;
        }
        if digits.is_empty() {
            self.i = start;
            return self.err("a number needs a digit");
        }
        let n = BigInt::parse_bytes(digits.as_bytes(), 10).unwrap_or_default();
        Q::new(n, BigInt::from(10).pow(frac_digits))
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
        if ["abs", "floor", "ceil", "round"].contains(&name.as_str()) && args.len() != 1 {
            return self.err(&format!("{name} takes one argument"));
        }
        let mut args = args.into_iter();
        let first = args.next().unwrap_or_else(|| Q::int(0));
        Ok(match name.as_str() {
            "abs" => Q {
                n: first.n.abs(),
                d: first.d,
            },
            "floor" => first.floor(),
            "ceil" => first.ceil(),
            "round" => first.round()?,
            "min" => args.fold(first, |m, v| if cmp_q(&v, &m).is_lt() { v } else { m }),
            _ => args.fold(first, |m, v| if cmp_q(&v, &m).is_gt() { v } else { m }),
        })
    }
}

/// Compares exactly (cross-multiplied; denominators are positive).
fn cmp_q(a: &Q, b: &Q) -> std::cmp::Ordering {
    (&a.n * &b.d).cmp(&(&b.n * &a.d))
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
pub fn decimal(q: &Q, decimals: usize) -> String {
    let scale = BigInt::from(10).pow(u32::try_from(decimals).unwrap_or(u32::MAX));
    let (mut units, rest) = (q.n.abs() * scale).div_rem(&q.d);
    // Half away from zero: round up when the rest is at least half.
    if rest * 2u32 >= q.d {
        units += 1u32;
    }
    let digits = units.to_str_radix(10);
    let (int, frac) = if decimals == 0 {
        (digits.as_str(), "")
    } else if digits.len() > decimals {
        digits.split_at(digits.len() - decimals)
    } else {
        ("0", digits.as_str())
    };
    let pad = decimals.saturating_sub(frac.len());
    let frac = format!("{}{frac}", "0".repeat(if int == "0" { pad } else { 0 }));
    let frac = frac.trim_end_matches('0');
    let mut s = String::new();
    if q.n.sign() == Sign::Minus && (int != "0" || !frac.is_empty()) {
        s.push('-');
    }
    s.push_str(int);
    if !frac.is_empty() {
        s.push('.');
        s.push_str(frac);
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
    o.push("result", Json::str(decimal(&v, a.decimals)));
    if !v.is_int() {
        o.push("exact", Json::str(format!("{}/{}", v.n, v.d)));
    }
    Ok(Output::from_json(o, false))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(s: &str) -> String {
        eval(s)
            .map(|q| decimal(&q, 10))
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
        assert_eq!(
            r("2**200"),
            "1606938044258990275541962092341162602522202993782792835301376"
        );
        assert_eq!(
            r("-(2**128) / 3"),
            "-113427455640312821154458202477256070485.3333333333"
        );
        assert_eq!(r("0.05 - 0.1"), "-0.05");
        assert_eq!(r("round(0.5) - round(-0.5)"), "2");
    }

    #[test]
    fn refusals() {
        assert!(matches!(eval("1/0"), Err(Fail::Math(_))));
        assert!(matches!(eval("2**100001"), Err(Fail::Math(_))));
        assert!(matches!(eval("(2**60000)**2"), Err(Fail::Math(_))));
        assert!(matches!(eval("10**99999999999"), Err(Fail::Math(_))));
        assert!(matches!(eval("2**0.5"), Err(Fail::Math(_))));
        assert!(matches!(eval("1 +"), Err(Fail::Syntax(..))));
        assert!(matches!(eval("__import__('os')"), Err(Fail::Syntax(..))));
        assert!(matches!(eval(&"(".repeat(100)), Err(Fail::Syntax(..))));
        assert!(matches!(eval(&"1+".repeat(3000)), Err(Fail::Syntax(..))));
    }
}

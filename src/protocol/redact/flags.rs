//! Command-line options in a line of text: a credential after `-u`/`--user`
//! (`user:password`), and the value of an option strongly naming a secret
//! (`--password VALUE`); part of the key scan (`keyed`).

use super::policy;
use std::ops::Range;
use std::sync::OnceLock;

/// `curl -u user:password`, `--user user:password`: the password.
pub(super) fn user_flags(b: &[u8], lo: usize, hi: usize, out: &mut Vec<Range<usize>>) {
    static FLAGS: OnceLock<[memchr::memmem::Finder<'static>; 2]> = OnceLock::new();
    let flags = FLAGS.get_or_init(|| {
        [
            memchr::memmem::Finder::new(b" -u "),
            memchr::memmem::Finder::new(b" --user "),
        ]
    });
    for finder in flags {
        let flag = finder.needle();
        if let Some(at) = finder.find(&b[lo..hi]) {
            let v = lo + at + flag.len();
            let e = v + b[v..hi]
                .iter()
                .take_while(|c| !c.is_ascii_whitespace())
                .count();
            let cred = &b[v..e];
            let cred_start = usize::from(matches!(cred.first(), Some(b'"' | b'\'')));
            if let Some(c) = cred.iter().position(|&x| x == b':') {
                let end =
                    e - usize::from(matches!(cred.last(), Some(b'"' | b'\'')) && cred.len() > 1);
                if c + 1 < end - v && c > cred_start && !policy::is_placeholder(&b[v + c + 1..end])
                {
                    out.push(v + c + 1..end);
                }
            }
        }
    }
}

/// `--password VALUE`, `--api-token 'VALUE'`: a command line's option whose name
/// strongly names a secret, its value the next word, judged as after that key
/// (`--password=VALUE` is the key scan's). Names about a secret (`--password-file
/// PATH`, `--token-count N`) and values that name one elsewhere (`$TOKEN`, a path,
/// another option, `<token>`, `id=x,src=f`) are left.
pub(super) fn secret_flags(b: &[u8], lo: usize, hi: usize, out: &mut Vec<Range<usize>>) {
    static OPTION: OnceLock<memchr::memmem::Finder<'static>> = OnceLock::new();
    let option = OPTION.get_or_init(|| memchr::memmem::Finder::new(b" --"));
    for at in option.find_iter(&b[lo..hi]) {
        let n = lo + at + 3;
        let ne = n + b[n..hi]
            .iter()
            .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, b'-' | b'_'))
            .count();
        if ne + 1 >= hi || b[ne] != b' ' {
            continue;
        }
        let name: Vec<u8> = b[n..ne]
            .iter()
            .map(|&c| if c == b'-' { b'_' } else { c })
            .collect();
        if policy::key_strength(&name) != Some(policy::Strength::Strong) {
            continue;
        }
        let v = ne + 1;
        let quote = Some(b[v]).filter(|q| matches!(q, b'\'' | b'"'));
        let (start, end) = match quote {
            Some(q) => match memchr::memchr(q, &b[v + 1..hi]) {
                Some(c) => (v + 1, v + 1 + c),
                None => continue,
            },
            None => (
                v,
                v + b[v..hi]
                    .iter()
                    .take_while(|c| !c.is_ascii_whitespace())
                    .count(),
            ),
        };
        let value = &b[start..end];
        // A `k=v` spec (`--secret id=npm,src=.npmrc`) names where the secret is;
        // base64's `=` padding ends a value.
        let spec = (value.iter().position(|&c| c == b'='))
            .is_some_and(|i| value[i..].iter().any(|&c| c != b'='));
        let elsewhere = spec
            || matches!(
                value.first(),
                None | Some(b'-' | b'$' | b'/' | b'.' | b'~' | b'<' | b'{' | b'%' | b'@')
            );
        if !elsewhere && policy::is_secret_value(value, quote.is_some(), policy::Strength::Strong) {
            out.push(start..end);
        }
    }
}

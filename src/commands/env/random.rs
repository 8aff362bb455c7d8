//! `util random`: uniformly random strings over hex, alnum or base64url, from
//! the OS random source (rejection sampling, so no symbol is favoured); under
//! `AITOOLS_SEED` the bytes come from the seed instead (reproducible tests).

use crate::handler;
use crate::protocol::registry::{CommandSpec, Effects, field};
use crate::protocol::{CmdError, Json, Output};
use crate::workspace::Ctx;
use crate::workspace::host;
use clap::{Args, ValueEnum};
use sha2::{Digest, Sha256};

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Alphabet {
    Hex,
    Alnum,
    Base64url,
}

impl Alphabet {
    fn symbols(self) -> &'static [u8] {
        match self {
            Alphabet::Hex => b"0123456789abcdef",
            Alphabet::Alnum => b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789",
            Alphabet::Base64url => {
                b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
            }
        }
    }
}

#[derive(Args, Debug)]
pub struct RandomArgs {
    /// Characters per string, 1 to 4096.
    #[arg(long, default_value_t = 32, value_name = "N")]
    pub length: usize,
    /// hex: 0-9a-f. alnum: A-Za-z0-9. base64url: A-Za-z0-9-_.
    #[arg(long, value_enum, default_value = "hex")]
    pub alphabet: Alphabet,
    /// How many strings, 1 to 1000.
    #[arg(long, default_value_t = 1, value_name = "N")]
    pub count: usize,
}

pub const RANDOM: CommandSpec = CommandSpec {
    name: "util random",
    summary: "Uniformly random strings over hex, alnum or base64url.",
    description: "Bytes from the OS random source (getrandom), mapped to the alphabet by rejection sampling so every symbol is equally likely. Under AITOOLS_SEED the bytes derive from the seed (reproducible runs, not secrets). The generated values are exempt from the secret mask: they are aitools' own, never read from the user's data.",
    args: <RandomArgs as clap::Args>::augment_args,
    output_fields: &[field("values", "The generated strings.")],
    error_codes: &[],
    writes: false,
    tx: false,
    workspace: false,
    effects: Effects::NONE,
    run: handler!(RandomArgs, random),
};

/// A byte source: the kernel's, or a SHA-256 stream of the seed.
struct Source {
    seed: Option<String>,
    buf: Vec<u8>,
    at: usize,
    block: u64,
}

impl Source {
    fn next(&mut self) -> std::io::Result<u8> {
        if self.at == self.buf.len() {
            self.buf = match &self.seed {
                Some(s) => {
                    let mut h = Sha256::new();
                    h.update(s.as_bytes());
                    h.update(b":util random:");
                    h.update(self.block.to_be_bytes());
                    self.block += 1;
                    h.finalize().to_vec()
                }
                None => {
                    let mut b = vec![0u8; 4096];
                    host::random_bytes(&mut b)?;
                    b
                }
            };
            self.at = 0;
        }
        self.at += 1;
        Ok(self.buf[self.at - 1])
    }
}

pub fn random(ctx: &Ctx, a: &RandomArgs) -> Result<Output, CmdError> {
    if !(1..=4096).contains(&a.length) || !(1..=1000).contains(&a.count) {
        return Err(CmdError::invalid_argument(
            &ctx.command,
            "--length must be 1 to 4096 and --count 1 to 1000.",
        ));
    }
    let syms = a.alphabet.symbols();
    // The largest multiple of the alphabet's size a byte reaches: above it, reject.
    let limit = 256 - 256 % syms.len();
    let mut src = Source {
        seed: ctx.session.settings.seed.clone(),
        buf: Vec::new(),
        at: 0,
        block: 0,
    };
    let io = |e: std::io::Error| crate::store::io_fault(ctx, "the OS random source", &e);
    let mut values = Vec::with_capacity(a.count);
    for _ in 0..a.count {
        let mut s = String::with_capacity(a.length);
        while s.len() < a.length {
            let b = usize::from(src.next().map_err(io)?);
            if b < limit {
                s.push(char::from(syms[b % syms.len()]));
            }
        }
        values.push(s);
    }
    let mut o = Json::obj();
    o.push(
        "values",
        Json::Arr(values.iter().cloned().map(Json::str).collect()),
    );
    // Made here from the random source, never read from the user's data: a
    // 40- or 64-character token must come back whole, not masked.
    Ok(Output::from_json(o, false).own_values(values))
}

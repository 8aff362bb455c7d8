//! How the `aitools` executable is linked: a pure function of the target and the
//! environment (`choose`), and the arguments each choice gives the linker
//! (`Link::args`), so a test checks every branch without linking anything.
//!
//! On Linux with glibc the default is a static, non-PIE executable: no dynamic
//! loader runs at start-up (no `libc.so`/`libgcc_s.so` to map, no ~250 symbol
//! bindings), and there are no relative relocations to apply (issue 12 row 10).
//! rustc only links statically when the final crate has `+crt-static`, which a
//! build script cannot set and which `RUSTFLAGS`/`.cargo/config.toml` would also
//! apply to proc-macros (rustc refuses those). So the bin is linked with `-static`
//! and the libraries rustc names for a dynamic link (`-lc`, `-lgcc_s`, ...) are
//! found first in a directory of stand-ins (`stand_ins`): small linker scripts
//! naming glibc's and libgcc's static archives. Tests and the library are untouched
//! (`cargo:rustc-link-arg-bins`).
//!
//! `AITOOLS_PIE=1` gives rustc's default back (a dynamic PIE: address randomisation
//! of the executable's own code); `AITOOLS_STATIC=0` keeps it dynamic but non-PIE.

/// How the binary is linked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Link {
    /// rustc's default: a dynamically linked PIE (no extra arguments).
    Pie,
    /// Dynamically linked, not position-independent.
    NoPie,
    /// Statically linked (glibc, libgcc), not position-independent.
    Static,
}

/// What `choose` looks at.
#[derive(Debug, Clone, Copy)]
pub struct Inputs<'a> {
    /// `CARGO_CFG_TARGET_OS`
    pub os: &'a str,
    /// `CARGO_CFG_TARGET_ENV`
    pub env: &'a str,
    /// `TARGET != HOST`: the host's `cc` cannot be asked about the target's archives.
    pub cross: bool,
    /// `AITOOLS_PIE`
    pub pie: Option<&'a str>,
    /// `AITOOLS_STATIC`
    pub static_: Option<&'a str>,
    /// Every archive `stand_ins` needs was found.
    pub archives: bool,
}

/// The link for these inputs.
pub fn choose(i: Inputs) -> Link {
    if i.os != "linux" || i.env != "gnu" || i.pie == Some("1") {
        return Link::Pie;
    }
    if i.static_ == Some("0") || i.cross || !i.archives {
        return Link::NoPie;
    }
    Link::Static
}

/// The archives a static link needs, by the name rustc asks for (`-l<name>`).
/// Each stand-in `lib<name>.a` is a linker script; `gcc_s` becomes libgcc's
/// static parts with libc (they call each other).
pub const STAND_INS: &[(&str, &[&str])] = &[
    ("c", &["libc.a"]),
    ("m", &["libm.a"]),
    ("rt", &["librt.a"]),
    ("util", &["libutil.a"]),
    ("pthread", &["libpthread.a"]),
    ("dl", &["libdl.a"]),
    ("gcc_s", &["libgcc_eh.a", "libgcc.a", "libc.a"]),
];

/// The stand-in files: `(file name, linker script)`, given where each archive is
/// (`locate`, e.g. `cc -print-file-name=libc.a`). `None` when one is missing.
pub fn stand_ins(locate: &dyn Fn(&str) -> Option<String>) -> Option<Vec<(String, String)>> {
    let mut files = Vec::new();
    for (name, archives) in STAND_INS {
        let mut paths = Vec::new();
        for a in archives.iter() {
            paths.push(locate(a)?);
        }
        files.push((
            format!("lib{name}.a"),
            format!("GROUP ( {} )\n", paths.join(" ")),
        ));
    }
    Some(files)
}

impl Link {
    /// The `cargo:rustc-link-arg-bins` arguments; `dir` holds the stand-ins.
    pub fn args(self, dir: &str) -> Vec<String> {
        match self {
            Link::Pie => vec![],
            Link::NoPie => vec!["-no-pie".to_string()],
            Link::Static => vec![
                "-no-pie".to_string(),
                "-static".to_string(),
                format!("-L{dir}"),
            ],
        }
    }
}

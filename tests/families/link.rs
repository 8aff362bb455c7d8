//! How build.rs links the binary (build/link.rs): the environment → link choice
//! map, every branch, without linking (linking each variant is minutes of build).
//! The default's result is what every other black-box test runs.

#[path = "../../build/link.rs"]
#[allow(dead_code)]
mod link;

use link::{Inputs, Link, choose};

fn inputs<'a>(pie: Option<&'a str>, static_: Option<&'a str>) -> Inputs<'a> {
    Inputs {
        os: "linux",
        env: "gnu",
        cross: false,
        pie,
        static_,
        archives: true,
    }
}

#[test]
fn linux_gnu_links_static_non_pie_unless_told_otherwise() {
    assert_eq!(choose(inputs(None, None)), Link::Static);
    assert_eq!(choose(inputs(Some("0"), None)), Link::Static);
    // AITOOLS_PIE=1: rustc's default back (dynamic PIE), whatever AITOOLS_STATIC says.
    assert_eq!(choose(inputs(Some("1"), None)), Link::Pie);
    assert_eq!(choose(inputs(Some("1"), Some("1"))), Link::Pie);
    assert_eq!(choose(inputs(Some("1"), Some("0"))), Link::Pie);
    // AITOOLS_STATIC=0: dynamic, still non-PIE.
    assert_eq!(choose(inputs(None, Some("0"))), Link::NoPie);
    assert_eq!(choose(inputs(None, Some("1"))), Link::Static);
    // No static archives, or a cross build: non-PIE dynamic.
    let mut i = inputs(None, None);
    i.archives = false;
    assert_eq!(choose(i), Link::NoPie);
    let mut i = inputs(None, None);
    i.cross = true;
    assert_eq!(choose(i), Link::NoPie);
    // Other targets keep rustc's default.
    for (os, env) in [("macos", ""), ("linux", "musl"), ("windows", "msvc")] {
        let mut i = inputs(None, None);
        i.os = os;
        i.env = env;
        assert_eq!(choose(i), Link::Pie, "{os} {env}");
    }
}

#[test]
fn each_choice_gives_the_linker_its_arguments() {
    assert!(Link::Pie.args("/d").is_empty());
    assert_eq!(Link::NoPie.args("/d"), ["-no-pie"]);
    assert_eq!(Link::Static.args("/d"), ["-no-pie", "-static", "-L/d"]);
}

#[test]
fn the_stand_ins_name_every_library_rustc_links_and_need_every_archive() {
    let found = |a: &str| Some(format!("/lib/{a}"));
    let files = link::stand_ins(&found).unwrap();
    let names: Vec<&str> = files.iter().map(|(n, _)| n.as_str()).collect();
    for lib in ["c", "m", "rt", "util", "pthread", "dl", "gcc_s"] {
        assert!(names.contains(&format!("lib{lib}.a").as_str()), "{names:?}");
    }
    let gcc_s = &files.iter().find(|(n, _)| n == "libgcc_s.a").unwrap().1;
    assert_eq!(
        gcc_s,
        "GROUP ( /lib/libgcc_eh.a /lib/libgcc.a /lib/libc.a )\n"
    );
    // One archive missing: no stand-ins (build.rs then links dynamically).
    let missing = |a: &str| (a != "libgcc_eh.a").then(|| format!("/lib/{a}"));
    assert!(link::stand_ins(&missing).is_none());
}

/// The built binary is what the default chose: static on Linux with glibc (no
/// `PT_INTERP` program header naming a dynamic loader).
#[test]
#[cfg(all(target_os = "linux", target_env = "gnu", target_pointer_width = "64"))]
fn the_built_binary_has_no_dynamic_loader() {
    if option_env!("AITOOLS_PIE").is_some() || option_env!("AITOOLS_STATIC").is_some() {
        return;
    }
    let bin = std::fs::read(env!("CARGO_BIN_EXE_aitools")).unwrap();
    assert_eq!(&bin[..4], b"\x7fELF");
    let u16_at = |o: usize| u16::from_le_bytes([bin[o], bin[o + 1]]) as usize;
    let phoff = u64::from_le_bytes(bin[32..40].try_into().unwrap()) as usize;
    let (size, count) = (u16_at(54), u16_at(56));
    let types: Vec<u32> = (0..count)
        .map(|k| {
            let o = phoff + k * size;
            u32::from_le_bytes(bin[o..o + 4].try_into().unwrap())
        })
        .collect();
    const PT_LOAD: u32 = 1;
    const PT_INTERP: u32 = 3;
    assert!(types.contains(&PT_LOAD), "{types:?}");
    assert!(!types.contains(&PT_INTERP), "a dynamic loader: {types:?}");
}

//! `json get FILE '.users[].name'`: jq's path through an array's elements is
//! json select's question (`json select FILE /users --pick /name`). The call is
//! read as that one, and `took` says so, instead of a refusal whose repair is it.

use super::Read;
use crate::protocol::argv::options;
use crate::protocol::shell;
use crate::registry;
use crate::text::json_doc::jq::jq_each;

/// The call as json select, when `m` (clap's reading of `argv`) is a `json get`
/// of a jq path through one array (`.a[]`, `.a[].b`, `.a.b[].c`) and none of
/// json get's own options (--keys, --raw, --max-bytes: no json select answer has
/// them; json get refuses, naming the select call).
pub fn took(argv: &[String], m: &clap::ArgMatches) -> Option<Read> {
    let ("json", json) = m.subcommand()? else {
        return None;
    };
    let ("get", get) = json.subcommand()? else {
        return None;
    };
    let own = |id: &str| {
        get.value_source(id)
            .is_some_and(|s| s != clap::parser::ValueSource::DefaultValue)
    };
    if own("keys") || own("raw") || own("max_bytes") {
        return None;
    }
    let jq = get.get_one::<String>("pointer")?;
    let (array, pick) = jq_each(jq)?;
    let verb = argv.iter().position(|w| w == "json")? + 1;
    if argv.get(verb).map(String::as_str) != Some("get") {
        return None;
    }
    // The positional words: neither command words, options, their values nor `--`.
    let mut taken = vec![false; argv.len()];
    for o in options(registry::LIST, argv) {
        taken[o.index] = true;
        if o.value.is_some()
            && !o.inline
            && let Some(t) = taken.get_mut(o.index + 1)
        {
            *t = true;
        }
    }
    let mut positional = (verb + 1..argv.len()).filter(|&i| !taken[i] && argv[i] != "--");
    let at = positional.nth(1).filter(|&i| argv[i] == *jq)?;
    let mut fixed = argv.to_vec();
    fixed[verb] = "select".into();
    fixed[at] = array.clone();
    let mut said = vec!["json".to_string(), "select".into(), array];
    if let Some(rel) = &pick {
        // After the pointer, unless a `--` before it makes every word positional.
        let end_of_options = argv[..at].iter().any(|w| w == "--");
        let place = if end_of_options { verb + 1 } else { at + 1 };
        fixed.splice(place..place, ["--pick".to_string(), rel.clone()]);
        said.extend(["--pick".to_string(), rel.clone()]);
    }
    // Keyed by the command, not the jq path: a path naming a secret
    // (`.users[].token`) would have the mask hide the call as its value.
    Some((fixed, vec![("json get".into(), shell::join(said))]))
}

//! The invoker interface: how a command that runs other commands (`batch`, `tx
//! rebase`) runs one, exactly as a standalone call would, and gets its typed
//! result back (never rendered text). The composition root provides the runner
//! (`workspace::Invoker`) in `Ctx::invoker`; a family never names the dispatcher.

use super::envelope::{self, Output};
use super::error::CmdError;
use super::json::Json;
use super::shell;

/// One call's result, before rendering.
#[derive(Debug)]
pub struct Invoked {
    /// The command as resolved (`read`, `tx commit`), else `aitools`.
    pub command: String,
    pub result: Result<Output, CmdError>,
    /// The recovery report members (`recovered`, `pending_recovery`).
    pub recovery: Vec<(String, Json)>,
    /// Other tools' spellings read the aitools way (`{"-n":"--limit"}`).
    pub took: Option<Json>,
}

impl Invoked {
    pub fn new(command: impl Into<String>, result: Result<Output, CmdError>) -> Invoked {
        Invoked {
            command: command.into(),
            result,
            recovery: Vec::new(),
            took: None,
        }
    }

    /// 0, 3 (cut at a limit) or the error's catalog exit code.
    pub fn exit_code(&self) -> i32 {
        match &self.result {
            Ok(o) if o.partial => 3,
            Ok(_) => 0,
            Err(e) => e.exit_code(),
        }
    }

    pub fn error(&self) -> Option<&CmdError> {
        self.result.as_ref().err()
    }

    /// Rewrites each command the answer hands back (`next_commands` entries and
    /// `error.repairs[].command`); `f` answers `None` to keep one as it is.
    pub fn map_commands(&mut self, f: &dyn Fn(&str) -> Option<String>) {
        match &mut self.result {
            Ok(out) => {
                if let Some(Json::Arr(cmds)) = out.fields.get_mut("next_commands") {
                    for c in cmds.iter_mut() {
                        if let Json::Str(s) = c
                            && let Some(n) = f(s)
                        {
                            *s = n;
                        }
                    }
                }
            }
            Err(e) => {
                for r in e.repairs_mut() {
                    if let Some(n) = f(&r.command) {
                        r.command = n;
                    }
                }
            }
        }
    }

    /// The envelope as a tree, masked and with its own `redactions` count, as
    /// the call alone would have printed it.
    pub fn envelope(&self) -> Json {
        let (mut env, trusted) = match &self.result {
            Ok(out) => {
                let took = self.took.clone().map(|t| ("took".to_string(), t));
                let members = took.into_iter().chain(self.recovery.clone()).collect();
                envelope::ok_tree(&self.command, out.clone(), members)
            }
            Err(e) => envelope::error_tree_trusting(&self.command, e),
        };
        let pre = self.result.as_ref().map_or(0, |out| out.premasked);
        let own = self.result.as_ref().map_or(&[][..], |out| &out.own[..]);
        envelope::hide_own(&mut env, own);
        let n = super::redact::mask_tree_trusting(&mut env, trusted)
            + pre
            + super::redact::take_tally();
        envelope::restore_own(&mut env, own);
        if n > 0 {
            env.push("redactions", Json::UInt(n as u64));
        }
        env
    }
}

/// `command` (an `aitools` line) without its `--tx <id>` option, when it has that
/// one: the words are parsed, the option removed, and the line quoted again.
pub fn without_tx(command: &str, id: &str) -> Option<String> {
    let words = shell::split(command)?;
    let (first, rest) = words.split_first()?;
    if first != "aitools" {
        return None;
    }
    let end = rest.iter().position(|w| w == "--").unwrap_or(rest.len());
    let names = rest[..end].windows(2).any(|w| w[0] == "--tx" && w[1] == id)
        || rest[..end]
            .iter()
            .any(|w| w.strip_prefix("--tx=") == Some(id));
    if !names {
        return None;
    }
    Some(shell::aitools(shell::rerun(rest, &["--tx"], &[], &[])))
}

/// `argv` with `--tx <id>` among its options (before a `--`), any other `--tx` removed.
pub fn with_tx(argv: &[String], id: &str) -> Vec<String> {
    shell::rerun(argv, &["--tx"], &[], &["--tx".to_string(), id.to_string()])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tx_option_goes_in_before_values_and_out_by_words() {
        let argv: Vec<String> = ["read", "a", "--", "-x"].map(String::from).to_vec();
        assert_eq!(with_tx(&argv, "T"), ["read", "a", "--tx", "T", "--", "-x"]);
        assert_eq!(
            without_tx("aitools read 'a b' --tx T --range 1:2", "T").as_deref(),
            Some("aitools read 'a b' --range 1:2")
        );
        assert_eq!(without_tx("aitools read a --tx U", "T"), None);
        assert_eq!(without_tx("aitools read -- --tx T", "T"), None);
    }
}

//! The shell-command correspondence table (`data/correspondence.tsv`): what an agent
//! who typed `aitools cat` or `aitools grep` should run instead.

const TABLE: &str = include_str!("../../data/correspondence.tsv");

pub struct Correspondence {
    pub shell: &'static str,
    pub command: &'static str,
    pub why: &'static str,
    /// How many operands of the shell call carry over (`None`: all; `Some(0)`: none).
    pub operands: Option<usize>,
}

impl Correspondence {
    /// The aitools command for `rest`, the shell call's arguments: its operands are
    /// carried over only when the call has no flags (a flag's meaning does not carry).
    pub fn command_for(&self, rest: &[String]) -> String {
        if rest.is_empty() || rest.iter().any(|a| a.starts_with('-')) || self.operands == Some(0) {
            return self.command.to_string();
        }
        let n = self.operands.unwrap_or(rest.len());
        if rest.len() > n {
            return self.command.to_string();
        }
        format!("{} {}", self.command, super::shell::join(rest))
    }
}

pub fn rows() -> impl Iterator<Item = Correspondence> {
    TABLE
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .filter_map(|line| {
            let mut cols = line.split('\t');
            Some(Correspondence {
                shell: cols.next()?,
                command: cols.next()?,
                why: cols.next().unwrap_or(""),
                operands: match cols.next().unwrap_or("-") {
                    "*" => None,
                    n => Some(n.parse().unwrap_or(0)),
                },
            })
        })
}

pub fn lookup(shell: &str) -> Option<Correspondence> {
    rows().find(|r| r.shell == shell)
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_row_has_four_columns() {
        for line in super::TABLE
            .lines()
            .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        {
            let cols: Vec<&str> = line.split('\t').collect();
            assert_eq!(cols.len(), 4, "{line}");
            assert!(
                cols[3] == "*" || cols[3] == "-" || cols[3].parse::<usize>().is_ok(),
                "{line}"
            );
        }
    }
}

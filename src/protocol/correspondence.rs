//! The shell-command correspondence table (`data/correspondence.tsv`): what an agent
//! who typed `aitools cat` or `aitools grep` should run instead.

const TABLE: &str = include_str!("../../data/correspondence.tsv");

pub struct Correspondence {
    pub shell: &'static str,
    pub command: &'static str,
    pub why: &'static str,
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
            })
        })
}

pub fn lookup(shell: &str) -> Option<Correspondence> {
    rows().find(|r| r.shell == shell)
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_row_has_three_columns() {
        for line in super::TABLE
            .lines()
            .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        {
            assert_eq!(line.split('\t').count(), 3, "{line}");
        }
    }
}

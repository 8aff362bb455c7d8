//! The first line of an intent record as it is written: `Wire`, the `Intent`
//! with relative paths and without what can be derived, and back.

use super::{Intent, Linked, Step, blob_temp_name, temp_name};
use crate::store::journal::Entry;
use serde::{Deserialize, Serialize};
use std::borrow::Cow;
use std::path::{Path, PathBuf};

/// The first line as written (`"v":2`): what an `Intent` holds, without what
/// can be derived. Tree paths are relative to the workspace root (`""` is the
/// root) and blob-store paths are names in `blobs/`; a temp of the tree is its
/// number `n` (`<dir of its target>/.aitools-<op_id>-<n>.tmp`) and a linked
/// before-image's temp its number (`blobs/.<op_id>-<n>.tmp`) when it has that
/// form; `temps` is left out when it is the renames' temps in order, and `links`
/// lists only the links that are not linked before-images. `intent` gives the
/// `Intent` back with absolute paths, which every check judges as before (an
/// absolute path read here is kept as is and judged the same way).
#[derive(Debug, Serialize, Deserialize)]
pub(super) struct Wire<'a> {
    v: u32,
    op_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    temps: Option<Vec<PathBuf>>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    blob_tmps: Vec<PathBuf>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    links: Vec<PathBuf>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    linked: Vec<WireLinked>,
    steps: Vec<WireStep>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    sync_dirs: Vec<PathBuf>,
    /// Owned when read. Not serialized with the rest: `write_first_line`
    /// appends the entry's JSON, serialized once for the line and the journal.
    #[serde(skip_serializing)]
    entry: Cow<'a, Entry>,
}

#[derive(Debug, Serialize, Deserialize)]
struct WireLinked {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    n: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    tmp: Option<PathBuf>,
    hash: String,
    size: u64,
    mtime_ns: i64,
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "lowercase")]
enum WireStep {
    Mkdir {
        path: PathBuf,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        mode: Option<u32>,
    },
    Rename {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        n: Option<u64>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        tmp: Option<PathBuf>,
        to: PathBuf,
    },
    Move {
        from: PathBuf,
        to: PathBuf,
        dev: u64,
        ino: u64,
    },
    Unlink {
        path: PathBuf,
        dev: u64,
        ino: u64,
    },
    Rmdir {
        path: PathBuf,
        dev: u64,
        ino: u64,
    },
    Chmod {
        path: PathBuf,
        mode: u32,
    },
    Utime {
        path: PathBuf,
        mtime: i64,
    },
}

impl WireStep {
    /// A step as written: its paths relative to the root, a rename's temp by
    /// its number when it is `<tree_prefix><n>.tmp` beside its target.
    fn of(s: &Step, rel: &dyn Fn(&Path) -> PathBuf, tree_prefix: &str) -> WireStep {
        match s {
            Step::Mkdir { path, mode } => WireStep::Mkdir {
                path: rel(path),
                mode: *mode,
            },
            Step::Rename { tmp, to } => {
                let n = temp_number(tmp.file_name(), tree_prefix, ".tmp")
                    .filter(|_| tmp.parent().is_some() && tmp.parent() == to.parent());
                WireStep::Rename {
                    n,
                    tmp: n.is_none().then(|| rel(tmp)),
                    to: rel(to),
                }
            }
            Step::Move { from, to, dev, ino } => WireStep::Move {
                from: rel(from),
                to: rel(to),
                dev: *dev,
                ino: *ino,
            },
            Step::Unlink { path, dev, ino } => WireStep::Unlink {
                path: rel(path),
                dev: *dev,
                ino: *ino,
            },
            Step::Rmdir { path, dev, ino } => WireStep::Rmdir {
                path: rel(path),
                dev: *dev,
                ino: *ino,
            },
            Step::Chmod { path, mode } => WireStep::Chmod {
                path: rel(path),
                mode: *mode,
            },
            Step::Utime { path, mtime } => WireStep::Utime {
                path: rel(path),
                mtime: *mtime,
            },
        }
    }
}

/// The first line for `i` (no newline) and, apart, its entry's JSON: the
/// entry is the line's last member, serialized once for the line and the
/// journal (`{...,"entry":<entry>}`, the bytes serde writes for the whole).
pub(super) fn line(i: &Intent, root: &Path, blobs: &Path) -> serde_json::Result<(String, String)> {
    let mut line = serde_json::to_string(&Wire::of(i, root, blobs))?;
    let entry = serde_json::to_string(&i.entry)?;
    // `{"v":2,...}`: never empty, so the entry follows a comma.
    line.pop();
    line.push_str(",\"entry\":");
    line.push_str(&entry);
    line.push('}');
    Ok((line, entry))
}

/// The number in a temp name `<prefix><n><suffix>`, when the name is exactly that.
fn temp_number(name: Option<&std::ffi::OsStr>, prefix: &str, suffix: &str) -> Option<u64> {
    let digits = name?.to_str()?.strip_prefix(prefix)?.strip_suffix(suffix)?;
    let n: u64 = digits.parse().ok()?;
    (n.to_string() == digits).then_some(n)
}

impl<'a> Wire<'a> {
    pub(super) fn of(i: &'a Intent, root: &Path, blobs: &Path) -> Wire<'a> {
        let rel = |p: &Path| -> PathBuf {
            p.strip_prefix(root)
                .map_or_else(|_| p.to_path_buf(), Path::to_path_buf)
        };
        let name = |p: &Path| -> PathBuf {
            match (p.parent(), p.file_name()) {
                (Some(d), Some(n)) if d == blobs => PathBuf::from(n),
                _ => p.to_path_buf(),
            }
        };
        let tree_prefix = format!(".aitools-{}-", i.op_id);
        let blob_prefix = format!(".{}-", i.op_id);
        let steps: Vec<WireStep> = i
            .steps
            .iter()
            .map(|s| WireStep::of(s, &rel, &tree_prefix))
            .collect();
        let renamed: Vec<&PathBuf> = i
            .steps
            .iter()
            .filter_map(|s| match s {
                Step::Rename { tmp, .. } => Some(tmp),
                _ => None,
            })
            .collect();
        let derived =
            renamed.len() == i.temps.len() && renamed.iter().zip(&i.temps).all(|(a, b)| *a == b);
        // The links that are not linked before-images. Those are usually the
        // last links, in order (`Plan::commit`); the others are looked up in a
        // set (a linear `contains` per link was quadratic in files).
        let ordered = i.links.len() >= i.linked.len()
            && i.links[i.links.len() - i.linked.len()..]
                .iter()
                .zip(&i.linked)
                .all(|(a, l)| *a == l.tmp);
        let others = if ordered {
            &i.links[..i.links.len() - i.linked.len()]
        } else {
            &i.links[..]
        };
        let linked_tmps: std::collections::HashSet<&Path> = if others.is_empty() {
            Default::default()
        } else {
            i.linked.iter().map(|l| l.tmp.as_path()).collect()
        };
        Wire {
            v: 2,
            op_id: i.op_id.clone(),
            temps: (!derived).then(|| i.temps.iter().map(|t| rel(t)).collect()),
            blob_tmps: i.blob_tmps.iter().map(|b| name(b)).collect(),
            links: others
                .iter()
                .filter(|l| !linked_tmps.contains(l.as_path()))
                .map(|l| name(l))
                .collect(),
            linked: i
                .linked
                .iter()
                .map(|l| {
                    let n = temp_number(l.tmp.file_name(), &blob_prefix, ".tmp")
                        .filter(|_| l.tmp.parent() == Some(blobs));
                    // Linked at its own blob name (the usual case): neither is written.
                    let at_blob = l.tmp == blobs.join(&l.hash);
                    WireLinked {
                        n,
                        tmp: (n.is_none() && !at_blob).then(|| name(&l.tmp)),
                        hash: l.hash.clone(),
                        size: l.size,
                        mtime_ns: l.mtime_ns,
                    }
                })
                .collect(),
            steps,
            sync_dirs: i.sync_dirs.iter().map(|d| rel(d)).collect(),
            entry: Cow::Borrowed(&i.entry),
        }
    }

    /// The intent this line describes, with absolute paths; `Err` for a line
    /// that is not one aitools writes (another version, a rename with neither
    /// its temp's number nor its name).
    pub(super) fn intent(self, root: &Path, blobs: &Path) -> Result<Intent, ()> {
        if self.v != 2 {
            return Err(());
        }
        let abs = |p: PathBuf| -> PathBuf {
            if p.as_os_str().is_empty() {
                root.to_path_buf()
            } else {
                root.join(p)
            }
        };
        let blob = |p: PathBuf| blobs.join(p);
        let op_id = self.op_id;
        let mut renamed = Vec::new();
        let mut steps = Vec::with_capacity(self.steps.len());
        for s in self.steps {
            steps.push(match s {
                WireStep::Mkdir { path, mode } => Step::Mkdir {
                    path: abs(path),
                    mode,
                },
                WireStep::Rename { n, tmp, to } => {
                    let to = abs(to);
                    let tmp = match (n, tmp) {
                        (Some(n), None) => temp_name(&parent_dir(&to), &op_id, n as usize),
                        (None, Some(t)) => abs(t),
                        _ => return Err(()),
                    };
                    renamed.push(tmp.clone());
                    Step::Rename { tmp, to }
                }
                WireStep::Move { from, to, dev, ino } => Step::Move {
                    from: abs(from),
                    to: abs(to),
                    dev,
                    ino,
                },
                WireStep::Unlink { path, dev, ino } => Step::Unlink {
                    path: abs(path),
                    dev,
                    ino,
                },
                WireStep::Rmdir { path, dev, ino } => Step::Rmdir {
                    path: abs(path),
                    dev,
                    ino,
                },
                WireStep::Chmod { path, mode } => Step::Chmod {
                    path: abs(path),
                    mode,
                },
                WireStep::Utime { path, mtime } => Step::Utime {
                    path: abs(path),
                    mtime,
                },
            });
        }
        let mut linked = Vec::with_capacity(self.linked.len());
        for l in self.linked {
            let tmp = match (l.n, l.tmp) {
                (Some(n), None) => blob_temp_name(blobs, &op_id, n as usize),
                (None, Some(t)) => blob(t),
                // At its blob name; a hash that is not a plain name is refused.
                (None, None)
                    if !l.hash.is_empty() && l.hash.bytes().all(|c| c.is_ascii_hexdigit()) =>
                {
                    blob(PathBuf::from(&l.hash))
                }
                _ => return Err(()),
            };
            linked.push(Linked {
                tmp,
                hash: l.hash,
                size: l.size,
                mtime_ns: l.mtime_ns,
            });
        }
        let mut links: Vec<PathBuf> = self.links.into_iter().map(blob).collect();
        links.extend(linked.iter().map(|l| l.tmp.clone()));
        Ok(Intent {
            temps: match self.temps {
                Some(t) => t.into_iter().map(abs).collect(),
                None => renamed,
            },
            blob_tmps: self.blob_tmps.into_iter().map(blob).collect(),
            links,
            linked,
            steps,
            sync_dirs: self.sync_dirs.into_iter().map(abs).collect(),
            entry: self.entry.into_owned(),
            entry_json: Default::default(),
            op_id,
        })
    }
}

fn parent_dir(p: &Path) -> PathBuf {
    p.parent()
        .map(Path::to_path_buf)
        .unwrap_or_else(|| PathBuf::from("/"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::intent::check_shape;

    fn sample(root: &Path, blobs: &Path) -> Intent {
        let op = "op-20261201T000000Z-0badf1f0";
        let entry: Entry = serde_json::from_str(&format!(
            r#"{{"seq":3,"op_id":"{op}","time":"t","command":"apply","argv":["apply"],"changes":[]}}"#
        ))
        .expect("entry");
        let t0 = temp_name(&root.join("d"), op, 0);
        // A temp in an ancestor (its target's directory is made by the op).
        let t1 = temp_name(root, op, 1);
        let l0 = blob_temp_name(blobs, op, 0);
        let at_blob = blobs.join("ef".repeat(32));
        Intent {
            op_id: op.to_string(),
            temps: vec![t0.clone(), t1.clone()],
            blob_tmps: vec![blobs.join(format!(".{op}-pack.tmp"))],
            links: vec![blobs.join("ab".repeat(32)), l0.clone(), at_blob.clone()],
            linked: vec![
                Linked {
                    tmp: l0,
                    hash: "cd".repeat(32),
                    size: 7,
                    mtime_ns: 1_796_171_524_703_731_190,
                },
                // Linked at its own blob name: written as its hash alone.
                Linked {
                    tmp: at_blob,
                    hash: "ef".repeat(32),
                    size: 9,
                    mtime_ns: 1_796_171_524_703_731_191,
                },
            ],
            steps: vec![
                Step::Rename {
                    tmp: t0,
                    to: root.join("d/f.txt"),
                },
                Step::Mkdir {
                    path: root.join("n"),
                    mode: None,
                },
                Step::Rename {
                    tmp: t1,
                    to: root.join("n/g.txt"),
                },
                Step::Move {
                    from: root.join("a"),
                    to: root.join("b"),
                    dev: 1,
                    ino: 2,
                },
                Step::Unlink {
                    path: root.join("c"),
                    dev: 1,
                    ino: 3,
                },
                Step::Chmod {
                    path: root.join("d/f.txt"),
                    mode: 0o755,
                },
            ],
            sync_dirs: vec![root.to_path_buf(), root.join("d")],
            entry,
            entry_json: Default::default(),
        }
    }

    #[test]
    fn the_written_line_reads_back_as_the_intent_it_was_made_of() {
        let (root, blobs) = (Path::new("/w/root"), Path::new("/s/blobs"));
        let i = sample(root, blobs);
        let (line, entry) = super::line(&i, root, blobs).expect("wire");
        assert!(line.ends_with(&format!(",\"entry\":{entry}}}")), "{line}");
        let back = serde_json::from_str::<Wire>(&line)
            .expect("parse")
            .intent(root, blobs)
            .expect("intent");
        let json = |i: &Intent| serde_json::to_string(i).expect("json");
        assert_eq!(json(&back), json(&i));
        // A link at its blob name is written as its hash, once.
        assert_eq!(line.matches(&"ef".repeat(32)).count(), 1, "{line}");
        // No absolute path is written twice, and none at all here.
        assert!(
            !line.contains("/w/root") && !line.contains("/s/blobs"),
            "{line}"
        );
        assert!(
            line.len() < json(&i).len(),
            "{} vs {}",
            line.len(),
            json(&i).len()
        );
        // A temp of another form is written out, and still read back.
        let mut odd = i.clone();
        if let Step::Rename { tmp, .. } = &mut odd.steps[0] {
            *tmp = root.join("d/.aitools-other-0.tmp");
        }
        odd.temps[0] = root.join("d/.aitools-other-0.tmp");
        let (line, _) = super::line(&odd, root, blobs).expect("wire");
        let back = serde_json::from_str::<Wire>(&line)
            .expect("parse")
            .intent(root, blobs)
            .expect("intent");
        assert_eq!(json(&back), json(&odd));
        // The shape checks judge what the line names, absolute again.
        assert!(check_shape(&back, blobs).is_err());
        assert!(check_shape(&i, blobs).is_ok());
    }

    #[test]
    fn a_line_naming_a_path_out_of_the_root_is_judged_as_before() {
        let (root, blobs) = (Path::new("/w/root"), Path::new("/s/blobs"));
        for bad in [
            r#"{"op":"chmod","path":"../x","mode":511}"#,
            r#"{"op":"rename","tmp":"d/../.aitools-op-20261201T000000Z-0badf1f0-0.tmp","to":"f"}"#,
            r#"{"op":"rename","tmp":"d/.aitools-op-20261201T000000Z-0badf1f1-0.tmp","to":"d/f"}"#,
        ] {
            let line = format!(
                r#"{{"v":2,"op_id":"op-20261201T000000Z-0badf1f0","steps":[{bad}],"entry":{{"seq":0,"op_id":"op-20261201T000000Z-0badf1f0","time":"t","command":"c","argv":[],"changes":[]}}}}"#
            );
            let i = serde_json::from_str::<Wire>(&line)
                .expect("parse")
                .intent(root, blobs)
                .expect("intent");
            assert!(check_shape(&i, blobs).is_err(), "{bad}");
        }
        // A rename with both or neither of its temp's forms is not a line aitools writes.
        let line = r#"{"v":2,"op_id":"o","steps":[{"op":"rename","to":"f"}],"entry":{"seq":0,"op_id":"o","time":"t","command":"c","argv":[],"changes":[]}}"#;
        let w = serde_json::from_str::<Wire>(line).expect("parse");
        assert!(w.intent(root, blobs).is_err());
    }
}

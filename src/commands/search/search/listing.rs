//! `search`'s listing pass: the blocks or matches of the files in the --offset /
//! --limit window, collected file by file in path order and streamed as events as
//! soon as each file is done. The ordered walk feeds it while the scan goes on.

#[allow(unused_imports)]
use super::*;

/// What the listing pass needs and what it has collected so far.
pub(super) struct Listing<'a> {
    pub(super) ctx: &'a Ctx,
    pub(super) args: &'a SearchArgs,
    pub(super) pats: &'a Patterns,
    pub(super) overlay: Option<&'a scan::Overlay>,
    pub(super) starts: &'a [PathBuf],
    pub(super) mode: Mode,
    pub(super) before: usize,
    pub(super) after: usize,
    pub(super) scanned: Searcher,
    /// Made when a named file comes (see `run`'s visitor).
    pub(super) whole: Option<Searcher>,
    /// Results an earlier page showed, still to pass over.
    pub(super) skip: u64,
    /// Selected lines (blocks) kept so far.
    pub(super) kept: u64,
    pub(super) blocks: Vec<Block>,
    pub(super) matches: Vec<MatchItem>,
}

impl<'a> Listing<'a> {
    pub(super) fn new(
        ctx: &'a Ctx,
        args: &'a SearchArgs,
        pats: &'a Patterns,
        overlay: Option<&'a scan::Overlay>,
        starts: &'a [PathBuf],
        mode: Mode,
    ) -> Listing<'a> {
        let (before, after) = match mode {
            Mode::Blocks => (
                args.before.unwrap_or(args.context),
                args.after.unwrap_or(args.context),
            ),
            _ => (0, 0),
        };
        Listing {
            ctx,
            args,
            pats,
            overlay,
            starts,
            mode,
            before,
            after,
            scanned: searcher(args, before, after, false),
            whole: None,
            skip: args.offset,
            kept: 0,
            blocks: Vec::new(),
            matches: Vec::new(),
        }
    }

    /// Whether the window is full: later files only count.
    pub(super) fn full(&self) -> bool {
        match self.mode {
            Mode::Blocks => self.kept >= self.args.limit(),
            Mode::Matches => self.matches.len() as u64 >= self.args.limit(),
            _ => true,
        }
    }

    /// The next text file in path order, with its `n` selected lines (or matches).
    /// `piped`: a named pipe's bytes, read once by the counting pass.
    /// `recorded`: the file's lines as the worker that counted it recorded them
    /// (blocks mode); without them the file is searched again here.
    pub(super) fn file(
        &mut self,
        p: &Path,
        n: u64,
        piped: Option<&[u8]>,
        recorded: Option<Vec<Recorded>>,
    ) {
        if self.full() {
            return;
        }
        if n <= self.skip {
            self.skip -= n;
            return;
        }
        match self.mode {
            Mode::Blocks => self.blocks_of(p, piped, recorded),
            Mode::Matches => self.matches_of(p, piped),
            _ => {}
        }
    }

    fn searcher_for(&mut self, p: &Path) -> &mut Searcher {
        if self.starts.iter().any(|s| s.as_path() == p) {
            let (args, before, after) = (self.args, self.before, self.after);
            self.whole
                .get_or_insert_with(|| searcher(args, before, after, true))
        } else {
            &mut self.scanned
        }
    }

    fn blocks_of(&mut self, p: &Path, piped: Option<&[u8]>, recorded: Option<Vec<Recorded>>) {
        let before = self.before;
        let mut sink = Collector {
            find: &self.pats.combined,
            skip: self.skip,
            remaining: self.args.limit() - self.kept,
            after: self.args.after.unwrap_or(self.args.context) as u64,
            kept: 0,
            last_kept: None,
            first_kept: None,
            events: Vec::new(),
        };
        self.skip = 0;
        if let Some(lines) = recorded {
            sink.replay(lines);
        } else {
            let (m, from) = (&self.pats.matcher, (self.overlay, piped));
            if search_in(self.searcher_for(p), m, p, from, &mut sink).is_err() {
                return;
            }
        }
        self.kept += sink.kept;
        let path = show(&self.ctx.root, p);
        let streamed = self.blocks.len();
        let mut cur: Option<Block> = None;
        // The lines before the first kept one belong to the skipped part,
        // except its own before-context.
        let from = sink
            .first_kept
            .map_or(u64::MAX, |f| f.saturating_sub(before as u64));
        for (ln, is_match, text, cut_col) in sink.events {
            if ln < from {
                continue;
            }
            let contiguous = cur
                .as_ref()
                .is_some_and(|b| b.start_line + b.lines.len() as u64 == ln);
            if !contiguous {
                if let Some(b) = cur.take() {
                    self.blocks.push(b);
                }
                cur = Some(Block {
                    path: path.clone(),
                    cell: None,
                    start_line: ln,
                    lines: Vec::new(),
                    match_lines: Vec::new(),
                    cut_lines: Vec::new(),
                });
            }
            if let Some(b) = cur.as_mut() {
                b.lines.push(text);
                if is_match {
                    b.match_lines.push(ln);
                }
                if let Some(col) = cut_col {
                    b.cut_lines.push(CutLine { line: ln, col });
                }
            }
        }
        if let Some(b) = cur.take() {
            self.blocks.push(b);
        }
        // A block starting inside a key's multi-line value: masked with the
        // lines before it (they name the key), as `read` of the file masks it.
        let starts: Vec<u64> = self.blocks[streamed..]
            .iter()
            .map(|b| b.start_line)
            .collect();
        let primers = lead_primers(p, (self.overlay, piped), &starts);
        for (b, (primer, _)) in self.blocks[streamed..].iter_mut().zip(&primers) {
            redact::tally_shown(primer.mask_lines(&mut b.lines));
        }
        // A file whose name is its one value's key (`secrets/db_password`).
        if named_text(p, (self.overlay, piped)).is_some() {
            let name = p.to_string_lossy();
            for b in &mut self.blocks[streamed..] {
                if let (1, Some(first)) = (b.start_line, b.lines.first_mut()) {
                    redact::tally_shown(redact::mask_named_by_path(&name, first));
                }
            }
        }
        if piped.is_none() {
            let fresh = self.blocks.split_off(streamed);
            let told = notebook::blocks(self.ctx, p, fresh, self.before, self.after);
            self.blocks.extend(told);
        }
        // A file's blocks go out as soon as they are collected.
        for b in &self.blocks[streamed..] {
            self.ctx.events.emit("block", b);
        }
    }

    fn matches_of(&mut self, p: &Path, piped: Option<&[u8]>) {
        let mut sink = MatchCollector {
            pats: self.pats,
            multi: self.args.matching.multiline,
            path: show(&self.ctx.root, p),
            notebook: p
                .extension()
                .is_some_and(|e| e.eq_ignore_ascii_case("ipynb")),
            skip: self.skip,
            remaining: self.args.limit() - self.matches.len() as u64,
            out: Vec::new(),
        };
        self.skip = 0;
        let (m, from) = (&self.pats.matcher, (self.overlay, piped));
        if search_in(self.searcher_for(p), m, p, from, &mut sink).is_err() {
            return;
        }
        // A match on a line inside a key's multi-line value (the key on a line
        // above): its text and groups are part of the secret.
        if !self.args.matching.multiline {
            let lines: Vec<u64> = sink.out.iter().map(|m| m.line).collect();
            let primers = lead_primers(p, from, &lines);
            for (m, (primer, line)) in sink.out.iter_mut().zip(primers) {
                let Some(line) = line else { continue };
                let mut whole = String::from_utf8_lossy(&line).into_owned();
                if primer.mask_next(&mut whole) == 0 {
                    continue;
                }
                hide_match(m);
            }
        }
        // A file whose name is its one value's key: any match is in the value.
        if named_text(p, from).is_some() {
            sink.out.iter_mut().for_each(hide_match);
        }
        if piped.is_none() {
            sink.out = notebook::matches(self.ctx, p, std::mem::take(&mut sink.out));
        }
        // The file's hidden values all at once: the stream builds its search for
        // them once per file, not once per match.
        let hid: Vec<String> = sink.out.iter().flat_map(|m| m.hid.clone()).collect();
        self.ctx.events.note_secrets(&hid);
        for m in &sink.out {
            self.ctx.events.emit("match", m);
        }
        self.matches.append(&mut sink.out);
    }
}

/// A match that is part of a secret (inside a key's multi-line value, or in a file
/// named for its value): its text and groups masked, its text noted for the
/// envelope's second pass and counted.
fn hide_match(m: &mut MatchItem) {
    let hide = |t: &mut String| {
        if !t.trim().is_empty() && t != redact::PLACEHOLDER {
            *t = redact::PLACEHOLDER.to_string();
        }
    };
    if !m.text.trim().is_empty() && m.text != redact::PLACEHOLDER {
        redact::tally_shown(1);
        m.hid.push(m.text.clone());
    }
    hide(&mut m.text);
    m.groups.iter_mut().flatten().for_each(hide);
    if let Some(named) = m.named.as_mut() {
        named.values_mut().flatten().for_each(hide);
    }
}

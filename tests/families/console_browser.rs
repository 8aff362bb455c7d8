//! `aitools console` in a real browser: tests/browser/console_check.py drives
//! chromium through playwright (the Python interpreter named by
//! AITOOLS_PLAYWRIGHT_PYTHON; .ci/run installs it) and clicks through the page:
//! live journal, diff, undo with its dialog, tx commit and abort, review approve
//! and deny against a waiting `tx commit`, a feedback transition, a screenshot
//! (target/console-browser.png). Skipped, saying so, without the interpreter or
//! chromium.

use std::path::Path;

/// The browser binary: AITOOLS_CHROMIUM, else Debian's /usr/bin/chromium.
fn chromium() -> Option<String> {
    let path = std::env::var("AITOOLS_CHROMIUM").unwrap_or_else(|_| "/usr/bin/chromium".into());
    Path::new(&path).exists().then_some(path)
}

#[test]
fn the_console_page_works_in_a_real_browser() {
    let Some(python) = std::env::var_os("AITOOLS_PLAYWRIGHT_PYTHON") else {
        eprintln!("skipped: AITOOLS_PLAYWRIGHT_PYTHON is not set (.ci/run installs playwright)");
        return;
    };
    let Some(browser) = chromium() else {
        eprintln!("skipped: no chromium at /usr/bin/chromium or $AITOOLS_CHROMIUM");
        return;
    };
    let root = env!("CARGO_MANIFEST_DIR");
    let shot = format!("{root}/target/console-browser.png");
    let out = std::process::Command::new(python)
        .arg(format!("{root}/tests/browser/console_check.py"))
        .arg(crate::support::bin())
        .arg(&shot)
        .arg(browser)
        .output()
        .expect("run the playwright script");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "the browser check failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    eprintln!("console in chromium: {stdout}");
    assert!(Path::new(&shot).exists(), "no screenshot at {shot}");
}

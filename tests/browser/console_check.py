"""Clicks through `aitools console` in a real browser (chromium through playwright).

Usage: console_check.py AITOOLS_BINARY SCREENSHOT_PATH [CHROMIUM]
Starts the console in a temporary git repository, opens the page and checks
that CLI writes show up in the journal without a reload (the latency is
measured), an op's diff opens, undo asks and takes the file back on disk, a
transaction commits and another aborts, a review is approved and another
denied while a `tx commit --review-timeout` waits in the background, and a
feedback entry changes status. Prints one JSON line of measurements; exits
non-zero with a message on the first failure.
"""
import json
import os
import subprocess
import sys
import tempfile
import time

from playwright.sync_api import sync_playwright

BIN = sys.argv[1]
SHOT = sys.argv[2]
CHROMIUM = sys.argv[3] if len(sys.argv) > 3 else "/usr/bin/chromium"

tmp = tempfile.mkdtemp(prefix="aitools-browser-")
repo = os.path.join(tmp, "repo")
os.makedirs(repo)
env = dict(os.environ)
env.update({
    "XDG_STATE_HOME": os.path.join(tmp, "state"),
    "AITOOLS_FEEDBACK_DIR": os.path.join(tmp, "feedback"),
    "GIT_CONFIG_NOSYSTEM": "1",
    "HOME": tmp,
})
for k in ("AITOOLS_FIXED_TIME", "AITOOLS_SEED"):
    env.pop(k, None)


def git(*args):
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", *args],
                   cwd=repo, env=env, check=True, capture_output=True)


def ai(*args):
    out = subprocess.run([BIN, *args], cwd=repo, env=env, capture_output=True, text=True)
    line = (out.stdout or out.stderr).strip().splitlines()[0]
    return json.loads(line)


def ok(*args):
    v = ai(*args)
    if v.get("status") != "ok":
        fail(f"aitools {' '.join(args)}: {v}")
    return v


def fail(msg):
    print("FAIL:", msg, file=sys.stderr)
    sys.exit(1)


def wait_disk(cond, what, secs=5.0):
    end = time.time() + secs
    while time.time() < end:
        if cond():
            return
        time.sleep(0.05)
    fail(f"on disk: {what}")


with open(os.path.join(repo, "a.txt"), "w") as f:
    f.write("one\n")
git("init", "-q")
git("add", ".")
git("commit", "-qm", "init")

console = subprocess.Popen([BIN, "console", "--port", "0"], cwd=repo, env=env,
                           stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
result = {}
try:
    start = json.loads(console.stdout.readline())
    url = start["url"]
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=[
            "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
            "--disable-component-update", "--disable-sync", "--no-first-run"])
        page = browser.new_page(viewport={"width": 1400, "height": 1100})
        errors = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.goto(url)
        page.wait_for_function("document.getElementById('conn').textContent === 'live'", timeout=10000)
        page.wait_for_selector("#s-review", timeout=5000)

        # 1. CLI writes appear in the journal without a reload, within 1 s.
        lat = []
        for i in range(5):
            name = f"w{i}.txt"
            t0 = time.time()
            ok("write", name, "--content", f"line {i}\n")
            t1 = time.time()
            page.wait_for_selector(f"#journal tr:has-text('{name}')", timeout=3000)
            t2 = time.time()
            lat.append({"write_ms": round((t1 - t0) * 1000), "to_page_ms": round((t2 - t0) * 1000),
                        "after_exit_ms": round((t2 - t1) * 1000)})
        worst = max(x["to_page_ms"] for x in lat)
        if worst > 1000:
            fail(f"a write took {worst} ms to show in the page: {lat}")
        result["write_to_page"] = lat

        # 2. An op's diff opens.
        row = page.locator("#journal tr", has_text="w0.txt")
        row.get_by_role("button", name="diff").click()
        page.wait_for_selector("#journal-diff pre:has-text('+line 0')", timeout=3000)

        # 3. Undo asks first (cancel keeps the file), then takes the file back.
        row.get_by_role("button", name="undo").click()
        page.wait_for_selector("#confirm[open]", timeout=2000)
        if "undo" not in page.inner_text("#c-action"):
            fail("the confirm dialog does not name undo")
        page.click("#c-cancel")
        time.sleep(0.3)
        if not os.path.exists(os.path.join(repo, "w0.txt")):
            fail("cancel still undid the write")
        row.get_by_role("button", name="undo").click()
        page.wait_for_selector("#confirm[open]", timeout=2000)
        page.click("#c-ok")
        wait_disk(lambda: not os.path.exists(os.path.join(repo, "w0.txt")), "undo removed w0.txt")
        page.wait_for_selector("#log .ok:has-text('undo')", timeout=3000)

        # 4. A transaction committed from the page, another aborted.
        t1 = ok("tx", "begin", "--name", "keep")["tx"]
        ok("write", "t1.txt", "--content", "staged\n", "--tx", t1)
        t2 = ok("tx", "begin", "--name", "drop")["tx"]
        ok("write", "t2.txt", "--content", "dropped\n", "--tx", t2)
        page.wait_for_selector(f"#transactions tr[data-tx='{t2}']", timeout=3000)
        page.locator(f"#transactions tr[data-tx='{t1}']").get_by_role("button", name="diff").click()
        page.wait_for_selector("#tx-diff pre:has-text('+staged')", timeout=3000)
        page.locator(f"#transactions tr[data-tx='{t1}']").get_by_role("button", name="commit").click()
        page.click("#c-ok")
        wait_disk(lambda: os.path.exists(os.path.join(repo, "t1.txt")), "tx commit wrote t1.txt")
        page.locator(f"#transactions tr[data-tx='{t2}']").get_by_role("button", name="abort").click()
        page.click("#c-ok")
        page.wait_for_selector(f"#transactions tr[data-tx='{t2}']", state="detached", timeout=3000)
        if os.path.exists(os.path.join(repo, "t2.txt")):
            fail("the aborted tx wrote t2.txt")

        # 5. Review: approve one waiting commit, deny another.
        def review(name, content):
            tx = ok("tx", "begin", "--review", "--name", name)["tx"]
            ok("write", f"{name}.txt", "--content", content, "--tx", tx)
            waiter = subprocess.Popen([BIN, "tx", "commit", tx, "--review-timeout", "30"], cwd=repo,
                                      env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            sel = f"#reviews [data-review='{tx}']"
            page.wait_for_selector(f"{sel}:has-text('a commit is waiting')", timeout=5000)
            page.wait_for_selector(f"{sel} td:has-text('{name}.txt')", timeout=3000)
            page.locator(sel).get_by_role("button", name="diff").click()
            page.wait_for_selector(f"#review-diff pre:has-text('+{content.strip()}')", timeout=3000)
            return tx, sel, waiter

        def answer(waiter):
            try:
                out, err = waiter.communicate(timeout=15)
            except subprocess.TimeoutExpired:
                waiter.kill()
                fail("the waiting tx commit did not return")
            return json.loads((out or err).strip().splitlines()[0])

        tx, sel, waiter = review("yes", "approved\n")
        page.locator(sel).get_by_label("approve note").fill("looks right")
        page.locator(sel).get_by_role("button", name="approve").click()
        page.wait_for_selector("#confirm[open]", timeout=2000)
        page.click("#c-ok")
        t0 = time.time()
        v = answer(waiter)
        result["approve_to_commit_ms"] = round((time.time() - t0) * 1000)
        if v.get("status") != "ok":
            fail(f"approved commit: {v}")
        wait_disk(lambda: os.path.exists(os.path.join(repo, "yes.txt")), "approved commit wrote yes.txt")
        page.wait_for_selector(sel, state="detached", timeout=3000)

        tx, sel, waiter = review("no", "denied\n")
        page.locator(sel).get_by_role("button", name="deny").click()  # no reason: refused in the page
        time.sleep(0.2)
        if page.locator("#confirm[open]").count():
            fail("deny without a reason opened the dialog")
        page.locator(sel).get_by_label("deny reason").fill("not this file")
        page.screenshot(path=SHOT.replace(".png", "-review.png"), full_page=True)
        page.locator(sel).get_by_role("button", name="deny").click()
        page.wait_for_selector("#confirm[open]", timeout=2000)
        if "not this file" not in page.inner_text("#c-params"):
            fail("the confirm dialog does not show the reason")
        page.click("#c-ok")
        v = answer(waiter)
        page.wait_for_selector("#review-diff h3", state="detached", timeout=3000)
        if v.get("error", {}).get("code") != "refusal.review-denied":
            fail(f"denied commit: {v}")
        if "not this file" not in json.dumps(v):
            fail(f"the refusal does not carry the reason: {v}")
        if os.path.exists(os.path.join(repo, "no.txt")):
            fail("the denied commit wrote no.txt")
        ok("tx", "abort", tx)

        # 6. A feedback entry changes status from the page.
        fid = ok("feedback", "create", "--type", "bug", "--message", "from the browser test")["id"]
        fsel = f"#feedback tr[data-fb='{fid}'] select"
        page.wait_for_selector(fsel, timeout=5000)
        page.select_option(fsel, "resolved")
        end = time.time() + 5
        while ok("feedback", "show", fid).get("entry", {}).get("status") != "resolved":
            if time.time() > end:
                fail(f"feedback {fid} not resolved: {ok('feedback', 'show', fid)}")
            time.sleep(0.1)

        # The screenshot, after one more write so the journal is full.
        ok("write", "last.txt", "--content", "x\n")
        page.wait_for_selector("#journal tr:has-text('last.txt')", timeout=3000)
        # git status follows the writes (a polled observation the page asks again).
        page.wait_for_selector("#workspace:has-text('last.txt')", timeout=3000)
        page.screenshot(path=SHOT, full_page=True)
        if errors:
            fail(f"the page logged errors: {errors}")
        browser.close()
    result["screenshot"] = SHOT
    print(json.dumps(result))
finally:
    console.terminate()
    try:
        console.wait(timeout=5)
    except subprocess.TimeoutExpired:
        console.kill()

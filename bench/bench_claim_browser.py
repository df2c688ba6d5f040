"""Claim labels in a real browser on a big project: what a rater waits for after a key press.

Builds the project of bench/bench_pages.py (``--answers`` answers x ``--metrics`` metrics, 3 claims
per answer, contexts of ``--sentences`` sentences each), serves app.py with ``streamlit run`` and
drives Debian's Chromium through playwright:

- Human review's claim queue: key 1-4 (a label stored, the next claim of the queue shown), timed from
  the key press until the page shows one claim fewer left;
- Answers: key 1 on the claim in the box (the label stored, the box moved to the next claim), timed
  from the key press until the box shows the next claim.

Each click's wall seconds (the browser's drawing included) and the server process's CPU-seconds over
the same interval (every thread of ``streamlit run``; the browser's own CPU is not counted) are
printed as a Markdown table of medians and maxima, with the load average: figures go to
docs/benchmarks.md with the command.

    python -m bench.bench_claim_browser [--answers 10000] [--metrics 20] [--sentences 8] [--repeat 8]
"""
from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.bench_pages import build

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = Path("/usr/bin/chromium")
FLAGS = ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
         "--disable-component-update", "--disable-sync"]
#: no grey placeholder left and no script run in progress (tests/test_browser.py's SETTLED)
SETTLED = ("() => !document.querySelector('[data-testid=\"stSkeleton\"], [data-testid=\"stSkeletonElement\"]')"
           " && !document.querySelector('[data-testid=\"stStatusWidgetRunningIcon\"]')")
WAIT_MS = 120_000


def server_cpu(pid: int) -> float:
    """User + system CPU-seconds of process ``pid`` (all its threads), from /proc."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def serve(home: str) -> tuple[subprocess.Popen, str]:
    import socket
    import urllib.request

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = {**os.environ, "RAGEVAL_HOME": home, "RAGEVAL_NO_AUTODEMO": "1", "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen([sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless=true",
                             "--server.address=127.0.0.1", f"--server.port={port}",
                             "--browser.gatherUsageStats=false", "--server.fileWatcherType=none"],
                            cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=2) as r:
                if r.read() == b"ok":
                    return proc, f"http://127.0.0.1:{port}"
        except OSError:
            time.sleep(0.2)
    proc.kill()
    raise TimeoutError("streamlit did not start")


def timed_key(page, pid: int, key: str, done) -> tuple[float, float]:
    """(wall s, server CPU-s) from pressing ``key`` until ``done()`` (an expect) passes."""
    page.wait_for_function(SETTLED, timeout=WAIT_MS, polling=50)
    c0, t0 = server_cpu(pid), time.perf_counter()
    page.keyboard.press(key)
    done()
    return time.perf_counter() - t0, server_cpu(pid) - c0


def queue_keys(page, url: str, pid: int, run_id: str, repeat: int) -> list[tuple[float, float]]:
    from playwright.sync_api import expect

    page.goto(f"{url}/human_review?project=bench&run={run_id}&rater=bench-queue")
    page.get_by_role("radio", name="Claims").or_(page.get_by_role("button", name="Claims")).first.click()
    left = page.get_by_text(re.compile(r"\d+ claim\(s\) left for bench-queue"))
    expect(left).to_be_visible()
    out = []
    for n in range(repeat):
        before = int(left.inner_text().split()[0])
        out.append(timed_key(page, pid, "1234"[n % 4], lambda: expect(
            page.get_by_text(f"{before - 1} claim(s) left for bench-queue")).to_be_visible()))
    return out


def answers_keys(page, url: str, pid: int, run_id: str, repeat: int) -> list[tuple[float, float]]:
    """Key 1 on the box's claim, twice per answer (claim 1 to 2, 2 to 3), on a new answer each time."""
    from playwright.sync_api import expect

    out = []
    for n in range((repeat + 1) // 2):
        page.goto(f"{url}/answers?project=bench&run={run_id}&question=q{3 + 11 * n:05d}")
        page.get_by_text("Label these claims").click()
        page.get_by_label("Your name").fill("bench-answers")
        page.get_by_label("Your name").press("Enter")
        box = page.locator(".st-key-ans_claim_current")
        expect(box).to_contain_text("▶ 1.")
        box.locator('[class*="_ev_"][class*="_list"] button').first.click()  # focus leaves the name field
        for k in (2, 3):
            out.append(timed_key(page, pid, "1", lambda: expect(box).to_contain_text(f"▶ {k}.")))
    return out[:repeat]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--answers", type=int, default=10_000)
    ap.add_argument("--metrics", type=int, default=20)
    ap.add_argument("--sentences", type=int, default=8)
    ap.add_argument("--repeat", type=int, default=8)
    args = ap.parse_args()
    home = tempfile.mkdtemp(prefix="rageval-claim-browser-")
    os.environ["RAGEVAL_HOME"], os.environ["RAGEVAL_NO_AUTODEMO"] = home, "1"
    from playwright.sync_api import expect, sync_playwright

    from rageval.project import open_project

    run_id = build(open_project("bench"), args.answers, args.metrics, sentences=args.sentences)[0]
    proc, url = serve(home)
    expect.set_options(timeout=WAIT_MS)
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=FLAGS)
            page = browser.new_page(viewport={"width": 1280, "height": 1000})
            page.set_default_timeout(WAIT_MS)
            rows = {"Human review, claim queue: key, label and next": queue_keys(page, url, proc.pid, run_id,
                                                                               args.repeat),
                    "Answers: key on the box's claim, box to the next": answers_keys(page, url, proc.pid, run_id,
                                                                                     args.repeat)}
            browser.close()
    finally:
        proc.terminate()
        proc.wait(10)
    print(f"{args.answers} answers x {args.metrics} metrics, {3 * args.sentences} context sentences per answer\n")
    print("| key press | median wall s | max wall s | median server CPU s | presses |")
    print("|---|---|---|---|---|")
    for name, times in rows.items():
        walls, cpus = [w for w, _ in times], [c for _, c in times]
        print(f"| {name} | {statistics.median(walls):.2f} | {max(walls):.2f} | {statistics.median(cpus):.2f} | "
              f"{len(times)} |")


if __name__ == "__main__":
    from bench.bench_common import framed

    framed(main)

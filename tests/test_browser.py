"""One end-to-end test in a real browser: Debian's Chromium driven by the playwright package.

The app runs as ``streamlit run app.py`` on a free port over a temporary RAGEVAL_HOME holding the
small project of tests/test_app.py (built in a subprocess through the library). In the browser:
open the app, upload a .txt on Documents through the hidden file input and see it ingested,
then open Answers and see claims highlighted while hostile document text stays inert.
Skipped only when /usr/bin/chromium is absent (``apt-get install -y chromium``; .ci/run does it).
"""
from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

CHROMIUM = Path("/usr/bin/chromium")
ROOT = Path(__file__).resolve().parents[1]
FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1"]

pytestmark = pytest.mark.skipif(not CHROMIUM.exists(),
                                reason="needs Debian's chromium at /usr/bin/chromium (apt-get install -y chromium)")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_healthy(port: int, server: subprocess.Popen, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise RuntimeError(f"streamlit exited with code {server.returncode}")
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=2) as r:
                if r.read() == b"ok":
                    return
        except OSError:
            time.sleep(0.2)
    raise TimeoutError(f"streamlit did not answer /_stcore/health on port {port} within {timeout:g} s")


@pytest.fixture
def server(tmp_path):
    env = {**os.environ, "RAGEVAL_HOME": str(tmp_path / "home"), "RAGEVAL_NO_AUTODEMO": "1",
           "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    subprocess.run([sys.executable, "-c", "from tests.test_app import build_project; build_project()"],
                   cwd=ROOT, env=env, check=True, timeout=120)
    port = free_port()
    log = (tmp_path / "streamlit.log").open("w")
    proc = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless=true",
         "--server.address=127.0.0.1", f"--server.port={port}", "--browser.gatherUsageStats=false",
         "--server.fileWatcherType=none"],
        cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
    try:
        wait_healthy(port, proc)
        yield f"http://127.0.0.1:{port}"
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(10)
        log.close()


def test_upload_a_document_then_inspect_answers(server, tmp_path):
    from playwright.sync_api import expect, sync_playwright

    expect.set_options(timeout=60_000)  # the first ingest loads the embedding model in the server
    doc = tmp_path / "warehouse.txt"
    doc.write_text("The warehouse opens at 7 am on weekdays and at 9 am on Saturdays.", encoding="utf-8")
    dialogs: list[str] = []
    outside: list[str] = []
    with sync_playwright() as p:
        ctx = p.chromium.launch_persistent_context(str(tmp_path / "profile"), executable_path=str(CHROMIUM),
                                                   headless=True, args=FLAGS,
                                                   viewport={"width": 1400, "height": 1400})
        try:
            page = ctx.new_page()
            page.set_default_timeout(60_000)
            page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
            page.on("request", lambda r: outside.append(r.url) if "127.0.0.1:9/" in r.url else None)
            page.goto(server)
            expect(page.get_by_text("Latest finished run")).to_be_visible()

            page.locator('[data-testid="stSidebarNav"] a', has_text="Documents").click()
            expect(page.get_by_role("heading", name="Documents")).to_be_visible()
            page.locator('[data-testid="stFileUploader"] input[type="file"]').set_input_files(str(doc))
            expect(page.get_by_text("warehouse.txt", exact=True).first).to_be_visible()
            page.get_by_role("button", name="Ingest").click()
            expect(page.get_by_text("warehouse.txt: 1 page(s), 1 chunk(s), added")).to_be_visible()

            page.locator('[data-testid="stSidebarNav"] a', has_text="Answers").click()
            expect(page.get_by_role("heading", name="Answers")).to_be_visible()
            expect(page.get_by_text("entity mismatch: Japan vs China")).to_be_visible()
            contradicted = page.locator('span[title="CONTRADICTED"]', has_text="Green tea originated in Japan.")
            expect(contradicted).to_be_visible()
            # hostile text from the document and the "model" is shown as text and loads nothing
            expect(page.get_by_text("<script>alert(1)</script>", exact=False).first).to_be_visible()
            assert page.locator('img[src*="127.0.0.1:9"]').count() == 0
            page.screenshot(path=str(tmp_path / "answers.png"), full_page=True)
            shots = os.environ.get("RAGEVAL_SCREENSHOTS")
            if shots:
                Path(shots).mkdir(parents=True, exist_ok=True)
                page.screenshot(path=str(Path(shots) / "answers.png"), full_page=True)
        finally:
            ctx.close()
    assert dialogs == [], "a script from document text ran"
    assert outside == [], "markdown from document text loaded a resource"

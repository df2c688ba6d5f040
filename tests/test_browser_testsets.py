"""The QA sets page in a real browser (Chromium through playwright, as tests/test_browser.py):
generate a set from the project's documents, edit a question in the review table, drop a row,
save; the stored set holds the edit and the reviewer's decisions. Skipped without /usr/bin/chromium."""
from __future__ import annotations

import time

import pytest

from rageval.project import open_project
from rageval.store import runs as run_store
from tests.test_browser import CHROMIUM, WAIT_MS, _nav, _server_log, app, chromium, streamlit_server  # noqa: F401

pytestmark = pytest.mark.skipif(not CHROMIUM.exists(),
                                reason="needs Debian's chromium at /usr/bin/chromium (apt-get install -y chromium)")

EDITED = "Which city did the 1669 eruption partly destroy?"
#: the review table's rows are 35 px high under a 35 px header (Streamlit's data editor)
ROW_PX = 35


def idle(page) -> None:
    """Wait until the app has finished the rerun an edit started (its status widget gone)."""
    time.sleep(0.5)
    page.locator('[data-testid="stStatusWidget"]').wait_for(state="hidden")


def test_generate_edit_drop_save(chromium, app, tmp_path):
    from playwright.sync_api import expect

    expect.set_options(timeout=WAIT_MS)
    ctx = chromium.new_context(viewport={"width": 1400, "height": 1400})
    try:
        page = ctx.new_page()
        page.set_default_timeout(WAIT_MS)
        page.goto(app.at())
        _nav(page, "QA sets")
        page.get_by_text("Generate from documents").click()
        expect(page.get_by_text("not a substitute for a set written by an LLM or a person")).to_be_visible()
        for label, value in (("Questions", "3"), ("Name of the new set", "reviewed")):
            box = page.get_by_label(label)
            box.fill(value)
            box.press("Enter")
        expect(page.get_by_label("Name of the new set")).to_have_value("reviewed")
        page.get_by_role("button", name="Generate").click()
        expect(page.get_by_text("Review reviewed")).to_be_visible()

        grid = page.locator('[data-testid="stDataFrame"]').first
        grid.scroll_into_view_if_needed()
        idle(page)
        time.sleep(1.0)  # the grid draws on a canvas after its frame appears
        box = grid.bounding_box()
        row = lambda i: box["y"] + ROW_PX + ROW_PX * i + ROW_PX // 2  # noqa: E731
        editor = page.locator("#portal textarea")  # the grid's cell editor, opened by Enter
        for _ in range(10):  # the canvas takes clicks only once drawn: select the cell until it opens
            page.mouse.click(box["x"] + 150, row(0))  # the question of row 1: select, edit, replace
            page.keyboard.press("Enter")
            try:
                editor.wait_for(timeout=3000)
                break
            except Exception:
                page.keyboard.press("Escape")
        editor.fill(EDITED)
        editor.press("Enter")
        idle(page)
        page.mouse.click(box["x"] + 30, row(1))  # row 2's keep box: select, untick
        page.keyboard.press("Space")
        idle(page)
        page.get_by_role("button", name="Save the set").click()
        expect(page.get_by_text("Saved reviewed: 2 accepted, 1 dropped.")).to_be_visible()
        expect(page.locator('[data-testid="stDownloadButton"]', has_text="JSONL")).to_be_visible()
        page.screenshot(path=str(tmp_path / "generated.png"), full_page=True)
    except Exception as exc:
        raise AssertionError(f"{exc}{_server_log(app.log)}") from exc
    finally:
        ctx.close()
    items = run_store.qa_items(open_project(app.project).db_path, "reviewed", include_dropped=True)
    assert [it["status"] for it in items] == ["accepted", "dropped", "accepted"]
    assert items[0]["question"] == EDITED and all(it["relevant"] and it["references"] for it in items)

"""Sign-in for real: Debian's Chromium against ``streamlit run app.py`` whose ``[auth]`` section points at
a local OpenID Connect provider (the oidc-provider-mock package: discovery, the authorization-code flow,
ID tokens with the users' claims), both started here on free ports of 127.0.0.1.

The owner signs in, creates a project and adds an annotator and a viewer in the sidebar; each signs in
in a browser context of their own (as separate people would) and sees what their role allows: the
annotator rates an answer, signed with their e-mail; the viewer finds no upload, rating or run control.
A demo link opened in a fresh context shows its one project and nothing else; a signed-in non-member who
opens a URL naming the project sees nothing of it. Skipped when /usr/bin/chromium is absent.
"""
from __future__ import annotations

import subprocess
import sys
import threading
from pathlib import Path

import pytest

from rageval import access
from rageval.store import human as hstore
from tests.test_browser import (CHROMIUM, ROOT, WAIT_MS, _env, _settled, free_port, wait_healthy,
                                chromium)  # noqa: F401 - chromium: the module's browser fixture

pytestmark = pytest.mark.skipif(not CHROMIUM.exists(),
                                reason="needs Debian's chromium at /usr/bin/chromium (apt-get install -y chromium)")

OWNER, ANN, VIEWER, STRANGER = ("owner@example.com", "ann@example.com", "viewer@example.com",
                                "stranger@example.com")


@pytest.fixture(scope="module")
def provider():
    """The OpenID Connect provider on a free port of 127.0.0.1, with one ready-made account per person
    (its sign-in page offers a button for each): the base address."""
    import oidc_provider_mock
    from werkzeug.serving import make_server

    users = [oidc_provider_mock.User(sub=f"sub-{e.split('@')[0]}", claims={"email": e, "email_verified": True})
             for e in (OWNER, ANN, VIEWER, STRANGER)]
    server = make_server("127.0.0.1", 0, oidc_provider_mock.app(user_claims=users, require_nonce=True),
                         threaded=True)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.1}, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}"
    finally:
        server.shutdown()
        thread.join(10)


@pytest.fixture(scope="module")
def signed_server(provider, tmp_path_factory):
    """``streamlit run app.py`` over a home of its own with an ``[auth]`` section naming the provider:
    ``(url, home, log)``."""
    folder = tmp_path_factory.mktemp("signed")
    home, log_path, secrets = folder / "home", folder / "streamlit.log", folder / "secrets.toml"
    port = free_port()
    secrets.write_text(
        "[auth]\n"
        f'redirect_uri = "http://127.0.0.1:{port}/oauth2callback"\n'
        f'cookie_secret = "{"c" * 40}"\n'
        'client_id = "rageval"\nclient_secret = "rageval-secret"\n'
        f'server_metadata_url = "{provider}/.well-known/openid-configuration"\n', encoding="utf-8")
    log = log_path.open("w")
    proc = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless=true",
         "--server.address=127.0.0.1", f"--server.port={port}", "--browser.gatherUsageStats=false",
         "--server.fileWatcherType=none", f"--secrets.files={secrets}"],
        cwd=ROOT, env=_env(home), stdout=log, stderr=subprocess.STDOUT)
    try:
        wait_healthy(port, proc)
        yield f"http://127.0.0.1:{port}", home, log_path
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(10)
        log.close()


def _log(log: Path) -> str:
    return f"\n--- streamlit.log ---\n{log.read_text(errors='replace')[-3000:]}" if log.exists() else ""


def sign_in(browser, url: str, email: str, path: str = ""):
    """A fresh browser context signed in as ``email`` through the provider's page; the app page open."""
    from playwright.sync_api import expect

    ctx = browser.new_context(viewport={"width": 1400, "height": 1100})
    page = ctx.new_page()
    page.set_default_timeout(WAIT_MS)
    page.goto(f"{url}/{path}")
    page.get_by_role("button", name="Sign in").click()
    page.locator(f'button[name="sub"][value="sub-{email.split("@")[0]}"]').click()  # the provider's page
    expect(page.get_by_text(f"Signed in as {email}").first).to_be_visible()
    _settled(page)
    if path:  # the provider sends the browser back to the app's root: open the address asked for
        page.goto(f"{url}/{path}")
        expect(page.get_by_text(f"Signed in as {email}").first).to_be_visible()
        _settled(page)
    return ctx, page


def test_owner_adds_an_annotator_and_a_viewer_and_each_sees_what_the_role_allows(chromium, signed_server,
                                                                                 monkeypatch):
    from playwright.sync_api import expect

    from tests.human_fixtures import build_runs

    expect.set_options(timeout=WAIT_MS)
    url, home, log = signed_server
    monkeypatch.setenv("RAGEVAL_HOME", str(home))
    contexts = []
    try:
        ctx, page = sign_in(chromium, url, OWNER)
        contexts.append(ctx)
        expect(page.get_by_text("is not a member of any project yet").first).to_be_visible()
        page.get_by_role("textbox", name="New project").fill("acme")
        page.get_by_role("button", name="Create").click()
        expect(page.get_by_text("Created project acme").first).to_be_visible()
        _settled(page)
        side = page.locator('[data-testid="stSidebar"]')
        add = side.get_by_role("button", name="Add", exact=True)
        for email, role in ((ANN, "annotator"), (VIEWER, "viewer")):
            expect(add).to_have_count(1)  # a rerun's old elements are gone
            side.get_by_role("textbox", name="E-mail", exact=True).fill(email)
            side.locator('[data-testid="stRadio"] label', has_text=role).click()
            _settled(page)
            for _ in range(5):  # a rerun can show the old button beside the new one for a moment
                try:
                    add.click()  # strict: refused (nothing clicked) while two are shown
                    break
                except Exception as exc:
                    if "strict mode violation" not in str(exc):
                        raise
                    _settled(page)
            expect(page.get_by_text(f"{email} is now {role}").first).to_be_visible()
            _settled(page)
        assert {m["email"]: m["role"] for m in access.list_members(access.open_as("acme", access.LOCAL))} == {
            OWNER: "owner", ANN: "annotator", VIEWER: "viewer"}, _log(log)
        build_runs("acme", n=4, runs=("r0",), annotators=())  # answers to rate, made through the library

        ctx, page = sign_in(chromium, url, ANN, "human_review?project=acme")
        contexts.append(ctx)
        expect(page.get_by_text(f"Signed as {ANN}").first).to_be_visible()
        page.get_by_text("4 Good").first.click()
        page.get_by_role("button", name="Save and next").click()
        expect(page.get_by_text(f"{ANN}: 1 of 4 answers rated").first).to_be_visible()
        rows = hstore.ratings(access.open_as("acme", access.LOCAL).db_path, ["r0"])
        assert [(r["annotator"], r["rating"]) for r in rows] == [(ANN, 4)], _log(log)

        ctx, page = sign_in(chromium, url, VIEWER, "human_review?project=acme")
        contexts.append(ctx)
        expect(page.get_by_text("Rating and labelling need the annotator role").first).to_be_visible()
        assert page.get_by_role("button", name="Save and next").count() == 0
        page.locator('[data-testid="stSidebarNav"] a', has_text="Documents").click()
        expect(page.get_by_role("heading", name="Documents").first).to_be_visible()
        _settled(page)
        assert page.locator('[data-testid="stFileUploader"]').count() == 0
        assert page.get_by_role("button", name="Ingest").count() == 0
        page.locator('[data-testid="stSidebarNav"] a', has_text="Run").click()
        expect(page.get_by_role("heading", name="Run").first).to_be_visible()
        _settled(page)
        assert page.get_by_role("button", name="Start run").count() == 0
        assert page.get_by_text("Members, demo links, audit trail").count() == 0
        trail = access.audit_trail(access.open_as("acme", access.LOCAL))
        assert ("rate", ANN, "sub-ann") in {(r["action"], r["email"], r["subject"]) for r in trail}
    finally:
        for ctx in contexts:
            ctx.close()


def test_a_demo_link_shows_one_project_and_a_non_member_url_shows_nothing(chromium, signed_server, monkeypatch):
    from dataclasses import replace

    from playwright.sync_api import expect

    from rageval.project import open_project
    from tests.human_fixtures import build_runs

    expect.set_options(timeout=WAIT_MS)
    url, home, log = signed_server
    monkeypatch.setenv("RAGEVAL_HOME", str(home))
    shown, _ = build_runs("showcase", n=3, runs=("r0",), annotators=())
    access.add_member(shown, OWNER, "owner")
    hidden = open_project("private-plans")
    access.add_member(hidden, "boss@example.com", "owner")
    link = access.create_link(replace(shown, actor=access.Identity("sub-owner", OWNER)), days=1)
    contexts = []
    try:
        ctx = chromium.new_context(viewport={"width": 1400, "height": 1100})
        contexts.append(ctx)
        page = ctx.new_page()
        page.set_default_timeout(WAIT_MS)
        page.goto(link.url(url))
        expect(page.get_by_role("heading", name="Project showcase").first).to_be_visible()
        expect(page.get_by_text("Read-only demo: this link opens one project").first).to_be_visible()
        _settled(page)
        assert page.locator('[data-testid="stSidebar"] [data-testid="stSelectbox"]').count() == 0  # no switcher
        assert page.locator('[data-testid="stSidebar"] input').count() == 0  # nor a project to create
        page.goto(link.url(url) + "&project=private-plans")  # the link with another project in the address
        expect(page.get_by_role("heading", name="Project showcase").first).to_be_visible()
        _settled(page)
        assert page.get_by_text("private-plans").count() == 0
        page.locator('[data-testid="stSidebarNav"] a', has_text="Human review").click()
        expect(page.get_by_role("heading", name="Human review").first).to_be_visible()
        _settled(page)
        assert page.get_by_role("button", name="Save and next").count() == 0
        assert page.locator('[data-testid="stFileUploader"]').count() == 0

        ctx, page = sign_in(chromium, url, STRANGER, "?project=private-plans")
        contexts.append(ctx)
        expect(page.get_by_text("That link names a project you cannot open").first).to_be_visible()
        _settled(page)
        assert page.get_by_text("private-plans").count() == 0, _log(log)
        assert page.get_by_role("heading", name="Project private-plans").count() == 0

        access.revoke_link(replace(shown, actor=access.Identity("sub-owner", OWNER)), link.id)
        page = contexts[0].pages[0]
        page.reload()
        expect(page.get_by_text("this demo link is not valid").first).to_be_visible()
        assert page.get_by_role("heading", name="Project showcase").count() == 0
    finally:
        for ctx in contexts:
            ctx.close()

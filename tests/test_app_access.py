"""AppTest of sign-in and roles: with an ``[auth]`` section every page waits for sign-in; a signed-in
person sees only their projects, a viewer's pages have no upload, run, rating or labelling control,
an annotator's rating is signed with the e-mail; a demo link opens one project read-only."""
from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from rageval import access
from rageval.project import open_project
from rageval.store import human as hstore
from tests.human_fixtures import make_runs

APP = Path(__file__).resolve().parents[1] / "app.py"
#: an [auth] section as a real provider's would be (AppTest never reaches the provider)
AUTH = {"redirect_uri": "http://localhost:8501/oauth2callback", "cookie_secret": "x" * 32, "client_id": "rageval",
        "client_secret": "secret", "server_metadata_url": "http://127.0.0.1:9/.well-known/openid-configuration"}
OWNER, ANN, VIEWER = "owner@example.com", "ann@example.com", "viewer@example.com"


@pytest.fixture
def team(tmp_path, monkeypatch):
    """Project ``h`` (rated runs) with an owner, an annotator and a viewer; project ``secret`` nobody of
    them is a member of."""
    monkeypatch.setenv("RAGEVAL_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("RAGEVAL_NO_AUTODEMO", "1")
    project, _ = make_runs("h", n=6, runs=("r0",))
    for email, role in ((OWNER, "owner"), (ANN, "annotator"), (VIEWER, "viewer")):
        access.add_member(project, email, role)
    secret = open_project("secret")
    access.add_member(secret, "boss@example.com", "owner")
    return project


def signed(email: str | None, page: str = "pages/home.py", **query: str) -> AppTest:
    at = AppTest.from_file(str(APP), default_timeout=90)
    at.secrets["auth"] = AUTH
    at.user = {"is_logged_in": False} if email is None else {"is_logged_in": True, "sub": f"sub-{email}",
                                                              "email": email}
    for k, v in query.items():
        at.query_params[k] = v
    at.run()
    return at.switch_page(page).run() if page != "pages/home.py" else at


def shown(at: AppTest) -> str:
    parts = [str(e.value) for kind in ("markdown", "caption", "info", "warning", "success", "title", "subheader")
             for e in getattr(at, kind)]
    return "\n".join(parts).replace("\\", "")


def test_with_auth_every_page_waits_for_sign_in_and_shows_no_project(team):
    for page in ("pages/home.py", "pages/human_review.py", "pages/documents.py"):
        at = signed(None, page, project="h")
        assert not at.exception
        assert [b.label for b in at.button] == ["Sign in"]
        assert "Project h" not in shown(at) and not at.get("file_uploader") and not at.sidebar.selectbox


def test_a_member_lists_only_their_projects_and_a_url_to_another_shows_nothing(team):
    at = signed(ANN)
    assert not at.exception
    assert at.sidebar.selectbox(key="project_select").options == ["h"]
    assert "Signed in as ann@example.com" in shown(at)
    at = signed(ANN, project="secret")
    assert "That link names a project you cannot open" in shown(at)
    assert "Project secret" not in shown(at) and "Project h" in shown(at)
    stranger = signed("nobody@example.com", project="secret")
    text = shown(stranger)
    assert "not a member of any project yet" in text and "secret" not in text.replace("project_select", "")


def test_a_viewer_sees_no_control_that_changes_the_project(team):
    for page in ("pages/documents.py", "pages/qa_sets.py", "pages/human_review.py", "pages/correlations.py"):
        at = signed(VIEWER, page)
        assert not at.exception and not at.error, page
        assert not at.get("file_uploader"), page
        labels = {b.label for b in at.button}
        assert not labels & {"Ingest", "Import", "Save and next", "Score", "Generate", "Set agreed score",
                               "Compute and store"}, page
    at = signed(VIEWER, "pages/human_review.py")
    assert not at.text_input and "Rating and labelling need the annotator role" in shown(at)
    assert not any(b.key == "acc_add" for b in at.sidebar.button)


def test_an_annotator_rates_signed_with_the_e_mail_and_it_is_audited(team):
    at = signed(ANN, "pages/human_review.py")
    # no name box for the rating: it is signed (the import's Annotator field names a file's rater, file:NAME)
    assert not at.exception and [t.key for t in at.text_input] == ["hr_import_annotator"]
    assert "Signed as ann@example.com" in shown(at)
    at.radio(key=next(r.key for r in at.radio if r.key.startswith("hr_rating_"))).set_value(4)
    at.button(key=next(b.key for b in at.button if b.label == "Save and next")).click().run()
    assert not at.exception and not at.error
    assert [(r["annotator"], r["rating"]) for r in hstore.ratings(team.db_path, ["r0"])
            if r["annotator"] == ANN] == [(ANN, 4)]
    trail = access.audit_trail(team, limit=1)[0]
    assert (trail["action"], trail["email"], trail["subject"]) == ("rate", ANN, f"sub-{ANN}")


def test_an_owner_adds_a_member_in_the_sidebar_and_makes_a_demo_link(team):
    # (AppTest keeps the sidebar of a session's first run only: a fresh session for each click)
    at = signed(OWNER)
    at.sidebar.text_input(key="acc_email").set_value("new@example.com")
    at.sidebar.radio(key="acc_role").set_value("viewer")
    at.sidebar.button(key="acc_add").click().run()
    assert not at.exception and access.role_of(team, access.Identity("s", "new@example.com")) == "viewer"
    assert not any(b.key == "acc_add" for b in signed(ANN).sidebar.button)  # owners only
    at = signed(OWNER)
    at.sidebar.button(key="acc_make_link").click().run()
    url = at.session_state["acc_link"]
    token = url.split("demo=", 1)[1]
    guest = AppTest.from_file(str(APP), default_timeout=90)
    guest.secrets["auth"] = AUTH
    guest.user = {"is_logged_in": False}
    guest.query_params["demo"] = token
    guest.run()
    assert not guest.exception and "Project h" in shown(guest) and not guest.sidebar.selectbox
    guest.switch_page("pages/human_review.py").run()
    assert not guest.get("file_uploader") and not guest.text_input
    access.revoke_link(replace(team, actor=access.Identity(f"sub-{OWNER}", OWNER)), access.list_links(team)[0]["id"])
    guest.switch_page("pages/home.py").run()
    assert "Project h" not in shown(guest) and "this demo link is not valid" in shown(guest)


def test_without_auth_home_says_sign_in_is_off(team):
    at = AppTest.from_file(str(APP), default_timeout=90)
    at.session_state["project"] = "h"
    at.run()
    assert any("Sign-in is off" in i.value for i in at.info)
    assert set(at.sidebar.selectbox(key="project_select").options) >= {"h", "secret"}

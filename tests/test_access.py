"""People and access in the library and the CLI: roles checked by the service functions, ratings and labels
signed with the actor's identity, the audit trail, members, demo links, ``--as``."""
from __future__ import annotations

import json
from dataclasses import replace
from datetime import datetime, timedelta

import pytest

from rageval import access, human
from rageval.cli import main
from rageval.config import RunConfig
from rageval.errors import AccessError, ConfigError
from rageval.human.claim_labels import import_claim_labels, label_claim
from rageval.ingest.qa import import_qa
from rageval.project import open_project
from rageval.runs.pipeline import start_run
from rageval.store import claim_labels as cstore
from rageval.store import human as hstore
from rageval.types import LOCAL, Identity
from tests.claim_fixtures import claims_project

OWNER = Identity("sub-owner", "owner@example.com")
ANN = Identity("sub-ann", "ann@example.com")
VIEWER = Identity("sub-view", "viewer@example.com")
STRANGER = Identity("sub-x", "stranger@example.com")


@pytest.fixture
def proj(tmp_path, monkeypatch):
    """A project with two rated runs and claims, owned by OWNER, with ANN annotating and VIEWER viewing."""
    monkeypatch.setenv("RAGEVAL_HOME", str(tmp_path / "home"))
    project, _ = claims_project("acc", n=6)
    access.add_member(project, OWNER.email, "owner")  # the local user (the CLI on the server) sets it up
    mine = replace(project, actor=OWNER)
    access.add_member(mine, ANN.email, "annotator")
    access.add_member(mine, VIEWER.email, "viewer")
    return project


def as_(project, who):
    return access.open_as(project.slug, who)


def test_without_sign_in_the_local_user_owns_everything_and_types_a_name(proj):
    assert proj.actor == LOCAL and access.role_of(proj) == "owner"
    human.rate(proj, "runA", "q01", "maria", 4)  # a typed name, as before sign-in existed
    assert {(r["annotator"], r["rating"]) for r in hstore.ratings(proj.db_path, ["runA"]) if r["item_id"] == "q01"} \
        >= {("maria", 4)}


@pytest.mark.parametrize("action", ["rate", "label", "import_ratings", "import_labels", "import_qa", "start_run",
                                    "agreed", "members", "correlate"])
def test_a_viewer_is_refused_every_change_by_the_library(proj, action):
    viewer = as_(proj, VIEWER)
    calls = {
        "rate": lambda: human.rate(viewer, "runA", "q01", "", 4),
        "label": lambda: label_claim(viewer, "runA", "q01", "Claim 0 of answer 1.", "", "SUPPORTED"),
        "import_ratings": lambda: human.import_ratings(viewer, "r.csv", b"item_id,annotator,rating\nq01,a,4\n",
                                                       run="runA"),
        "import_labels": lambda: import_claim_labels(viewer, "l.csv", b"item_id,claim,rater,label\n", run="runA"),
        "import_qa": lambda: import_qa(viewer, "qa.csv", b"question,answer\nWhat?,This.\n", name="x"),
        "start_run": lambda: start_run(viewer, RunConfig(corpus="c", qa_set="q")),
        "agreed": lambda: human.set_agreed(viewer, "runA", "q01", 3),
        "members": lambda: access.add_member(viewer, "new@example.com", "viewer"),
        "correlate": lambda: human.correlate_runs(viewer, ["runA"]),
    }
    before = (hstore.ratings(proj.db_path, ["runA"]), cstore.labels(proj.db_path, ["runA"]))
    with pytest.raises(AccessError, match="viewer@example.com is a viewer of project acc"):
        calls[action]()
    assert (hstore.ratings(proj.db_path, ["runA"]), cstore.labels(proj.db_path, ["runA"])) == before


def test_an_annotator_rates_and_labels_signed_with_the_e_mail_but_cannot_manage(proj):
    ann = as_(proj, ANN)
    human.rate(ann, "runA", "q02", "", 5)
    human.rate(ann, "runA", "q03", "ANN@example.com", 2)  # its own e-mail typed is the same person
    with pytest.raises(AccessError, match="not as 'maria'"):
        human.rate(ann, "runA", "q04", "maria", 3)
    label_claim(ann, "runA", "q01", "Claim 0 of answer 1.", "", "CONTRADICTED")
    mine = [r for r in hstore.ratings(proj.db_path, ["runA"]) if r["annotator"] == ANN.email]
    assert {(r["item_id"], r["rating"]) for r in mine} == {("q02", 5), ("q03", 2)}
    assert [(r["rater"], r["label"]) for r in cstore.labels(proj.db_path, ["runA"]) if r["rater"] == ANN.email] == [
        (ANN.email, "CONTRADICTED")]
    with pytest.raises(AccessError, match="changing members and settings needs the role owner"):
        access.add_member(ann, "x@example.com", "viewer")


def test_a_signed_in_import_marks_the_files_raters_and_records_the_importer(proj):
    ann = as_(proj, ANN)
    res = human.import_ratings(ann, "team.csv", f"item_id,annotator,rating\nq05,{OWNER.email},1\n".encode(),
                               run="runA")
    assert res.imported == 1
    row = next(r for r in hstore.ratings(proj.db_path, ["runA"]) if r["item_id"] == "q05" and r["imported_by"])
    # the file's rater is kept apart and marked: an import never rates as the owner, who signs their own
    assert (row["annotator"], row["file_rater"], row["imported_by"]) == (f"file:{OWNER.email}", OWNER.email, ANN.email)
    trail = access.audit_trail(proj)
    assert trail[0]["action"] == "ratings_import" and trail[0]["email"] == ANN.email
    assert trail[0]["subject"] == ANN.subject and trail[0]["detail"] == {"file": "team.csv", "rows": 1, "rejected": 0}


def test_agreement_counts_a_signed_in_person_once_whatever_they_type(proj):
    ann = as_(proj, ANN)
    before = human.agreement(proj, ["runA"])["overall"]["annotators"]
    for item in ("q00", "q01"):
        human.rate(ann, "runA", item, "", 4)
        human.rate(ann, "runA", item, ANN.email.upper(), 3)  # the same person, typed differently: replaces
    raters = {r["annotator"] for r in hstore.ratings(proj.db_path, ["runA"]) if r["annotator"].endswith("example.com")}
    assert raters == {ANN.email}
    assert human.agreement(proj, ["runA"])["overall"]["annotators"] == before + 1
    # without sign-in the typed names are what they are: two spellings are two raters, as before
    human.rate(proj, "runA", "q00", "Dana", 4)
    human.rate(proj, "runA", "q00", "dana", 4)
    assert human.agreement(proj, ["runA"])["overall"]["annotators"] == before + 3


def test_every_change_is_in_the_audit_trail_with_subject_and_e_mail(proj):
    ann = as_(proj, ANN)
    human.rate(ann, "runA", "q02", "", 3)
    label_claim(ann, "runA", "q02", "Claim 1 of answer 2.", "", "SUPPORTED")
    trail = access.audit_trail(proj)
    assert [(r["action"], r["email"], r["subject"], r["target"]) for r in trail[:2]] == [
        ("label", ANN.email, ANN.subject, "runA/q02"), ("rate", ANN.email, ANN.subject, "runA/q02")]
    assert [r["action"] for r in trail[-3:]] == ["member_add", "member_add", "member_add"]
    with pytest.raises(AccessError):
        access.audit_trail(ann)  # owners only
    csv = access.audit_csv(proj)
    assert csv.splitlines()[0] == "created,subject,email,action,target,detail" and "runA/q02" in csv


def test_non_members_neither_list_nor_open_a_project_and_a_bound_subject_is_kept(proj):
    assert access.visible_projects(STRANGER) == []
    assert access.visible_projects(ANN) == ["acc"]
    same = "no project 'acc' that stranger@example.com may open"
    with pytest.raises(AccessError, match=same):
        access.open_as("acc", STRANGER)
    with pytest.raises(AccessError, match="no project 'nope' that"):  # the same words for a project that is not there
        access.open_as("nope", STRANGER)
    impostor = Identity("another-sub", ANN.email)  # the same e-mail from another account
    with pytest.raises(AccessError, match="under another account"):
        access.open_as("acc", impostor)
    assert access.visible_projects(impostor) == []


def test_members_keep_an_owner_and_a_creator_owns_a_new_project(proj):
    owner = as_(proj, OWNER)
    with pytest.raises(ConfigError, match="last owner"):
        access.remove_member(owner, OWNER.email)
    access.add_member(owner, ANN.email, "owner")
    access.remove_member(owner, OWNER.email)
    assert access.role_of(proj, OWNER) is None
    new = access.create_project("fresh", STRANGER)
    assert access.list_members(new)[0]["email"] == STRANGER.email and access.role_of(new) == "owner"
    with pytest.raises(AccessError, match="already exists"):
        access.create_project("acc", STRANGER)


def test_a_demo_link_views_one_project_until_it_expires_or_is_revoked(proj):
    link = as_(proj, OWNER)
    made = access.create_link(link, days=1)
    guest = access.open_link(made.token)
    assert access.visible_projects(guest) == ["acc"] and access.role_of(proj, guest) == "viewer"
    open_project("other")  # another project in the same home
    assert access.visible_projects(guest) == ["acc"]
    with pytest.raises(AccessError):
        access.open_as("other", guest)
    with pytest.raises(AccessError, match="is a viewer"):
        human.rate(access.open_as("acc", guest), "runA", "q01", "", 5)
    with pytest.raises(AccessError, match="not valid"):
        access.open_link(made.token, now=made.expires + timedelta(seconds=1))
    with pytest.raises(AccessError, match="not valid"):
        access.open_link(made.token[:-2] + "xx")
    with pytest.raises(AccessError):
        access.create_link(as_(proj, ANN))  # owners only
    access.revoke_link(link, made.id)
    with pytest.raises(AccessError, match="not valid"):
        access.open_link(made.token)
    assert [r["live"] for r in access.list_links(link)] == [False]
    assert made.expires <= datetime.now() + timedelta(days=1)


def test_cli_members_as_and_audit(proj, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("RAGEVAL_PROJECT", "acc")
    assert main(["members", "list", "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert [(m["email"], m["role"]) for m in listed["members"]] == [
        (OWNER.email, "owner"), (ANN.email, "annotator"), (VIEWER.email, "viewer")] and listed["cli_as"] is False
    ratings = tmp_path / "r.csv"
    ratings.write_text("item_id,annotator,rating\nq01,zed,4\n")
    assert main(["ratings", "import", str(ratings), "--run", "runA", "--as", ANN.email]) == 1
    assert "does not allow --as" in capsys.readouterr().err
    assert main(["members", "allow-as"]) == 0
    assert main(["ratings", "import", str(ratings), "--run", "runA", "--as", VIEWER.email]) == 1
    assert "viewer@example.com is a viewer of project acc" in capsys.readouterr().err
    assert main(["ratings", "import", str(ratings), "--run", "runA", "--as", ANN.email]) == 0
    assert main(["members", "add", "new@example.com", "--role", "viewer", "--as", ANN.email]) == 1
    assert main(["members", "add", "New@Example.com", "--role", "annotator"]) == 0
    assert main(["members", "remove", "new@example.com", "--json"]) == 0
    assert main(["members", "add", "not-an-address", "--role", "viewer"]) == 2
    capsys.readouterr()
    out = tmp_path / "audit.csv"
    assert main(["audit", "--out", str(out)]) == 0
    text = out.read_text()
    capsys.readouterr()
    assert "ratings_import" in text and "ann@example.com" in text and "member_remove" in text
    assert main(["links", "create", "--days", "2", "--json"]) == 0
    made = json.loads(capsys.readouterr().out)
    assert made["url"].startswith("http://localhost:8501/?demo=acc.")
    assert main(["links", "revoke", made["id"]]) == 0
    assert main(["links", "revoke", made["id"]]) == 2  # already revoked

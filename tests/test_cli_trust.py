"""The trust CLI: claim-labels import/export, agreement --claims, estimate (exit codes, --json)."""
from __future__ import annotations

import json

import pytest

from rageval.cli import main
from rageval.human import claim_agreement, estimates
from tests.claim_fixtures import JUDGE, OFFLINE, claims_project


@pytest.fixture
def proj(tmp_path, monkeypatch):
    monkeypatch.setenv("RAGEVAL_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("RAGEVAL_PROJECT", "cl")
    return claims_project("cl")[0]


def _json(capsys):
    return json.loads(capsys.readouterr().out)


def _labels_file(tmp_path, rows):
    path = tmp_path / "labels.csv"
    path.write_text("item_id,claim_index,rater,label\n" + "".join(f"{r}\n" for r in rows))
    return path


def test_claim_labels_import_export_round_trip_and_exit_codes(proj, tmp_path, capsys):
    good = _labels_file(tmp_path, ["q00,0,ann,S", "q00,1,ann,C", "q01,2,bob,skip"])
    assert main(["claim-labels", "import", str(good), "--run", "runA", "--json"]) == 0
    assert _json(capsys) == {"imported": 3, "errors": []}
    mixed = _labels_file(tmp_path, ["q02,0,ann,S", "q02,5,ann,S", "q03,0,ann,maybe"])
    assert main(["claim-labels", "import", str(mixed), "--run", "runA"]) == 1
    text = capsys.readouterr().out
    assert "ERROR labels.csv, row 2 (line 3):" in text and "row 3 (line 4)" in text
    assert "1 claim label(s) imported, 2 row(s) rejected" in text
    out = tmp_path / "out.jsonl"
    assert main(["claim-labels", "export", "--run", "runA", "--format", "jsonl", "--out", str(out), "--json"]) == 0
    assert _json(capsys)["rows"] == 4
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert {(r["item_id"], r["claim_index"], r["rater"], r["label"]) for r in rows} == {
        ("q00", 0, "ann", "SUPPORTED"), ("q00", 1, "ann", "CONTRADICTED"), ("q01", 2, "bob", "SKIP"),
        ("q02", 0, "ann", "SUPPORTED")}
    assert main(["claim-labels", "import", str(out), "--json"]) == 0  # the export names its run per row
    assert _json(capsys)["imported"] == 4
    assert main(["claim-labels", "import", str(tmp_path / "nope.csv")]) == 2
    assert main(["claim-labels", "import", str(good), "--run", "runZ"]) == 2


def test_agreement_claims_reports_every_verifier(proj, tmp_path, capsys):
    rows = [f"q{i:02d},{k},ann,{lab}" for i in range(6) for k, lab in enumerate(("S", "C", "NM"))]
    rows += [f"q{i:02d},{k},bob,{lab}" for i in range(6) for k, lab in enumerate(("S", "C", "C"))]
    assert main(["claim-labels", "import", str(_labels_file(tmp_path, rows)), "--run", "runA"]) == 0
    capsys.readouterr()
    assert main(["agreement", "--claims", "--runs", "runA", "--n-boot", "100", "--json"]) == 0
    out = _json(capsys)
    want = {a.signature: a for a in claim_agreement.verifier_agreement(proj, ["runA"], n_boot=100)}
    got = {v["signature"]: v for v in out["verifiers"]}
    assert set(got) == {OFFLINE, JUDGE}
    for sig in got:
        assert got[sig]["accuracy"] == want[sig].accuracy and got[sig]["n"] == want[sig].n
        assert got[sig]["kappa"] == want[sig].kappa.value
    assert out["raters"]["raters"] == 2 and out["raters"]["shared"] == 18
    assert main(["agreement", "--claims"]) == 0  # every run
    text = capsys.readouterr().out
    assert "Cohen's kappa ann vs bob" in text and "confusion (rows: people; columns: verdict)" in text
    assert "UNVERIFIED" in text
    assert main(["agreement"]) == 2  # ratings agreement still needs --runs


def test_estimate_prints_the_runs_ppi_estimates(proj, tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(estimates, "MIN_LABELS", 30)  # the fixture has 36 claims: the output, not the label floor
    rows = [f"q{i:02d},{k},ann,{lab}" for i in range(10) for k, lab in enumerate(("S", "C", "NM"))]
    assert main(["claim-labels", "import", str(_labels_file(tmp_path, rows)), "--run", "runA"]) == 0
    capsys.readouterr()
    assert main(["estimate", "--run", "runA", "--metric", "token_f1", "--json"]) == 0
    out = _json(capsys)
    want = [e.as_dict() for e in estimates.run_estimates(proj, "runA", metric="token_f1")]
    assert out["estimates"] == json.loads(json.dumps(want))
    judge = next(e for e in out["estimates"] if e["predictor"] == JUDGE)
    assert judge["labelled"] == 30 and 0 <= judge["low"] <= judge["estimate"] <= judge["high"] <= 1
    assert main(["estimate", "--run", "runA", "--classic"]) == 0
    assert "share of claims a person calls SUPPORTED" in capsys.readouterr().out
    assert main(["estimate", "--run", "nope"]) == 2
    assert main(["estimate", "--run", "runA", "--metric", "nope"]) == 2

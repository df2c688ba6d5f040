"""Settled claim verdicts: the order of authority (people > judge > copy > UNVERIFIED), and one
settlement said identically by the app, `export --details`, the HTML report, the CLI and `check`."""
from __future__ import annotations

import json

import pytest
from streamlit.testing.v1 import AppTest

from rageval.cli import main
from rageval.report.settle import people_source, settle, settled_claims
from rageval.report.summary import run_summaries
from rageval.store import runs as store
from tests.claim_fixtures import add_claims
from tests.test_app_claims import APP, no_failure
from tests.test_app_demo_claims import demo_built  # noqa: F401 (the module's fixture)

COPY = {"confidence": 1.0, "evidence_role": "support", "quote_span": [0, 5]}


def _row(verdict, judge="heuristic", details=None):
    return {"verdict": verdict, "judge": judge, "details": details or {}}


@pytest.mark.parametrize("rows,labels,verdict,badge", [
    ([_row("UNVERIFIED")], [], "UNVERIFIED", "unverified"),
    ([_row("SUPPORTED", details=COPY)], [], "SUPPORTED", "copied"),
    ([_row("UNVERIFIED"), _row("NOT_MENTIONED", "openai:gpt-4o-mini")], [], "NOT_MENTIONED", "judge gpt-4o-mini"),
    ([_row("SUPPORTED", details=COPY), _row("CONTRADICTED", "openai:m")], [], "CONTRADICTED", "judge m"),
    ([_row("SUPPORTED", "openai:m")], ["CONTRADICTED"] * 3, "CONTRADICTED", "3 people"),
    ([_row("SUPPORTED", "openai:m")], ["CONTRADICTED", "CONTRADICTED", "SKIP"], "CONTRADICTED", "2 people"),
    ([_row("UNVERIFIED")], ["NOT_MENTIONED", "NOT_MENTIONED", "SUPPORTED"], "NOT_MENTIONED", "2 of 3 people"),
    ([_row("SUPPORTED", "openai:m")], ["SUPPORTED", "CONTRADICTED"], "SUPPORTED", "judge m"),  # a tie decides nothing
    ([_row("UNVERIFIED")], ["SKIP"], "UNVERIFIED", "unverified"),
])
def test_the_strongest_source_that_decides_settles(rows, labels, verdict, badge):
    s = settle("q1", "A claim.", 0, rows, labels)
    assert (s.verdict, s.badge) == (verdict, badge)
    assert {x.verdict for x in s.sources} >= {r["verdict"] for r in rows}  # every source kept, none overwritten
    assert badge not in [o.name for o in s.others()]


def test_people_disagreement_is_said():
    source, note = people_source(["SUPPORTED", "SUPPORTED", "NOT_MENTIONED"])
    assert source.verdict == "SUPPORTED" and note == "people disagree: 2 SUPPORTED, 1 NOT_MENTIONED"
    assert people_source(["SKIP"]) == (None, "")


def test_every_surface_says_the_same_settled_verdicts(demo_built, tmp_path, capsys):  # noqa: F811
    """The demo's LLM-style run with its shipped people's labels and a judge's verdicts on two claims
    (one it alone decides, one where it disagrees with people): the library's settlement is what the
    Answers page, `export --details`, `claim-labels settled`, the HTML report and `check` show."""
    project, run_id = demo_built
    claims = store.claims(project.db_path, run_id)
    before = sorted((c["item_id"], c["signature"], c["ordinal"], c["verdict"]) for c in claims)
    q01 = next(c for c in claims if c["item_id"] == "q01")
    q42 = next(c for c in claims if c["item_id"] == "q42")
    add_claims(project, run_id, [{**q01, "signature": "faithfulness|judge:openai:gpt-test|v1", "verdict": "SUPPORTED",
                                  "judge": "openai:gpt-test"},
                                 {**q42, "signature": "faithfulness|judge:openai:gpt-test|v1",
                                  "verdict": "NOT_MENTIONED", "judge": "openai:gpt-test"}])
    settled = settled_claims(project, run_id)
    expected = {(c.item_id, c.claim): (c.verdict, c.badge) for c in settled}
    assert expected[("q01", q01["text"])] == ("CONTRADICTED", "3 people")
    assert expected[("q42", q42["text"])] == ("NOT_MENTIONED", "judge gpt-test")
    first = next(c for c in settled if c.item_id == "q01")
    assert ("judge gpt-test", "SUPPORTED") in [(o.name, o.verdict) for o in first.others()]  # the judge is visible
    # the store keeps every source's verdict: settling wrote nothing over them
    kept = sorted(
        (c["item_id"], c["signature"], c["ordinal"], c["verdict"])
        for c in store.claims(project.db_path, run_id)
        if "openai" not in c["signature"]
    )
    assert kept == before

    # export --details (the CLI) and the export's claim metric columns
    out = tmp_path / "run.jsonl"
    assert main(["export", "--project", project.slug, "--run", run_id, "--details", "--out", str(out)]) == 0
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    exported = {(c["item_id"], c["claim"]): (c["verdict"], c["by"]) for r in rows for c in r["claims"]}
    assert exported == expected
    # claim-labels settled --json (the CLI)
    capsys.readouterr()
    assert main(["claim-labels", "settled", "--project", project.slug, "--run", run_id, "--json"]) == 0
    said = json.loads(capsys.readouterr().out)
    assert {(c["item_id"], c["claim"]): (c["verdict"], c["by"]) for c in said["claims"]} == expected
    # the claim metrics: summaries (cards, report, CLI), the export's column and check agree
    faith = next(s for s in run_summaries(project, run_id) if s.metric == "faithfulness")
    values = [r["faithfulness"] for r in rows if r.get("faithfulness") is not None]
    assert (
        faith.mean == pytest.approx(sum(values) / len(values)) == pytest.approx(said["metrics"]["faithfulness"]["mean"])
    )
    assert faith.coverage == pytest.approx(1.0)  # every claim settled by people or the judge
    q01_row = next(r for r in rows if r["id"] == "q01")
    assert q01_row["faithfulness"] == 0.0 and q01_row["faithfulness_coverage"] == 1.0
    capsys.readouterr()
    assert main(["check", "--project", project.slug, "--run", run_id, "--fail-under", f"faithfulness={faith.mean:.6f}",
                 "--allow-unscored", "--json"]) in (0, 1)
    gate = json.loads(capsys.readouterr().out)
    mean = next(c for c in gate["checks"] if c["name"].startswith("faithfulness >="))["details"]["mean"]
    assert mean == pytest.approx(faith.mean)
    # the HTML report: each settled claim of the answers it shows, with the badge
    page = main(["report", "--project", project.slug, "--run", run_id, "--out", str(tmp_path / "r.html")])
    assert page == 0
    html = (tmp_path / "r.html").read_text()
    assert f"{len(settled)} claims:" in html
    assert ">CONTRADICTED</span></td><td>3 people</td>" in html and "judge gpt-test: SUPPORTED" in html
    # the per-answer values behind the plots, the report's distributions and Compare
    from rageval.report.leaderboard import item_values
    from rageval.views import home

    per_item = item_values(project, [run_id], ["faithfulness"])
    assert per_item[per_item["status"] == "ok"]["value"].mean() == pytest.approx(faith.mean)
    # Home's leaderboard

    board = home.leaderboard(project, [r.id for r in store.runs(project.db_path)])
    row = board.table.set_index("id").loc[run_id]
    assert row["faithfulness"] == pytest.approx(faith.mean)
    assert board.coverage[(run_id, "faithfulness")] == pytest.approx(faith.coverage)
    # the Answers page: every answer's claims with the same verdict and badge
    at = AppTest.from_file(str(APP), default_timeout=90)
    at.session_state["project"] = project.slug
    at.run()
    at.switch_page("pages/answers.py").run()
    at.selectbox(key="ans_run").set_value(run_id).run()
    for item in ("q01", "q42", "q24"):
        at.selectbox(key="ans_item").set_value(item).run()
        no_failure(at)
        table = next(h.proto.body for h in at.get("html") if "<th" in h.proto.body and "settled by" in h.proto.body)
        for (i, _text), (verdict, badge) in expected.items():
            if i == item:
                assert f">{verdict}</span></td><td style=" in table and f">{badge}<" in table
    # a label given elsewhere (another tab, the CLI) settles anew on the page's next run
    from rageval.human.claim_labels import label_claim

    addition = next(c for c in settled if c.item_id == "q24" and c.verdict == "NOT_MENTIONED")
    label_claim(project, run_id, "q24", addition.claim, "dana", "SUPPORTED")
    at.run()
    table = next(h.proto.body for h in at.get("html") if "<th" in h.proto.body and "settled by" in h.proto.body)
    assert ">3 of 4 people<" in table and "people disagree: 3 NOT_MENTIONED, 1 SUPPORTED" in table


def test_check_gates_keyless_on_people_labels_and_on_the_copied_and_unverified_shares(demo_built, capsys):  # noqa: F811
    """`check` on the demo's LLM-style run: the keyless message names both gates; copied_share and
    unverified_share are computed from the settled claims; people's labels change faithfulness."""
    project, run_id = demo_built
    settled = settled_claims(project, run_id)
    per_item: dict[str, list] = {}
    for c in settled:
        per_item.setdefault(c.item_id, []).append(c)
    copied = [sum(any(s.kind == "copied" for s in c.sources) for c in cs) / len(cs) for cs in per_item.values()]
    unverified = [sum(not c.decided for c in cs) / len(cs) for cs in per_item.values()]
    assert main(["check", "--project", project.slug, "--run", run_id, "--fail-under", "copied_share=0.01",
                 "--fail-over", "unverified_share=0.99", "--allow-unscored", "--json"]) == 0
    got = {c["name"]: c["details"] for c in json.loads(capsys.readouterr().out)["checks"]}
    assert got["copied_share >= 0.01"]["mean"] == pytest.approx(sum(copied) / len(copied))
    assert got["unverified_share <= 0.99"]["mean"] == pytest.approx(sum(unverified) / len(unverified))
    from rageval.demo import demo_run_id

    pipeline = demo_run_id()  # the extractive run: some answers have no copied or labelled claim
    assert main(["check", "--project", project.slug, "--run", pipeline, "--fail-under", "faithfulness=0.5"]) == 1
    said = capsys.readouterr().out
    assert "Without a key, gate faithfulness one of two ways" in said and "copied_share" in said
    # the stored faithfulness (offline: only copies decided) is not what check gates on
    stored = [s["value"] for s in store.scores(project.db_path, run_id) if s["metric"] == "faithfulness"
              and s["status"] == "ok"]
    faith = next(s for s in run_summaries(project, run_id) if s.metric == "faithfulness")
    assert set(stored) == {1.0} and faith.mean < 0.8


def test_score_details_and_export_details_say_the_same(tmp_path, monkeypatch, capsys):
    """`score --details` (before anyone labels) names who decided each claim as the stored run's
    `export --details` does."""
    monkeypatch.setenv("RAGEVAL_HOME", str(tmp_path / "home"))
    answers = tmp_path / "answers.jsonl"
    answers.write_text(json.dumps({"id": "a1", "question": "When does the warehouse open?",
                                   "answer": "The warehouse opens at 7 am on weekdays. It closes at midnight.",
                                   "contexts": ["The warehouse opens at 7 am on weekdays."]}) + "\n")
    assert (
        main(["score", str(answers), "--metrics", "faithfulness", "--details", "--out", str(tmp_path / "s.jsonl")]) == 0
    )
    scored = json.loads((tmp_path / "s.jsonl").read_text().splitlines()[0])
    got = [(c["text"], c["verdict"], c["by"]) for c in scored["claims"]]
    assert got == [("The warehouse opens at 7 am on weekdays.", "SUPPORTED", "copied"),
                   ("It closes at midnight.", "UNVERIFIED", "unverified")]
    from rageval.project import open_project

    run_id = store.runs(open_project("default").db_path)[0].id
    capsys.readouterr()
    assert main(["export", "--run", run_id, "--details"]) == 0
    exported = json.loads(capsys.readouterr().out.splitlines()[0])
    assert [(c["claim"], c["verdict"], c["by"]) for c in exported["claims"]] == got


def test_wilson_interval_stays_in_0_1_with_width_and_matches_statsmodels():
    from statsmodels.stats.proportion import proportion_confint

    from rageval.stats.shares import wilson_interval

    for k, n in [(0, 1), (1, 1), (10, 10), (0, 7), (3, 7), (45, 45), (20, 45)]:
        low, high = wilson_interval(k, n)
        assert 0.0 <= low < high <= 1.0  # inside [0, 1], never a point
        assert (low, high) == pytest.approx(proportion_confint(k, n, method="wilson"), abs=1e-12)


def test_a_ppi_share_interval_outside_0_1_is_clipped_on_pages_and_said():
    from rageval.views.trust import plain_estimate

    row = {"quantity": "share of claims a person calls SUPPORTED", "predictor": "faithfulness|judge:heuristic|v1",
           "labelled": 9, "total": 45, "estimate": 1.0, "low": 0.81, "high": 1.19, "human": 1.0, "human_low": 1.0,
           "human_high": 1.0, "naive": 0.4, "effective_n": 12.0, "reason": None}
    sentence, tip = plain_estimate(row)
    assert "1.000 [0.810, 1.000]" in sentence and "(offline rule)" in sentence and "faithfulness|" not in sentence
    assert "[0.810, 1.190], leaves [0, 1]; it is shown clipped" in tip and "faithfulness|judge:heuristic|v1" in tip
    assert "people alone 1.000 [0.701, 1.000]" in sentence  # Wilson for 9 of 9: width, inside [0, 1]

"""Offline verdicts are never wrong: SUPPORTED only where a sentence asserts the claim as
copied, UNVERIFIED otherwise (with its likely evidence and hints), never CONTRADICTED or
NOT_MENTIONED; short answers are read with their question; instruction sentences are claims; the
claim metrics count decided claims and carry their coverage; UNVERIFIED round-trips through the
store, the score files and the exports. (Copied claims from TXT, PDF, Markdown and Italian files
through the loader: tests/test_copied_claims.py.)"""
from __future__ import annotations

import json

import pandas as pd
import pytest

from rageval.claims.containment import contained
from rageval.claims.extract import answer_claims, extract_claims, has_own_verb, is_short_answer, question_claim
from rageval.claims.offline import RulesVerifier
from rageval.metrics.base import evaluate, get_metric
from rageval.types import Resources, Sample
from tests.test_claims import BowEmbedder

OFFICE = ("The office opens at 9 am in winter. The annual fee is 20 EUR, which is paid in January. "
          "Members pay 10 EUR, except on Sundays. In 2020, revenue was 5 million EUR. "
          "However, the museum is closed on Mondays. The tent weighs 2 kg, and it packs small. "
          "Refunds are issued within 14 days if the ticket is unused. Staff may work from home only on Fridays.")


@pytest.mark.parametrize("claim, label", [
    ("The annual fee is 20 EUR.", "SUPPORTED"),           # ", which ..." does not restrict it
    ("The museum is closed on Mondays.", "SUPPORTED"),     # after a framing "However,"
    ("The tent weighs 2 kg.", "SUPPORTED"),                # ", and <clause>"
    ("The office opens at 9 am.", "UNVERIFIED"),           # "in winter" restricts it (no clause boundary)
    ("Members pay 10 EUR.", "UNVERIFIED"),                 # ", except on Sundays"
    ("Revenue was 5 million EUR.", "UNVERIFIED"),          # an introductory "In 2020," restricts it
    ("Refunds are issued within 14 days.", "UNVERIFIED"),  # "if the ticket is unused"
    ("Staff may work from home.", "UNVERIFIED"),           # "only on Fridays"
    ("The office opens at 9 am in winter.", "SUPPORTED"),  # the whole sentence
])
def test_a_prefix_whose_remainder_restricts_it_is_unverified(claim, label):
    found = contained(claim, [OFFICE])
    assert (found.label if found else "UNVERIFIED") == label


OUTLOOK = ("We expect margins to rise in 2024 despite weaker demand, higher energy prices, and the lasting "
           "uncertainty around the new tariffs. Sales fell in May, and the company closed two stores. "
           "The annual fee of the club, which the board sets, was raised to 40 EUR. "
           "Il bilancio è stato chiuso in attivo, e la società ha assunto 40 persone.")


def test_a_list_item_after_and_is_neither_split_off_nor_supported():
    sentence = ("Margins should rise in 2024 despite weaker demand, higher energy prices, and the lasting "
                "uncertainty around the new tariffs.")
    assert extract_claims(sentence) == [sentence]  # one list, one claim: the last item has no verb of its own
    assert extract_claims("Sales fell in May, and the company closed two stores.") == [
        "Sales fell in May.", "The company closed two stores."]  # a clause with its own verb is split off
    # containment: a noun phrase cut from its sentence states nothing, with or without the extractor
    for fragment in ("The lasting uncertainty around the new tariffs.", "The annual fee of the club."):
        assert contained(fragment, [OUTLOOK]) is None, fragment
    for clause in ("The company closed two stores.", "La società ha assunto 40 persone."):
        assert contained(clause, [OUTLOOK]).label == "SUPPORTED", clause  # a clause after "and" / "e" is one
    sample = Sample(id="f", question="Outlook?", answer="The lasting uncertainty around the new tariffs.",
                    contexts=(OUTLOOK,))
    (score,) = evaluate([sample], [get_metric("faithfulness")], Resources(embedder_factory=BowEmbedder))["faithfulness"]
    assert [c["verdict"] for c in score.details["claims"]] == ["UNVERIFIED"]


@pytest.mark.parametrize("text, verb", [
    ("the continuing uncertainty associated with COVID", False), ("the goods made in China", False),
    ("the Rams and the Saints", False), ("the increased cost of energy", False),
    ("the tent weighs 2 kg", True), ("it packs small", True), ("the company reported record profits", True),
    ("the board approved", True), ("prices rose", True), ("la società ha assunto 40 persone", True),
    ("i soci votarono il bilancio", True), ("Paterson died on 10 November", True),
    ("instead, they focus on small appliances", True),
])
def test_a_verb_of_its_own_is_read_by_word_rules(text, verb):
    assert has_own_verb(text) is verb


def test_hard_wrapped_copy_is_supported_and_a_wrapped_restriction_is_not():
    ctx = ["Refunds are issued within\n14 days of the purchase.\nStaff may work from\nhome, but only on Fridays."]
    assert contained("Refunds are issued within 14 days of the purchase.", ctx).label == "SUPPORTED"
    assert contained("Staff may work from home.", ctx) is None


def test_unverified_claims_keep_their_likely_evidence_and_hints():
    ctx = ["The concrete is left to dry for at least 24 hours. The slab was poured by Anna Berg."]
    claims = ["The concrete needs 48 hours to dry.", "The slab was poured by Marco Rossi."]
    first, second = RulesVerifier(BowEmbedder()).verify(claims, ctx)
    for v, sentence in ((first, "The concrete is left to dry for at least 24 hours."),
                        (second, "The slab was poured by Anna Berg.")):
        assert v.label == "UNVERIFIED" and v.evidence == sentence and v.evidence_role == "likely evidence"
        assert ctx[0][v.span[0]:v.span[1]] == sentence  # the whole sentence, with its span
    assert first.hints == ("the claim says 48 hours; the sentence says 24 hours",)
    assert second.hints == ("a name found in no context: marco rossi",)


@pytest.mark.parametrize("answer", ["€1.32 billion.", "WPA3", "in the basement", "The 2019 figure"])
def test_a_bare_short_answer_is_never_supported_by_containment_alone(answer):
    ctx = ("Revenue was €1.32 billion in 2022 and €1.41 billion in 2023. Routers need WPA3. "
           "The archive is in the basement. The 2019 figure was revised.")
    sample = Sample(id="s", question="What was the revenue in 2023?", answer=answer, contexts=(ctx,))
    for name in ("faithfulness", "groundedness"):
        (score,) = evaluate([sample], [get_metric(name)], Resources(embedder_factory=BowEmbedder))[name]
        rows = score.details.get("claims") or score.details.get("sentences")
        assert [r["verdict"] for r in rows] == ["UNVERIFIED"], (name, rows)
        assert rows[0]["text"] == question_claim(sample.question, answer)  # "The revenue in 2023 was <answer>."
        assert score.status == "unscored" and score.reason.startswith("no_decided_claims")


def test_a_short_answer_becomes_the_claim_its_question_makes():
    assert is_short_answer("€1.32 billion.") and not is_short_answer("The fee is 20 EUR.")
    assert question_claim("What is the capital of France?", "Paris") == "The capital of France is Paris."
    assert answer_claims("What is the capital of France?", "Paris.") == ["The capital of France is Paris."]
    # the statement form is checked like any claim: copied from the context, it is proven
    assert contained("The capital of France is Paris.", ["The capital of France is Paris."]).label == "SUPPORTED"


@pytest.mark.parametrize("answer, claim", [
    ("yes, the maximum score is 300.", "Yes, the maximum score is 300."),
    ("yes! hunting can also be a means of pest control", "Yes, hunting can also be a means of pest control."),
    ("No. The maximum score is 300.", "No, the maximum score is 300."),
])
def test_a_yes_or_no_stays_with_its_claim_so_a_copy_of_the_rest_is_unverified(answer, claim):
    # "Do you bowl?" "Yes, the maximum score is 300.": the yes says the speaker bowls, which no copy proves
    ctx = ["The maximum score is 300, which is achieved by getting 12 strikes in a row. "
           "Hunting can also be a means of pest control."]
    assert answer_claims("Do you bowl?", answer) == [claim]
    assert contained(claim, ctx) is None
    assert RulesVerifier(BowEmbedder()).verify([claim], ctx)[0].label == "UNVERIFIED"
    rest = claim.split(", ", 1)[1]
    assert contained(rest[0].upper() + rest[1:], ctx).label == "SUPPORTED"  # the rest alone is a copy


def test_a_no_that_starts_a_statement_is_not_an_answer():
    # "No two ..." / "No ancient ..." state something; only a "no" before punctuation answers
    assert answer_claims("", "No two cases are ever alike in this court.") == [
        "No two cases are ever alike in this court."
    ]
    ctx = ["No ancient written autographs have been found , and the earliest one known is from 1098 ."]
    (claim,) = answer_claims("Do you collect autographs?", "No ancient written autographs have been found.")
    assert claim == "No ancient written autographs have been found." and contained(claim, ctx).label == "SUPPORTED"
    assert answer_claims("", "No , but they have sold 100 million records worldwide.") == [
        "No, but they have sold 100 million records worldwide."]


def test_an_instruction_sentence_yields_a_claim():
    assert extract_claims("Please report bugs to Fedora's tracker.") == ["Please report bugs to Fedora's tracker."]
    sample = Sample(id="i", question="Where do bugs go?", answer="Please report bugs to the Debian tracker.",
                    contexts=("Please report bugs to Fedora's tracker.",))
    (score,) = evaluate([sample], [get_metric("faithfulness")], Resources(embedder_factory=BowEmbedder))["faithfulness"]
    assert [c["verdict"] for c in score.details["claims"]] == ["UNVERIFIED"]  # a false one no longer escapes


def test_an_answer_with_text_and_no_claim_says_why():
    samples = [Sample(id="a", answer="Hello! Could you say which tent?", contexts=("Text.",)),
               Sample(id="b", answer="I don't know.", contexts=("Text.",))]
    res = evaluate(samples, [get_metric("faithfulness")], Resources(embedder_factory=BowEmbedder))["faithfulness"]
    assert [(s.status, s.reason) for s in res] == [
        ("unscored", "no_claims: the answer greets or signs off and asks a question"),
        ("unscored", "no_claims: the answer abstains")]


MIXED = Sample(id="m", question="Tell me about the wall.", contexts=(
    "The Berlin Wall fell on 9 November 1989. It divided the city for 28 years.",),
    answer="The Berlin Wall fell on 9 November 1989. The wall divided the city for 35 years. "
           "It was painted blue. Contact the museum for tours.")
CLAIM_METRICS = ("faithfulness", "contradicted_share", "not_mentioned_share", "groundedness",
                 "ragas_answer_correctness")


def test_no_offline_verdict_is_contradicted_or_not_mentioned_and_coverage_is_reported():
    sample = Sample(**{**MIXED.__dict__, "references": ("The wall fell on 9 November 1989.",)})
    res = evaluate([sample], [get_metric(n) for n in CLAIM_METRICS], Resources(embedder_factory=BowEmbedder))
    verdicts = {r["verdict"] for n in CLAIM_METRICS for r in (res[n][0].details.get("claims")
                                                              or res[n][0].details.get("sentences") or [])}
    assert verdicts == {"SUPPORTED", "UNVERIFIED"}
    f, c, nm, g = (res[n][0] for n in CLAIM_METRICS[:4])
    assert (f.value, c.value, nm.value) == (1.0, 0.0, 0.0)  # over the 1 decided claim of 4
    assert f.details["coverage"] == c.details["coverage"] == 0.25 and f.details["n_all"] == 4
    assert (g.value, g.details["coverage"]) == (1.0, 0.25)


def test_with_no_decided_claim_the_value_is_unscored_with_its_reason_never_0_or_1():
    sample = Sample(id="u", answer="The wall was painted blue.", contexts=("The Berlin Wall fell in 1989.",))
    res = evaluate([sample], [get_metric(n) for n in CLAIM_METRICS[:4]], Resources(embedder_factory=BowEmbedder))
    for name, (score,) in res.items():
        assert score.value is None and score.status == "unscored", name
        assert score.reason.startswith("no_decided_claims") and "--judge" in score.reason
        assert score.details["coverage"] == 0.0


def test_the_product_ships_one_offline_checker_and_no_learned_verifier():
    from importlib.util import find_spec

    from rageval import models, settings
    from rageval.claims import offline
    from rageval.cli.base import judge_help

    assert offline.version() == offline.CHECKER.version() and list(offline.CHECKERS) == ["contain"]
    assert "RAGEVAL_CLAIM_VERIFIER" not in {s.name for s in settings.SETTINGS}
    assert "UNVERIFIED" in judge_help() and "CONTRADICTED" in judge_help()  # --judge's help
    for gone in ("rageval.claims.verifier", "rageval.claims.xenc", "rageval.claims.model"):
        assert find_spec(gone) is None, gone
    assert not list(models.FOLDER.glob("claim_*")), "a learned claim verifier's weights are in rageval/models/"


def test_unverified_round_trips_through_store_score_files_and_exports(tmp_path, monkeypatch, capsys):
    from rageval.cli import main
    from rageval.gate.scores import from_file, from_run
    from rageval.project import open_project
    from rageval.report.exports import export_run, run_table
    from rageval.report.html import run_report_html
    from rageval.store import runs as run_store

    monkeypatch.setenv("RAGEVAL_HOME", str(tmp_path / "home"))
    rows = tmp_path / "answers.jsonl"
    rows.write_text(json.dumps({"id": "q1", "question": MIXED.question, "answer": MIXED.answer,
                                "contexts": list(MIXED.contexts)}) + "\n", encoding="utf-8")
    out = {}
    for suffix in ("jsonl", "csv", "parquet"):
        out[suffix] = tmp_path / f"scored.{suffix}"
        assert main(["score", str(rows), "--metrics", "faithfulness", "--details", "--out", str(out[suffix])]
                    + (["--no-store"] if suffix != "jsonl" else [])) == 0
    (row,) = [json.loads(line) for line in out["jsonl"].read_text().splitlines()]
    assert [c["verdict"] for c in row["claims"]] == ["SUPPORTED", "UNVERIFIED", "UNVERIFIED", "UNVERIFIED"]
    assert row["claims"][1]["hints"] == ["the claim says 35 years; the sentence says 28 years"]
    assert row["faithfulness"] == 1.0 and row["faithfulness_coverage"] == 0.25
    parquet = pd.read_parquet(out["parquet"])
    assert parquet["faithfulness_coverage"].tolist() == [0.25]
    assert [c["verdict"] for c in json.loads(parquet["claims"][0])][1] == "UNVERIFIED"
    csv = pd.read_csv(out["csv"])
    assert csv["faithfulness_coverage"].tolist() == [0.25] and "UNVERIFIED" in csv["claims"][0]
    for path in out.values():  # rageval check reads the coverage and never takes it for a metric
        scored = from_file(path)
        assert scored.metrics == ["faithfulness"] and scored.coverage == {"faithfulness": 0.25}
    project = open_project("default")
    (run,) = run_store.runs(project.db_path)
    stored = run_store.claims(project.db_path, run.id)
    assert [c["verdict"] for c in stored] == ["SUPPORTED", "UNVERIFIED", "UNVERIFIED", "UNVERIFIED"]
    assert stored[1]["details"]["hints"] and stored[1]["details"]["evidence_role"] == "likely evidence"
    assert from_run(project, run.id).coverage == {"faithfulness": 0.25}
    table = run_table(project, run.id)
    assert table["faithfulness_coverage"].tolist() == [0.25]
    exported = [json.loads(line) for line in export_run(project, run.id, "jsonl").splitlines()]
    assert exported[0]["faithfulness_coverage"] == 0.25
    assert main(["check", "--run", run.id, "--fail-under", "faithfulness=0.5"]) == 0
    assert "coverage 25%" in capsys.readouterr().out
    from rageval.report.summary import run_summaries
    from rageval.views import answers as answers_view
    from rageval.views import compare, home
    board = home.leaderboard(project, [run.id])  # the leaderboard, the cards and Compare show the coverage
    assert home.leaderboard_text(board)["faithfulness"].tolist() == ["1.000 (25% decided)"]
    assert "faithfulness_coverage" in home.leaderboard_csv(board)
    (summary,) = run_summaries(project, run.id)
    assert answers_view.card_note(summary).startswith("coverage 25% · 1 scored")
    assert compare.run_coverage(project, [run.id], "faithfulness") == {run.id: 0.25}
    html = run_report_html(project, run.id)  # the customer report: coverage beside the value, a grey badge
    assert "<th class='num'>coverage</th>" in html and "<td class='num'>25%</td>" in html
    assert "No judge was used" in html and "--judge" in html
    assert 'background:#eef0f3;color:#4a5261;border-color:#4a5261">UNVERIFIED</span>' in html
    assert "hints: the claim says 35 years; the sentence says 28 years" in html


def test_the_answers_page_shows_likely_evidence_and_hints_not_a_verdict():
    from rageval.views import answers
    from rageval.views.answer_view import AnswerView

    claim = {"text": "It dries in 48 hours.", "verdict": "UNVERIFIED", "evidence": "It dries in 24 hours.",
             "judge": "heuristic", "details": {"evidence_role": "likely evidence",
                                               "hints": ["the claim says 48 hours; the sentence says 24 hours"]}}
    view = AnswerView("i", 0, "Q?", [], "It dries in 48 hours.", "ok", None, [], {}, [claim])
    (row,) = answers.claim_rows(view)
    assert row["verdict"] == "UNVERIFIED" and row["evidence"] == ("likely evidence: ", "It dries in 24 hours.")
    assert row["reason"] == "hints: the claim says 48 hours; the sentence says 24 hours"
    assert answers.evidence_spans(view) == {}  # likely evidence is never highlighted as support
    assert answers.offline_verdicts(view.claims) and "judge or a person" in answers.OFFLINE_VERDICT_NOTE


def test_a_run_the_offline_rules_decided_shows_no_low_confidence_note(tmp_path, monkeypatch):
    from rageval.cli import main
    from rageval.project import open_project
    from rageval.report.html import run_report_html
    from rageval.report.summary import low_confidence_claims
    from rageval.store import runs as run_store
    from rageval.views import answers as answers_view

    monkeypatch.setenv("RAGEVAL_HOME", str(tmp_path / "home"))
    rows = tmp_path / "answers.jsonl"
    rows.write_text(json.dumps({"id": "q1", "question": MIXED.question, "answer": MIXED.answer,
                                "contexts": list(MIXED.contexts)}) + "\n", encoding="utf-8")
    assert main(["score", str(rows), "--metrics", "faithfulness"]) == 0
    project = open_project("default")
    (run,) = run_store.runs(project.db_path)
    assert len(run_store.claims(project.db_path, run.id)) == 4  # claims there are, none with a probability
    assert low_confidence_claims(project, run.id) == (0, 0)
    assert answers_view.card_notes(project, run.id) == {}  # the card shows its coverage only
    (summary,) = answers_view.summaries(project, run.id)
    assert answers_view.card_note(summary).startswith("coverage 25%")
    html = run_report_html(project, run.id)
    assert "claims low confidence" not in html and "No judge was used" in html

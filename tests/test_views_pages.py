"""The page view modules (rageval/views/<page>.py): what moved out of the pages, checked without a browser."""
from __future__ import annotations

import pandas as pd
import pytest

from rageval.project import Project
from rageval.report.leaderboard import Leaderboard
from rageval.report.summary import MetricSummary
from rageval.views import answers, compare, correlations, documents, frame, home, qa_sets, run
from rageval.views.answer_view import AnswerView, Context


@pytest.mark.parametrize("value, like, text", [
    (True, False, "1"), (False, True, "0"), (["r1", "r2"], [], "r1,r2"), (0.123456789, 0.0, "0.123457"),
    (3, 0, "3"), ("q 3", "", "q 3"),
])
def test_url_values_round_trip(value, like, text):
    assert frame.encode(value) == text
    assert frame.decode(text, like) == (round(value, 6) if isinstance(value, float) else value)


def test_empty_url_values_are_left_out_of_the_address():
    assert [frame.encode(v) for v in (None, "", [])] == [None, None, None]
    assert frame.view_params("answers", {"run": "r1", "question": None, "unscored": False}) == \
        {"run": "r1", "unscored": "0", "_page": "answers"}


def test_frame_names_the_demo_as_the_demo_package_does():
    from rageval.demo import DEMO_PROJECT

    assert frame.DEMO_PROJECT == DEMO_PROJECT
    assert frame.arrow("token_f1") == "↑" and frame.arrow("contradicted_share") == "↓"


def test_a_preset_becomes_the_settings_forms_values():
    state = run.preset_state({"chunking": {"method": "chars", "size": 300, "overlap": 20}, "top_k": 3,
                              "generator": "openai:gpt-4o-mini", "judge": "heuristic", "embedder": "",
                              "metrics": ["token_f1"]})
    assert state == {"run_method": "chars", "run_size": 300, "run_overlap": 20, "run_top_k": 3,
                     "run_temperature": 0.0, "run_generator": "openai", "run_generator_model": "gpt-4o-mini",
                     "run_judge": "heuristic", "run_metrics_pending": ["token_f1"]}
    empty = run.preset_state({})  # the config defaults, no role touched
    assert (empty["run_size"], empty["run_overlap"], empty["run_top_k"]) == (
        run.CHUNK_SIZE,
        run.CHUNK_OVERLAP,
        run.TOP_K,
    )
    assert "run_judge" not in empty and empty["run_metrics_pending"] == []


def test_qa_set_rows_join_references_and_graded_relevance():
    items = [{"id": "q1", "question": "Q?", "references": ["a", "b"], "relevant": {"x.md": 1, "y.md": 2.0},
              "domain": None},
             {"id": "q2", "question": "R?", "references": [], "relevant": None, "domain": "hr"}]
    assert qa_sets.item_rows(items) == [
        {"id": "q1", "question": "Q?", "reference": "a | b", "relevant_ids": "x.md; y.md (2)", "domain": ""},
        {"id": "q2", "question": "R?", "reference": "", "relevant_ids": "", "domain": "hr"}]
    assert qa_sets.item_counts(items) == "2 question(s); 1 without a gold answer, 1 without relevant_ids."
    assert qa_sets.jsonl([{"a": "é"}]) == '{"a": "é"}\n'


def test_answers_metric_choice_before_a_file_preselects_the_defaults():
    options, default, cannot = qa_sets.metric_choice()
    assert cannot == {} and default and set(default) <= set(options)
    assert qa_sets.skipped(options, {default[0]: "no reference"}) == [default[0]]


def test_the_users_corpus_is_never_the_demos():
    demo, mine = Project(slug="demo", root=None), Project(slug="mine", root=None)
    assert documents.default_corpus(demo, ["handbook"]) == "my-docs"
    assert documents.default_corpus(demo, ["handbook", "ours"]) == "ours"
    assert documents.default_corpus(mine, ["handbook"]) == "handbook"


def _summary(metric, mean, ok=2, unscored=0, failed=0, reasons=None):
    return MetricSummary(metric, mean, ok, unscored, failed, False, reasons or {})


def test_answers_cards_reasons_and_plot_order():
    s = [_summary("token_f1", 0.5, unscored=1, reasons={"no_reference": 1}), _summary("faithfulness", 0.9, failed=2)]
    assert answers.card_note(s[0]) == "2 scored · 1 unscored"
    assert answers.card_note(s[1]) == "2 scored · 0 unscored · 2 failed"
    assert answers.unscored_reasons(s) == [{"metric": frame.metric_label("token_f1"), "reason": "no_reference",
                                            "items": 1}]
    assert answers.plot_metrics(["token_f1", "zzz", "faithfulness"]) == ["faithfulness", "token_f1", "zzz"]
    rows = pd.DataFrame({"id": ["a", "b"], "#": [1, 2], "question": ["x" * 100, "short"]})
    assert answers.question_labels(rows) == {"a": "1. " + "x" * 90, "b": "2. short"}


def _answer(claims, contexts=(), scores=None):
    return AnswerView("i1", 0, "Q?", ["gold"], "Paris is in France. It has 3 towers.", "ok", None, list(contexts),
                      scores or {}, claims)


def test_answer_claim_rows_mark_a_closest_passage_and_low_confidence():
    claims = [{"text": "Paris is in France.", "verdict": "SUPPORTED", "evidence": "Paris is in France.",
               "details": {"confidence": 0.93}},
              {"text": "It has 3 towers.", "verdict": "NOT_MENTIONED", "evidence": "It has towers.",
               "details": {"cause": "missing_fact"}}]
    rows = answers.claim_rows(_answer(claims))
    assert rows[0]["evidence"] == ("", "Paris is in France.") and rows[0]["confidence"].startswith("0.93")
    assert rows[1]["evidence"] == ("closest passage: ", "It has towers.") and rows[1]["cause"] == "missing fact"
    assert answers.verdict_counts(_answer(claims)) == "1 supported · 0 contradicted · 1 not mentioned · 0 unverified"


def test_evidence_spans_leave_a_closest_passage_unhighlighted():
    ctx = Context(rank=1, chunk_id="c1", score=0.8, text="Intro. Paris is in France. It has towers.")
    claims = [{"text": "Paris is in France.", "verdict": "SUPPORTED", "evidence": "Paris is in France."},
              {"text": "It has 3 towers.", "verdict": "NOT_MENTIONED", "evidence": "It has towers."}]
    spans = answers.evidence_spans(_answer(claims, [ctx]))
    start = ctx.text.index("Paris")
    assert spans == {0: [(start, start + len("Paris is in France."), "SUPPORTED", 1)]}


def test_flag_lines_say_why_faithfulness_did_not_score():
    view = _answer([], scores={"faithfulness": {"status": "unscored", "reason": "no_contexts", "value": None,
                                                "details": None}})
    assert answers.flag_lines(view) == ("", "", "unscored: no_contexts")
    assert answers.aligncheck_facts(view) is None


def _board():
    table = pd.DataFrame(
        [
            {"run": "A", "kind": "pipeline run", "judge": "heuristic", "items": 3, "id": "r1", "token_f1": 0.5},
            {"run": "B", "kind": "pipeline run", "judge": "heuristic", "items": 3, "id": "r2", "token_f1": None},
        ]
    )
    return Leaderboard(runs=[], metrics=["token_f1"], table=table, best={"token_f1": "r1"},
                       unscored={("r2", "token_f1"): 3}, incomparable=["mrr"])


def test_leaderboard_text_notes_and_csv():
    board = _board()
    assert list(home.leaderboard_text(board)["token_f1"]) == ["0.500", "—"]
    assert home.best_rows(board) == {"token_f1": 0}
    notes = home.leaderboard_notes(board, {})
    assert "Unscored items, not in the means: B: token_f1 3." in notes
    assert notes.endswith("Not compared (their settings differ between runs): mrr") and "ρ (n)" not in notes
    assert home.leaderboard_csv(board).splitlines()[0] == "run,kind,judge,items,token_f1"


def test_compare_labels_runs_by_letter_and_offers_regressions_for_two_runs_only():
    class C:
        runs = ("r1", "r2")
        means, mean_ranks, first_rank_share = {"r1": 0.5, "r2": 0.7}, {"r1": 1.2, "r2": 1.8}, {"r1": 0.2, "r2": 0.8}

        def name(self, r):
            return {"r1": "first", "r2": "second"}[r]

    table = compare.summary_table(C())
    assert list(table.index) == ["A · first", "B · second"] and list(table["mean"]) == [0.5, 0.7]
    assert compare.has_regressions(["r1", "r2"], "token_f1")
    assert not compare.has_regressions(["r1", "r2"], "human") and not compare.has_regressions(["a", "b", "c"], "x")
    assert not compare.has_regressions(["r1", "r2"], "rubric:x#1")
    assert compare.default_metric(["token_f1", "answer_correctness_offline"]) == "answer_correctness_offline"
    assert compare.default_metric(["token_f1"]) == "token_f1"


def test_rater_agreement_sentence_shows_a_missing_value_as_a_dash():
    o = {"annotators": 3, "answers": 10, "alpha": None, "exact": 0.5, "within_one": 0.9, "pairs": 30}
    assert correlations.agreement_sentence(o) == ("**Annotators:** 3 on 10 answers; Krippendorff's alpha (ordinal) "
                                                  "—; exact agreement 50%, within one 90% of 30 pairs.")
    stored = [{"id": "a1", "method": "spearman", "grouping": "none", "groups": 1, "created": "t", "runs": ["r1", "r2"]}]
    assert correlations.analysis_rows(stored) == [{"id": "a1", "method": "spearman", "grouping": "none", "groups": 1,
                                                   "created": "t", "runs": "r1, r2"}]


def test_review_opens_a_linked_question_else_where_it_was_else_the_first_unrated():
    from rageval.views.human_review import ReviewItem, position, unblinded

    items = [ReviewItem("a", 0, "Q1", "x", [], [], 3), ReviewItem("b", 1, "Q2", "y", [], [], None,
                                                                    {"ann_a": 4}, {"token_f1": 0.5})]
    assert position(items, None) == 1 and position(items, 0) == 0 and position(items, 0, "b") == 1
    assert position(items, 1, "gone") == 1
    assert unblinded(items[1]) == f"Scores: {frame.metric_label('token_f1')} 0.50; others: ann_a 4"
    assert unblinded(items[0]) == "Scores: none; others: none"

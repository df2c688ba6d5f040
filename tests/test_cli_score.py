"""`python -m rageval score`: values equal the reference implementations; bad rows are isolated."""
import json

import pytest
import pytrec_eval
import sacrebleu
from rouge_score import rouge_scorer

from rageval.cli import main

ROWS = [
    {"id": "a", "question": "Who wrote Hamlet?", "answer": "Hamlet was written by William Shakespeare.",
     "contexts": ["Hamlet is a tragedy written by William Shakespeare around 1600."],
     "reference": ["William Shakespeare wrote Hamlet.", "Shakespeare"],
     "retrieved_ids": ["d3", "d1", "d7", "d2"], "relevant_ids": {"d1": 2, "d2": 1, "d9": 1}},
    {"id": "b", "question": "What is the boiling point of water at sea level?",
     "answer": "The cat sat on the mat near the boiling kettle.", "contexts": ["Water boils at 100 degrees Celsius."],
     "reference": "Water boils at 100 degrees Celsius at sea level.",
     "retrieved_ids": ["x1", "x2"], "relevant_ids": ["x2"]},
]


@pytest.fixture()
def scored(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("RAGEVAL_HOME", str(tmp_path / "home"))
    src = tmp_path / "answers.jsonl"
    src.write_text("".join(json.dumps(r) + "\n" for r in ROWS), encoding="utf-8")
    out = tmp_path / "scores.jsonl"
    metrics = (
        "bleu,rouge1,rouge2,rougeL,rougeLsum,ndcg@3,map,mrr,recall@2,precision@2,exact_match,token_f1,faithfulness"
    )
    code = main(["score", str(src), "--metrics", metrics, "--out", str(out), "--details", "--json"])
    capsys.readouterr()
    return code, {r["id"]: r for r in map(json.loads, out.read_text(encoding="utf-8").splitlines())}


def test_score_matches_sacrebleu_and_rouge_score(scored):
    code, rows = scored
    assert code == 0
    scorer = rouge_scorer.RougeScorer(["rouge1", "rouge2", "rougeL", "rougeLsum"], use_stemmer=False)  # our default
    for row in ROWS:
        refs = row["reference"] if isinstance(row["reference"], list) else [row["reference"]]
        got = rows[row["id"]]
        assert got["bleu"] == pytest.approx(sacrebleu.sentence_bleu(row["answer"], refs).score / 100, abs=1e-9)
        for kind in ("rouge1", "rouge2", "rougeL", "rougeLsum"):
            best = max(scorer.score(ref, row["answer"])[kind].fmeasure for ref in refs)
            assert got[kind] == pytest.approx(best, abs=1e-9), kind


def test_score_matches_trec_eval(scored):
    _, rows = scored
    qrels = {r["id"]: ({k: int(v) for k, v in r["relevant_ids"].items()} if isinstance(r["relevant_ids"], dict)
                       else {k: 1 for k in r["relevant_ids"]}) for r in ROWS}
    run = {r["id"]: {d: float(len(r["retrieved_ids"]) - i) for i, d in enumerate(r["retrieved_ids"])} for r in ROWS}
    ev = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut_3", "map", "recip_rank", "recall_2", "P_2"})
    for qid, ref in ev.evaluate(run).items():
        got = rows[qid]
        assert got["ndcg@3"] == pytest.approx(ref["ndcg_cut_3"], abs=1e-9)
        assert got["map"] == pytest.approx(ref["map"], abs=1e-9)
        assert got["mrr"] == pytest.approx(ref["recip_rank"], abs=1e-9)
        assert got["recall@2"] == pytest.approx(ref["recall_2"], abs=1e-9)
        assert got["precision@2"] == pytest.approx(ref["P_2"], abs=1e-9)


def test_score_details_list_claims_with_verdicts(scored):
    _, rows = scored
    claims = rows["a"]["claims"]
    assert claims and {"text", "verdict", "evidence", "reason"} <= set(claims[0])
    assert claims[0]["verdict"] in {"SUPPORTED", "UNVERIFIED"}  # offline: never CONTRADICTED / NOT_MENTIONED
    assert claims[0]["evidence"] in ROWS[0]["contexts"][0]  # what the verdict is, is tested in test_claims.py
    assert rows["b"]["exact_match"] == 0.0


def test_rows_missing_inputs_are_unscored_and_bad_rows_reported(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("RAGEVAL_HOME", str(tmp_path / "home"))
    src = tmp_path / "answers.csv"
    src.write_text('id,question,answer,reference,contexts\n1,Q?,Paris,Paris,\n2,Q2?,Rome,,\n3,Q3?,x,x,[not json\n',
                   encoding="utf-8")
    out = tmp_path / "o.jsonl"
    assert main(["score", str(src), "--metrics", "exact_match,faithfulness", "--out", str(out)]) == 1
    err = capsys.readouterr().err
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["id"] for r in rows] == ["1", "2"]
    assert (
        "answers.csv, row 3 (line 4), column 'contexts': contexts looks like a JSON list but is not valid JSON" in err
    )
    by_id = {r["id"]: r for r in rows}
    assert by_id["1"]["exact_match"] == 1.0
    assert by_id["2"]["exact_match"] is None and by_id["2"]["exact_match_status"] == "unscored: no_reference"
    assert by_id["1"]["faithfulness"] is None and by_id["1"]["faithfulness_status"] == "unscored: no_contexts"


def test_unknown_metric_is_a_usage_error(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("RAGEVAL_HOME", str(tmp_path / "home"))
    src = tmp_path / "a.jsonl"
    src.write_text(json.dumps(ROWS[0]) + "\n", encoding="utf-8")
    assert main(["score", str(src), "--metrics", "bleu,nope"]) == 2
    assert "unknown metric 'nope'" in capsys.readouterr().err

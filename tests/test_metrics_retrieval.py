"""Retrieval metrics: equal to trec_eval (pytrec_eval) on random runs, plus hand cases and evidence mode."""
from __future__ import annotations

import math
import random

import pytest

pytrec_eval = pytest.importorskip("pytrec_eval")

from rageval.errors import ConfigError  # noqa: E402
from rageval.metrics.base import evaluate, get_metric  # noqa: E402
from rageval.types import Sample  # noqa: E402

CUTOFFS = (1, 3, 5, 10)
TREC = {"recall": "recall", "precision": "P", "ndcg": "ndcg_cut", "hit_rate": "success"}


def random_queries(seed: int, n: int = 60) -> list[tuple[dict[str, int], list[str]]]:
    """(qrels with grades 0-3 and at least one relevant, ranking without duplicates) per query."""
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        pool = [f"d{i}" for i in range(rng.randint(5, 40))]
        judged = rng.sample(pool, rng.randint(1, len(pool)))
        qrels = {d: rng.choice([0, 0, 1, 1, 2, 3]) for d in judged}
        if not any(qrels.values()):
            qrels[judged[0]] = rng.randint(1, 3)
        ranking = rng.sample(pool, rng.randint(1, min(len(pool), 15)))
        out.append((qrels, ranking))
    return out


def trec_values(queries) -> dict[str, dict[str, float]]:
    qrels = {f"q{i}": dict(q) for i, (q, _) in enumerate(queries)}
    # strictly decreasing scores: trec_eval's ranking equals ours, no ties to break
    run = {f"q{i}": {d: float(100 - r) for r, d in enumerate(ranking)} for i, (_, ranking) in enumerate(queries)}
    cut = ",".join(map(str, CUTOFFS))
    measures = {f"recall.{cut}", f"P.{cut}", f"ndcg_cut.{cut}", f"success.{cut}", "map", "recip_rank"}
    return pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(run)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_equal_to_trec_eval_on_random_runs(seed):
    queries = random_queries(seed)
    expected = trec_values(queries)
    samples = [Sample(id=f"q{i}", retrieved_ids=tuple(r), relevant_ids=q) for i, (q, r) in enumerate(queries)]
    names = [f"{base}@{k}" for base in TREC for k in CUTOFFS] + ["map", "mrr"]
    got = evaluate(samples, [get_metric(n) for n in names])
    for name in names:
        base, _, k = name.partition("@")
        key = f"{TREC[base]}_{k}" if k else {"map": "map", "mrr": "recip_rank"}[name]
        for i, score in enumerate(got[name]):
            assert score.status == "ok"
            assert score.value == pytest.approx(expected[f"q{i}"][key], abs=1e-9), (name, i)


def test_hand_case_graded_ndcg_and_ap():
    # ranking a(2) x c(1); relevant also z(3) never retrieved
    s = Sample(id="1", retrieved_ids=("a", "x", "c"), relevant_ids={"a": 2, "c": 1, "z": 3, "x": 0})
    got = {n: evaluate([s], [get_metric(n)])[n][0].value for n in ("ndcg@3", "map", "mrr", "recall@2", "precision@2")}
    dcg = 2 / math.log2(2) + 1 / math.log2(4)
    idcg = 3 / math.log2(2) + 2 / math.log2(3) + 1 / math.log2(4)
    assert got["ndcg@3"] == pytest.approx(dcg / idcg)
    assert got["map"] == pytest.approx((1 / 1 + 2 / 3) / 3)
    assert got["mrr"] == 1.0
    assert got["recall@2"] == pytest.approx(1 / 3)
    assert got["precision@2"] == 0.5


def test_duplicates_count_once_and_short_runs_count_as_misses():
    s = Sample(id="1", retrieved_ids=("a", "a", "b"), relevant_ids={"a": 1, "b": 1})
    assert evaluate([s], [get_metric("precision@5")])["precision@5"][0].value == pytest.approx(2 / 5)
    assert evaluate([s], [get_metric("map")])["map"][0].value == pytest.approx(1.0)


def test_unscored_without_labels_and_zero_when_nothing_relevant_retrieved():
    missing = Sample(id="1", retrieved_ids=("a",), relevant_ids={})
    miss = Sample(id="2", retrieved_ids=("a",), relevant_ids={"b": 1})
    got = evaluate([missing, miss], [get_metric("ndcg@10"), get_metric("mrr")])
    assert got["ndcg@10"][0].status == "unscored" and got["ndcg@10"][0].reason == "no_relevant_ids"
    assert got["ndcg@10"][1].value == 0.0 and got["mrr"][1].value == 0.0


def test_evidence_relevance_uses_normalised_gold_in_contexts():
    s = Sample(
        id="1",
        references=("The Eiffel Tower",),
        contexts=("Paris has museums.", "Gustave Eiffel built the eiffel tower!", "Eiffel towering"),
    )
    metrics = [get_metric(n, relevance="evidence") for n in ("recall@1", "mrr", "precision@2", "map")]
    got = evaluate([s], metrics)
    assert got["recall@1"][0].value == 0.0
    assert got["mrr"][0].value == 0.5
    assert got["precision@2"][0].value == 0.5
    assert got["map"][0].value == 0.5
    assert got["mrr"][0].details["relevance"] == "evidence"
    assert "rel:evidence" in metrics[0].signature() and "rel:labels" in get_metric("recall@1").signature()


def test_evidence_mode_recall_unscored_when_no_context_holds_the_answer():
    s = Sample(id="1", references=("Rome",), contexts=("Paris is the capital of France.",))
    got = evaluate([s], [get_metric("recall@5", relevance="evidence"), get_metric("hit_rate@5", relevance="evidence")])
    assert got["recall@5"][0].status == "unscored" and got["recall@5"][0].reason == "no_evidence_in_contexts"
    assert got["hit_rate@5"][0].value == 0.0


def test_evidence_mode_italian_articles():
    s = Sample(id="1", references=("la Torre di Pisa",), contexts=("Abbiamo visto torre di Pisa ieri.",))
    assert evaluate([s], [get_metric("mrr", relevance="evidence", language="it")])["mrr"][0].value == 1.0


def test_bad_options():
    with pytest.raises(ConfigError):
        get_metric("ndcg@10", relevance="judge")
    with pytest.raises(ConfigError):
        get_metric("ndcg@0")

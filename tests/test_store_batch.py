"""Bulk storage: a batch stores exactly what item-by-item saving stores, atomically; the
embedding cache round-trips float32 vectors bit for bit."""
import numpy as np
import pytest

from rageval.store import items as batch_store
from rageval.store import runs
from rageval.store.embed_cache import DuckDBEmbeddingCache


def _entries(n):
    out = []
    for i in range(n):
        item = {"item_id": f"i{i}", "ordinal": i, "question": f"question {i}?",
                "answer": None if i % 5 == 4 else f"answer {i} \u00e9\u4e2d",
                "references": [f"ref {i}", "other"][: 1 + i % 2], "contexts": [f"ctx {i}"] * (i % 3),
                "retrieved": [(f"c{i}-{r}", None if i % 2 else 1.0 / (r + 1)) for r in range(i % 4)],
                "status": "failed" if i % 7 == 6 else "ok", "reason": "boom" if i % 7 == 6 else None,
                "latency_ms": 12.5 if i % 3 else None, "details": {"k": i, "nested": [1, {"x": None}]}}
        scores = [{"metric": m, "signature": f"{m}|v1", "value": None if (i + j) % 4 == 0 else (i + j) / 10,
                   "status": "unscored" if (i + j) % 4 == 0 else "ok",
                   "reason": "no_reference" if (i + j) % 4 == 0 else None,
                   "details": None if j % 2 else {"best_reference": j, "f": [0.5, None]}}
                  for j, m in enumerate(("exact_match", "token_f1", "bleu"))]
        claims = [{"signature": "faithfulness|v1", "ordinal": k, "text": f"claim {k}", "verdict": "SUPPORTED",
                   "evidence": "e" if k else None, "evidence_chunk": None, "span_start": k or None,
                   "span_end": (k + 3) if k else None, "reason": None, "judge": "heuristic",
                   "details": {"score": 0.25 * k}} for k in range(i % 3)]
        out.append((item, scores, claims))
    return out


def _everything(path, run_id):
    return (runs.answers(path, run_id), runs.scores(path, run_id), runs.claims(path, run_id),
            runs.get_run(path, run_id).done)


def _new_run(path, run_id, n):
    runs.create_run(path, run_id, kind="import", corpus=None, qa_set=None, config={}, config_hash="h", n_items=n)


def test_batch_storage_equals_per_item_storage(tmp_path):
    entries = _entries(23)
    one, many = tmp_path / "one.duckdb", tmp_path / "many.duckdb"
    _new_run(one, "r", 23)
    _new_run(many, "r", 23)
    for item, scores, claims in entries:
        runs.save_item(one, "r", item, scores, claims)
    assert batch_store.save_items(many, "r", entries, batch_size=5) == 23  # 5 transactions
    assert _everything(many, "r") == _everything(one, "r")
    assert _everything(many, "r")[3] == 23
    assert sum(len(e[1]) for e in entries) == len(runs.scores(many, "r"))


def test_resaving_a_batch_replaces_its_items_and_the_last_duplicate_wins(tmp_path):
    path = tmp_path / "x.duckdb"
    _new_run(path, "r", 10)
    entries = _entries(10)
    batch_store.save_items(path, "r", entries)
    changed = dict(entries[3][0], answer="changed")
    batch_store.save_items(path, "r", [entries[3], (changed, entries[3][1][:1], [])])
    answers = {a["item_id"]: a for a in runs.answers(path, "r")}
    assert len(answers) == 10 and answers["i3"]["answer"] == "changed"
    assert [s["metric"] for s in runs.scores(path, "r") if s["item_id"] == "i3"] == ["exact_match"]
    assert not [c for c in runs.claims(path, "r") if c["item_id"] == "i3"]


def test_a_failing_batch_stores_nothing_of_itself(tmp_path):
    path = tmp_path / "x.duckdb"
    _new_run(path, "r", 6)
    entries = _entries(6)
    batch_store.save_items(path, "r", entries[:3])
    before = _everything(path, "r")
    bad = dict(entries[5][0])
    del bad["status"]  # NOT NULL column: the batch must roll back whole
    with pytest.raises(Exception):
        batch_store.save_items(path, "r", [entries[0], entries[3], entries[4], (bad, [], [])])
    assert _everything(path, "r") == before


def test_embedding_cache_round_trips_float32_bit_exact(tmp_path):
    cache = DuckDBEmbeddingCache(tmp_path / "x.duckdb")
    rng = np.random.default_rng(7)
    special = np.array([0.0, -0.0, 1e-45, -3.4028235e38, np.inf, -np.inf, 1.0000001, np.pi], dtype=np.float32)
    vectors = {f"k{i}": rng.standard_normal(384).astype(np.float32) for i in range(300)}
    vectors["special"] = np.resize(special, 384).astype(np.float32)
    cache.put_many("model-a", vectors)
    cache.put_many("model-b", {"k0": np.arange(5, dtype=np.float32)})  # another width, same key
    again = DuckDBEmbeddingCache(tmp_path / "x.duckdb")
    got = again.get_many("model-a", [*vectors, "absent", "k1"])
    assert set(got) == set(vectors)
    for key, vec in vectors.items():
        assert got[key].dtype == np.float32 and got[key].shape == (384,)
        assert got[key].tobytes() == vec.tobytes(), key
    other = again.get_many("model-b", ["k0", "k1"])
    assert list(other) == ["k0"] and other["k0"].tobytes() == np.arange(5, dtype=np.float32).tobytes()
    # a key already stored is kept, not overwritten
    cache.put_many("model-a", {"k0": np.zeros(384, dtype=np.float32)})
    assert again.get_many("model-a", ["k0"])["k0"].tobytes() == vectors["k0"].tobytes()
    assert again.get_many("model-c", ["k0"]) == {} and again.get_many("model-a", []) == {}

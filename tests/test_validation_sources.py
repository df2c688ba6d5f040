"""The offline-verdicts validation's new sources split and read their gold as their docstrings
say: a seeded split by unit with every row left out counted by reason, and each source's gold
labels read the fixed way (no repository snapshot needed: the rules are tested on made-up rows)."""
from __future__ import annotations

import hashlib
from collections import Counter

import pytest

from validation import dialogue, lfqa, summac
from validation.portions import norm, require_portion, seeded_portion, take


def test_the_seeded_portion_is_the_documented_hash_and_gives_its_share():
    for key in ("a", "the knowledge snippet", "q17"):
        h = int(hashlib.sha256(f"42|{key}".encode()).hexdigest()[:8], 16)
        assert seeded_portion(42, key, 30) == ("dev" if h % 100 < 30 else "report")
    shares = Counter(seeded_portion(7, f"key {i}", 30) for i in range(3000))
    assert 0.27 < shares["dev"] / 3000 < 0.33
    assert seeded_portion(7, "x", 0) == "report" and seeded_portion(7, "x", 100) == "dev"


def test_take_keeps_one_portion_and_counts_every_row_left_out_by_reason():
    rows = [{"doc": f"Document {i} text.", "id": i} for i in range(40)]
    read = ["  DOCUMENT 3 text. and more", "other"]
    left: Counter = Counter()
    kept = take(rows, "dev", lambda r: seeded_portion(1, norm(r["doc"]), 50), left, read,
                overlap=lambda r: norm(r["doc"]), why_read=lambda r: "already read")
    assert left["already read"] == 1 and all(r["id"] != 3 for r in kept)
    assert len(kept) + sum(left.values()) == len(rows)
    assert all(seeded_portion(1, norm(r["doc"]), 50) == "dev" for r in kept)
    assert left["in the report portion"] == sum(seeded_portion(1, norm(r["doc"]), 50) == "report"
                                                for r in rows if r["id"] != 3)


def test_a_new_source_has_no_train_portion():
    require_portion("report", "X")
    with pytest.raises(SystemExit, match="dev and report only"):
        require_portion("train", "X")


@pytest.mark.parametrize("origin, label, gold", [
    ("BEGIN", "Fully attributable", True), ("BEGIN", "Not fully attributable", False), ("BEGIN", "Generic", False),
    ("Q2", "consistent", True), ("Q2", "inconsistent", False),
    ("FaithDial audit", "Entailment", True), ("FaithDial audit", "entailment,uncooperative", True),
    ("FaithDial audit", "entailmentt,uncooperative", True), ("FaithDial audit", "entailment,hallucination", False),
    ("FaithDial audit", "Partial Hallucination", False), ("FaithDial audit", "generic", False),
])
def test_dialogue_gold_reads_each_sources_labels(origin, label, gold):
    assert dialogue.gold_supported(origin, label) is gold


def test_lfqa_gold_is_the_majority_of_supported_labels():
    assert lfqa.supported(["supported", "partially", "supported"])
    assert not lfqa.supported(["supported", "partially", "not_supported"])
    assert not lfqa.supported(["partially", "partially", "supported"])


def test_polytope_gold_ignores_errors_that_judge_what_is_said_not_its_truth():
    assert summac.consistent("polytope", {"errors": "['Omission', 'Addition', 'Duplication']"})
    assert not summac.consistent("polytope", {"errors": ["Omission", "Inaccuracy_internal"]})
    assert not summac.consistent("polytope", {"errors": "['Positive_Negative_Aspect']"})
    assert summac.consistent("factcc", {"label": "1"}) and not summac.consistent("summeval", {"label": 0})

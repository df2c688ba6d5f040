"""People's claim labels: store, import/export round trip, bad rows, queue, rater and verifier agreement,
PPI estimates of a run's headline numbers."""
from __future__ import annotations

import json

import krippendorff
import numpy as np
import pytest
from sklearn.metrics import cohen_kappa_score  # installed with ppi-python (requirements-dev.txt)

from rageval import stats
from rageval.errors import ConfigError, InputError
from rageval.human import claim_agreement as ca
from rageval.human import claim_labels as cl
from rageval.human import estimates as est
from rageval.store import claim_labels as cstore
from tests.claim_fixtures import JUDGE, OFFLINE, claims_project


@pytest.fixture
def project(tmp_path, monkeypatch):
    monkeypatch.setenv("RAGEVAL_HOME", str(tmp_path))
    return claims_project()[0]


def _label(project, item, k, rater, label, **kw):
    cl.label_claim(project, "runA", f"q{item:02d}", f"Claim {k} of answer {item}.", rater, label, ordinal=k, **kw)


def _stored(project):
    return sorted(
        (
            r["run_id"],
            r["item_id"],
            r["claim"],
            r["ordinal"],
            r["rater"],
            r["label"],
            r["evidence"],
            r["evidence_chunk"],
            r["span_start"],
            r["span_end"],
        )
        for r in cstore.labels(project.db_path, ["runA"])
    )


@pytest.mark.parametrize("fmt,suffix", [("csv", ".csv"), ("jsonl", ".jsonl")])
def test_labels_round_trip_through_export_and_import(project, fmt, suffix):
    _label(project, 0, 0, "ann", "SUPPORTED", evidence="A sentence, with a comma.", evidence_chunk="c1", span=(3, 28))
    _label(project, 0, 1, "ann", "skip")
    _label(project, 1, 2, "bob", "not_mentioned")
    _label(project, 2, 0, "bob", "C")
    before = _stored(project)
    text = cl.export_claim_labels(project, ["runA"], fmt)
    for r in cstore.labels(project.db_path, ["runA"]):
        cstore.delete_label(project.db_path, r["run_id"], r["item_id"], r["claim"], r["rater"])
    assert _stored(project) == []
    result = cl.import_claim_labels(project, "labels" + suffix, text.encode())
    assert result.errors == [] and result.imported == 4
    assert _stored(project) == before
    assert {r[5] for r in before} == {"SUPPORTED", "SKIP", "NOT_MENTIONED", "CONTRADICTED"}


def test_a_label_again_replaces_the_raters_earlier_one(project):
    _label(project, 0, 0, "ann", "SUPPORTED")
    _label(project, 0, 0, "ann", "CONTRADICTED")
    assert [r["label"] for r in cstore.labels(project.db_path, ["runA"])] == ["CONTRADICTED"]
    with pytest.raises(ConfigError, match="rater name"):
        _label(project, 0, 0, " ", "SUPPORTED")
    with pytest.raises(ConfigError, match="not one of"):
        _label(project, 0, 0, "ann", "maybe")


def test_bad_rows_are_named_and_the_good_ones_kept(project):
    csv = ("run,item_id,claim,claim_index,rater,label,span_start,span_end\n"
           "runA,q00,Claim 0 of answer 0.,,ann,SUPPORTED,,\n"        # row 1: good (by text)
           "runA,q00,,1,ann,NM,,\n"                                  # row 2: good (by index)
           "runA,q99,Claim 0 of answer 0.,,ann,SUPPORTED,,\n"        # row 3: unknown item
           "runA,q01,No such claim.,,ann,SUPPORTED,,\n"              # row 4: unknown claim
           "runA,q01,,7,ann,SUPPORTED,,\n"                           # row 5: no claim 7
           "runA,q01,Claim 0 of answer 1.,,ann,probably,,\n"         # row 6: bad label
           "runA,q01,Claim 1 of answer 1.,,ann,SUPPORTED,4,\n"       # row 7: half a span
           "runA,q00,Claim 0 of answer 0.,,ann,CONTRADICTED,,\n"     # row 8: duplicate of row 1
           "runZ,q01,Claim 0 of answer 1.,,ann,SUPPORTED,,\n"        # row 9: unknown run
           "runA,q02,  Claim 2   of answer 2. ,,,SUPPORTED,,\n")     # row 10: no rater
    result = cl.import_claim_labels(project, "labels.csv", csv.encode())
    assert result.imported == 2
    got = {e.row: str(e) for e in result.errors}
    assert sorted(got) == [3, 4, 5, 6, 7, 8, 9, 10]
    assert "row 3 (line 4)" in got[3] and "unknown item 'q99'" in got[3]
    assert "no claim 'No such claim.'" in got[4]
    assert "no claim with index 7" in got[5]
    assert "not one of" in got[6]
    assert "both span_start and span_end" in got[7]
    assert "duplicate" in got[8] and "row 1" in got[8]
    assert "unknown run 'runZ'" in got[9]
    assert "missing rater" in got[10]
    assert {(r["claim"], r["label"], r["ordinal"]) for r in cstore.labels(project.db_path, ["runA"])} == {
        ("Claim 0 of answer 0.", "SUPPORTED", 0), ("Claim 1 of answer 0.", "NOT_MENTIONED", 1)}


def test_an_index_two_verifiers_fill_differently_must_be_named_by_text(project):
    from tests.claim_fixtures import add_claims

    add_claims(project, "runA", [{"item_id": "q03", "signature": "faithfulness|judge:other|v1", "ordinal": 0,
                                  "text": "A different split.", "verdict": "SUPPORTED", "judge": "other"}])
    rows = 'run,item_id,claim_index,rater,label\nrunA,q03,0,ann,S\n'
    result = cl.import_claim_labels(project, "l.csv", rows.encode())
    assert result.imported == 0 and "give the claim's text" in str(result.errors[0])


def test_missing_columns_are_named_once(project):
    with pytest.raises(InputError, match="claim \\(or claim_index\\)"):
        cl.import_claim_labels(project, "l.csv", b"run,item_id,rater,label\nrunA,q00,ann,S\n")


def test_queue_puts_unverified_first_then_the_least_certain_and_skips_what_the_rater_labelled(project):
    first = cstore.queue(project.db_path, "runA", "ann", limit=100)
    assert first[0]["remaining"] == 36
    unverified = [r for r in first if r["unverified"]]
    assert len(unverified) == 24 and first[:24] == unverified
    # of claim 0 (offline SUPPORTED), the judge disagrees where its verdict is not SUPPORTED: i % 3 != 0
    disagree = [r for r in first[24:] if r["disagree"]]
    assert len(disagree) == 8 and first[24:32] == disagree
    assert {r["item_id"] for r in disagree} == {f"q{i:02d}" for i in range(12) if i % 3}
    for part in (unverified, disagree, first[32:]):
        assert [r["confidence"] for r in part] == sorted(r["confidence"] for r in part)
    top = first[0]
    cl.label_claim(project, "runA", top["item_id"], top["claim"], "ann", "skip")
    after = cstore.queue(project.db_path, "runA", "ann", limit=1)
    assert after[0]["remaining"] == 35 and (after[0]["item_id"], after[0]["claim"]) == (first[1]["item_id"],
                                                                                     first[1]["claim"])
    assert cstore.queue(project.db_path, "runA", "bob", limit=1)[0]["remaining"] == 36


def test_rater_agreement_matches_krippendorff_and_sklearn(project):
    rng = np.random.default_rng(2)
    truth = {(i, k): cl.LABELS[rng.integers(0, 3)] for i in range(12) for k in range(3)}
    for (i, k), lab in truth.items():
        _label(project, i, k, "ann", lab)
        other = lab if rng.random() < 0.7 else cl.LABELS[rng.integers(0, 3)]
        _label(project, i, k, "bob", other)
    _label(project, 0, 0, "cy", "skip")  # a skip counts nowhere
    long = cl.labels_frame(project, ["runA"])
    got = cl.rater_agreement(long, n_boot=300, seed=1)
    assert got["raters"] == 2 and got["claims"] == 36 and got["shared"] == 36
    code = {lab: i for i, lab in enumerate(cl.LABELS)}
    wide = long[long.label != "SKIP"].pivot_table(index="rater", columns="claim", values="label", aggfunc="first")
    data = np.array([[code[x] for x in wide.loc[r]] for r in ("ann", "bob")], dtype=float)
    assert got["alpha"].value == pytest.approx(krippendorff.alpha(reliability_data=data,
                                                                   level_of_measurement="nominal"), abs=1e-12)
    (pair,) = got["kappa"]
    assert pair["value"] == pytest.approx(cohen_kappa_score(data[0], data[1]), abs=1e-12)
    assert pair["low"] <= pair["value"] <= pair["high"] and got["alpha"].low <= got["alpha"].value <= got["alpha"].high


def test_kappa_bootstrap_resamples_are_kappas_of_resampled_items():
    rng = np.random.default_rng(0)
    a = rng.integers(0, 3, 40).astype(float)
    b = np.where(rng.random(40) < 0.6, a, rng.integers(0, 3, 40)).astype(float)
    ci = stats.kappa_ci(a, b, n_boot=200, seed=5)
    idx = np.random.default_rng(5).integers(0, 40, size=(200, 40))
    boot = [stats.cohen_kappa(a[i], b[i], weights=None, labels=[0, 1, 2]) for i in idx]
    lo, hi = np.percentile([x for x in boot if x is not None], [2.5, 97.5])
    assert (ci.low, ci.high) == pytest.approx((lo, hi), abs=1e-12)
    assert ci.n == 40 and ci.value == pytest.approx(cohen_kappa_score(a, b), abs=1e-12)


def test_labels_for_a_kappa_width_give_about_that_width():
    n = stats.kappa_labels_for_width(0.3, agreement=0.8, chance=0.5)
    rng = np.random.default_rng(9)
    widths = []
    for _ in range(30):
        a = rng.integers(0, 2, n).astype(float)
        b = np.where(rng.random(n) < 0.6, a, rng.integers(0, 2, n)).astype(float)  # agreement 0.8, chance 0.5
        ci = stats.kappa_ci(a, b, n_boot=300, seed=1)
        widths.append(ci.high - ci.low)
    assert np.mean(widths) == pytest.approx(0.3, rel=0.15)


def test_verifier_agreement_counts_unverified_as_no_decision(project):
    # ann labels every claim of answers 0-5: claim 0 SUPPORTED, 1 CONTRADICTED, 2 NOT_MENTIONED
    for i in range(6):
        for k, lab in enumerate(cl.LABELS):
            _label(project, i, k, "ann", lab)
    found = {a.signature: a for a in ca.verifier_agreement(project, ["runA"], n_boot=200)}
    offline, judge = found[OFFLINE], found[JUDGE]
    assert offline.claims == 36 and offline.labelled == 18 and offline.n == 6
    assert offline.coverage == pytest.approx(6 / 18)
    assert offline.confusion.loc["SUPPORTED", "SUPPORTED"] == 6
    assert offline.confusion["UNVERIFIED"].sum() == 12
    assert offline.accuracy == 1.0 and offline.per_verdict["SUPPORTED"]["precision"] == 1.0
    assert offline.per_verdict["SUPPORTED"]["recall"] == 1.0  # every claim people call SUPPORTED it decided
    assert offline.per_verdict["CONTRADICTED"]["recall"] == 0.0  # the 6 it left UNVERIFIED count as missed
    # the judge's verdict of claim k of answer i is LABELS[(i + k) % 3]; people said LABELS[k]
    right = sum((i + k) % 3 == k for i in range(6) for k in range(3))
    assert judge.n == 18 and judge.accuracy == pytest.approx(right / 18)
    gold = [k for i in range(6) for k in range(3)]
    pred = [(i + k) % 3 for i in range(6) for k in range(3)]
    assert judge.kappa.value == pytest.approx(cohen_kappa_score(gold, pred), abs=1e-12)
    assert judge.confusion.to_numpy().sum() == 18
    recall_s = sum(p == 0 for g, p in zip(gold, pred) if g == 0) / gold.count(0)
    assert judge.per_verdict["SUPPORTED"]["recall"] == pytest.approx(recall_s)
    json.dumps(judge.as_dict())  # the CLI's --json


def test_with_no_labels_it_says_how_many_would_give_a_ci_of_the_width(project):
    found = {a.signature: a for a in ca.verifier_agreement(project, ["runA"], n_boot=0, width=0.2)}
    judge = found[JUDGE]
    assert judge.labelled == 0 and judge.accuracy is None and judge.kappa.value is None
    assert judge.needed == stats.kappa_labels_for_width(0.2, agreement=0.8, chance=1 / 3)
    # the offline rule decides SUPPORTED only: no kappa, and no number of labels would give it one
    assert found[OFFLINE].needed is None
    from rageval.human.trust_rows import verifier_rows, verifier_sentence

    offline_row = next(r for r in verifier_rows(project, ["runA"], n_boot=0) if r["signature"] == OFFLINE)
    assert "no labelled claim it decided yet." in verifier_sentence(offline_row)


def test_share_supported_estimate_is_ppi_on_the_labelled_claims(project, monkeypatch):
    monkeypatch.setattr(est, "MIN_LABELS", 30)  # the fixture has 36 claims: the arithmetic, not the label floor
    for i in range(10):
        for k, lab in enumerate(cl.LABELS):
            _label(project, i, k, "ann", lab)
    by_sig = {e.predictor: e for e in est.supported_estimates(project, "runA", tuned=True)}
    e = by_sig[JUDGE]
    assert e.labelled == 30 and e.total == 36 and e.labelled >= est.MIN_LABELS
    # rows in (item, ordinal) order: the first 30 are labelled
    y = np.array([1.0 if k == 0 else 0.0 for i in range(10) for k in range(3)])
    yhat = np.array([1.0 if (i + k) % 3 == 0 else 0.0 for i in range(12) for k in range(3)])
    ref = stats.ppi_share(y, yhat[:30], yhat[30:], tuned=True)
    assert (e.result.estimate, e.result.low, e.result.high) == pytest.approx((ref.estimate, ref.low, ref.high))
    assert e.result.method == ref.method and (e.result.human_low, e.result.human_high) == stats.wilson(10, 30)


def test_with_no_labels_an_estimate_says_how_many_labels_a_width_needs(project):
    e = next(e for e in est.supported_estimates(project, "runA") if e.predictor == JUDGE)
    yhat = np.array([1.0 if (i + k) % 3 == 0 else 0.0 for i in range(12) for k in range(3)])
    assert e.result is None and e.labelled == 0
    assert f"about {stats.labels_for_width(float(np.std(yhat)), 0.1)} labels" in e.reason


def test_rating_estimate_uses_the_rated_answers_and_a_metric_on_all(project, monkeypatch):
    monkeypatch.setattr(est, "MIN_LABELS", 2)  # the fixture has 12 answers: the arithmetic, not the label floor
    e = est.rating_estimate(project, "runA", "token_f1")
    assert e.reason == "every item is labelled: the human mean is exact"
    from rageval.store import human as hstore
    from rageval.store.db import connect

    with connect(project.db_path) as con:
        con.execute("DELETE FROM human_ratings WHERE run_id = 'runA' AND item_id >= 'q06'")
    e = est.rating_estimate(project, "runA", "token_f1")
    assert (e.labelled, e.total) == (6, 12) and e.result is not None
    assert e.result.width <= e.result.human_width
    assert hstore.ratings(project.db_path, ["runA"])
    d = est.difference_estimate(project, "runA", "runB", "token_f1")
    assert d.labelled == 6 and d.total == 12 and d.result is not None
    # the Compare page passes the frame it already built: the same estimate, to the bit
    from rageval.human.frame import build_frame

    given = est.difference_estimate(project, "runA", "runB", "token_f1", frame=build_frame(project, ["runA", "runB"]))
    assert given.as_dict() == d.as_dict()
    with pytest.raises(ConfigError, match="no metric"):
        est.rating_estimate(project, "runA", "nope")


@pytest.mark.parametrize("mine, n, expected", [
    ((None, None, None), 0, 1),  # the next claim
    (("SUPPORTED", None, None), 2, 1),  # none left after it: the first still without a label
    (("SUPPORTED", "SKIP", None), 0, 2),  # a skip counts as labelled
    (("SUPPORTED", "SKIP", "SUPPORTED"), 0, 1),  # all labelled: simply the next
    (("SUPPORTED", "SKIP", "SUPPORTED"), 2, 2),  # ... and the last stays
])
def test_the_claim_after_a_label(mine, n, expected):
    from rageval.views.claim_review import ClaimCard, after

    found = [ClaimCard("q", k, f"c{k}", [], label, 0) for k, label in enumerate(mine)]
    assert after(found, n) == expected


def test_the_keys_start_on_the_first_claim_without_a_label():
    from rageval.views.claim_review import ClaimCard, focus

    found = [ClaimCard("q", k, f"c{k}", [], label, 0) for k, label in enumerate(("SUPPORTED", None, None))]
    assert (focus(found), focus(found, 2), focus(found, 7), focus([])) == (1, 2, 1, 0)

"""`rageval estimate` on hostile inputs: shares stay in [0, 1], a prediction outside its metric's
range is refused with the item named, too few labels give no interval, and classic PPI wider than
the people's own interval gives way to it (said)."""
from __future__ import annotations

import json
import re

import numpy as np
import pytest

from rageval.cli import main
from rageval.human import estimates
from rageval.store.db import connect
from rageval.views.trust import estimate_sentence
from tests.claim_fixtures import JUDGE, claims_project


@pytest.fixture
def proj(tmp_path, monkeypatch):
    monkeypatch.setenv("RAGEVAL_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("RAGEVAL_PROJECT", "eb")
    return claims_project("eb", n=40)[0]


def _import_labels(tmp_path, rows) -> None:
    path = tmp_path / "labels.csv"
    path.write_text("item_id,claim_index,rater,label\n" + "".join(f"{r}\n" for r in rows))
    assert main(["claim-labels", "import", str(path), "--run", "runA"]) == 0


def _numbers(text: str) -> list[float]:
    return [float(x) for x in re.findall(r"-?\d+\.\d+", text)]


@pytest.mark.parametrize("classic", [False, True])
def test_share_intervals_stay_inside_0_1_when_every_label_agrees(proj, tmp_path, capsys, classic):
    # 51 claims, every one SUPPORTED by people; the judge says SUPPORTED on a third of them: classic PPI's
    # normal interval went past 1 and the human-only one was [1.000, 1.000], no width
    _import_labels(tmp_path, [f"q{i:02d},{k},ann,S" for i in range(17) for k in range(3)])
    capsys.readouterr()
    flags = ["--classic"] if classic else []
    assert main(["estimate", "--run", "runA", "--metric", "token_f1", "--json", *flags]) == 0
    judge = next(e for e in json.loads(capsys.readouterr().out)["estimates"] if e["predictor"] == JUDGE)
    assert judge["labelled"] == 51 >= estimates.MIN_LABELS
    assert 0.0 <= judge["low"] <= judge["estimate"] <= judge["high"] <= 1.0
    assert 0.0 <= judge["human_low"] < judge["human_high"] == 1.0  # Wilson: width although all labels agree
    assert main(["estimate", "--run", "runA", "--metric", "token_f1", *flags]) == 0
    line = next(x for x in capsys.readouterr().out.splitlines() if "SUPPORTED" in x and JUDGE in x)
    assert all(0.0 <= v <= 1.0 for v in _numbers(line.split("naive")[0])), line


def test_a_prediction_outside_the_metrics_range_is_refused_with_the_item_named(proj, capsys):
    with connect(proj.db_path) as con:
        con.execute("UPDATE metric_scores SET value = 25.0 WHERE run_id = 'runA' AND item_id = 'q07' "
                    "AND metric = 'token_f1'")
        con.execute("DELETE FROM human_ratings WHERE run_id = 'runA' AND item_id >= 'q35'")
    assert main(["estimate", "--run", "runA", "--metric", "token_f1"]) == 2
    err = capsys.readouterr().err
    assert "'q07'" in err and "25.0" in err and "token_f1" in err and "[0, 1]" in err


def test_the_rating_predictor_is_mapped_by_the_declared_range_not_the_runs_extremes(proj):
    values = np.array([0.2, 0.5, 0.6])
    assert estimates.to_rating_scale(values, (0.0, 1.0)).tolist() == pytest.approx([1.8, 3.0, 3.4])
    assert estimates.to_rating_scale(values).tolist() == pytest.approx([1.0, 4.0, 5.0])  # no declared range


def test_too_few_labels_give_no_interval_and_say_how_many_more(proj, tmp_path):
    _import_labels(tmp_path, [f"q{i:02d},{k},ann,S" for i in range(6) for k in range(3)])
    e = next(e for e in estimates.supported_estimates(proj, "runA") if e.predictor == JUDGE)
    assert e.result is None and e.labelled == 18
    assert f"at least {estimates.MIN_LABELS}" in e.reason and f"label {estimates.MIN_LABELS - 18} more" in e.reason
    assert e.point is not None and "no interval yet" in estimate_sentence(e.as_dict())


def test_classic_ppi_wider_than_the_human_only_interval_gives_way_to_it_and_says_so():
    rng = np.random.default_rng(2)
    y = rng.normal(3, 1, 40)
    yl, yu = rng.normal(3, 1, 40), rng.normal(3, 1, 400)  # a predictor unrelated to the labels
    r, note = estimates.interval_of(y, yl, yu, share=False, tuned=False, alpha=0.05)
    assert (r.low, r.high, r.estimate, r.lam) == (r.human_low, r.human_high, r.human, 0.0)
    assert note and "human-only interval is shown" in note and r.method.startswith("human only")
    row = estimates.Estimate("mean human rating (1-5)", "noise", 40, 440, r, note=note).as_dict()
    assert "human-only interval is shown" in estimate_sentence(row)
    tuned, none = estimates.interval_of(y, yl, yu, share=False, tuned=True, alpha=0.05)
    assert none is None and tuned.width <= tuned.human_width

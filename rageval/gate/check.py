"""The CI gate: thresholds per metric, no regression against a baseline, no unscored answers.

Checks, each passed or failed with a sentence that says why:

- ``fail_under[m] = t``: fails when ``mean_m < t``; ``fail_over[m] = t``: fails when
  ``mean_m > t`` (for metrics where lower is better). ``mean_m`` is over the answers ``m``
  scored; unscored answers are never averaged in as 0.
- thresholds are finite numbers inside the metric's declared range, one per metric and flag;
  ``min_effect`` is finite, at least 0 and no larger than the metric's range; ``alpha`` in (0, 1].
- every value read is finite and inside its metric's range (:mod:`rageval.metrics.ranges`), or its
  answer is rejected by id with the reason and counted as unscored; rejected baseline values (on
  the compared metrics) fail the check ``baseline: every value sound`` unless ``allow_unscored``.
- unscored answers: every gated metric (thresholds, and the regression metrics) fails when any
  answer is unscored on it, unless ``allow_unscored``; then they are listed and left out of the
  mean.
- a stored run that is not finished, or has fewer answers than its QA set has questions, fails
  (a gate must not pass on part of the answers), unless ``allow_unscored``.
- regression from a baseline (a stored run or a scored file), per metric, over the answers both
  scored (paired by id): ``gain = mean(current - baseline)``, negated for metrics where lower is
  better, so a negative gain is a drop. The check fails when ``gain < -min_effect`` and the
  Wilcoxon signed-rank test of the paired values gives ``p < alpha``: the drop is both large
  enough to matter and unlikely to be noise. ``alpha=1`` makes it a pure effect-size rule. With
  fewer changed answers than :func:`rageval.human.plain.min_pairs_for` the test can never reach
  ``alpha``; the check then passes and says so. Values stored with different signatures (other
  settings, judge or prompt) are not compared: that check fails and says to re-score the baseline.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

import numpy as np

from rageval import stats
from rageval.config import GateConfig
from rageval.errors import ConfigError
from rageval.gate.scores import ScoreSet
from rageval.metrics.ranges import MAX_LISTED, Rejection, bounds, range_text
from rageval.human.plain import min_pairs_for, paired_sentence
from rageval.report.meaning import info


@dataclass(frozen=True)
class Check:
    name: str     # "faithfulness >= 0.8", "faithfulness: no regression", "faithfulness: no unscored answers"
    metric: str
    passed: bool
    message: str
    details: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class GateResult:
    target: str
    baseline: str | None
    checks: list[Check]
    rejected: list[Rejection] = field(default_factory=list)  # values the gate refused, both sides

    @property
    def passed(self) -> bool:
        return all(c.passed for c in self.checks)

    @property
    def failed(self) -> list[Check]:
        return [c for c in self.checks if not c.passed]

    def as_dict(self) -> dict[str, Any]:
        return {"target": self.target, "baseline": self.baseline, "passed": self.passed,
                "checks": [{"name": c.name, "metric": c.metric, "passed": c.passed, "message": c.message,
                            "details": dict(c.details)} for c in self.checks],
                "rejected": [r.as_dict() for r in self.rejected[:MAX_LISTED]], "rejected_count": len(self.rejected)}


def parse_thresholds(items: Sequence[str] | None, flag: str = "--fail-under") -> dict[str, float]:
    """``["faithfulness=0.8", "ndcg@10=0.5"]`` -> ``{"faithfulness": 0.8, "ndcg@10": 0.5}``.

    Each is a finite number inside the metric's declared range, and a metric has one threshold
    per flag (a second is an error: which one was meant?).

    >>> parse_thresholds(["faithfulness=0.8", "rubric:tone = 0.6"])
    {'faithfulness': 0.8, 'rubric:tone': 0.6}
    """
    out: dict[str, float] = {}
    for item in items or ():
        metric, sep, value = str(item).rpartition("=")
        metric = metric.strip()
        try:
            number = float(value)
        except ValueError:
            number = math.nan
        if not sep or not metric or not math.isfinite(number):
            raise ConfigError(f"{flag} {item!r} must be METRIC=NUMBER with a finite number, e.g. {flag} "
                              "faithfulness=0.8")
        if metric in out:
            raise ConfigError(f"{flag} gives {metric} twice ({out[metric]:g} and {number:g}); give one threshold "
                              "per metric")
        lo, hi = bounds(metric)
        if not lo <= number <= hi:
            raise ConfigError(f"{flag} {metric}={number:g} is outside {metric}'s range {range_text(metric)}, so "
                              "the check could never pass or never fail")
        out[metric] = number
    return out


#: what the gate says when claims are undecided (no judge): the two ways to gate faithfulness without a key
KEYLESS_GATES = (
    "Without a key, gate faithfulness one of two ways: (1) label a sample of claims (rageval claim-labels import, "
    "or the Human review page): people's labels settle those claims and faithfulness is measured on them, "
    "which proves how faithful the labelled answers are; or (2) gate on what the offline rule proves: "
    "--fail-under copied_share=X --fail-over unverified_share=Y, which proves only that a share of claims is "
    "copied from the contexts and how much nobody has checked, not that the rest is wrong")


def run_gate(
    current: ScoreSet,
    *,
    fail_under: Mapping[str, float] | None = None,
    fail_over: Mapping[str, float] | None = None,
    baseline: ScoreSet | None = None,
    metrics: Sequence[str] | None = None,
    min_effect: float = GateConfig.min_effect,
    alpha: float = GateConfig.alpha,
    allow_unscored: bool = False,
) -> GateResult:
    """Every check of the module docstring over ``current``; ``metrics``: those the regression
    check covers (default: the thresholded ones, or every metric both sides scored)."""
    fail_under, fail_over = dict(fail_under or {}), dict(fail_over or {})
    if not (math.isfinite(alpha) and 0 < alpha <= 1):
        raise ConfigError(f"--alpha {alpha} must be a number in (0, 1]")
    if not (math.isfinite(min_effect) and min_effect >= 0):
        raise ConfigError(f"--min-effect {min_effect} must be >= 0 and finite (a drop smaller than it never fails)")
    named = list(dict.fromkeys([*fail_under, *fail_over, *(metrics or [])]))
    missing = [m for m in named if m not in current.metrics]
    if missing:
        raise ConfigError(f"{current.label} has no metric {', '.join(map(repr, missing))}; "
                          f"it has: {', '.join(current.metrics)}")
    if not named and baseline is None:
        raise ConfigError("nothing to check: give --fail-under METRIC=VALUE, --fail-over METRIC=VALUE "
                          "or --no-regression-from RUN_OR_FILE")
    if baseline is not None:
        regress = list(metrics or [*fail_under, *fail_over] or [m for m in current.metrics if m in baseline.metrics])
        absent = [m for m in regress if m not in baseline.metrics]
        if absent:
            raise ConfigError(f"baseline {baseline.label} has no metric {', '.join(map(repr, absent))}; "
                              f"it has: {', '.join(baseline.metrics)}")
        for m in regress:
            lo, hi = bounds(m)
            if min_effect > hi - lo:
                raise ConfigError(f"--min-effect {min_effect:g} is larger than {m}'s whole range {range_text(m)}, "
                                  "so no drop could ever fail")
    else:
        regress = []
    checks: list[Check] = []
    if baseline is not None and baseline.rejected:
        checks.append(_baseline_check(baseline, regress, allow_unscored))
    if current.expected is not None:
        checks.append(_complete_check(current, allow_unscored))
    for m in dict.fromkeys([*named, *regress]):
        checks.append(_unscored_check(current, m, allow_unscored))
    for m, t in fail_under.items():
        checks.append(_threshold(current, m, t, below=True))
    for m, t in fail_over.items():
        checks.append(_threshold(current, m, t, below=False))
    for m in regress:
        checks.append(_regression(current, baseline, m, min_effect, alpha))
    rejected = current.rejected + (baseline.rejected if baseline is not None else [])
    return GateResult(current.label, None if baseline is None else baseline.label, checks, rejected)


def _baseline_check(base: ScoreSet, regress: Sequence[str], allowed: bool) -> Check:
    """Values of the baseline the gate refused (on the compared metrics, or whole rows): they are
    left out of the pairs, which fails unless ``--allow-unscored``, as on the current side."""
    bad = [r for r in base.rejected if r.metric is None or r.metric in regress]
    name = f"baseline {base.label}: every value sound"
    text = (
        f"{len(bad)} value(s) of the baseline {base.label} rejected (not finite or out of range, or an unreadable row)"
    )
    if not bad:
        return Check(name, "baseline", True, f"every compared value of {base.label} is sound", {"rejected": 0})
    if allowed:
        return Check(name, "baseline", True, text + "; allowed by --allow-unscored, left out of the pairs",
                     {"rejected": len(bad)})
    return Check(name, "baseline", False, text + "; fix the baseline or pass --allow-unscored", {"rejected": len(bad)})


def _reasons(s: ScoreSet, metric: str) -> str:
    counts = s.reasons.get(metric) or {}
    return ", ".join(f"{r} {n}" for r, n in sorted(counts.items(), key=lambda kv: -kv[1])) or "no value"


def _unscored_check(s: ScoreSet, metric: str, allowed: bool) -> Check:
    n, total = s.unscored(metric), len(s.values)
    name = f"{metric}: every answer scored"
    if n == 0:
        return Check(name, metric, True, f"all {total} answers scored on {metric}", {"unscored": 0, "answers": total})
    text = f"{n} of {total} answers unscored on {metric} ({_reasons(s, metric)})"
    if any(str(r).startswith("no_decided_claims") for r in s.reasons.get(metric, {})):
        text += f". {KEYLESS_GATES}"
    if allowed:
        return Check(name, metric, True, text + "; allowed by --allow-unscored, left out of the mean",
                     {"unscored": n, "answers": total})
    return Check(name, metric, False, text + "; fix the inputs or pass --allow-unscored",
                 {"unscored": n, "answers": total})


def _complete_check(s: ScoreSet, allowed: bool) -> Check:
    have, want = len(s.values), int(s.expected or 0)
    details = {"answers": have, "expected": want, "status": s.status}
    if s.status == "finished" and have >= want:
        return Check("run finished", "run", True, f"{s.label} is finished with all {want} answers", details)
    text = f"{s.label} is {s.status} with {have} of {want} answers scored"
    if allowed:
        return Check("run finished", "run", True, text + "; allowed by --allow-unscored", details)
    return Check("run finished", "run", False, text + "; finish it (rageval run --resume ID) or pass --allow-unscored",
                 details)


def _threshold(s: ScoreSet, metric: str, t: float, *, below: bool) -> Check:
    col = s.values[metric].dropna()
    op = ">=" if below else "<="
    name = f"{metric} {op} {t:g}"
    if col.empty:
        return Check(name, metric, False, f"no answer was scored on {metric}, so its mean is unknown",
                     {"mean": None, "threshold": t, "scored": 0})
    mean = float(col.mean())
    passed = mean >= t if below else mean <= t
    word = ("at least" if below else "at most") if passed else ("below" if below else "above")
    cov = s.coverage.get(metric)
    where = "" if cov is None else f" (coverage {100 * cov:.0f}%: the share of claims decided)"
    return Check(
        name,
        metric,
        passed,
        f"mean {metric} {mean:.3f} over {len(col)} scored answers{where} is {word} {t:g}",
        {"mean": mean, "threshold": t, "scored": int(len(col)), "coverage": cov},
    )


def _regression(cur: ScoreSet, base: ScoreSet, metric: str, min_effect: float, alpha: float) -> Check:
    name = f"{metric}: no regression from {base.label}"
    sig_a, sig_b = base.signatures.get(metric), cur.signatures.get(metric)
    if sig_a and sig_b and sig_a != sig_b:
        return Check(name, metric, False, f"{metric} was scored with other settings in {base.label} ({sig_a}) than "
                     f"in {cur.label} ({sig_b}); the values are not comparable: re-score the baseline with the "
                     "same settings", {"baseline_signature": sig_a, "signature": sig_b})
    pair = cur.values[[metric]].join(base.values[[metric]].add_suffix("_base"), how="inner").dropna()
    if len(pair) < 2:
        return Check(name, metric, False, f"only {len(pair)} answer(s) are scored on {metric} in both "
                     f"{cur.label} and {base.label} (matched by id); a regression check needs at least 2",
                     {"paired": int(len(pair))})
    now, before = pair[metric].to_numpy(float), pair[f"{metric}_base"].to_numpy(float)
    hib = bool(info(metric).higher_is_better)
    diff = float(np.mean(now - before))
    gain = diff if hib else -diff
    w = stats.wilcoxon(now, before)
    d = stats.paired_bootstrap(now, before, n_boot=2000, seed=0)
    changed = int(np.sum(now != before))
    sentence = paired_sentence(f"baseline ({base.label})", f"current ({cur.label})", metric, diff=d.diff,
                               ci_low=d.ci_low, ci_high=d.ci_high, p=w.p, n=d.n, nonzero=changed,
                               higher_is_better=hib, alpha=alpha)
    details = {"paired": d.n, "diff": diff, "gain": gain, "ci_low": d.ci_low, "ci_high": d.ci_high, "p": w.p,
               "changed": changed, "min_effect": min_effect, "alpha": alpha}
    dropped = gain < -min_effect
    testable = alpha >= 1 or changed >= min_pairs_for(alpha)
    significant = alpha >= 1 or (w.p is not None and w.p < alpha)
    if dropped and significant and testable:
        why = f"a drop of {-gain:.3f} (more than --min-effect {min_effect:g})"
        return Check(name, metric, False, f"{why}. {sentence}", details)
    if dropped and not testable:
        return Check(name, metric, True, f"a drop of {-gain:.3f}, but too few changed answers to test it "
                     f"(pass --alpha 1 to fail on the size alone). {sentence}", details)
    return Check(name, metric, True, sentence, details)

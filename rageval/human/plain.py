"""Statistics in plain words: one sentence a customer can read for a paired comparison of two
runs, and a reason a person understands for every value that is "n/a".

The difference is always ``mean(B - A)`` over the answers both runs scored (A is the first run
named, B the second), stated with its direction ("B scores 0.12 lower than A"). Two tests
answer two different questions and may disagree:

- the Wilcoxon signed-rank test ranks the paired differences and asks whether they lean to one
  side (roughly: is the *median* difference away from zero?);
- the percentile bootstrap CI is about the *mean* difference, which a few large differences
  can pull one way while most answers barely change (or the reverse).

A difference is called *reliable* only when both agree (``p < alpha`` and the CI excludes 0);
*not reliable* when neither finds one; otherwise the sentence says they disagree and why.
The exact Wilcoxon test cannot reach ``p < alpha`` with fewer than
:func:`min_pairs_for` non-zero differences (its smallest two-sided p is ``2 / 2**n``), and the
sentence says so instead of printing a bare "n/a".
"""
from __future__ import annotations

import math

#: what the reason codes of stats results mean, in words (``{n}`` is the number of pairs)
REASONS = {
    "constant_input": "one side has the same value on every answer, so there is no ordering to correlate",
    "too_few_pairs": "fewer than 3 answers have both values, too few to correlate",
    "no_differences": "the two runs gave identical scores on every paired answer, so there is nothing to test",
    "too_few_items_or_systems": "a test of several runs needs at least 2 answers scored by every run",
    "fewer_than_two_annotators": "agreement needs at least two annotators who rated the same answers",
    "undefined": "the value is undefined for these data",
}


def plain_reason(reason: str | None) -> str:
    """A person's reading of a stats reason code (the code itself when it is not known).

    >>> plain_reason("constant_input")
    'one side has the same value on every answer, so there is no ordering to correlate'
    """
    if not reason:
        return ""
    return REASONS.get(reason, reason.replace("_", " "))


def na(reason: str | None) -> str:
    """``n/a (why, in words)`` for a table cell or a line of text."""
    return f"n/a ({plain_reason(reason)})" if reason else "n/a"


def min_pairs_for(alpha: float = 0.05) -> int:
    """The fewest non-zero paired differences with which the exact two-sided Wilcoxon test can
    reach ``p < alpha``: the smallest ``n`` with ``2 / 2**n < alpha`` (6 at 0.05).

    >>> min_pairs_for(0.05), min_pairs_for(0.01)
    (6, 8)
    """
    n = 1
    while 2.0 / 2 ** n >= alpha:
        n += 1
    return n


def _num(x: float) -> str:
    return f"{x:.2g}" if x != 0 and abs(x) < 0.01 else f"{x:.2f}"


def _signed(x: float) -> str:
    return ("+" if x >= 0 else "-") + _num(abs(x))


def _p(p: float) -> str:
    return "p < 0.001" if p < 0.001 else f"p = {p:.2f}" if p >= 0.01 else f"p = {p:.3f}"


def paired_sentence(name_a: str, name_b: str, metric: str, *, diff: float | None, ci_low: float | None,
                    ci_high: float | None, p: float | None, n: int, nonzero: int, higher_is_better: bool = True,
                    alpha: float = 0.05, confidence: float = 0.95) -> str:
    """One or two sentences for a paired comparison of run B against run A on ``metric``.

    ``diff``, ``ci_low``, ``ci_high``: the mean of ``B - A`` and its bootstrap CI; ``p``: the
    Wilcoxon p-value (None when it could not be computed); ``n``: paired answers; ``nonzero``:
    pairs whose scores differ.

    >>> print(paired_sentence("A", "B", "faithfulness", diff=-0.12, ci_low=-0.38, ci_high=0.12, p=0.57, n=17,
    ...                       nonzero=15))  # doctest: +NORMALIZE_WHITESPACE
    Run B scores 0.12 lower than run A on faithfulness (95% CI -0.38 to +0.12, Wilcoxon p = 0.57, 17 paired answers):
    not a reliable difference.
    >>> paired_sentence("A", "B", "faithfulness", diff=0.0, ci_low=0.0, ci_high=0.0, p=None, n=10, nonzero=0)
    'Run B and run A gave identical scores on all 10 paired answers on faithfulness: there is no difference to test.'
    """
    a, b = f"run {name_a}", f"run {name_b}"
    if n == 0 or diff is None:
        return f"Run {name_b} and run {name_a} have no answer scored on {metric} by both, so they cannot be compared."
    if nonzero == 0:
        return (f"Run {name_b} and {a} gave identical scores on all {n} paired answers on {metric}: "
                "there is no difference to test.")
    level = f"{confidence:.0%}"
    ci = f"{level} CI {_signed(ci_low)} to {_signed(ci_high)}"
    test = f"Wilcoxon {_p(p)}" if p is not None and math.isfinite(p) else "Wilcoxon n/a"
    direction = ("the same as" if diff == 0 else
                 f"{_num(abs(diff))} {'higher' if diff > 0 else 'lower'} than")
    head = f"Run {name_b} scores {direction} {a} on {metric}"
    body = f"{head} ({ci}, {test}, {n} paired answers{'' if higher_is_better else '; lower is better'})"
    ci_excludes_zero = ci_low > 0 or ci_high < 0
    small = nonzero < min_pairs_for(alpha)
    if p is None or small:
        why = (f"only {nonzero} of the {n} answers changed, and with fewer than {min_pairs_for(alpha)} changed "
               f"answers the Wilcoxon test can never reach p < {alpha:g}")
        return f"{body}: too few changed answers to call it reliable ({why})."
    significant = p < alpha
    if significant and ci_excludes_zero:
        better = b if (diff > 0) == higher_is_better else a
        return f"{body}: a reliable difference, {better} is better."
    if not significant and not ci_excludes_zero:
        return f"{body}: not a reliable difference."
    which = ("the test finds a shift but the CI of the mean includes 0" if significant
             else "the CI of the mean excludes 0 but the test finds no shift")
    return (f"{body}: uncertain, {which}. They ask different questions: Wilcoxon ranks the paired differences "
            "(is the typical, median-like difference away from 0?), the bootstrap CI is for the mean difference, "
            "which a few large changes can pull one way while most answers move the other way or not at all.")

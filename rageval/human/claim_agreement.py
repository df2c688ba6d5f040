"""How far each claim verifier agrees with people, on the claims people labelled.

A verifier is one claim signature in the ``claims`` table: the offline rule, or a judge model
with its prompt signature. Its verdict on a claim is compared with the claim's ``gold`` label
(the label most of its raters gave, :func:`rageval.human.claim_labels.gold_labels`), matched on
run, answer and claim text. A verdict of ``UNVERIFIED`` is no decision: it has its own column in
the confusion matrix and lowers ``coverage`` (decided / labelled), and it is left out of all but recall:

- ``accuracy`` = share of decided claims whose verdict equals the gold label;
- per verdict v: ``precision`` = P(gold = v | verdict = v) over decided claims, ``recall`` =
  P(verdict = v | gold = v) over every labelled claim (an UNVERIFIED claim is one it did not
  recall), with their counts (undefined, ``None``, when the count is 0);
- Cohen's kappa (unweighted, over SUPPORTED / CONTRADICTED / NOT_MENTIONED) with a seeded
  percentile bootstrap CI over claims (:func:`rageval.stats.kappa_ci`).

``n`` is the number of decided labelled claims. ``needed`` is how many labelled claims would give
a kappa CI of ``width`` (Cohen's large-sample standard error, :func:`rageval.stats.
kappa_labels_for_width`), assuming the verifier agrees with people on ``assumed_agreement`` of
claims and that people's labels fall in the shares of the verifier's own decided verdicts (the
chance agreement); with labels, the measured shares replace both assumptions. A verifier that decides
only one verdict (the offline rule's SUPPORTED) has no kappa and no ``needed`` (None): read its
precision for that verdict and its coverage.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Sequence

import numpy as np
import pandas as pd

from rageval import stats
from rageval.human.claim_labels import LABELS, gold_labels, labels_frame
from rageval.project import Project
from rageval.store import claim_labels as cstore
from rageval.store import runs as rstore
from rageval.types import UNVERIFIED, VERDICTS  # noqa: F401 (the verdicts a stored claim may carry)



@dataclass(frozen=True)
class VerifierAgreement:
    signature: str
    judge: str
    claims: int  # the verifier's claims in the runs
    labelled: int  # of those, claims with a gold label
    n: int  # labelled claims it decided (verdict not UNVERIFIED)
    accuracy: float | None
    kappa: stats.AgreementCI
    per_verdict: dict[str, dict[str, Any]]
    confusion: pd.DataFrame  # rows: gold label; columns: verdict (UNVERIFIED last)
    needed: int | None  # labelled claims for a kappa CI of ``width`` (None: it decides one verdict only)
    width: float
    runs: tuple[str, ...] = field(default_factory=tuple)

    @property
    def coverage(self) -> float | None:
        return self.n / self.labelled if self.labelled else None

    def as_dict(self) -> dict[str, Any]:
        return {"signature": self.signature, "judge": self.judge, "claims": self.claims, "labelled": self.labelled,
                "n": self.n, "coverage": self.coverage, "accuracy": self.accuracy, "kappa": self.kappa.as_dict(),
                "per_verdict": self.per_verdict, "confusion": self.confusion.to_dict(orient="index"),
                "needed_for_width": {"width": self.width, "labels": self.needed}, "runs": list(self.runs)}


def _share(num: int, den: int) -> float | None:
    return num / den if den else None


def agreement_of(verdicts: pd.DataFrame, gold: dict[tuple[str, str, str], str], *, signature: str, judge: str,
                 n_boot: int = 1000, seed: int = 0, width: float = 0.2,
                 assumed_agreement: float = 0.8) -> VerifierAgreement:
    """One verifier's agreement (module docstring) from its verdict rows (run_id, item_id, claim,
    verdict) and the gold labels."""
    keys = list(zip(verdicts["run_id"], verdicts["item_id"], verdicts["claim"]))
    g = np.array([gold.get(k) for k in keys], dtype=object)
    v = verdicts["verdict"].to_numpy(dtype=object)
    has = np.array([x is not None for x in g], dtype=bool)
    g, v = g[has], v[has]
    confusion = pd.DataFrame(0, index=list(LABELS), columns=list(VERDICTS))
    for a, b in zip(g, v):
        if b in confusion.columns:
            confusion.loc[a, b] += 1
    decided = np.isin(v, LABELS)
    gd, vd = g[decided], v[decided]
    code = {lab: float(i) for i, lab in enumerate(LABELS)}
    kappa = stats.kappa_ci([code[x] for x in gd], [code[x] for x in vd], labels=list(code.values()),
                           n_boot=n_boot, seed=seed)
    per = {lab: {"precision": _share(int(((vd == lab) & (gd == lab)).sum()), int((vd == lab).sum())),
                 "recall": _share(int(((v == lab) & (g == lab)).sum()), int((g == lab).sum())),
                 "predicted": int((vd == lab).sum()), "actual": int((g == lab).sum())} for lab in LABELS}
    all_decided = verdicts["verdict"][verdicts["verdict"].isin(LABELS)].value_counts(normalize=True)
    if gd.size >= 10:
        p_o = float((gd == vd).mean())
        p_e = float(sum((gd == lab).mean() * (vd == lab).mean() for lab in LABELS))
    else:
        p_o, p_e = assumed_agreement, float((all_decided ** 2).sum()) if not all_decided.empty else 1 / 3
    one_verdict = all_decided.size < 2  # kappa is undefined for a verifier that only ever says one thing
    needed = None if one_verdict else stats.kappa_labels_for_width(
        width, agreement=min(max(p_o, 0.01), 0.99), chance=min(p_e, 0.99))
    return VerifierAgreement(signature, judge, int(len(verdicts)), int(has.sum()), int(decided.sum()),
                             _share(int((gd == vd).sum()), int(gd.size)), kappa, per, confusion, needed, width,
                             tuple(dict.fromkeys(verdicts["run_id"])))


def verdict_frame(project: Project, run_ids: Sequence[str]) -> pd.DataFrame:
    """Every verifier's claims of the runs (:func:`rageval.store.claim_labels.verdicts`) as a DataFrame."""
    return pd.DataFrame(
        cstore.verdicts(project.db_path, run_ids),
        columns=["run_id", "item_id", "signature", "judge", "ordinal", "claim", "verdict", "confidence"],
    )


def claim_runs(project: Project) -> list[str]:
    """The project's runs, newest first (every run may hold claims)."""
    return [r.id for r in rstore.runs(project.db_path)]


def verifier_agreement(project: Project, run_ids: Sequence[str] | None = None, *, n_boot: int = 1000,
                       seed: int = 0, width: float = 0.2, as_of: Any = None) -> list[VerifierAgreement]:
    """Every verifier's agreement with the labels over ``run_ids`` (all runs when None), most
    labelled first; ``as_of``: with the labels as they stood at that time (the label history)."""
    run_ids = list(run_ids) if run_ids is not None else claim_runs(project)
    rows = verdict_frame(project, run_ids)
    gold = gold_labels(labels_frame(project, run_ids, as_of=as_of))
    out = [agreement_of(part, gold, signature=str(sig), judge=str(part["judge"].iloc[0]), n_boot=n_boot,
                        seed=seed, width=width)
           for sig, part in rows.groupby("signature", sort=True)]
    return sorted(out, key=lambda a: (-a.labelled, a.signature))

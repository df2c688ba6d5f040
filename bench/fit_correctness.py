"""Fit the weights of answer_correctness_offline on EVOUNA's TriviaQA part; write correctness_weights.json.

    python bench/fit_correctness.py    # about 5 minutes on 2 busy cores with an empty embedding cache

Training data: the rows of ../shared/data/evouna/items.jsonl.gz with dataset == "tq" (TriviaQA
questions; none of them is an NQ301 or EVOUNA-NQ question, the data reported in
docs/validation.md). Rows with an empty answer are left out, as the metric never scores them.

Model: L2-regularised logistic regression (intercept not penalised) fit by Newton's method in
NumPy. The penalty is chosen by 5-fold cross-validation on the training rows with folds split
by question (mean held-out log loss); the chosen model is refit on all training rows. The
cross-validated AUROC printed here is an in-domain figure, not a validation figure.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from validate_answer_metrics import DATA, auroc, bench_resources, evouna, to_samples  # noqa: E402

from rageval.metrics.correctness import FEATURES, LENGTH_CAP, WEIGHTS_PATH, correctness_features  # noqa: E402
from rageval.metrics.lexical import references_of  # noqa: E402
from rageval.metrics.semantic import sentence_similarities  # noqa: E402
from rageval.util import sha256_hex  # noqa: E402

PENALTIES = (0.01, 0.1, 1.0, 10.0, 100.0)


def fit_logistic(x: np.ndarray, y: np.ndarray, l2: float) -> np.ndarray:
    """Weights (bias first) minimising log loss + l2/2 * |w|^2 (bias unpenalised), by Newton steps."""
    xb = np.hstack([np.ones((len(x), 1)), x])
    w = np.zeros(xb.shape[1])
    penalty = np.full(xb.shape[1], l2)
    penalty[0] = 0.0
    for _ in range(100):
        p = 1.0 / (1.0 + np.exp(-(xb @ w)))
        grad = xb.T @ (p - y) + penalty * w
        hess = (xb * (p * (1 - p))[:, None]).T @ xb + np.diag(penalty) + 1e-9 * np.eye(len(w))
        step = np.linalg.solve(hess, grad)
        w -= step
        if np.max(np.abs(step)) < 1e-10:
            break
    return w


def predict(x: np.ndarray, w: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-(w[0] + x @ w[1:])))


def log_loss(p: np.ndarray, y: np.ndarray) -> float:
    p = np.clip(p, 1e-12, 1 - 1e-12)
    return float(-np.mean(y * np.log(p) + (1 - y) * np.log(1 - p)))


def grouped_folds(groups: list[str], k: int = 5, seed: int = 0) -> list[np.ndarray]:
    names = sorted(set(groups))
    rng = np.random.default_rng(seed)
    fold_of = dict(zip(names, rng.permutation(len(names)) % k))
    ids = np.array([fold_of[g] for g in groups])
    return [np.flatnonzero(ids == f) for f in range(k)]


def feature_matrix(rows: list[dict]) -> np.ndarray:
    resources, store = bench_resources()
    samples = to_samples(rows)
    sims = sentence_similarities(resources.embedder, samples)
    store.flush()
    feats = [
        correctness_features(s.question, s.answer or "", references_of(s), sim, "en")
        for s, (sim, _) in zip(samples, sims)
    ]
    return np.array([[f[name] for name in FEATURES] for f in feats])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, default=WEIGHTS_PATH)
    args = parser.parse_args()

    rows = [r for r in evouna("tq") if r["answer"].strip()]
    x, y = feature_matrix(rows), np.array([r["label"] for r in rows], dtype=float)
    groups = [r["group"] for r in rows]
    folds = grouped_folds(groups)
    cv = {}
    for l2 in PENALTIES:
        held = np.zeros(len(y))
        for test in folds:
            train = np.setdiff1d(np.arange(len(y)), test)
            held[test] = predict(x[test], fit_logistic(x[train], y[train], l2))
        cv[l2] = (log_loss(held, y), auroc(held, y))
        print(f"l2={l2:<6} cv log loss {cv[l2][0]:.4f}  cv AUROC {cv[l2][1]:.4f}")
    best = min(PENALTIES, key=lambda l2: cv[l2][0])
    w = fit_logistic(x, y, best)
    source = DATA / "evouna" / "items.jsonl.gz"
    model = {
        "features": list(FEATURES),
        "bias": round(float(w[0]), 6),
        "weights": {name: round(float(v), 6) for name, v in zip(FEATURES, w[1:])},
        "embedder": "minilm-l6-v2-numpy",
        "language": "en",
        "length_cap_tokens": LENGTH_CAP,
        "fit_on": {
            "data": "shared/data/evouna/items.jsonl.gz, rows with dataset == 'tq' and a non-empty answer",
            "sha256": sha256_hex(source.read_bytes()),
            "rows": len(y),
            "questions": len(set(groups)),
            "positive_rate": round(float(y.mean()), 4),
        },
        "l2": best,
        "cv": {"folds": 5, "split": "by question", "log_loss": round(cv[best][0], 4), "auroc": round(cv[best][1], 4)},
        "made_by": "python bench/fit_correctness.py",
    }
    args.out.write_text(json.dumps(model, indent=2) + "\n", encoding="utf-8")
    print(json.dumps(model, indent=2))


if __name__ == "__main__":
    main()

"""Train answer_correctness_offline (v2): a logistic equivalence model over (question, reference, candidate).

    RAGEVAL_DATA=DIR python -m training.train_correctness
    # about 15 minutes on 2 busy cores with an empty embedding cache ($RAGEVAL_BENCH_CACHE), 1-2 with it

Training data (nothing here is reported in docs/validation.md):
- EVOUNA's TriviaQA part (rows of $RAGEVAL_DATA/evouna/items.jsonl.gz with dataset == "tq" and a
  non-empty answer; human labels). EVOUNA-NQ, NQ301 and SQuALITY stay for reporting.
- Pairs made by the seeded generator training/correctness_pairs.py: fact templates (English and
  Italian) with other number forms, wrong numbers, units, dates, negated rules and abstentions, plus
  perturbations of TriviaQA gold answers (swapped entities, negations, abstentions, echoes).

Model: p = sigmoid(b + w . x) over the features of rageval/metrics/correctness_features.py for one
reference; an item's score is the max over its references. Training picks, per row, the
reference the current model scores highest among the 3 with the best token recall (two rounds,
the first by token recall, then by the fitted model), i.e. it trains the same max the metric
computes. L2-regularised, weighted logistic regression (intercept not penalised) by Newton's
method in NumPy. The penalty and the weight of a generated row (relative to a human-labelled one)
are chosen by 5-fold cross-validation with folds split by question / template: the lowest held-out
log loss on the human-labelled rows among the settings whose held-out AUROC on the generated rows
is at least 0.99. The cross-validated figures printed are in-domain, not validation figures.

Writes rageval/models/answer_correctness.json (the parameters) and
tests/data/correctness_recorded.json (inputs and outputs of this script's matrix inference, which
tests/test_correctness_model.py compares with the metric's per-item NumPy inference).
"""
from __future__ import annotations

import argparse
import json
import pickle
import sys
from pathlib import Path

import numpy as np

from rageval.metrics.correctness import MODEL_PATH
from rageval.metrics.correctness_features import FEATURES, LENGTH_CAP, correctness_features
from rageval.util import sha256_hex
from training.correctness_pairs import generate
from training.data import DATA, evouna
from training.embedding_cache import CACHE, cached_resources
from training.stats import auroc

ROOT = Path(__file__).resolve().parent.parent

PENALTIES = (0.01, 0.1, 1.0, 10.0)
GENERATED_WEIGHTS = (0.05, 0.1, 0.25, 0.5, 1.0)  # weight of a generated row relative to a human-labelled one
TOP_REFERENCES = 3  # per training row, the references kept (by token recall) before the model picks one
SEED = 13
RECORDED = ROOT / "tests" / "data" / "correctness_recorded.json"


def fit_logistic(x: np.ndarray, y: np.ndarray, l2: float, weight: np.ndarray | None = None) -> np.ndarray:
    """Weights (bias first) minimising weighted log loss + l2/2 * |w|^2 (bias unpenalised), Newton steps."""
    weight = np.ones(len(y)) if weight is None else weight
    xb = np.hstack([np.ones((len(x), 1)), x])
    w = np.zeros(xb.shape[1])
    penalty = np.full(xb.shape[1], l2)
    penalty[0] = 0.0
    for _ in range(100):
        p = 1.0 / (1.0 + np.exp(-(xb @ w)))
        grad = xb.T @ (weight * (p - y)) + penalty * w
        hess = (xb * (weight * p * (1 - p))[:, None]).T @ xb + np.diag(penalty) + 1e-9 * np.eye(len(w))
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


def training_rows() -> list[dict]:
    """EVOUNA-TQ rows and generated rows in one shape: question, references, answer, label, group, source."""
    tq = [r for r in evouna("tq") if r["answer"].strip()]
    rows = [{"question": r["question"], "references": list(r["references"]), "answer": r["answer"], "label": r["label"],
             "group": r["group"], "source": "evouna-tq", "language": "en", "kind": "human"} for r in tq]
    items = list({r["group"]: {"question": r["question"], "references": r["references"]} for r in tq}.values())
    for g in generate(items, seed=SEED):
        rows.append(
            {
                "question": g["question"],
                "references": [g["reference"]],
                "answer": g["answer"],
                "label": g["label"],
                "group": "gen:" + g["question"],
                "source": "generated",
                "language": g["language"],
                "kind": g["kind"],
            }
        )
    return rows


def candidate_features(rows: list[dict]) -> list[list[tuple[dict, float]]]:
    """Per row, per reference: (features, similarity), with MiniLM sentence vectors (disk-cached)."""
    resources, store = cached_resources()
    embedder = resources.embedder
    texts = list(dict.fromkeys(t for r in rows for t in [r["answer"], *r["references"]]))
    vectors = {}
    for i in range(0, len(texts), 1024):
        chunk = texts[i:i + 1024]
        vectors.update(zip(chunk, embedder.embed(chunk)))
        store.flush()
        print(f"  embedded {min(i + 1024, len(texts))}/{len(texts)} texts", file=sys.stderr, flush=True)
    out = []
    for n, r in enumerate(rows):
        if n % 2000 == 0:
            print(f"  features of row {n}/{len(rows)}", file=sys.stderr, flush=True)
        per_ref = []
        for ref in top_references(r):
            sim = float(np.dot(vectors[r["answer"]], vectors[ref]))
            per_ref.append((correctness_features(r["question"], ref, r["answer"], sim, "en"), sim))
        out.append(per_ref)
    return out


def top_references(row: dict) -> list[str]:
    """The TOP_REFERENCES references with the highest SQuAD token recall (TriviaQA lists many aliases)."""
    from rageval.metrics.lexical import token_prf
    from rageval.text.tokenize import answer_tokens

    pred = answer_tokens(row["answer"])
    ranked = sorted(row["references"], key=lambda ref: -token_prf(pred, answer_tokens(ref))[1])
    return ranked[:TOP_REFERENCES]


def as_matrix(feats: list[dict]) -> np.ndarray:
    return np.array([[f[name] for name in FEATURES] for f in feats])


def pick(per_row: list[list[tuple[dict, float]]], w: np.ndarray | None) -> list[int]:
    """Index of the reference each row is trained on: max recall (no model yet) or max model score."""
    if w is None:
        return [int(np.argmax([f["recall"] + 1e-3 * s for f, s in refs])) for refs in per_row]
    return [int(np.argmax(predict(as_matrix([f for f, _ in refs]), w))) for refs in per_row]


def cross_validate(x: np.ndarray, y: np.ndarray, groups: list[str], generated: np.ndarray) -> dict:
    """Grouped 5-fold CV over (penalty, weight of generated rows).

    Returns the held-out log loss and AUROC on the human-labelled rows and on the generated rows
    for each setting; :func:`choose` picks one."""
    folds = grouped_folds(groups)
    cv = {}
    for lam in GENERATED_WEIGHTS:
        weight = np.where(generated, lam, 1.0)
        for l2 in PENALTIES:
            held = np.zeros(len(y))
            for test in folds:
                train = np.setdiff1d(np.arange(len(y)), test)
                held[test] = predict(x[test], fit_logistic(x[train], y[train], l2, weight[train]))
            human, gen = ~generated, generated
            cv[(lam, l2)] = {"human_log_loss": round(log_loss(held[human], y[human]), 4),
                             "human_auroc": round(auroc(held[human], y[human]), 4),
                             "generated_log_loss": round(log_loss(held[gen], y[gen]), 4),
                             "generated_auroc": round(auroc(held[gen], y[gen]), 4)}
            print(f"generated weight {lam:<5} l2={l2:<6} {cv[(lam, l2)]}", flush=True)
    return cv


MIN_GENERATED_AUROC = 0.99


def choose(cv: dict) -> tuple[float, float]:
    """The setting with the lowest held-out log loss on the human-labelled rows among those whose
    held-out AUROC on the generated rows is at least MIN_GENERATED_AUROC (the generated checks are
    learned), so the generated pairs teach the penalties without overriding the human labels."""
    ok = [k for k in cv if cv[k]["generated_auroc"] >= MIN_GENERATED_AUROC] or list(cv)
    return min(ok, key=lambda k: cv[k]["human_log_loss"])


def record(rows: list[dict], per_row: list, chosen: list[int], w: np.ndarray, n: int = 40) -> list[dict]:
    """A seeded sample of rows with their inputs and this script's outputs, for the inference test."""
    rng = np.random.default_rng(SEED)
    out = []
    for i in sorted(rng.choice(len(rows), size=min(n, len(rows)), replace=False)):
        r = rows[int(i)]
        sims = [s for _, s in per_row[i]]
        probs = predict(as_matrix([f for f, _ in per_row[i]]), w)
        out.append({"question": r["question"], "references": top_references(r), "answer": r["answer"],
                    "similarities": [round(s, 8) for s in sims], "probability": float(probs.max()),
                    "best_reference": int(np.argmax(probs)), "source": r["source"]})
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, default=MODEL_PATH)
    parser.add_argument("--recorded", type=Path, default=RECORDED)
    args = parser.parse_args()

    rows = training_rows()
    y = np.array([r["label"] for r in rows], dtype=float)
    groups = [r["group"] for r in rows]
    generated = np.array([r["source"] == "generated" for r in rows])
    cache = CACHE / "train-features.pkl"
    key = sha256_hex(
        json.dumps([[r["question"], r["references"], r["answer"]] for r in rows])
        + sha256_hex(
            (ROOT / "rageval" / "metrics" / "correctness_features.py").read_text()
            + (ROOT / "rageval" / "text" / "numbers.py").read_text()
        )
    )
    if cache.is_file() and pickle.loads(cache.read_bytes())[0] == key:
        per_row = pickle.loads(cache.read_bytes())[1]
    else:
        per_row = candidate_features(rows)
        cache.write_bytes(pickle.dumps((key, per_row)))
    chosen = pick(per_row, None)
    x = as_matrix([per_row[i][j][0] for i, j in enumerate(chosen)])
    cv = cross_validate(x, y, groups, generated)
    lam, best = choose(cv)
    w = fit_logistic(x, y, best, np.where(generated, lam, 1.0))
    chosen = pick(per_row, w)  # second round: train on the reference the model itself would take
    x = as_matrix([per_row[i][j][0] for i, j in enumerate(chosen)])
    cv = cross_validate(x, y, groups, generated)
    lam, best = choose(cv)
    w = fit_logistic(x, y, best, np.where(generated, lam, 1.0))
    source = DATA / "evouna" / "items.jsonl.gz"
    gen = [r for r in rows if r["source"] == "generated"]
    model = {
        "model": "answer_correctness_offline",
        "version": 2,
        "features": list(FEATURES),
        "bias": round(float(w[0]), 6),
        "weights": {name: round(float(v), 6) for name, v in zip(FEATURES, w[1:])},
        "embedder": "minilm-l6-v2-numpy",
        "length_cap_tokens": LENGTH_CAP,
        "references": "max over references of the per-reference probability",
        "trained_on": {
            "evouna_tq": {"data": "evouna/items.jsonl.gz in $RAGEVAL_DATA, dataset == 'tq', non-empty answer",
                          "sha256": sha256_hex(source.read_bytes()), "rows": len(rows) - len(gen)},
            "generated": {"script": "training/correctness_pairs.py", "seed": SEED, "rows": len(gen),
                          "italian_rows": sum(r["language"] == "it" for r in gen),
                          "positive_rate": round(float(np.mean([r["label"] for r in gen])), 4)},
            "questions": len(set(groups)),
            "positive_rate": round(float(y.mean()), 4),
        },
        "l2": best,
        "generated_weight": lam,
        "top_references_in_training": TOP_REFERENCES,
        "cv": {"folds": 5, "split": "by question or template", **cv[(lam, best)]},
        "made_by": "python -m training.train_correctness",
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(model, indent=2) + "\n", encoding="utf-8")
    # the recorded outputs use the rounded weights that ship, so the test compares like with like
    shipped = np.array([model["bias"], *[model["weights"][f] for f in FEATURES]])
    args.recorded.write_text(json.dumps(record(rows, per_row, chosen, shipped), indent=1, ensure_ascii=False) + "\n",
                             encoding="utf-8")
    print(json.dumps(model, indent=2))


if __name__ == "__main__":
    main()

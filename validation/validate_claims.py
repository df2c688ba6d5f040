"""Agreement of the feature MLP claim verifier (training/claim_mlp.py, no part of the product; a naive
baseline beside it) with labels it was never trained or tuned on. Writes the "The feature MLP"
section of training/VALIDATION.md.

    python -m training.make_claim_data --out CLAIMS_DIR
    python -m validation.validate_claims --data CLAIMS_DIR [--write-docs] [--summedits-limit N]

Sets (none used for training, model selection or thresholds, except where said):
- the generated ``test`` split of training/make_claim_data.py (SQuALITY test stories, templates
  never trained on): 3-way accuracy and contradiction recall, per claim type and language;
- the team's hand-written pairs (tests/data/claims_gold*.jsonl): DEVELOPMENT only (their
  writers also wrote the rules and read the failures), reported, never a CI floor;
- beside the model, a naive baseline fixed in advance (never tuned): the claim's most similar
  sentence (MiniLM cosine ``sim_max``) supports it when ``sim_max >= 0.6`` and no number or
  negation check fires, contradicts it when ``sim_max >= 0.6`` and one fires, else NOT_MENTIONED;
- WiCE ``test`` claims against the whole cited article: the claim is split by the offline
  extractor; predicted supported when every part is SUPPORTED; AUROC by the smallest
  P(SUPPORTED) of its parts; 3-class: all parts / some / none supported;
- SummEdits ``test`` summaries against their documents: consistent when every claim is
  SUPPORTED ("t = all supported"), and by the smallest P(SUPPORTED) with the threshold of best
  balanced accuracy on the ``evaluation`` split's dev documents (never trained on).
95% CIs: percentile bootstrap over rows (1000 resamples, seeded).
"""
from __future__ import annotations

import argparse
import json
import os
import time
from collections import defaultdict
from pathlib import Path

import numpy as np

from training import claim_mlp as M
from rageval.claims.features import NAMES
from training.claim_verifiers import LearnedVerifier
from rageval.metrics.base import evaluate, get_metric
from rageval.text.lang import guess_language
from rageval.types import Resources, Sample
from training.data import DATA, read_jsonl
from training.make_claim_data import bucket
from training.stats import auroc
from validation.docs_section import replace_section

ROOT = Path(__file__).resolve().parents[1]

DOCS = ROOT / "training" / "VALIDATION.md"
BEGIN, END = "<!-- claims:begin -->", "<!-- claims:end -->"
LABELS = ("SUPPORTED", "CONTRADICTED", "NOT_MENTIONED")
SEED = 20261201


def balanced_accuracy(pred, gold) -> float:
    pred, gold = np.asarray(pred), np.asarray(gold)
    return float(np.mean([np.mean(pred[gold == c] == c) for c in np.unique(gold)]))


def boot(fn, *cols, n=1000) -> tuple[float, float, float]:
    """(value, ci_low, ci_high) of ``fn(*cols)``, percentile bootstrap over rows."""
    cols = [np.asarray(c) for c in cols]
    rng = np.random.default_rng(SEED)
    value = fn(*cols)
    vals = []
    for _ in range(n):
        idx = rng.integers(0, len(cols[0]), len(cols[0]))
        v = fn(*(c[idx] for c in cols))
        if not np.isnan(v):
            vals.append(v)
    lo, hi = (np.percentile(vals, [2.5, 97.5]) if vals else (float("nan"), float("nan")))
    return float(value), float(lo), float(hi)


def fmt(t) -> str:
    return f"{t[0]:.3f} [{t[1]:.3f}, {t[2]:.3f}]"


def acc(p, g) -> float:
    return float(np.mean(p == g)) if len(p) else float("nan")


def crecall(p, g) -> float:
    m = g == "CONTRADICTED"
    return float(np.mean(p[m] == "CONTRADICTED")) if m.any() else float("nan")


# --- pairs (generated test split, team sets) -------------------------------------------------

BASELINE_SIM = 0.6
_BASELINE_CHECKS = [NAMES.index(n) for n in ("num_rival", "date_rival", "neg_diff")]


def baseline(x: np.ndarray) -> str:
    """The naive baseline of the module docstring, read off one feature vector."""
    if x[NAMES.index("sim_max")] < BASELINE_SIM:
        return "NOT_MENTIONED"
    return "CONTRADICTED" if (x[_BASELINE_CHECKS] > 0).any() else "SUPPORTED"


def verify_pairs(verifier: LearnedVerifier, rows: list[dict]) -> tuple[list[str], list[str], float, float]:
    """(model labels, baseline labels, wall seconds, CPU seconds) for one claim against its contexts each
    (the timed part is the verifier's whole path: sentences, features, embeddings, the model)."""
    t0, c0 = time.perf_counter(), time.process_time()
    verdicts = verifier.verify_many([([r["claim"]], r["contexts"]) for r in rows])
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    feats = verifier.features.many([([r["claim"]], r["contexts"]) for r in rows])  # vectors cached: cheap
    return [v[0].label for v in verdicts], [baseline(f[0].vector) for f in feats], wall, cpu


def table3(rows, learned, base, key) -> list[str]:
    groups = defaultdict(list)
    for i, r in enumerate(rows):
        groups[r[key]].append(i)
    lines = [f"| {key} | label | n | model: correct | baseline: correct |", "|---|---|---|---|---|"]
    for k in sorted(groups, key=lambda k: (rows[groups[k][0]]["label"], k)):
        idx = groups[k]
        g = rows[idx[0]]["label"] if len({rows[i]["label"] for i in idx}) == 1 else "mixed"
        lines.append(f"| {k} | {g} | {len(idx)} | {sum(learned[i] == rows[i]['label'] for i in idx) / len(idx):.3f} | "
                     f"{sum(base[i] == rows[i]['label'] for i in idx) / len(idx):.3f} |")
    return lines


def pair_summary(name, rows, learned, base) -> str:
    g = np.array([r["label"] for r in rows])
    out = []
    for who, p in (("model", np.array(learned)), ("naive baseline", np.array(base))):
        out.append(f"| {name} | {who} | {len(rows)} | {fmt(boot(acc, p, g))} | {fmt(boot(crecall, p, g))} |")
    return "\n".join(out)


# --- WiCE and SummEdits (through the faithfulness metric, as a user runs it) -----------------

def claim_scores(samples: list[Sample], resources: Resources) -> list[tuple[bool | None, float | None, float | None]]:
    """Per sample (all claims SUPPORTED, smallest P(SUPPORTED), share SUPPORTED) or Nones when unscored."""
    res = evaluate(samples, [get_metric("faithfulness")], resources)["faithfulness"]
    out = []
    for s in res:
        claims = (s.details or {}).get("claims") or []
        if s.value is None or not claims:
            out.append((None, None, None))
            continue
        ps = [(c.get("probabilities") or {}).get("SUPPORTED", 0.0) for c in claims]
        out.append((s.value == 1.0, float(min(ps)), float(s.value)))
    return out


def wice(resources) -> list[str]:
    rows = [r for r in read_jsonl(DATA / "wice" / "claims.jsonl.gz") if r["split"] == "test" and r["level"] == "claim"]
    samples = [Sample(id=r["id"], answer=r["claim"], contexts=("\n".join(r["evidence"]),)) for r in rows]
    sc = claim_scores(samples, resources)
    ok = [i for i, s in enumerate(sc) if s[0] is not None]
    gold = np.array([rows[i]["label"] == "supported" for i in ok])
    pred = np.array([sc[i][0] for i in ok])
    score = np.array([sc[i][1] for i in ok])
    g3 = np.array([rows[i]["label"] for i in ok])
    p3 = np.array(["supported" if sc[i][2] == 1 else "not_supported" if sc[i][2] == 0 else "partially_supported"
                   for i in ok])
    return [
        "| split | n | unscored | balanced acc. | AUROC | accuracy | 3-class acc. |",
        "|---|---|---|---|---|---|---|",
        f"| test | {len(rows)} | {len(rows) - len(ok)} | {fmt(boot(balanced_accuracy, pred, gold))} | "
        f"{fmt(boot(auroc, score, gold))} | {fmt(boot(acc, pred, gold))} | {fmt(boot(acc, p3, g3))} |",
    ]


def summedits(resources, limit: int | None) -> list[str]:
    rows = read_jsonl(DATA / "summedits" / "items.jsonl.gz")
    fit = [r for r in rows if r["split"] == "evaluation" and bucket(r["document"], 0.75) == "dev"]
    test = [r for r in rows if r["split"] == "test"]
    if limit and len(test) > limit:
        test = [test[i] for i in sorted(np.random.default_rng(SEED).choice(len(test), limit, replace=False))]

    def run(part):
        sc = claim_scores([Sample(id=r["id"], answer=r["summary"], contexts=(r["document"],)) for r in part], resources)
        return [(r, s) for r, s in zip(part, sc) if s[0] is not None], len(part)

    fitted, _ = run(fit)
    cands = sorted({s[1] for _, s in fitted}) + [1.01]
    fg = np.array([r["label"] == 1 for r, _ in fitted])
    fs = np.array([s[1] for _, s in fitted])
    t = max(cands, key=lambda c: (balanced_accuracy(fs >= c, fg), -c))
    scored, n_all = run(test)
    lines = [
        f"Threshold on min P(SUPPORTED) fitted on {len(fitted)} `evaluation` summaries of dev documents: t = {t:.3f}.",
        "",
        "| domain | n | AUROC (min P(SUPPORTED)) | balanced acc. (fitted t) | balanced acc. (all claims SUPPORTED) |",
        "|---|---|---|---|---|",
    ]
    domains = sorted({r["domain"] for r, _ in scored}) + ["all"]
    for d in domains:
        part = [(r, s) for r, s in scored if d in ("all", r["domain"])]
        g = np.array([r["label"] == 1 for r, _ in part])
        s = np.array([x[1] for _, x in part])
        a = np.array([x[0] for _, x in part])
        if d == "all":
            lines.append(f"| **all** | {len(part)} (of {n_all}) | {fmt(boot(auroc, s, g))} | "
                         f"{fmt(boot(balanced_accuracy, s >= t, g))} | {fmt(boot(balanced_accuracy, a, g))} |")
        else:
            lines.append(f"| {d} | {len(part)} | {auroc(s, g):.3f} | {balanced_accuracy(s >= t, g):.3f} | "
                         f"{balanced_accuracy(a, g):.3f} |")
    return lines


LIMITS = """How far to trust it. The generated test split is drawn by the same generator as the training
data (other stories and templates), so its figures are an upper bound. On the short hand-written
pairs of the team sets (development data: their writers read the failures) the model reaches
0.75-0.79 3-way accuracy; its main weakness there is reworded support (a paraphrase that changes
several words reads as CONTRADICTED or NOT_MENTIONED: two thirds of them are right), then name
swaps in which both names are in the evidence (role), units and temporal order. On real
document-level data (WiCE, SummEdits) it is only a little above chance: every feature reads one best
sentence, so a summary sentence that merges several document sentences, or an edit of one word in a
long sentence, is hard to see, and no feature compares the meaning of the words that differ (a
synonym and an antonym look alike). Training leaves out generated contradictions that no feature
check can see (they taught the model to read paraphrases as contradictions).

Targets set for the verifier: 3-way accuracy >= 0.80 and contradiction recall >= 0.75 are met on the
generated test split only (drawn by the training data's own generator, so the 0.96 is circular), not on
hand-written pairs (the team sets, development data, are below 0.80); SummEdits balanced accuracy >= 0.70
is missed (about 0.59). For comparison, the rule verifier that shipped before the learned model: WiCE test
balanced accuracy 0.570, AUROC 0.554; SummEdits test (all 2,731 rows) AUROC 0.543, balanced accuracy 0.522; and, on an
independent hand-written set nobody on the team has seen, 3-way accuracy 0.41.

A cross-encoder was tried and not shipped: MiniLM with a rank-8 LoRA adapter on layers 3-5 and a
3-way head, fine-tuned with torch on the same train split for 3 epochs (kept in history at
commit 4dfbda6: `bench/train_cross_encoder.py`, `bench/eval_cross_encoder.py`, `rageval/claims/cross.py`),
reached 0.759 dev 3-way accuracy alone (the MLP: 0.863); its product with the MLP, weighted by log
loss on dev (`training/train_claim_verifier.py --cross` at that commit), reached 0.846, below the MLP alone, and on the
human-labelled dev rows (WiCE, SummEdits) both are near chance (0.52-0.54). Measured once after
selection, alone: generated test 0.804, WiCE test AUROC 0.604, SummEdits test AUROC 0.483. It
verifies 12-14 claims/s in NumPy on 2 cores, so it would also halve the speed of offline scoring."""


def ablation(folder: Path) -> list[str]:
    """The model-selection grid of training/train_claim_verifier.py (dev split), when it was saved."""
    path = folder / "ablation.json"
    if not path.exists():
        return []
    grid = json.loads(path.read_text())
    lines = ["", "### Model selection and ablation (dev split of the generated data, never reported above)", "",
             "Command: `python -m training.train_claim_verifier --data CLAIMS_DIR --epochs 150 --write`.", "",
             "| features | hidden | L2 | dev 3-way acc. | recall S / C / NM |", "|---|---|---|---|---|"]
    for g in grid:
        r = g["recall"]
        lines.append(f"| {g['features']} | {g['hidden']} | {g['l2']:g} | {g['accuracy']:.3f} | "
                     f"{r['SUPPORTED']:.3f} / {r['CONTRADICTED']:.3f} / {r['NOT_MENTIONED']:.3f} |")
    return lines


def write_section(lines: list[str], done: bool) -> None:
    """Replace the claims section of training/VALIDATION.md (a partial one says so)."""
    body = lines[1:] + ([] if done else ["", "(partial: the run was still going when this was written)"])
    replace_section(DOCS, BEGIN, END, body)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", required=True, help="the folder of pairs.jsonl (CLAIMS_DIR: any scratch folder outside "
                    "the repository)")
    ap.add_argument("--write-docs", action="store_true", help=f"write the section into {DOCS.relative_to(ROOT)}")
    ap.add_argument("--summedits-limit", type=int, default=None)
    ap.add_argument("--skip-public", action="store_true", help="only the generated and team sets")
    args = ap.parse_args(argv)
    from rageval.embed.cache import make_embedder

    t_start = time.perf_counter()
    load = os.getloadavg()[0]
    emb = make_embedder("local")
    verifier = LearnedVerifier(emb)
    rows = [
        json.loads(x) for x in (Path(args.data) / "pairs.jsonl").read_text(encoding="utf-8").splitlines() if x.strip()
    ]
    test = [r for r in rows if r["split"] == "test"]
    learned, base, wall, cpu = verify_pairs(verifier, test)
    gold_sets = []
    for name, path in (("team development set", "claims_gold.jsonl"), ("team second set", "claims_gold_holdout.jsonl")):
        g = [json.loads(x) for x in (ROOT / "tests" / "data" / path).read_text().splitlines() if x.strip()]
        for r in g:
            r["contexts"], r["claim_type"] = [r["context"]], r["type"]
            r["language"] = guess_language(r["claim"] + " " + r["context"])
        gl, gr, _, _ = verify_pairs(verifier, g)
        gold_sets.append((name, g, gl, gr))
    lines = [BEGIN, "## The feature MLP", "",
             f"Command: `python -m training.make_claim_data --out CLAIMS_DIR && "
             f"python -m training.train_claim_verifier "
             f"--data CLAIMS_DIR --epochs 150 && python -m validation.validate_claims --data CLAIMS_DIR "
             f"--write-docs{' --summedits-limit ' + str(args.summedits_limit) if args.summedits_limit else ''}`",
             f"(verifier `{M.shipped().version}`; measured on 2 cores, load average {load:.1f} at the start).", "",
             "The feature MLP is a small model over alignment, number, name and polarity features "
             "(`rageval/claims/features.py`, `training/claim_mlp.py`), trained by "
             "`training/train_claim_verifier.py` on the train split of "
             "`training/make_claim_data.py` (generated pairs from SQuALITY train stories, SummEdits `evaluation` and "
             "WiCE `dev` documents, the demo corpus and templates; plus the human labels of the WiCE dev and "
             "SummEdits evaluation splits), selected on its dev split. Nothing below was used to train or select "
             "it, except the team sets, which are development only. \"naive baseline\" is the fixed rule of "
             "the script's docstring (best-sentence cosine >= 0.6 plus a number / date / negation check), run on the "
             "same rows.", "",
             "### Three-way verdicts (one claim, its contexts)", "",
             "| set | verifier | n | 3-way accuracy [95% CI] | contradiction recall [95% CI] |",
             "|---|---|---|---|---|",
             pair_summary("generated test split", test, learned, base)]
    for name, g, gl, gr in gold_sets:
        lines.append(pair_summary(f"{name} (development only)", g, gl, gr))
    lines += [
        "",
        f"Speed: {len(test)} claims in {wall:.1f} s wall = {len(test) / wall:.1f} claims/s, "
        f"{1000 * cpu / len(test):.0f} ms CPU per claim (sentence splitting, features, MiniLM embeddings and the "
        "model; the load average is given above).",
        "",
        "Per claim type (generated test split):",
        "",
    ] + table3(test, learned, base, "claim_type")
    lines += ["", "Per language (generated test split):", ""] + table3(test, learned, base, "language")
    lines += ["", "Per claim type, team sets together (development only):", ""]
    allg = [r for _, g, _, _ in gold_sets for r in g]
    lines += table3(allg, [x for _, _, gl, _ in gold_sets for x in gl], [x for _, _, _, gr in gold_sets for x in gr],
                    "claim_type")
    lines += ablation(Path(args.data))
    print("\n".join(lines), flush=True)
    if args.write_docs:
        write_section(lines, done=args.skip_public)
    if not args.skip_public:
        res = Resources(embedder_factory=lambda: emb)
        part = ["", "### WiCE test (supported vs partially / not supported; whole cited article as context)", ""]
        part += wice(res)
        print("\n".join(part), flush=True)
        lines += part
        if args.write_docs:
            write_section(lines, done=False)
        part = ["", "### SummEdits test (summary vs document; consistent is the positive class)", ""]
        if args.summedits_limit:
            part += [
                f"A seeded sample of {args.summedits_limit} of the 2,733 test summaries (time on the shared machine).",
                "",
            ]
        part += summedits(res, args.summedits_limit)
        print("\n".join(part), flush=True)
        lines += part
    lines += ["", LIMITS]
    lines += ["", f"Total run time {time.perf_counter() - t_start:.0f} s."]
    print(lines[-1])
    if args.write_docs:
        write_section(lines, done=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

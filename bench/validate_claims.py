"""Agreement of the claim verifier (offline heuristic, and the LLM judge when one is configured)
with human labels. Writes the "Claim verification" section of docs/validation.md.

    python bench/validate_claims.py [--write-docs] [--judge openai:MODEL] [--summedits-limit N]

Data (../shared/data, see each README; the held-out portions are not in these files):
- tests/data/claims_gold.jsonl (development: its failures were read while the rules were
  written) and tests/data/claims_gold_holdout.jsonl (written after the rules were frozen, never
  tuned on): one context and one claim, 3-way labels with the contradiction type;
- WiCE claims (dev and test): a Wikipedia sentence against the sentences of the article it
  cites. WiCE has no "contradicted" label, so the task is binary: ``supported`` -> positive,
  ``partially_supported`` and ``not_supported`` -> negative. The claim is split by the offline
  extractor and predicted supported when every part is SUPPORTED (faithfulness = 1); AUROC uses
  the faithfulness value. A 3-class reading (1 -> supported, in between -> partial, 0 -> not)
  is reported as well;
- SummEdits: summary against document, label consistent / inconsistent. Scores: faithfulness
  and 1 - contradicted_share. The decision threshold is fitted (best balanced accuracy) on the
  ``evaluation`` split and reported on the ``test`` split; AUROC needs no threshold.

Nothing in the verifier was fitted on WiCE or SummEdits.
"""
from __future__ import annotations

import argparse
import gzip
import json
import os
import random
import sys
import time
from collections import Counter
from pathlib import Path

import numpy as np
from scipy.stats import rankdata

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from rageval.metrics import claim_judge, claims  # noqa: E402
from rageval.metrics.base import Resources, Sample, evaluate, get_metric  # noqa: E402
from rageval.metrics.claim_verify import HeuristicVerifier  # noqa: E402

DATA = ROOT.parent / "shared" / "data"
DOCS = ROOT / "docs" / "validation.md"
BEGIN, END = "<!-- claims:begin -->", "<!-- claims:end -->"
LABELS3 = ("SUPPORTED", "CONTRADICTED", "NOT_MENTIONED")
SEED = 20261129


# --- statistics ---------------------------------------------------------------------------

def auroc(scores, positive) -> float:
    """Probability that a random positive outranks a random negative (ties count 1/2)."""
    scores, positive = np.asarray(scores, float), np.asarray(positive, bool)
    n_pos, n_neg = positive.sum(), (~positive).sum()
    if not n_pos or not n_neg:
        return float("nan")
    ranks = rankdata(scores)
    return float((ranks[positive].sum() - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg))


def macro_f1(pred, gold, classes) -> float:
    f1s = []
    for c in classes:
        tp = sum(p == c and g == c for p, g in zip(pred, gold))
        fp = sum(p == c and g != c for p, g in zip(pred, gold))
        fn = sum(p != c and g == c for p, g in zip(pred, gold))
        f1s.append(2 * tp / (2 * tp + fp + fn) if tp + fp + fn else 0.0)
    return float(np.mean(f1s))


def balanced_accuracy(pred, gold) -> float:
    classes = sorted(set(gold))
    return float(np.mean([np.mean([p == c for p, g in zip(pred, gold) if g == c]) for c in classes]))


def best_threshold(scores, positive) -> float:
    """The cut (predict positive when score >= t) with the best balanced accuracy."""
    cands = sorted(set(scores)) + [float("inf")]
    return max(cands, key=lambda t: (balanced_accuracy([s >= t for s in scores], positive), -t))


# --- runs ---------------------------------------------------------------------------------

def gold_sets(embedder) -> list[dict]:
    out = []
    for name, path in (("development", "claims_gold.jsonl"), ("held-out", "claims_gold_holdout.jsonl")):
        rows = [json.loads(x) for x in (ROOT / "tests" / "data" / path).read_text().splitlines() if x.strip()]
        for label, emb in (("MiniLM", embedder), ("no embedder", None)):
            got = HeuristicVerifier(emb).verify_many([([r["claim"]], [r["context"]]) for r in rows])
            out.append(score3(f"{name} ({len(rows)} pairs), heuristic + {label}", rows, [g[0].label for g in got]))
    return out


def score3(name, rows, pred) -> dict:
    gold = [r["label"] for r in rows]
    contra = [(p == "CONTRADICTED", r["type"]) for p, r in zip(pred, rows) if r["label"] == "CONTRADICTED"]
    by_type = Counter(t for _, t in contra)
    hit = Counter(t for ok, t in contra if ok)
    return {"name": name, "n": len(rows), "accuracy": float(np.mean([p == g for p, g in zip(pred, gold)])),
            "macro_f1": macro_f1(pred, gold, LABELS3), "contradiction_recall": float(np.mean([ok for ok, _ in contra])),
            "by_type": {t: f"{hit[t]}/{by_type[t]}" for t in sorted(by_type)}}


def faith_scores(samples, resources) -> list[tuple[float | None, float | None]]:
    res = evaluate(samples, [get_metric("faithfulness", judge=resources.judge or "heuristic"),
                             get_metric("contradicted_share", judge=resources.judge or "heuristic")], resources)
    return [(f.value, None if c.value is None else 1 - c.value)
            for f, c in zip(res["faithfulness"], res["contradicted_share"])]


def load_wice() -> list[dict]:
    with gzip.open(DATA / "wice" / "claims.jsonl.gz", "rt", encoding="utf-8") as f:
        return [r for r in map(json.loads, f) if r["level"] == "claim"]


def wice(resources, rows) -> list[dict]:
    samples = [Sample(id=r["id"], answer=r["claim"], contexts=("\n".join(r["evidence"]),)) for r in rows]
    scores = faith_scores(samples, resources)
    out = []
    for split in sorted({r["split"] for r in rows}):
        idx = [i for i, r in enumerate(rows) if r["split"] == split]
        f = [scores[i][0] for i in idx]
        scored = [i for i, v in zip(idx, f) if v is not None]
        fv = [scores[i][0] for i in scored]
        gold = [rows[i]["label"] == "supported" for i in scored]
        pred = [v == 1.0 for v in fv]
        g3 = [rows[i]["label"] for i in scored]
        p3 = ["supported" if v == 1.0 else "not_supported" if v == 0.0 else "partially_supported" for v in fv]
        out.append({"split": split, "n": len(idx), "unscored": len(idx) - len(scored),
                    "accuracy": float(np.mean([p == g for p, g in zip(pred, gold)])),
                    "macro_f1": macro_f1(pred, gold, (True, False)), "balanced_accuracy": balanced_accuracy(pred, gold),
                    "auroc": auroc(fv, gold), "acc3": float(np.mean([p == g for p, g in zip(p3, g3)])),
                    "macro_f1_3": macro_f1(p3, g3, ("supported", "partially_supported", "not_supported"))})
    return out


def load_summedits(limit: int | None) -> list[dict]:
    with gzip.open(DATA / "summedits" / "items.jsonl.gz", "rt", encoding="utf-8") as f:
        rows = list(map(json.loads, f))
    if limit and limit < len(rows):
        rows = sorted(random.Random(SEED).sample(rows, limit), key=lambda r: r["id"])
    return rows


def summedits(resources, rows) -> dict:
    samples = [Sample(id=r["id"], answer=r["summary"], contexts=(r["document"],)) for r in rows]
    scores = faith_scores(samples, resources)
    out: dict = {"n": len(rows), "unscored": sum(s[0] is None for s in scores), "rows": []}
    for k, name in ((0, "faithfulness"), (1, "1 - contradicted_share")):
        usable = [(r, s[k]) for r, s in zip(rows, scores) if s[k] is not None]
        fit = [(v, r["label"] == 1) for r, v in usable if r["split"] == "evaluation"]
        t = best_threshold([v for v, _ in fit], [y for _, y in fit]) if fit else 1.0
        test = [(r, v) for r, v in usable if r["split"] == "test"]
        row = {"score": name, "threshold": t, "domains": {}}
        for dom in sorted({r["domain"] for r, _ in test}) + ["all"]:
            part = [(v, r["label"] == 1) for r, v in test if dom in ("all", r["domain"])]
            vals, gold = [v for v, _ in part], [y for _, y in part]
            row["domains"][dom] = {"n": len(part), "auroc": auroc(vals, gold),
                                   "bacc_fit": balanced_accuracy([v >= t for v in vals], gold),
                                   "bacc_eq1": balanced_accuracy([v >= 1.0 for v in vals], gold)}
        out["rows"].append(row)
    return out


def judge_runs(spec: str, limit_wice: int, limit_summ: int) -> dict:
    from rageval.llm.client import make_llm_client

    llm = make_llm_client({"judge": spec})
    res = Resources(llm=llm, judge=spec)
    out: dict = {"judge": spec, "gold": []}
    for name, path in (("development", "claims_gold.jsonl"), ("held-out", "claims_gold_holdout.jsonl")):
        rows = [json.loads(x) for x in (ROOT / "tests" / "data" / path).read_text().splitlines() if x.strip()]
        got = claim_judge.verify(llm, [([r["claim"]], [r["context"]]) for r in rows])
        pred = [g[0].label if isinstance(g, list) else "FAILED" for g in got]
        out["gold"].append(score3(f"{name} ({len(rows)} pairs), judge {spec}", rows, pred))
    rows = [r for r in load_wice() if r["split"] == "test"]
    out["wice"] = wice(res, sorted(random.Random(SEED).sample(rows, min(limit_wice, len(rows))), key=lambda r: r["id"]))
    out["summedits"] = summedits(res, load_summedits(limit_summ))
    return out


# --- report -------------------------------------------------------------------------------

INTRO = """What is measured: the offline claim verifier (`faithfulness`, `contradicted_share`,
`not_mentioned_share` and `groundedness` with `--judge heuristic`): claim extraction by rules,
then each claim labelled SUPPORTED / CONTRADICTED / NOT_MENTIONED by lexical coverage, MiniLM
similarity and mismatch checks (numbers, units, dates, negation, antonyms, names); see
`rageval/metrics/claim_verify.py`. Nothing was fitted on WiCE or SummEdits.

- Hand-labelled pairs (`tests/data/claims_gold*.jsonl`, 7 domains, one context and one claim,
  contradiction type given). The *development* set was written before the verifier, but its
  failures were read while the rules were debugged, so its figure is optimistic. The *held-out*
  set was written after the rules were frozen and was never used to change them: it is the
  honest figure. Target (issue 5): 3-way accuracy >= 0.75, contradiction recall >= 0.7.
- WiCE has no contradiction label: `supported` is the positive class, `partially_supported` and
  `not_supported` the negative one. A WiCE claim is one Wikipedia sentence, so it is split by
  the offline extractor and predicted supported when every part is SUPPORTED (faithfulness = 1);
  AUROC ranks by faithfulness. The 3-class reading maps faithfulness 1 / between / 0 to
  supported / partially / not supported. Evidence is the whole cited article (median 77
  sentences), not the annotated sentences.
- SummEdits: each summary is scored against its document; consistent is the positive class.
  The balanced-accuracy threshold is the best one on the `evaluation` split (all domains),
  applied to the `test` split; "t = 1" needs no fitting (faithfulness = 1, or no contradicted
  claim). Published for comparison: GPT-4 82.4% balanced accuracy, most LLMs near 50%,
  ROUGE-L precision AUROC 0.50."""

BLIND_SPOTS = """Known blind spots of the heuristic (seen in the held-out errors and on SummEdits):
opposites missing from its small table (accelerated/slowed, variable/fixed, triumphant/troubled);
two names that are both in the evidence but swapped in role (Aldrin/Collins, TCP/UDP);
lower-case swaps (liver/pancreas); idioms for numbers (hat-trick); one substituted word in a
long sentence (coverage >= 0.8 tolerates one unmatched content word in five); and additions
of a named thing to an otherwise matching sentence, which it can read as a swap. Use an LLM judge
(`--judge openai:MODEL`) where these matter; the heuristic is a transparent first pass, and its
verdicts are labelled `judge:heuristic` everywhere."""


def f3(x) -> str:
    return "n/a" if x is None or x != x else f"{x:.3f}"


def markdown(res: dict, command: str) -> str:
    lines = [BEGIN, "## Claim verification", "",
             f"Command: `{command}` ({res['seconds']:.0f} s on this machine, MiniLM embeddings, 2 cores).", "",
             INTRO, "", "### Hand-labelled pairs (3-way)", "",
             "| set | accuracy | macro-F1 | contradiction recall | recall by type |", "|---|---|---|---|---|"]
    for g in res["gold"] + res.get("judge", {}).get("gold", []):
        types = ", ".join(f"{t} {v}" for t, v in g["by_type"].items())
        lines.append(f"| {g['name']} | {f3(g['accuracy'])} | {f3(g['macro_f1'])} | "
                     f"{f3(g['contradiction_recall'])} | {types} |")
    lines += ["", "### WiCE (binary: supported vs partially/not supported)", "",
              "| run | split | n | unscored | accuracy | macro-F1 | balanced acc. | AUROC | 3-class acc. "
              "| 3-class macro-F1 |",
              "|---|---|---|---|---|---|---|---|---|---|"]
    judge = res.get("judge", {})
    for who, rows in (("heuristic", res["wice"]), (judge.get("judge"), judge.get("wice", []))):
        for w in rows:
            lines.append(f"| {who} | {w['split']} | {w['n']} | {w['unscored']} | {f3(w['accuracy'])} | "
                         f"{f3(w['macro_f1'])} | {f3(w['balanced_accuracy'])} | {f3(w['auroc'])} | "
                         f"{f3(w['acc3'])} | {f3(w['macro_f1_3'])} |")
    lines += ["", "### SummEdits (summary vs document; test split; threshold fitted on the evaluation split)", "",
              "| run | score | domain | n | AUROC | balanced acc. (fitted t) | balanced acc. (t = 1) |",
              "|---|---|---|---|---|---|---|"]
    for who, s in (("heuristic", res["summedits"]), (judge.get("judge"), judge.get("summedits"))):
        if not s:
            continue
        for row in s["rows"]:
            for dom, d in row["domains"].items():
                lines.append(f"| {who} | {row['score']} (t = {row['threshold']:.3f}) | {dom} | {d['n']} | "
                             f"{f3(d['auroc'])} | {f3(d['bacc_fit'])} | {f3(d['bacc_eq1'])} |")
    if "judge" not in res:
        lines += ["", "LLM judge: not run: no judge configured (set OPENAI_BASE_URL and pass --judge openai:MODEL)."]
    lines += ["", res["notes"], "", BLIND_SPOTS, END]
    return "\n".join(lines) + "\n"


def write_docs(section: str) -> None:
    text = DOCS.read_text(encoding="utf-8") if DOCS.exists() else "# Validation\n"
    if BEGIN in text and END in text:
        text = text[: text.index(BEGIN)] + section + text[text.index(END) + len(END) + 1:]
    else:
        text = text.rstrip("\n") + "\n\n" + section
    DOCS.parent.mkdir(parents=True, exist_ok=True)
    DOCS.write_text(text, encoding="utf-8")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--write-docs", action="store_true", help="replace the section in docs/validation.md")
    ap.add_argument("--judge", default=os.environ.get("RAGEVAL_JUDGE", ""), help="openai:MODEL for the judge runs")
    ap.add_argument("--summedits-limit", type=int, default=0, help="seeded subsample of SummEdits rows (0 = all)")
    ap.add_argument("--judge-wice", type=int, default=100)
    ap.add_argument("--judge-summedits", type=int, default=200)
    args = ap.parse_args(argv)
    from rageval.embed import make_embedder

    start = time.time()
    embedder = make_embedder("local")
    offline = Resources(embedder_factory=lambda: embedder)
    res: dict = {"gold": gold_sets(embedder)}
    print("gold sets done", round(time.time() - start), file=sys.stderr)
    res["wice"] = wice(offline, load_wice())
    print("wice done", round(time.time() - start), file=sys.stderr)
    claims._memo.clear()
    res["summedits"] = summedits(offline, load_summedits(args.summedits_limit))
    print("summedits done", round(time.time() - start), file=sys.stderr)
    if args.judge and (os.environ.get("OPENAI_BASE_URL") or os.environ.get("RAGEVAL_JUDGE_BASE_URL")):
        res["judge"] = judge_runs(args.judge, args.judge_wice, args.judge_summedits)
    res["seconds"] = time.time() - start
    limit = (f"a seeded subsample of {args.summedits_limit} SummEdits rows" if args.summedits_limit
             else "all SummEdits rows")
    res["notes"] = (f"Notes: {limit}; WiCE claim level, dev and test. Judge runs use seeded subsamples "
                    f"({args.judge_wice} WiCE test claims, {args.judge_summedits} SummEdits rows).")
    command = "python bench/validate_claims.py --write-docs" + (
        f" --summedits-limit {args.summedits_limit}" if args.summedits_limit else "")
    section = markdown(res, command)
    print(section)
    if args.write_docs:
        write_docs(section)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

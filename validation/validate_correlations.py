"""The seed paper's table on real human data: SQuALITY, every offline metric against the raters.

    python -m validation.validate_correlations [--data DIR] [--n-boot 1000] [--write docs/validation.md]

What it does, through the same library paths a user's data goes through:

1. Scores SQuALITY's 195 rated responses (BART, BART+DPR and a human writer, 65 questions) with
   every offline reference-based metric, one stored import run per system, in the project
   ``squality`` under ``$RAGEVAL_HOME`` (a DuckDB file like any other project's). The human
   response copies one of the question's four references; that reference is left out for all
   three systems of the question (like for like), so each response is scored against three.
2. Imports the three raters' correctness ratings through ``rageval.human.import_ratings``,
   mapped from 0-100 to the stored 1-5 scale: ``rating = min(5, 1 + floor(score / 20))``
   (0-19 -> 1, ..., 80-100 -> 5). The item is the question, so the runs are paired by question.
3. Runs ``correlate_runs`` (Spearman, seeded bootstrap CIs over responses, median consensus),
   stored in the project's ``correlations`` table, over all three systems and grouped by system
   (``model``), and prints the table with the human ceiling (leave-one-rater-out).
4. For comparison with the published figures (data README: ROUGE-L vs mean human correctness
   0.35 with all three systems, 0.22 with the two models only; raters' alpha 0.46), the same
   Spearman against the raw 0-100 mean correctness, and Krippendorff's alpha on the raw scores
   and on the mapped 1-5 ratings.
5. Compares the three systems with ``compare_runs`` (Friedman, Conover-Holm) on the human score
   and on each metric.

Nothing is fitted or tuned here. Claim-based metrics need retrieved contexts (SQuALITY has whole
stories of ~5,000 words, not retrieved passages) and LLM metrics need a judge: both are left out.
"""
from __future__ import annotations

import argparse
import io
import math
import sys
import time
from pathlib import Path

import numpy as np

from rageval import human, stats
from rageval.config import ImportConfig, run_model
from rageval.human.consensus import wide
from rageval.project import open_project
from rageval.runs.scoring import score
from rageval.store import runs as rstore
from rageval.types import Sample
from training.data import DATA, read_jsonl
from validation.docs_section import replace_section

ROOT = Path(__file__).resolve().parent.parent

METRICS = ["exact_match", "token_f1", "token_precision", "token_recall", "bleu", "rouge1", "rouge2", "rougeL",
           "rougeLsum", "bertscore_f1", "bertscore_precision", "bertscore_recall", "answer_similarity",
           "answer_correctness_offline"]
SYSTEMS = ("bart", "bart-dpr", "human")
SOURCE = "squality:{system}"
START, END = "<!-- correlations:begin -->", "<!-- correlations:end -->"


def data_dir(arg: str | None) -> Path:
    for cand in (arg, DATA):
        if cand and (Path(cand) / "squality" / "rated_responses.jsonl").is_file():
            return Path(cand)
    raise SystemExit("SQuALITY not found: pass --data DIR (the folder holding squality/)")


def load(data: Path) -> list[dict]:
    questions = {q["question_id"]: q for q in read_jsonl(data / "squality" / "questions.jsonl")}
    rated = read_jsonl(data / "squality" / "rated_responses.jsonl")
    held = {r["question_id"]: r["reference_index"] for r in rated if r["system"] == "human"}
    return [{**r, "question": questions[r["question_id"]]["question"],
             "references": [x for i, x in enumerate(questions[r["question_id"]]["references"])
                            if i != held.get(r["question_id"])]} for r in rated]


def to_rating(correctness: float) -> int:
    return min(5, 1 + int(math.floor(correctness / 20.0)))


def score_systems(project, rows: list[dict], systems=SYSTEMS) -> dict[str, str]:
    """One import run per system (reused when the project already has it)."""
    runs = {}
    existing = {r.config.source: r.id for r in rstore.runs(project.db_path)
                if isinstance(r.config, ImportConfig) and r.status == "finished"}
    for system in systems:
        source = SOURCE.format(system=system)
        if source in existing:
            runs[system] = existing[source]
            continue
        samples = [Sample(id=r["question_id"], question=r["question"], answer=r["response"],
                          references=tuple(r["references"])) for r in rows if r["system"] == system]
        t0 = time.perf_counter()
        runs[system] = score(samples, METRICS, project=project, source=source).run_id
        print(f"scored {system}: {len(samples)} responses in {time.perf_counter() - t0:.0f} s", file=sys.stderr)
    return runs


def import_raters(project, rows: list[dict], runs: dict[str, str]) -> human.RatingsImport:
    buf = io.StringIO()
    buf.write("run,item_id,annotator,rating\n")
    for r in rows:
        for rt in r["ratings"]:
            buf.write(f"{runs[r['system']]},{r['question_id']},rater{rt['rater']},{to_rating(rt['correctness'])}\n")
    return human.import_ratings(project, "squality_ratings.csv", buf.getvalue().encode())


def fmt(c: dict | stats.Correlation | None) -> str:
    if c is None:
        return ""
    get = c.get if isinstance(c, dict) else (lambda k: getattr(c, k))
    if get("rho") is None:
        return f"undefined ({get('reason')})"
    ci = f" [{get('ci_low'):.3f}, {get('ci_high'):.3f}]" if get("ci_low") is not None else ""
    return f"{get('rho'):.3f}{ci}"


def report(project, rows, runs, n_boot: int) -> list[str]:
    run_ids = [runs[s] for s in SYSTEMS]
    t0 = time.perf_counter()
    overall = human.correlate_runs(project, run_ids, group_by="none", n_boot=n_boot)
    by_system = human.correlate_runs(project, run_ids, group_by="model", n_boot=n_boot)
    seconds = time.perf_counter() - t0
    frame = human.build_frame(project, run_ids)
    mean_raw = {(r["question_id"], runs[r["system"]]): r["human_mean"] for r in rows}
    raw = np.array([mean_raw[(i, run)] for i, run in zip(frame.item_id, frame.run_id)])
    models = frame.run_id.isin([runs["bart"], runs["bart-dpr"]]).to_numpy()
    system_of = {v: k for k, v in runs.items()}
    # a group is named by its runs' model (rageval.config.run_model: "imported squality:SYSTEM")
    groups = {g: g.removeprefix(run_model(ImportConfig(source=SOURCE.format(system="")))) for g in by_system.groups}
    lines = [
        f"195 responses (BART, BART+DPR, human writer) to 65 questions of 13 stories; each scored against the "
        f"three references that the human response does not copy. Human score: median of the three raters' "
        f"correctness, mapped 0-100 -> 1-5 (`min(5, 1 + floor(score/20))`). Spearman with a seeded 95% bootstrap "
        f"CI over responses ({n_boot} resamples); the analyses are stored in the project's `correlations` table "
        f"(`{overall.id}`, `{by_system.id}`), computed in {seconds:.1f} s. The raw column is Spearman against the "
        f"raw 0-100 mean correctness (the published figure's target), over all three systems and over the two "
        f"models only.", "",
        "| metric | vs human 1-5, all systems | " + " | ".join(f"{groups[g]} only" for g in by_system.groups)
        + " | vs raw mean, all | vs raw mean, models only |",
        "|---|---|" + "---|" * len(by_system.groups) + "---|---|",
    ]
    for m in [m for m in overall.metrics if m != "human"] + [human.CEILING]:
        cells = [fmt(overall.cell("all", m, "human"))] + [fmt(by_system.cell(g, m, "human")) for g in by_system.groups]
        if m in frame.columns:
            x = frame[m].to_numpy(dtype=float)
            cells += [
                fmt(stats.spearman(x, raw, n_boot=n_boot)),
                fmt(stats.spearman(x[models], raw[models], n_boot=n_boot)),
            ]
        else:
            cells += ["", ""]
        lines.append(f"| {m} | " + " | ".join(cells) + " |")
    long = human.ratings_frame(project, run_ids)
    w = wide(long)
    raw_r = {
        (r["question_id"], runs[r["system"]], f"rater{rt['rater']}"): rt["correctness"]
        for r in rows
        for rt in r["ratings"]
    }
    wr = w.copy()
    for a in wr.index:
        for k in wr.columns:
            run, item = k.split("/", 1)
            wr.loc[a, k] = raw_r.get((item, run, a), np.nan)
    raw_long = long.assign(rating=[raw_r[(i, r, a)] for i, r, a in zip(long.item_id, long.run_id, long.annotator)])
    ceil_raw = human.human_ceiling(raw_long, consensus_method="mean")
    ag = human.agreement_of(long)
    lines += ["", "Raters (4 distinct reviewers, 3 per response):", "",
              f"- Krippendorff's alpha on correctness: raw 0-100 interval "
              f"{stats.krippendorff_alpha(wr.to_numpy(dtype=float), level='interval'):.3f}, raw ordinal "
              f"{stats.krippendorff_alpha(wr.to_numpy(dtype=float), level='ordinal'):.3f}; mapped 1-5 ordinal "
              f"{ag['alpha']:.3f} (published: 0.46). Exact agreement on 1-5 {ag['exact']:.0%}, within one "
              f"{ag['within_one']:.0%} of {ag['pairs']} rater pairs.",
              f"- Human ceiling (each rater vs the others' consensus, leave-one-rater-out Spearman, mean over raters "
              f"weighted by responses): {fmt(overall.cell('all', human.CEILING, 'human'))} on 1-5, "
              f"{ceil_raw['rho']:.3f} on the raw scores (others' mean). Per rater: "
              + ", ".join(f"{a} {v['rho']:.2f} (n={v['n']})" for a, v in
                          human.human_ceiling(long)["annotators"].items() if v["rho"] is not None) + "."]
    lines += [
        "",
        "Friedman over the three systems (items = questions; `python -m rageval compare`):",
        "",
        "| score | Friedman chi2 | p | mean rank bart / bart-dpr / human | first-rank share bart / bart-dpr / human |",
        "|---|---|---|---|---|",
    ]
    for m in ["human"] + [m for m in overall.metrics if m != "human"]:
        try:
            c = human.compare_runs(project, run_ids, m)
        except Exception as exc:  # a metric constant on every item has no ranking
            lines.append(f"| {m} | undefined ({exc}) | | | |")
            continue
        if c.friedman.statistic is None:
            lines.append(f"| {m} | undefined ({c.friedman.reason}) | | | |")
            continue
        lines.append(f"| {m} | {c.friedman.statistic:.2f} | {c.friedman.p:.2g} | "
                     + " / ".join(f"{c.mean_ranks[r]:.2f}" for r in run_ids) + " | "
                     + " / ".join(f"{c.first_rank_share[r]:.2f}" for r in run_ids) + " |")
        if m == "human":
            verdict = c.verdict
    lines += [
        "",
        f"Verdict on the human score: {_short_names(verdict, runs)}.",
    ]
    del system_of
    return lines


def _short_names(text: str, runs: dict[str, str]) -> str:
    """``text`` with each system's run id replaced by the system's name."""
    for name in ("bart", "bart-dpr", "human"):
        text = text.replace(runs[name], name)
    return text


def write_section(path: Path, lines: list[str]) -> None:
    replace_section(path, START, END, ["## Metric-human correlations (SQuALITY)", "",
                                       "Command: `RAGEVAL_HOME=$(mktemp -d) python -m validation.validate_correlations "
                                       "--write docs/validation.md`", "", *lines])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data")
    ap.add_argument("--n-boot", type=int, default=1000)
    ap.add_argument("--write", metavar="MD")
    ap.add_argument("--score-only", metavar="SYSTEM", choices=SYSTEMS,
                    help="only score this system (to score the three in parallel processes), then stop")
    a = ap.parse_args()
    rows = load(data_dir(a.data))
    project = open_project("squality")
    if a.score_only:
        score_systems(project, rows, (a.score_only,))
        return
    runs = score_systems(project, rows)
    if not human.ratings_frame(project, list(runs.values())).shape[0]:
        imported = import_raters(project, rows, runs)
        print(f"ratings: {imported.imported} imported, {len(imported.errors)} rejected", file=sys.stderr)
    lines = report(project, rows, runs, a.n_boot)
    print("\n".join(lines))
    print(f"\nstored in {project.db_path}", file=sys.stderr)
    if a.write:
        write_section(Path(a.write), lines)


if __name__ == "__main__":
    main()

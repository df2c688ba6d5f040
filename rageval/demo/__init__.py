"""The bundled demo project: a small corpus, a QA set, an evaluated run and human ratings.

``load_demo()`` makes it once in the project ``demo`` and returns what it made: from the shipped snapshot of
its derived data when that was made by this code (:mod:`rageval.demo.snapshot`), else built from nothing
(ingest, run, scores: about 10 CPU-seconds, the model load included; bench/bench_demo.py measures both); later
calls return the existing run at once, and a build that was interrupted resumes its run. The ratings are illustrative:
written by the rageval team for the demo run's answers (three annotator profiles: balanced, strict about verbose
answers, lenient), not collected in a study. So are its claim labels (``claim_labels.csv``: the same three profiles
labelling the claims of the LLM system's answers and some of the pipeline run's, written by the rageval team), so the
judge-agreement tables and the prediction-powered estimates have content with no key. The demo also stores one
correlation analysis of its metrics against those ratings; the Compare page compares its two runs.
"""
from __future__ import annotations

import csv
import json
import shutil
from importlib import resources
from pathlib import Path
from typing import Any, Callable

from rageval.config import RunConfig
from rageval.ingest.corpus import ingest
from rageval.runs.pipeline import execute, start_run
from rageval.project import open_project
from rageval.ingest.qa import import_qa
from rageval.store import human as human_store
from rageval.store import runs as store
from rageval.demo.snapshot import load_snapshot

DEMO_PROJECT = "demo"
DEMO_CORPUS = "handbook"
DEMO_QA = "handbook-qa"


def demo_dir() -> Path:
    return Path(str(resources.files("rageval.demo")))


def sample_qa_csv() -> bytes:
    """The sample QA set shipped for the README and the QA sets page (11 questions on the demo documents)."""
    return (demo_dir() / "sample_qa.csv").read_bytes()


def demo_run_id() -> str | None:
    """The newest finished run of the demo project, if it has been built."""
    project = open_project(DEMO_PROJECT)
    finished = [r for r in store.runs(project.db_path) if r.status == "finished" and r.kind == "pipeline"]
    return finished[0].id if finished else None


def load_ratings(path: Path) -> list[tuple[str, str, int]]:
    """Rows ``item_id, annotator, rating`` of the demo ratings CSV."""
    with path.open(encoding="utf-8") as fh:
        return [(r["item_id"], r["annotator"], int(r["rating"])) for r in csv.DictReader(fh)]


def load_demo(*, force: bool = False, progress: Callable[[str, int, int], None] | None = None) -> dict[str, Any]:
    """Build the demo project (or return the existing one): corpus, QA set, run, ratings."""
    project = open_project(DEMO_PROJECT)
    if force:
        shutil.rmtree(project.root, ignore_errors=True)
        project = open_project(DEMO_PROJECT)
    run_id = None if force else demo_run_id()
    # the shipped build, when made by this code
    if run_id is None and not force and load_snapshot(project, RunConfig(corpus=DEMO_CORPUS, qa_set=DEMO_QA)):
        run_id = demo_run_id()
    if run_id is None:
        folder = demo_dir()
        ingest(project, DEMO_CORPUS, paths=[folder / "corpus"], progress=progress)
        qa_file = folder / "qa.jsonl"
        import_qa(project, qa_file.name, qa_file.read_bytes(), name=DEMO_QA)
        pending = [r for r in store.runs(project.db_path) if r.kind == "pipeline" and r.status != "finished"]
        # an interrupted build resumes its run instead of starting another
        run_id = pending[0].id if pending else start_run(project, RunConfig(corpus=DEMO_CORPUS, qa_set=DEMO_QA))
        execute(project, run_id, progress=progress)
        ratings_file = folder / "ratings.csv"
        if ratings_file.is_file():
            known = {a["item_id"] for a in store.answers(project.db_path, run_id)}
            human_store.save_ratings(
                project.db_path, [(run_id, *r) for r in load_ratings(ratings_file) if r[0] in known]
            )
    run = store.get_run(project.db_path, run_id)
    imported = analysis = None
    if run.status == "finished":
        imported = _import_llm_answers(project, run_id)
        analysis = demo_analysis(project, run_id)
        _import_claim_labels(project, {"pipeline": run_id, "llm": imported})
    return {"project": project.slug, "run_id": run_id, "items": run.n_items, "status": run.status,
            "import_run_id": imported, "analysis_id": analysis}


DEMO_COMPARE_METRIC = "answer_correctness_offline"


def demo_analysis(project, run_id: str) -> str:
    """The demo's stored correlation analysis (every metric vs the illustrative ratings), made once."""
    from rageval.human import correlate_runs, list_analyses

    for a in list_analyses(project):
        if a["runs"] == [run_id] and a["grouping"] == "none":
            return a["id"]
    return correlate_runs(project, [run_id]).id


LLM_ANSWERS_SOURCE = "demo: answers of an LLM-based system (written for the demo)"


def _import_llm_answers(project, run_id: str) -> str:
    """Score the bundled "LLM system" answers against the demo run's retrieved chunks.

    They were written for the demo to show what the evaluation finds in a generative system's
    answers: wrong numbers, a swapped name, an unsupported addition, a negation, hedging, a
    right abstention. Stored as an import run, like any user's own answers.
    """
    from rageval.config import DEFAULT_METRICS, ImportConfig
    from rageval.types import Sample
    from rageval.runs.scoring import score

    for r in store.runs(project.db_path):
        if isinstance(r.config, ImportConfig) and r.config.source == LLM_ANSWERS_SOURCE:
            return r.id
    by_id = {a["item_id"]: a for a in store.answers(project.db_path, run_id)}
    rows = [json.loads(line) for line in (demo_dir() / "llm_answers.jsonl").read_text(encoding="utf-8").splitlines()
            if line.strip()]
    samples = [
        Sample(id=r["id"], question=by_id[r["id"]]["question"], answer=r["answer"],
               contexts=tuple(by_id[r["id"]]["contexts"]), references=tuple(by_id[r["id"]]["references"]),
               context_ids=tuple(cid for cid, _ in by_id[r["id"]]["retrieved"]))
        for r in rows if r["id"] in by_id
    ]
    metrics = [m for m in DEFAULT_METRICS if "@" not in m and m != "mrr"]  # the retrieval is the run's own
    return score(samples, metrics, project=project, source=LLM_ANSWERS_SOURCE).run_id


def _import_claim_labels(project, runs: dict[str, str]) -> None:
    """The demo's illustrative claim labels (module docstring), once: the file's ``run`` column names
    the run by role (``pipeline``, ``llm``). A claim the demo's verifier no longer extracts is left out."""
    from rageval.human.claim_labels import import_claim_labels
    from rageval.store.claim_labels import labelled_runs

    if set(runs.values()) & set(labelled_runs(project.db_path)):
        return
    with (demo_dir() / "claim_labels.csv").open(encoding="utf-8", newline="") as fh:
        rows = list(csv.DictReader(fh))
    import pandas as pd

    from rageval.files import csv_text

    for row in rows:
        row["run"] = runs[row["run"]]
    import_claim_labels(project, "claim_labels.csv", csv_text(pd.DataFrame(rows)).encode())

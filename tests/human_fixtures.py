"""Small projects with runs, metric scores and ratings written straight through the store (fast)."""
from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import numpy as np

from rageval.project import open_project
from rageval.store import human as hstore
from rageval.store import runs as rstore
from rageval.store.db import session
from rageval.store.items import save_items

DOMAINS = ("hr", "science")


_TEMPLATES: dict[tuple, tuple[Path, dict]] = {}


def make_runs(name: str = "h", *, n: int = 30, runs: tuple[str, ...] = ("runA", "runB"), seed: int = 0,
              annotators: tuple[str, ...] = ("ann", "bob", "cy")):
    """:func:`build_runs`, built once per session per arguments and copied (a build costs seconds)."""
    key = (n, runs, seed, annotators)
    if key not in _TEMPLATES:
        saved = os.environ.get("RAGEVAL_HOME")
        tmp = Path(tempfile.mkdtemp(prefix="rageval-human-"))
        os.environ["RAGEVAL_HOME"] = str(tmp)
        try:
            project, truth = build_runs("template", n=n, runs=runs, seed=seed, annotators=annotators)
        finally:
            if saved is None:
                os.environ.pop("RAGEVAL_HOME", None)
            else:
                os.environ["RAGEVAL_HOME"] = saved
        _TEMPLATES[key] = (project.root, truth)
    root, truth = _TEMPLATES[key]
    project = open_project(name)
    shutil.rmtree(project.root)
    shutil.copytree(root, project.root)
    return project, dict(truth)


def build_runs(name: str = "h", *, n: int = 30, runs: tuple[str, ...] = ("runA", "runB"), seed: int = 0,
               annotators: tuple[str, ...] = ("ann", "bob", "cy")):
    """A project with a QA set of ``n`` items (two domains), runs scored on three metrics and rated.

    ``token_f1`` follows the latent quality closely, ``bleu`` loosely, ``noise`` not at all;
    each annotator rates the latent quality 1-5 with noise. runB is a little better than runA.
    Returns ``(project, truth)`` with ``truth[(run, item)]`` the latent quality in [0, 1].
    """
    project = open_project(name)
    with session(project.db_path):  # one connection for the whole build (each open costs ~0.1 s)
        truth = _fill(project, n=n, runs=runs, seed=seed, annotators=annotators)
    return project, truth


def _fill(project, *, n, runs, seed, annotators) -> dict:
    rng = np.random.default_rng(seed)
    items = [{"id": f"q{i:02d}", "question": f"Question number {i}?", "references": [f"gold {i}"],
              "relevant": {}, "domain": DOMAINS[i % 2]} for i in range(n)]
    rstore.save_qa_set(project.db_path, "qa", "qa.jsonl", items)
    truth = {}
    ratings = []
    for r, run in enumerate(runs):
        rstore.create_run(
            project.db_path,
            run,
            kind="pipeline",
            corpus="c",
            qa_set="qa",
            config={"generator": "extractive" if r == 0 else f"openai:model{r}"},
            config_hash=run,
            n_items=n,
        )
        entries = []
        for i, it in enumerate(items):
            q = float(np.clip(rng.uniform(0, 1) + 0.08 * r, 0, 1))
            truth[(run, it["id"])] = q
            scores = [
                {
                    "metric": "token_f1",
                    "signature": "token_f1|v1",
                    "value": float(np.clip(q + rng.normal(0, 0.08), 0, 1)),
                    "status": "ok",
                    "reason": None,
                },
                {
                    "metric": "bleu",
                    "signature": "bleu|v1",
                    "value": float(np.clip(q + rng.normal(0, 0.35), 0, 1)),
                    "status": "ok",
                    "reason": None,
                },
                {
                    "metric": "noise",
                    "signature": "noise|v1",
                    "value": float(rng.uniform()),
                    "status": "ok",
                    "reason": None,
                },
            ]
            if i == 3:
                scores[1] = {"metric": "bleu", "signature": "bleu|v1", "value": None, "status": "unscored",
                             "reason": "no_reference"}
            entries.append(({
                "item_id": it["id"], "ordinal": i, "question": it["question"], "answer": f"answer {i} of {run}",
                "references": it["references"], "contexts": [f"context {i}"], "status": "ok"}, scores, []))
            for a in annotators:
                ratings.append((run, it["id"], a, int(np.clip(round(1 + 4 * q + rng.normal(0, 0.6)), 1, 5))))
        save_items(project.db_path, run, entries)  # one transaction per run
        rstore.set_run_status(project.db_path, run, "finished")
    hstore.save_ratings(project.db_path, ratings)
    return truth

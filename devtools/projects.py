"""Builders of small projects for tests (not fixtures: plain functions, called by fixtures)."""
from __future__ import annotations

import atexit
import json
import os
import shutil
import tempfile
import warnings
from pathlib import Path
from typing import Callable

from rageval.demo import DEMO_CORPUS, DEMO_QA, demo_dir
from rageval.ingest.corpus import ingest
from rageval.project import Project, open_project
from rageval.ingest.qa import import_qa
from rageval.store.meta import CopiedStoreWarning

DOCS = {
    "volcanoes.txt": (
        "Mount Etna is an active stratovolcano on the east coast of Sicily, Italy. It stands about "
        "3,357 metres high and is the tallest active volcano in Europe outside the Caucasus.\n\n"
        "Etna's eruptions are frequent; a major one in 1669 destroyed part of the city of Catania."
    ),
    "tea.md": (
        "# Green tea\n\nGreen tea is made from the leaves of Camellia sinensis that have not been "
        "withered and oxidised. It originated in China.\n\nThe ideal brewing temperature for green tea "
        "is between 70 and 80 degrees Celsius, and steeping should last two to three minutes."
    ),
    "trains.txt": (
        "The Shinkansen is Japan's network of high-speed railway lines. The first line, the Tokaido "
        "Shinkansen, opened in 1964 between Tokyo and Osaka.\n\nTrains on the network reach operating "
        "speeds of up to 320 km/h."
    ),
}

QA = [
    {"id": "q1", "question": "How high is Mount Etna?", "reference": "3,357 metres", "relevant_ids": ["volcanoes.txt"]},
    {
        "id": "q2",
        "question": "When did the Tokaido Shinkansen open?",
        "reference": "1964",
        "relevant_ids": ["trains.txt"],
    },
    {
        "id": "q3",
        "question": "What is the ideal brewing temperature for green tea?",
        "reference": ["between 70 and 80 degrees Celsius", "70-80 °C"],
        "relevant_ids": ["tea.md"],
    },
    {"id": "q4", "question": "Which city did the 1669 eruption destroy part of?", "reference": "Catania"},
    {"id": "q5", "question": "Who won the 1998 football world cup?", "reference": "France"},
]


def write_docs(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in DOCS.items():
        (folder / name).write_text(text, encoding="utf-8")
    return folder


def small_project(tmp: Path, name: str = "t") -> Project:
    """A project with corpus 'c' (three documents, also written to ``tmp/docs``) and QA set 'qa'
    (five items), under the current ``RAGEVAL_HOME``: a copy of one built per test process."""
    write_docs(tmp / "docs")

    def build(project: Project, folder: Path) -> None:
        ingest(project, "c", paths=[write_docs(folder / "docs")])
        data = "".join(json.dumps(row) + "\n" for row in QA).encode()
        import_qa(project, "qa.jsonl", data, name="qa")

    return copy_of("small", build, name)


def demo_project(name: str, qa_items: int | None = None) -> Project:
    """A project with the demo corpus (``DEMO_CORPUS``, six documents) ingested and the demo QA
    set (``DEMO_QA``; its first ``qa_items`` rows if given) imported, under the current
    ``RAGEVAL_HOME``: the ingest is a copy of one made per test process (embedding the corpus
    costs seconds; the copy's embedding cache holds every vector, so nothing is embedded again)."""
    project = demo_corpus(name)
    rows = (demo_dir() / "qa.jsonl").read_bytes().splitlines()[:qa_items]
    import_qa(project, "qa.jsonl", b"\n".join(rows), name=DEMO_QA)
    return project


def demo_corpus(name: str) -> Project:
    """Project ``name`` with the demo corpus ingested and nothing else (the first step of
    :func:`demo_project`): a copy of the ingest made once per test process."""
    return copy_of("demo", lambda p, _: ingest(p, DEMO_CORPUS, paths=[demo_dir() / "corpus"]), name)


_BUILT: dict[str, Path] = {}


def copy_of(kind: str, build: Callable[[Project, Path], None], name: str) -> Project:
    """Project ``name`` under the current ``RAGEVAL_HOME`` holding a copy of the database of the
    project that ``build(project, scratch_folder)`` made, built once per process in a private home.

    Only the DuckDB file is copied (documents, chunks, QA sets, the embedding cache); the copy
    gets its own project id at once, as any copied store does (rageval.store.meta), so its first
    run indexes its chunks into its own Chroma collection from the embedding cache.
    """
    if kind not in _BUILT:
        folder = Path(tempfile.mkdtemp(prefix=f"rageval-test-{kind}-"))
        atexit.register(shutil.rmtree, folder, True)
        saved = os.environ.get("RAGEVAL_HOME")
        os.environ["RAGEVAL_HOME"] = str(folder / "home")
        try:
            source = open_project(kind)
            build(source, folder)
        finally:
            if saved is None:
                os.environ.pop("RAGEVAL_HOME", None)
            else:
                os.environ["RAGEVAL_HOME"] = saved
        _BUILT[kind] = source.db_path
    project = open_project(name)
    if project.db_path.exists():
        raise FileExistsError(f"project {name!r} already exists under {project.root.parent}; use another name")
    for suffix in ("", ".wal"):  # a write-ahead log, if the file was not checkpointed
        source = Path(f"{_BUILT[kind]}{suffix}")
        if source.exists():
            shutil.copyfile(source, f"{project.db_path}{suffix}")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", CopiedStoreWarning)
        project.id  # noqa: B018 - re-scoped now, quietly: the copy is ours, not a user's backup
    return project

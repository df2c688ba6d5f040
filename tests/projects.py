"""Builders of small projects for tests (not fixtures: plain functions, called by fixtures)."""
from __future__ import annotations

import json
from pathlib import Path

from rageval.ingest.corpus import ingest
from rageval.project import Project, open_project
from rageval.ingest.qa import import_qa

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
    {"id": "q2", "question": "When did the Tokaido Shinkansen open?", "reference": "1964", "relevant_ids": ["trains.txt"]},
    {"id": "q3", "question": "What is the ideal brewing temperature for green tea?",
     "reference": ["between 70 and 80 degrees Celsius", "70-80 °C"], "relevant_ids": ["tea.md"]},
    {"id": "q4", "question": "Which city did the 1669 eruption destroy part of?", "reference": "Catania"},
    {"id": "q5", "question": "Who won the 1998 football world cup?", "reference": "France"},
]


def write_docs(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in DOCS.items():
        (folder / name).write_text(text, encoding="utf-8")
    return folder


def small_project(tmp: Path, name: str = "t") -> Project:
    """A project with corpus 'c' (three documents) and QA set 'qa' (five items)."""
    project = open_project(name)
    ingest(project, "c", paths=[write_docs(tmp / "docs")])
    data = "".join(json.dumps(row) + "\n" for row in QA).encode()
    import_qa(project, "qa.jsonl", data, name="qa")
    return project

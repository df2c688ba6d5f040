"""The project's stored rubrics: adding one (``rageval rubric add``, the Run page's rubric form),
listing them, and resolving the ``rubric:NAME`` metrics a run or ``score`` names to parsed rubrics,
which reach :class:`rageval.metrics.rubric.RubricMetric` through the metric options (the metric
itself never reads the store)."""
from __future__ import annotations

import json
from typing import Mapping

from rageval.errors import ConfigError
from rageval.project import Project
from rageval.prompts.rubric import PREFIX, Rubric, parse_rubric
from rageval.store import rubrics as rubric_store
from rageval.util import canonical_json


def add_rubric(project: Project, rubric: Rubric, source_text: str | None = None) -> None:
    """Store ``rubric`` in the project (replacing one of the same name)."""
    from rageval.access import acting

    with acting(project, "run", "rubric_save", rubric.name, digest=rubric.digest()):
        rubric_store.save_rubric(project.db_path, rubric.name, canonical_json(rubric.to_dict()), rubric.digest(),
                                 source_text)


def add_rubric_text(project: Project, text: str, source: str = "the rubric") -> Rubric:
    """Parse the rubric ``text`` (TOML, from ``source``: a file name) and store it with its text in the
    project: ``rageval rubric add`` and the Run page's rubric form. A ConfigError says what to fix."""
    rubric = parse_rubric(text, source)
    add_rubric(project, rubric, text)
    return rubric


def project_rubrics(project: Project) -> dict[str, Rubric]:
    """The project's stored rubrics by name; one stored before a limit it breaks (more than 20
    criteria, say) is left out, so ``resolve`` asks for it to be added again, where the message
    names the limit, instead of a page or command failing on every other rubric."""
    out = {}
    for r in rubric_store.rubrics(project.db_path):
        try:
            out[r["name"]] = Rubric.from_dict(json.loads(r["body"]), f"stored rubric {r['name']}")
        except ConfigError:
            continue
    return out


def resolve(metrics: list[str], rubrics: Mapping[str, Rubric], project: Project | None) -> tuple[Rubric, ...]:
    """The rubrics that ``metrics`` name (``rubric:NAME``), from ``rubrics`` first, then the project's
    stored ones; a ConfigError names a rubric that is in neither."""
    wanted = [m[len(PREFIX):] for m in metrics if m.startswith(PREFIX)]
    if not wanted:
        return ()
    known = dict(project_rubrics(project)) if project is not None else {}
    known.update(rubrics)
    missing = [w for w in wanted if w not in known]
    if missing:
        raise ConfigError(f"no rubric {', '.join(map(repr, missing))} in this project; add it with "
                          "`rageval rubric add FILE` or pass --rubric FILE"
                          + (f" (stored: {', '.join(sorted(known))})" if known else ""))
    return tuple(known[w] for w in dict.fromkeys(wanted))

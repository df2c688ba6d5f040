"""Run presets: named run settings saved in the project (``<project>/presets.json``).

A preset holds the result-changing settings of a :class:`~rageval.config.RunConfig` except
the corpus and QA set (chunking, embedder, top-k, generator, temperature, judge, metrics), so
it applies to any data. Never a secret: keys stay in the environment.
"""
from __future__ import annotations

import json
import re
from typing import Any

from rageval.errors import ConfigError
from rageval.files import write_atomic
from rageval.project import Project

FIELDS = ("chunking", "embedder", "top_k", "generator", "temperature", "judge", "metrics")
_NAME = re.compile(r"^[\w .\-]{1,60}$")


def _path(project: Project):
    return project.root / "presets.json"


def presets(project: Project) -> dict[str, dict[str, Any]]:
    """Saved presets by name (empty when none or the file is unreadable)."""
    try:
        data = json.loads(_path(project).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return {str(k): v for k, v in data.items() if isinstance(v, dict)} if isinstance(data, dict) else {}


def save_preset(project: Project, name: str, settings: dict[str, Any]) -> None:
    """Save ``settings`` (a RunConfig.to_dict() or a subset) as ``name``, replacing one of that name."""
    from rageval.access import record, require

    require(project, "run")
    name = name.strip()
    if not _NAME.match(name):
        raise ConfigError(f"preset name {name!r} is not usable: 1-60 letters, digits, spaces, '.', '-' or '_'")
    kept = {k: settings[k] for k in FIELDS if k in settings}
    if isinstance(kept.get("metrics"), tuple):
        kept["metrics"] = list(kept["metrics"])
    data = presets(project)
    data[name] = kept
    project.root.mkdir(parents=True, exist_ok=True)
    write_atomic(_path(project), json.dumps(data, indent=1, sort_keys=True))  # a reader never sees half a file
    record(project, "preset_save", name)



"""The parameters that ship with rageval, read one way: :func:`load`.

A shipped model ``NAME`` is ``rageval/models/NAME.json`` (its metadata, or the whole model when
it is small: the answer-correctness weights, the BERTScore idf table) and, for a model with large
arrays, ``NAME.npz`` beside it. The learned claim verifiers of ``training/`` are read through
:func:`load` too, with their paths given (``training/models/``). :func:`load` reads
both and returns a :class:`Shipped`: the JSON as ``meta``, the arrays of the ``.npz`` as float32
``arrays`` (empty without one), and ``hash``.

One hash format for every shipped file (:func:`digest`): the first 10 hex digits of sha256 over
the parts joined by a NUL byte. A model's ``hash`` is ``digest(npz bytes, json bytes)``, or
``digest(json bytes)`` = ``sha256(file)[:10]`` for a JSON-only model; a signature that names a
model puts this hash (or a digest of it with the code tables that decide the same values) in it.
A model with a ``.npz`` must name the sha256 of its bytes in its JSON (the export writes it);
arrays that do not match are refused.

Errors are :class:`~rageval.errors.ConfigError` naming the file and how to rebuild it.
"""
from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from rageval.errors import ConfigError

FOLDER = Path(__file__).resolve().parent
#: how each shipped model is rebuilt (named in every error about its files)
REBUILD = {
    "answer_correctness": "run python -m training.train_correctness to train the correctness model",
    "wordpiece_idf": "rebuild it with python -m training.build_idf",
}
HASH_CHARS = 10


def digest(*parts: bytes | str) -> str:
    """The first :data:`HASH_CHARS` hex digits of sha256 over ``parts`` joined by a NUL byte
    (a ``str`` part as its UTF-8 bytes).

    >>> digest(b"abc") == hashlib.sha256(b"abc").hexdigest()[:10]
    True
    """
    h = hashlib.sha256()
    for i, part in enumerate(parts):
        h.update((b"\0" if i else b"") + (part.encode("utf-8") if isinstance(part, str) else part))
    return h.hexdigest()[:HASH_CHARS]


@dataclass(frozen=True, eq=False)
class Shipped:
    """One shipped model as read from its files (see the module docstring)."""

    name: str
    meta: dict[str, Any]
    hash: str
    raw: bytes = field(repr=False)  # the JSON file's bytes
    arrays: dict[str, np.ndarray] = field(default_factory=dict, repr=False)


def path(name: str, suffix: str = ".json") -> Path:
    """Where the shipped model ``name`` keeps its ``.json`` (or ``.npz``) file."""
    return FOLDER / f"{name}{suffix}"


def load(name: str, *, meta_path: Path | str | None = None, arrays_path: Path | str | None = None) -> Shipped:
    """The shipped model ``name`` (or the one at the paths given: a copy, a candidate).

    ``arrays_path`` defaults to ``NAME.npz`` when that file exists. A missing or unreadable
    file, or arrays that do not match the ``sha256`` their JSON names (or a JSON that names
    none), raise ConfigError."""
    mp = Path(meta_path) if meta_path else path(name)
    default_npz = path(name, ".npz")
    ap = Path(arrays_path) if arrays_path else (default_npz if meta_path is None and default_npz.is_file() else None)
    fix = REBUILD.get(name, "rebuild it")
    shown = f"{ap} / {mp}" if ap else str(mp)
    try:
        raw = mp.read_bytes()
        meta = json.loads(raw)
        arrays_raw = ap.read_bytes() if ap else None
        arrays = {}
        if ap:
            with np.load(ap) as z:
                arrays = {k: np.asarray(z[k], dtype=np.float32) for k in z.files}
    except (OSError, ValueError) as exc:
        raise ConfigError(f"the parameters of {name} ({shown}) cannot be read ({exc}); {fix}") from exc
    if not isinstance(meta, dict):
        raise ConfigError(f"{mp} holds no JSON object; {fix}")
    if arrays_raw is not None and hashlib.sha256(arrays_raw).hexdigest() != meta.get("sha256"):
        raise ConfigError(f"{ap} does not match the sha256 in {mp}; {fix}")
    h = digest(arrays_raw, raw) if arrays_raw is not None else digest(raw)
    return Shipped(name, meta, h, raw, arrays)

"""The parsed source of a file, read once per test process: the architecture and repository tests
walk the same few hundred files in many tests, and parsing is most of their time."""
from __future__ import annotations

import ast
from functools import lru_cache
from pathlib import Path


@lru_cache(maxsize=None)
def parsed(path: Path) -> ast.Module:
    """The AST of ``path`` (UTF-8); callers only read it."""
    return ast.parse(path.read_text(encoding="utf-8"))

"""Write one marked section of a docs page (between its START and END comments), keeping the rest.

Shared by the validation scripts that write their tables into ``docs/validation.md`` (and, for the learned claim
verifiers of ``training/``, ``training/VALIDATION.md``).
"""
from __future__ import annotations

from pathlib import Path

def replace_section(path: Path, start: str, end: str, lines: list[str]) -> None:
    """Put ``start``, ``lines`` and ``end`` in place of the old section, or append them."""
    block = "\n".join([start, *lines, end])
    text = path.read_text(encoding="utf-8") if path.is_file() else "# Validation against human judgments\n"
    if start in text and end in text:
        text = text[: text.index(start)] + block + text[text.index(end) + len(end):]
    else:
        text = text.rstrip("\n") + "\n\n" + block + "\n"
    path.write_text(text, encoding="utf-8")

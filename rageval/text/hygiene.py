"""Text hygiene at the boundary: every text that enters rageval is normalised here, once.

Two kinds of text come in:

* **content** (document text, QA rows, answers, ratings): lone surrogates (``"\\ud800"``, which
  JSON allows but UTF-8 cannot encode, so DuckDB, Parquet and ``print`` would fail on them) are
  replaced by U+FFFD and counted, and NUL characters are removed and counted; nothing else
  changes, so offsets and meaning stay as the user wrote them. :func:`clean_text`.
* **display names** (file names of uploads and folders, project and run labels): also stripped
  of every control, format and bidi character (U+202E RIGHT-TO-LEFT OVERRIDE would flip the
  error line it is printed in), of directory parts (``../../etc/passwd`` -> ``passwd``),
  whitespace runs collapsed, NFC-normalised and cut to :data:`MAX_NAME` characters keeping the
  extension. The original is kept only in escaped, ASCII-only form (``ascii()``) as metadata.
  :func:`display_name`.

**Rendered text** (a question, an answer, a domain shown in the app or the HTML report) goes
through :func:`without_bidi`: the bidi embeddings, overrides, isolates and marks (U+202A-U+202E,
U+2066-U+2069, U+200E, U+200F, U+061C) are removed, so a U+202E inside an answer cannot reverse
the rest of its table row or paragraph. Stored text keeps them (the user's text, as written);
right-to-left scripts still read right to left, by the Unicode bidi algorithm, without them.

Callers report what was repaired (a surrogate replaced is a note on that row, not a
rejection): :meth:`Cleaned.note` words it.
"""
from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from typing import Any

REPLACEMENT = "\ufffd"
MAX_NAME = 120
_SURROGATE = re.compile("[\ud800-\udfff]")
_SPACES = re.compile(r"\s+")
# categories removed from names: controls, format (bidi embeddings/overrides/isolates, zero-width
# joiners, BOM), line and paragraph separators, unassigned code points
_NAME_DROP = frozenset({"Cc", "Cf", "Zl", "Zp", "Cs", "Cn"})


BIDI_CONTROLS = re.compile("[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def without_bidi(text: Any) -> Any:
    r"""``text`` without bidi control characters (module docstring); non-strings are returned as is.

    >>> without_bidi("invoice‮txt.exe, ⁧isolated⁩")
    'invoicetxt.exe, isolated'
    """
    return BIDI_CONTROLS.sub("", text) if isinstance(text, str) else text


@dataclass(frozen=True)
class Cleaned:
    """``text`` after hygiene, with how many lone surrogates were replaced and NULs removed."""

    text: str
    surrogates: int = 0
    nuls: int = 0

    @property
    def changed(self) -> bool:
        return bool(self.surrogates or self.nuls)

    def note(self) -> str:
        """``"2 lone surrogate(s) replaced by U+FFFD, 1 NUL removed"`` (empty when unchanged)."""
        parts = []
        if self.surrogates:
            parts.append(f"{self.surrogates} lone surrogate(s) replaced by U+FFFD")
        if self.nuls:
            parts.append(f"{self.nuls} NUL character(s) removed")
        return ", ".join(parts)


def clean_text(text: str) -> Cleaned:
    r"""Replace lone surrogates with U+FFFD and remove NULs; everything else is kept as is.

    >>> clean_text("a\ud800b\x00c")
    Cleaned(text='a\ufffdbc', surrogates=1, nuls=1)
    """
    surrogates = len(_SURROGATE.findall(text))
    if surrogates:
        text = _SURROGATE.sub(REPLACEMENT, text)
    nuls = text.count("\x00")
    if nuls:
        text = text.replace("\x00", "")
    return Cleaned(text, surrogates, nuls)


def clean_value(value: Any) -> tuple[Any, Cleaned]:
    """:func:`clean_text` over every string inside ``value`` (lists, dicts, their keys too).

    Returns the cleaned value and the summed counts (``Cleaned.text`` is unused: "").
    """
    if isinstance(value, str):
        c = clean_text(value)
        return c.text, Cleaned("", c.surrogates, c.nuls)
    if isinstance(value, (list, tuple)):
        out, total = [], Cleaned("")
        for v in value:
            cv, c = clean_value(v)
            out.append(cv)
            total = Cleaned("", total.surrogates + c.surrogates, total.nuls + c.nuls)
        return (tuple(out) if isinstance(value, tuple) else out), total
    if isinstance(value, dict):
        result, total = {}, Cleaned("")
        for k, v in value.items():
            ck, c1 = clean_value(k)
            cv, c2 = clean_value(v)
            result[ck] = cv
            total = Cleaned("", total.surrogates + c1.surrogates + c2.surrogates, total.nuls + c1.nuls + c2.nuls)
        return result, total
    return value, Cleaned("")


def escaped(text: str) -> str:
    """``text`` as ASCII with every other character escaped (``\\u202e``, ``\\x00``, ``\\ud800``)."""
    return ascii(text)[1:-1]


@dataclass(frozen=True)
class DisplayName:
    """A name safe to store and show; ``original`` is the escaped input when it had to change."""

    name: str
    original: str | None = None


def display_name(raw: str, *, limit: int = MAX_NAME, fallback: str = "unnamed") -> DisplayName:
    r"""A file or label name safe to show: no directories, controls, bidi or format characters.

    >>> display_name("../../evil\u202etxt.exe")
    DisplayName(name='eviltxt.exe', original='../../evil\\u202etxt.exe')
    """
    text = unicodedata.normalize("NFC", clean_text(str(raw)).text.replace("\\", "/"))
    # characters are dropped before the path is split, so ".\x1b" cannot become the name "."
    text = "".join(" " if ch.isspace() else ch for ch in text
                   if ch.isspace() or unicodedata.category(ch) not in _NAME_DROP)
    parts = [p for p in text.split("/") if p.strip() and p.strip() not in (".", "..")]
    text = _SPACES.sub(" ", parts[-1] if parts else "").strip()
    if not text:
        text = fallback
    if len(text) > limit:
        stem, dot, ext = text.rpartition(".")
        ext = f".{ext}" if dot and stem and 0 < len(ext) <= 10 else ""
        text = text[: max(limit - len(ext) - 1, 1)].rstrip() + "\u2026" + ext
    return DisplayName(text, None if text == raw else escaped(str(raw)))

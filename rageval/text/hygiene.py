"""Text hygiene at the boundary: every text that enters rageval is normalised here, once.

Two kinds of text come in:

* **content** (document text, QA rows, answers, ratings): lone surrogates (``"\\ud800"``, which
  JSON allows but UTF-8 cannot encode, so DuckDB, Parquet and ``print`` would fail on them) are
  replaced by U+FFFD and counted, and NUL characters are removed and counted; nothing else
  changes, so offsets and meaning stay as the user wrote them. :func:`clean_text`.
* **people's names** (raters, annotators: an import's column, the app's name box) go through
  :func:`person_name`: escape sequences, controls, format and bidi characters removed, white space
  collapsed; a name left empty is refused.
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

**Output for a reader** (made safe where it is written, never stored): :func:`terminal_safe` for a
terminal or a CI log (ANSI / OSC / DCS escape sequences, in their 7-bit and C1 forms, removed whole
with their payload, so data cannot recolour, retitle or rewrite the screen; the other control
characters but tab and newline, and lone surrogates, removed; bidi controls removed); :func:`xml_text` for XML (also
without the characters XML 1.0 forbids, so a JUnit report always parses); :func:`markdown_cell`
for one cell of a Markdown table (also one line, with HTML, link, image and emphasis syntax
escaped, so ``![x](http://...)`` or ``<img src=...>`` reach the reader as text and nothing is fetched).

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


_ESCAPE_SEQUENCES = re.compile(
    "\x1b\\[[0-?]*[ -/]*[@-~]?"                           # CSI: colours, cursor moves, erase
    "|\x9b[0-?]*[ -/]*[@-~]?"                              # CSI, C1 form
    "|[\x1b][\\]P^_X][^\x07\x1b\x9c\n]*(?:\x07|\x1b\\\\|\x9c)?"  # OSC (title, hyperlink), DCS, APC, PM, SOS
    "|[\x90\x98\x9d\x9e\x9f][^\x07\x1b\x9c\n]*(?:\x07|\x1b\\\\|\x9c)?"  # the same, C1 form
    "|\x1b[ -/]*[0-~]?"                                   # any other escape (charset, keypad, reset)
)
_CONTROLS = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff]")  # all but tab and newline; lone surrogates
_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")
_MARKDOWN = re.compile(r"([\\`*_\[\]()!|~])")  # code, emphasis, links and images, tables, strikethrough


def terminal_safe(text: Any) -> str:
    r"""``text`` as a terminal or CI log may show it (module docstring): no escape sequences, no
    control characters but tab and newline, no bidi controls.

    >>> terminal_safe("ok\x1b[31mred\x1b[0m \x1b]0;pwned\x07title\r\x9b2J‮!")
    'okred title!'
    """
    text = _ESCAPE_SEQUENCES.sub("", str(text))
    return without_bidi(_CONTROLS.sub("", text))


_JSON_INVISIBLE = re.compile("[\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029\ud800-\udfff]")


def json_for_terminal(text: str) -> str:
    r"""JSON text (``json.dumps(..., ensure_ascii=False)``, which escapes only C0 controls) with the C1
    controls, bidi controls, line separators and lone surrogates escaped too: the same JSON value,
    safe to print (and to encode as UTF-8).

    >>> json_for_terminal('{"a": "x2J‮"}')
    '{"a": "x\\u009b2J\\u202e"}'
    """
    return _JSON_INVISIBLE.sub(lambda m: f"\\u{ord(m[0]):04x}", text)


def person_name(raw: Any, *, limit: int = MAX_NAME) -> str:
    r"""A rater's or annotator's name as it is stored: escape sequences removed whole, then every
    control, format and bidi character; white space runs as one space, NFC, at most ``limit``
    characters. ``""`` when nothing is left: the caller refuses the name.

    >>> person_name("  ann]0;pwned  lee‮[31m ")
    'ann lee'
    """
    text = _ESCAPE_SEQUENCES.sub("", clean_text(str(raw if raw is not None else "")).text)
    text = "".join(" " if ch.isspace() else ch for ch in unicodedata.normalize("NFC", text)
                   if ch.isspace() or unicodedata.category(ch) not in _NAME_DROP)
    return _SPACES.sub(" ", text).strip()[:limit].rstrip()


def xml_text(text: Any) -> str:
    """:func:`terminal_safe` text without the characters XML 1.0 forbids (lone surrogates, U+FFFE)."""
    return _NOT_XML.sub("", terminal_safe(text))


def markdown_cell(text: Any) -> str:
    r"""``text`` as one cell of a Markdown table: :func:`terminal_safe`, one line, ``&``, ``<`` and ``>``
    as entities and Markdown's own punctuation backslash-escaped.

    >>> markdown_cell("![x](http://e/p.png) <img src=x> a|b\n[go](javascript:alert(1))")
    '\\!\\[x\\]\\(http://e/p.png\\) &lt;img src=x&gt; a\\|b \\[go\\]\\(javascript:alert\\(1\\)\\)'
    """
    flat = " ".join(terminal_safe(text).split())
    flat = flat.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return _MARKDOWN.sub(r"\\\1", flat)


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

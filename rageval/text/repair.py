"""Repair mojibake and broken Unicode in extracted text, and measure what still looks garbled.

:func:`repair_text` runs ftfy (``fix_text``: text decoded with the wrong codec, ``cafÃ©`` ->
``café``, ``lâ€™ordre`` -> ``l'ordre``; Latin ligatures ``ﬁ`` -> ``fi``; terminal escapes) with
the fixes that change good text turned off: curly quotes stay curly, HTML entities stay as
written, full-width characters stay full width. ``repaired`` counts the characters of the input
that a fix replaced or removed (per line, by :class:`difflib.SequenceMatcher`; a line changed
only by insertions counts 1).

:func:`garbled_share` is the share of a text's non-space characters that are garbled: U+FFFD
(a character the extractor could not decode), control characters other than tab, newline and
form feed, and the characters of mojibake ftfy could not undo (a ``Ã`` or ``Â`` inside a
lower-case word, ``â€``). A document whose share after repair is at least :data:`GARBLED_SHARE`
is flagged: its text is stored and chunked, and the flag is shown beside it.

>>> r = repair_text("The caf\\u00c3\\u00a9 opens at nine.")
>>> r.text, r.repaired
('The café opens at nine.', 2)
>>> garbled_share("ok \\ufffd\\ufffd")
0.5
"""
from __future__ import annotations

import difflib
import re
import unicodedata
from dataclasses import dataclass

#: a document with at least this share of garbled characters after repair is flagged
GARBLED_SHARE = 0.005
_MOJIBAKE = re.compile(r"(?<=[a-z])[\u00c3\u00c2](?=[a-z\u0080-\u00bf])|\u00e2\u20ac|\u00c3[\u0080-\u00bf]")
_KEPT_CONTROLS = frozenset("\t\n\f\r")


@dataclass(frozen=True)
class Repaired:
    """Text after :func:`repair_text`: how many characters were repaired, and the garbled share left."""

    text: str
    repaired: int
    garbled: float


def _config():
    from ftfy import TextFixerConfig

    return TextFixerConfig(uncurl_quotes=False, unescape_html=False, fix_character_width=False,
                           normalization="NFC", explain=False)


def _changed(before: str, after: str) -> int:
    """Characters of ``before`` replaced or removed on the way to ``after``, counted line by line."""
    old, new = before.split("\n"), after.split("\n")
    if len(old) != len(new):
        old, new = [before], [after]
    count = 0
    for a, b in zip(old, new):
        if a == b:
            continue
        ops = difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes()
        count += sum(i2 - i1 for tag, i1, i2, _, _ in ops if tag in ("replace", "delete")) or 1
    return count


def garbled_share(text: str) -> float:
    """Share of the non-space characters of ``text`` that are garbled (module doc); 0.0 for no text."""
    visible = sum(not ch.isspace() for ch in text)
    if not visible:
        return 0.0
    bad = text.count("\ufffd") + len(_MOJIBAKE.findall(text))
    bad += sum(unicodedata.category(ch) == "Cc" and ch not in _KEPT_CONTROLS for ch in text)
    return bad / visible


def repair_text(text: str) -> Repaired:
    """``text`` with mojibake and broken Unicode repaired by ftfy (module doc)."""
    from ftfy import fix_text

    fixed = fix_text(text, _config())
    return Repaired(fixed, _changed(text, fixed) if fixed != text else 0, garbled_share(fixed))

"""Sentences and table rows of a text, each with its character span in the text.

The one segmenter of the project: the claim extractor and verifier, the triad's groundedness,
the offline generator and the benchmark scripts all split with :func:`split_sentences`, so that a
span found by one part can be located by another (``source[span.start:span.end] == span.text``).

The text is read line by line first, then each block of lines by punctuation:

1. **Blocks.** A line break is only whitespace inside a sentence (hard-wrapped text files and PDF
   lines are joined back) when the line wraps: it ends with end punctuation (which then ends the
   sentence anyway), the next line starts in lower case, it ends with a comma or hyphen, or it
   fills at least ``WRAP_SHARE`` of its paragraph's longest line; a short line without final
   punctuation before a capitalised line is a fragment of its own (web navigation, labels). A
   block also ends at a blank line, and a line is a block of its own (a unit, never joined to its
   neighbours) when it is

   - a table row: it holds a ``|`` (how the loaders write PDF and Markdown table rows);
   - a heading: a Markdown ``#`` line, or a short title-case line (at most ``HEADING_WORDS``
     words, every word of four or more letters capitalised, no final punctuation) that starts a
     paragraph and is followed by a blank line, the end of the text or a longer line;

   and a new block starts at each list item (``-``, ``*``, ``+``, ``•``, ``1.``, ``1)``) and at
   each field of a form or spec sheet (a ``Label: value`` line, the label capitalised and of at
   most ``FIELD_WORDS`` words, next to another such line): their wrapped lines join them.
2. **Sentences.** Inside a block a sentence ends at ``.``, ``!`` or ``?`` (closing quotes and
   brackets included) followed by whitespace, or at an inline bullet (`` • ``), except a full
   stop

   - after an abbreviation that never ends a sentence (``Mr.``, ``Dr.``, ``Prof.``, ``e.g.``,
     ``i.e.``, ``vs.``, ``Sig.``, ``Dott.``, ``cfr.`` ...: :data:`ABBREVIATIONS`) or a single letter
     (``J. Smith``);
   - after an abbreviation that also ends sentences (``etc.``, ``ecc.``, ``Inc.``, ``Co.``:
     :data:`END_ABBREVIATIONS`) unless the next word is one that opens sentences (an article,
     pronoun, conjunction or preposition: :data:`OPENERS`): "Clones, Co. Monaghan" and "Apple
     Inc. Chief Executive" stay one sentence, "Acme Co. The firm ..." is two. Kept together by
     mistake, two sentences only read as one (a copy of either is then part of a longer
     sentence); cut by mistake, a piece of a sentence would read as a whole one;
   - after an abbreviation used before a number (``No. 5``, ``art. 3``, ``pag. 12``, ``n. 4``:
     :data:`NUMBER_ABBREVIATIONS`) when a digit follows;
   - followed by a lower-case letter (unless the word before the stop has six or more letters, so
     it is no abbreviation: "... very carefully. gzip is used ..." is two sentences), or closing a
     list number at the start of a block.

   A word's Markdown marks are not part of it: "**Ms. R." is the abbreviation ``Ms.``.

   End punctuation may be followed by Markdown's closing marks (``**``, ``_``, `` ` ``) before the
   whitespace. Decimal numbers (``3.5``, ``1.500,00``) have no space after their separator, so never split.

A span never includes a list marker or a heading's ``#``; its text is the original text between
its offsets, line breaks included (show it with ``" ".join(span.text.split())``).
"""
from __future__ import annotations

import re
from dataclasses import dataclass

#: abbreviations (lower case, without the final full stop) after which a sentence never ends
ABBREVIATIONS = frozenset({
    "mr", "mrs", "ms", "dr", "prof", "sr", "jr", "st", "vs", "e.g", "i.e", "fig", "figs", "approx",
    "dept", "est", "gen", "gov", "jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep", "sept",
    "oct", "nov", "dec", "u.s", "u.k", "cf", "al", "ca", "c.a", "resp",
    "mt", "mts", "sen", "rep", "rev", "hon", "capt", "sgt", "lt", "col",  # titles before a name
    # Italian
    "sig", "sigg", "sig.ra", "sig.na", "dott", "dott.ssa", "ing", "avv", "geom", "arch", "rag",
    "egr", "gent", "spett", "p.es", "es", "cfr", "ecc.mo", "ill.mo", "s.p.a", "s.r.l", "lett", "tel",
    "prot", "rif", "cit", "cod", "p.iva", "c.f", "sez", "ult", "succ", "nr", "pagg", "artt",
    "prof.ssa", "dr.ssa", "f.lli", "gen.mo",
})
#: abbreviations that also end sentences: a sentence ends after them only before a word of OPENERS
END_ABBREVIATIONS = frozenset({"etc", "ecc", "inc", "ltd", "co", "corp", "spa", "srl", "bros", "llc", "plc"})
#: words that open sentences (lower case; English and Italian, elided forms without their apostrophe)
OPENERS = frozenset("""the a an this that these those there it its he she his her they their them we our i
    you your my in on at for but and or so however also as after before when while if since then other some
    many most all both each no not one to from with by what which who how why where yet although though
    thus therefore meanwhile moreover furthermore today yesterday here such
    il lo la gli le l un una uno questo questa questi queste quello quella quel nel nella nei nelle dell
    della del dei delle all alla al sul sulla per ma e inoltre tuttavia lui lei loro si non con da dal
    dalla anche se quando dopo prima oggi ieri qui chi che come dove perche poi quindi infine allora ora""".split())
#: abbreviations written before a number: a sentence does not end after them before a digit
NUMBER_ABBREVIATIONS = frozenset({"no", "nos", "n", "art", "pag", "pp", "p", "vol", "sec", "cap", "par", "c", "num"})
HEADING_WORDS = 10
WRAP_SHARE = 0.6
FIELD_WORDS = 4

_END = re.compile(r"[.!?]+[\"'\u201d\u2019\u00bb)\]*_`]*\s+|\s+[•·]\s+")
_LIST_ITEM = re.compile(r"[ \t]*(?:[-*+•·]|\d{1,3}[.)])[ \t]+(?=\S)")
_MD_HEADING = re.compile(r"[ \t]*#{1,6}[ \t]+")
_FIELD = re.compile(r"[ \t]*[A-Z\u00C0-\u00DE][^\s:]*(?:[ \t][^\s:]+){0,%d}:[ \t]+\S" % (FIELD_WORDS - 1))
_FINAL_PUNCT = tuple(".!?;:,")
#: a word of six or more letters before a full stop is no abbreviation: the stop ends the sentence
#: even before a lower-case word ("... test them very carefully. gzip is used for backups")
_LONG_WORD = re.compile(r"[a-z]{6,}")


@dataclass(frozen=True)
class Span:
    """A piece of a text with its character offsets: ``text == source[start:end]``."""

    text: str
    start: int
    end: int


def split_sentences(text: str) -> list[Span]:
    """Sentences of ``text`` with their character spans (rules in the module docstring).

    >>> [s.text for s in split_sentences("Dr. Smith arrived. He left at 3.5 pm!\\nBye")]
    ['Dr. Smith arrived.', 'He left at 3.5 pm!', 'Bye']
    >>> [s.text for s in split_sentences("The service is\\nnot available.\\n- one item\\n- two")]
    ['The service is\\nnot available.', 'one item', 'two']
    """
    spans: list[Span] = []
    for start, end, kind in blocks(text):
        if kind == "prose":
            _sentences_in(text, start, end, spans)
        else:
            _add(spans, text, start, end)
    return spans


def blocks(text: str) -> list[tuple[int, int, str]]:
    """``(start, end, kind)`` of the blocks of ``text`` (step 1): kind ``prose`` (to split into
    sentences), ``heading`` or ``table`` (one unit each). List markers and ``#`` are left out."""
    lines, at = [], 0
    for raw in text.split("\n"):
        lines.append((at, at + len(raw)))
        at += len(raw) + 1
    field = [_FIELD.match(text, a, b) is not None for a, b in lines] + [False]
    width = _paragraph_widths(text, lines)
    out: list[tuple[int, int, str]] = []
    cur: list[int] | None = None  # [start, end] of the open prose block
    after_unit = True  # the previous line was blank, a heading, a table row, or ended a sentence
    prev = ""  # the previous line of the open block, stripped
    for i, (a, b) in enumerate(lines):
        line = text[a:b]
        body = line.strip()
        if not body:
            cur = _close(out, cur)
            after_unit = True
            continue
        nxt = text[lines[i + 1][0]:lines[i + 1][1]].strip() if i + 1 < len(lines) else ""
        item = _LIST_ITEM.match(line)
        if "|" in body:
            cur = _close(out, cur)
            out.append((a, b, "table"))
            after_unit = True
            continue
        heading = _MD_HEADING.match(line)
        if heading or (after_unit and _is_heading(text[a + (item.end() if item else 0):b].strip(), nxt)):
            cur = _close(out, cur)
            skip = heading.end() if heading else (item.end() if item else 0)
            out.append((a + skip, b, "heading"))
            after_unit = True
            continue
        if item or (field[i] and ((i > 0 and field[i - 1]) or field[i + 1])):
            cur = _close(out, cur)
            cur = [a + (item.end() if item else 0), b]
        elif cur is None or not _wraps(prev, body, width[i]):
            cur = _close(out, cur)
            cur = [a, b]
        else:
            cur[1] = b
        after_unit = body.endswith(tuple(".!?:")) or item is not None
        prev = body
    _close(out, cur)
    return out


def _paragraph_widths(text: str, lines: list[tuple[int, int]]) -> list[int]:
    """For each line, the length of the longest line of its paragraph (its run of non-blank lines)."""
    out: list[int] = []
    run: list[int] = []
    for a, b in lines + [(0, 0)]:
        n = len(text[a:b].strip())
        if n:
            run.append(n)
            continue
        out.extend([max(run, default=0)] * len(run) + [0])  # the run's lines, then this blank line
        run = []
    return out


def _wraps(prev: str, body: str, width: int) -> bool:
    """Whether the line ``body`` continues the sentence of the line ``prev`` (a hard wrap): always
    after end punctuation (the punctuation then ends the sentence); otherwise when ``body`` starts
    in lower case, ``prev`` ends with a comma, hyphen or opening bracket, or ``prev`` fills at least
    ``WRAP_SHARE`` of its paragraph's longest line. A short line without final punctuation before
    a capitalised one ("Skip to content" / "Zoo Map") is a fragment of its own."""
    if prev.endswith(tuple(".!?")) or body[0].islower() or prev.endswith(tuple(",-(–")):
        return True
    return len(prev) >= WRAP_SHARE * width


def _close(out: list[tuple[int, int, str]], cur: list[int] | None) -> None:
    if cur is not None:
        out.append((cur[0], cur[1], "prose"))
    return None


def _is_heading(body: str, nxt: str) -> bool:
    """A short title-case line with no final punctuation, before a blank line, the end of the
    text or a longer line (the caller checks that it starts a paragraph)."""
    words = body.split()
    if not words or len(words) > HEADING_WORDS or body.endswith(_FINAL_PUNCT) or not body[0].isupper():
        return False
    if not all(w[0].isupper() or w[0].isdigit() for w in words if sum(ch.isalpha() for ch in w) >= 4):
        return False
    return nxt == "" or len(nxt) > len(body)


def _sentences_in(text: str, start: int, end: int, spans: list[Span]) -> None:
    block = text[start:end]
    cut = 0
    for m in _END.finditer(block):
        if m.group().startswith("."):
            piece = block[cut:m.start()]
            last = re.search(r"(\S+)$", piece)
            word = last.group(1).lower().lstrip("(\"'\u201c\u2018\u00ab*_`") if last else ""
            nxt = block[m.end():m.end() + 1]
            opener = re.match(r"\W{0,3}(\w+)", block[m.end():])
            list_number = cut == 0 and re.fullmatch(r"\s*\(?(?:\d+|[a-z])", piece) is not None
            lower_next = nxt.islower() and not (m.group().startswith(". ") and _LONG_WORD.fullmatch(word))
            if (word in ABBREVIATIONS or re.fullmatch(r"[^\W\d_]", word) or lower_next or list_number
                    or (word in END_ABBREVIATIONS and not (opener and opener.group(1).lower() in OPENERS))
                    or (word in NUMBER_ABBREVIATIONS and nxt.isdigit())):
                continue
        _add(spans, text, start + cut, start + m.end())
        cut = m.end()
    _add(spans, text, start + cut, end)


def enclosing(text: str, start: int, end: int, *, most: int | None = None) -> Span | None:
    """The whole sentences (or table rows) of ``text`` that ``text[start:end]`` touches, as one span
    from the first one's start to the last one's end; None when it touches none, or more than
    ``most``.

    >>> enclosing("One two. Three four five. Six.", 13, 17).text
    'Three four five.'
    """
    touched = [s for s in split_sentences(text) if s.start < end and start < s.end]
    if not touched or (most is not None and len(touched) > most):
        return None
    return Span(text[touched[0].start:touched[-1].end], touched[0].start, touched[-1].end)


def _add(spans: list[Span], text: str, start: int, end: int) -> None:
    piece = text[start:end]
    lead = len(piece) - len(piece.lstrip())
    body = piece.strip()
    if body and re.search(r"\w", body):
        spans.append(Span(body, start + lead, start + lead + len(body)))


def rules_text() -> str:
    """The segmenter's rules as one string (hashed into :func:`rageval.text.version`)."""
    return "\n".join([" ".join(sorted(ABBREVIATIONS)), " ".join(sorted(END_ABBREVIATIONS)), " ".join(sorted(OPENERS)),
                      " ".join(sorted(NUMBER_ABBREVIATIONS)), str(HEADING_WORDS), str(WRAP_SHARE), _END.pattern,
                      _FIELD.pattern, "wraps:v1", _LONG_WORD.pattern, "marks-before-abbreviations:v1",
                      _LIST_ITEM.pattern, _MD_HEADING.pattern, "blocks:v2"])


_TABLE_LINE = re.compile(r"^[^\n]*\|[^\n]*$", re.M)


def table_rows(text: str) -> list[Span]:
    """Rows of each ``a | b | c`` table in ``text``, spelled out with their column headers.

    A table is a run of two or more consecutive lines holding a ``|``; its first line
    is the header. Each later row becomes ``"Header1: cell1; Header2: cell2."`` (rule rows such as
    ``---|---`` are skipped) with ``start``/``end`` of the row's own line, so that evidence found
    in a spelled-out row can still be located in the original text.

    >>> [r.text for r in table_rows("City | Cap\\nOslo | 190 EUR")]
    ['City: Oslo; Cap: 190 EUR.']
    """
    lines = [(m.start(), m.end(), m.group()) for m in _TABLE_LINE.finditer(text)]
    rows: list[Span] = []
    run: list[tuple[int, int, str]] = []
    for line in lines + [(-1, -1, "")]:
        if run and line[0] != run[-1][1] + 1:  # the run of adjacent table lines ended
            if len(run) >= 2:
                header = _cells(run[0][2])
                for start, end, raw in run[1:]:
                    cells = _cells(raw)
                    if all(set(c) <= set("-: ") for c in cells):
                        continue
                    body = ("; ".join(f"{h}: {c}" for h, c in zip(header, cells)) + "."
                            if len(cells) == len(header) else " | ".join(cells))
                    rows.append(Span(body, start, end))
            run = []
        if line[0] >= 0:
            run.append(line)
    return rows


def _cells(line: str) -> list[str]:
    return [c.strip() for c in line.strip().strip("|").split("|")]

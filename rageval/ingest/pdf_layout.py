"""Reading order for one pdfplumber page: tables as rows, two columns, paragraphs.

:func:`page_text` is the entry point. The steps:

1. Tables are found with pdfplumber's ruling-line strategy (a ruled box with fewer than two
   rows or two columns, such as a frame around the page, is not a table); each is written as text rows
   (cells joined with ``" | "``, one row per line) and every object whose centre lies inside a
   table's box is filtered out of the running text, so table text appears exactly once.
2. The remaining words are grouped into line *segments* (words on one line separated by less
   than ``MIN_GUTTER`` points). A page is read as two columns when some x in the middle 40% of
   the page is crossed by few segments (at most a quarter of them, the full-width ones such as
   a title) and each side holds at least three segments that mostly fill their column. The
   full-width segments cut the page into horizontal strips; between strips the left column is
   read before the right one.
3. Within a region, lines come from pdfplumber's line clustering; a vertical gap larger than
   ``median_gap + 0.5 * median_line_height`` starts a new paragraph (a blank line); see
   :func:`lines_to_text` for pages with very few lines.
4. A hyphen at the end of a line between two lower-case words is removed and the lines joined,
   unless the hyphenated compound also occurs elsewhere on the page (then the hyphen stays).
"""
from __future__ import annotations

import re
from statistics import median
from typing import Any, Sequence

X_TOLERANCE = 1.5  # points; pdfplumber's default of 3 merges words in tightly set text
Y_TOLERANCE = 3.0
MIN_GUTTER = 9.0  # points (about 3 mm): the narrowest gap read as a column gutter
TABLE_SETTINGS = {"vertical_strategy": "lines", "horizontal_strategy": "lines"}

Box = tuple[float, float, float, float]  # x0, top, x1, bottom

_HYPHEN_BREAK = re.compile(r"\b([a-z]+)-\n([a-z]+)\b")


def page_text(page: Any) -> str:
    """The text of a pdfplumber ``Page`` in reading order, tables as ``" | "``-joined rows."""
    tables = [(t.bbox, rows) for t in page.find_tables(TABLE_SETTINGS)
              if (rows := _table_rows(t))]
    boxes = [bbox for bbox, _ in tables]
    doubled = _doubled_chars(page.chars)
    body = page
    if boxes or doubled:
        body = page.filter(lambda obj: id(obj) not in doubled
                           and not any(_centre_in(obj, b) for b in boxes))
    words = body.extract_words(x_tolerance=X_TOLERANCE, y_tolerance=Y_TOLERANCE)
    regions = reading_regions(words, tuple(page.bbox))

    placed: list[list[tuple[Box, list[str]]]] = [[] for _ in regions]
    for bbox, rows in tables:
        index = next((i for i, r in enumerate(regions) if _point_in(_centre(bbox), r)),
                     len(regions) - 1)
        placed[index].append((bbox, rows))

    parts: list[str] = []
    for region, region_tables in zip(regions, placed):
        x0, top, x1, bottom = region
        y = top
        for bbox, rows in sorted(region_tables, key=lambda item: item[0][1]):
            parts.append(_text_in(body, (x0, y, x1, bbox[1])))
            parts.append("\n".join(rows))
            y = max(y, bbox[3])
        parts.append(_text_in(body, (x0, y, x1, bottom)))
    return "\n\n".join(part for part in parts if part.strip())


def _doubled_chars(chars: Sequence[dict]) -> set[int]:
    """Ids of characters drawn again at (almost) the same place, as some PDFs do to fake bold
    type: same text, x0 and top within half a point. pdfplumber's ``dedupe_chars`` does the
    same but sorts on many attributes and took most of the time of a page."""
    seen: set[tuple[str, int, int]] = set()
    doubled: set[int] = set()
    for char in chars:
        key = (char["text"], round(char["x0"] * 2), round(char["top"] * 2))
        if key in seen and not char["text"].isspace():
            doubled.add(id(char))
        seen.add(key)
    return doubled


def reading_regions(words: Sequence[dict], bbox: Box) -> list[Box]:
    """Boxes to read in order: ``[bbox]`` for a one-column page; for a two-column page the
    full-width strips and, between them, the left then the right column."""
    gutter = _find_gutter(words, bbox)
    if gutter is None:
        return [bbox]
    gx, strips = gutter
    x0, top, x1, bottom = bbox
    regions: list[Box] = []
    y = top
    for strip_top, strip_bottom in strips:
        if strip_top > y:
            regions += [(x0, y, gx, strip_top), (gx, y, x1, strip_top)]
        regions.append((x0, strip_top, x1, strip_bottom))
        y = max(y, strip_bottom)
    if y < bottom:
        regions += [(x0, y, gx, bottom), (gx, y, x1, bottom)]
    return regions


def _find_gutter(words: Sequence[dict], bbox: Box) -> tuple[float, list[tuple[float, float]]] | None:
    """The gutter's x and the full-width strips (merged vertical spans of the segments that
    cross it), or None when the page does not look like two columns."""
    segments = _segments(words)
    if len(segments) < 6:
        return None
    x0, _, x1, _ = bbox
    lo, hi = int(x0 + 0.3 * (x1 - x0)), int(x0 + 0.7 * (x1 - x0))
    counts = [0] * (hi - lo + 1)
    for s in segments:  # how many segments cover each integer x in [lo, hi]
        for x in range(max(lo, int(s[0]) + 1), min(hi, int(s[2] - 1e-9)) + 1):
            counts[x - lo] += 1
    least = min(counts)
    if least > len(segments) / 4:
        return None
    run_start, best = None, (0, 0)
    for i, c in enumerate(counts + [least + 1]):
        if c == least and run_start is None:
            run_start = i
        elif c != least and run_start is not None:
            best = max(best, (i - run_start, run_start))
            run_start = None
    length, start = best
    if length < MIN_GUTTER / 2:
        return None
    gx = lo + start + (length - 1) / 2
    crossing = [s for s in segments if s[0] < gx < s[2]]
    left = [s for s in segments if s[2] <= gx]
    right = [s for s in segments if s[0] >= gx]
    if len(left) < 3 or len(right) < 3:
        return None
    left_width = gx - min(s[0] for s in left)
    right_width = max(s[2] for s in right) - gx
    if (median(s[2] - s[0] for s in left) < 0.5 * left_width
            or median(s[2] - s[0] for s in right) < 0.5 * right_width):
        return None  # short labels beside values (a form), not running text in columns
    strips: list[list[float]] = []
    for s in sorted(crossing, key=lambda s: s[1]):
        if strips and s[1] <= strips[-1][1]:
            strips[-1][1] = max(strips[-1][1], s[3])
        else:
            strips.append([s[1], s[3]])
    return gx, [(a, b) for a, b in strips]


def _segments(words: Sequence[dict]) -> list[Box]:
    """Words grouped into lines (tops within Y_TOLERANCE), each line split where the gap
    between neighbouring words is at least MIN_GUTTER."""
    segments: list[Box] = []
    line: list[dict] = []
    for word in sorted(words, key=lambda w: (w["top"], w["x0"])):
        if line and abs(word["top"] - line[0]["top"]) > Y_TOLERANCE:
            segments += _split_line(line)
            line = []
        line.append(word)
    if line:
        segments += _split_line(line)
    return segments


def _split_line(line: list[dict]) -> list[Box]:
    out: list[list[float]] = []
    for w in sorted(line, key=lambda w: w["x0"]):
        if out and w["x0"] - out[-1][2] < MIN_GUTTER:
            seg = out[-1]
            seg[1], seg[2], seg[3] = min(seg[1], w["top"]), max(seg[2], w["x1"]), max(seg[3], w["bottom"])
        else:
            out.append([w["x0"], w["top"], w["x1"], w["bottom"]])
    return [tuple(s) for s in out]  # type: ignore[misc]


def _text_in(body: Any, box: Box) -> str:
    """Text of the objects whose centre lies in ``box``, with paragraph breaks restored."""
    if box[3] <= box[1]:
        return ""
    region = body.filter(lambda obj: _centre_in(obj, box))
    lines = region.extract_text_lines(
        layout=False, return_chars=False, x_tolerance=X_TOLERANCE, y_tolerance=Y_TOLERANCE
    )
    return lines_to_text(lines)


def lines_to_text(lines: Sequence[dict]) -> str:
    """Join pdfplumber text lines; a blank line where the gap before a line exceeds
    ``usual_gap + 0.5 * median_line_height``, where ``usual_gap`` is the median gap (with fewer
    than three gaps, the smallest gap or 0.6 line heights, whichever is less); then join
    hyphenated line ends."""
    lines = [line for line in lines if line["text"].strip()]
    if not lines:
        return ""
    gaps = [b["top"] - a["bottom"] for a, b in zip(lines, lines[1:])]
    height = median(line["bottom"] - line["top"] for line in lines)
    # With fewer than three gaps the median says little: cap the usual gap at 0.6 line heights.
    usual = median(gaps) if len(gaps) >= 3 else min(gaps + [0.6 * height])
    threshold = usual + 0.5 * height
    out = [lines[0]["text"]]
    for gap, line in zip(gaps, lines[1:]):
        out.append("\n\n" if gap > threshold else "\n")
        out.append(line["text"])
    return dehyphenate("".join(out))


def dehyphenate(text: str) -> str:
    """Join ``word-\\npart`` into ``wordpart`` when both pieces are lower-case letters; keep the
    hyphen (``word-part``) when that hyphenated form also occurs elsewhere in ``text``."""
    def join(match: re.Match) -> str:
        left, right = match.group(1), match.group(2)
        compound = f"{left}-{right}"
        return compound if text.count(compound) else left + right
    return _HYPHEN_BREAK.sub(join, text)


def _table_rows(table: Any) -> list[str]:
    """A table's rows as lines of ``" | "``-joined cells (whitespace in a cell collapsed);
    empty when it has fewer than two non-empty rows or no row with two cells (not a table)."""
    rows, widest = [], 0
    for row in table.extract(x_tolerance=X_TOLERANCE, y_tolerance=Y_TOLERANCE):
        cells = [" ".join((cell or "").split()) for cell in row]
        if any(cells):
            rows.append(" | ".join(cells))
            widest = max(widest, len(cells))
    return rows if len(rows) >= 2 and widest >= 2 else []


def _centre(box: Box) -> tuple[float, float]:
    return (box[0] + box[2]) / 2, (box[1] + box[3]) / 2


def _point_in(point: tuple[float, float], box: Box) -> bool:
    x, y = point
    return box[0] <= x < box[2] and box[1] <= y < box[3]


def _centre_in(obj: dict, box: Box) -> bool:
    if "x0" not in obj or "top" not in obj:
        return False
    return _point_in(((obj["x0"] + obj["x1"]) / 2, (obj["top"] + obj["bottom"]) / 2), box)

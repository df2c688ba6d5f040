"""Rows of an ``.xlsx`` workbook with the standard library only (``zipfile`` + ``xml.etree``).

An xlsx file is a zip of XML parts: ``xl/workbook.xml`` names the sheets, ``xl/_rels/workbook.xml.rels``
maps each sheet to its part, ``xl/sharedStrings.xml`` (when present) holds the strings that cells
of type ``s`` point to by index, and each ``xl/worksheets/sheetN.xml`` holds rows of cells with a
column reference (``C7``), a type (``s`` shared string, ``inlineStr``, ``str``, ``b``, or a number)
and a value. Only cell values are read (no styles, formulas or dates): what validation needs to
read a published benchmark without a new dependency.
"""
from __future__ import annotations

import io
import re
import zipfile
import xml.etree.ElementTree as ET

_NS = {"m": "http://schemas.openxmlformats.org/spreadsheetml/2006/main",
       "r": "http://schemas.openxmlformats.org/officeDocument/2006/relationships",
       "p": "http://schemas.openxmlformats.org/package/2006/relationships"}
_REF = re.compile(r"([A-Z]+)(\d+)")


def sheets(blob: bytes) -> dict[str, list[dict[str, str]]]:
    """Sheet name -> its rows as dicts keyed by the first row's headers (empty cells are ``""``)."""
    with zipfile.ZipFile(io.BytesIO(blob)) as z:
        shared = _shared_strings(z)
        rels = {r.get("Id"): r.get("Target") for r in ET.fromstring(z.read("xl/_rels/workbook.xml.rels"))
                .findall("p:Relationship", _NS)}
        out = {}
        for sheet in ET.fromstring(z.read("xl/workbook.xml")).find("m:sheets", _NS):
            target = rels[sheet.get(f"{{{_NS['r']}}}id")].lstrip("/")
            part = target if target.startswith("xl/") else f"xl/{target}"
            out[sheet.get("name")] = _records(_grid(ET.fromstring(z.read(part)), shared))
    return out


def _shared_strings(z: zipfile.ZipFile) -> list[str]:
    if "xl/sharedStrings.xml" not in z.namelist():
        return []
    return ["".join(t.text or "" for t in si.iter(f"{{{_NS['m']}}}t"))
            for si in ET.fromstring(z.read("xl/sharedStrings.xml")).findall("m:si", _NS)]


def _grid(root: ET.Element, shared: list[str]) -> list[dict[int, str]]:
    """Each row as column number (0-based) -> cell text."""
    rows = []
    for row in root.iter(f"{{{_NS['m']}}}row"):
        cells: dict[int, str] = {}
        for c in row.findall("m:c", _NS):
            kind = c.get("t", "n")
            if kind == "inlineStr":
                text = "".join(t.text or "" for t in c.iter(f"{{{_NS['m']}}}t"))
            else:
                v = c.find("m:v", _NS)
                text = "" if v is None or v.text is None else v.text
                if kind == "s" and text:
                    text = shared[int(text)]
            cells[_column(_REF.match(c.get("r")).group(1))] = text
        rows.append(cells)
    return rows


def _column(letters: str) -> int:
    n = 0
    for ch in letters:
        n = n * 26 + ord(ch) - 64
    return n - 1


def _records(grid: list[dict[int, str]]) -> list[dict[str, str]]:
    if not grid:
        return []
    header = grid[0]
    return [{name: row.get(col, "") for col, name in header.items()} for row in grid[1:] if any(row.values())]

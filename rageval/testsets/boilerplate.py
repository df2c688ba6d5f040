"""Text a test set must not ask about or give as a reference: licence and copyright notices (the
legal wording of a notice; a sentence that names the licence a product is released under is not
one), postal addresses, tables of contents, and lines that are markup or code rather than prose
(links, backticks, tags, ``name()``, citation marks such as ``[MIME]``, man-page references such
as ``file(1)``).

:func:`boilerplate_reason` names what a sentence is (``licence notice``, ``address`` ...) or
returns None for prose. The patterns are plain English and fixed; a sentence matching one is
never asked about (the template generator) and never kept as a reference (the critic).
"""
from __future__ import annotations

import re

BOILERPLATE = {
    "licence notice": re.compile(
        r"\b(?:copyright|copyleft|all rights reserved|without any warranty|implied warrant\w*|merchantability"
        r"|fitness for a particular purpose|free software foundation|general public licen[cs]e"
        r"|permission is hereby granted|redistribut\w+|limitation of liability|liable for any"
        r"|under the terms of|at your option|either version \d|licen[cs]e notice)\b"
        r"|\(c\)|\u00a9", re.IGNORECASE),
    "address": re.compile(
        r"(?i:\b(?:street|st\.|avenue|ave\.|road|suite|floor|p\.?o\.? box)\b.{0,60}\b\d{4,5}(?:-\d{4})?\b)"
        r"|\b[A-Z]{2}\s+\d{5}(?:-\d{4})?\b|\b\d{5}-\d{4}\b"),
    "table of contents": re.compile(r"\.{4,}|(?:\s\.){3,}|\b(?:table of )?contents\b.*\d+\s*$", re.IGNORECASE),
    "markup or code": re.compile(
        r"https?://|www\.|\]\(|`|</?\w+[^>]*>|\\\w|[{}=]|\b\w+\(\)|__\w+|@\w+\.\w+|\s[-*]\s.*\s[-*]\s"
        r"|\w\[\w+\]|\s\[[A-Za-z][\w-]*\]|\w\(\d\)"),
}


def boilerplate_reason(sentence: str) -> str | None:
    """What kind of boilerplate ``sentence`` is (a key of :data:`BOILERPLATE`), or None for prose."""
    for name, pattern in BOILERPLATE.items():
        if pattern.search(sentence):
            return name
    return None

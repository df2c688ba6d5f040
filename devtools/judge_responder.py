"""A scripted stand-in for a chat model, for end-to-end tests through the fake LLM server.

It reads each prompt the way a model would have to (which reply shape is asked for, which
claims, sentences or questions are numbered) and answers deterministically:
the generator gets the first sentence of passage [1]; claim extraction gets the answer's
sentences; verification marks a claim SUPPORTED when most of its words are in the passages,
else NOT_MENTIONED; ratings are 3 for on-topic text and 1 otherwise.
"""
from __future__ import annotations

import json
import re
from typing import Any

_WORD = re.compile(r"\w+")


def _words(text: str) -> set[str]:
    return {w.lower() for w in _WORD.findall(text) if len(w) > 3}


def _after(prompt: str, label: str) -> str:
    """The block of text after a line ``label``: inside its ``<tag>`` fence when it has one,
    else up to the next blank line."""
    m = re.search(rf"^{re.escape(label)}\s*\n<(\w+)>\n(.*?)\n</\1>", prompt, re.S | re.M)
    if m:
        return m.group(2).strip()
    m = re.search(rf"^{re.escape(label)}\s*\n(.*?)(?:\n\s*\n|\Z)", prompt, re.S | re.M)
    return m.group(1).strip() if m else ""


def _numbered(block: str) -> list[str]:
    return [m.group(1).strip() for m in re.finditer(r"^\s*\[?\d+[.)\]]\s*(.+)$", block, re.M)]


def _sentences(text: str) -> list[str]:
    return [s.strip() for s in re.split(r"(?<=[.!?])\s+", text) if len(s.strip()) > 3]


def respond(request: dict[str, Any]) -> str:
    users = [str(m.get("content", "")) for m in request.get("messages", []) if m.get("role") == "user"]
    prompt = users[0] if users else ""  # a re-ask repeats the first prompt, then adds the error
    first = prompt.split("Reply with one JSON object")[0]
    shape = prompt.split("Reply with one JSON object", 1)[1] if "Reply with one JSON object" in prompt else ""
    passages = " ".join(_numbered(_after(first, "Passages:"))) or _after(first, "Passage:")
    if not shape:  # the generator
        m = re.search(r"^\[1\]\s*(.+)$", prompt, re.M)
        return _sentences(m.group(1))[0] if m else "I don't know based on the provided documents."
    if '"verdicts"' in shape:
        claims = _numbered(_after(first, "Claims:"))
        return json.dumps({"verdicts": [
            {"claim": i, "verdict": "SUPPORTED" if len(_words(c) & _words(passages)) >= 0.6 * max(len(_words(c)), 1)
             else "NOT_MENTIONED", "passage": None, "quote": "", "reason": "word overlap", "conflict": False}
            for i, c in enumerate(claims, 1)]})
    if '"claims"' in shape:
        return json.dumps({"claims": _sentences(_after(first, "Answer:"))})
    if '"ratings"' in shape:
        sentences = _numbered(_after(first, "Answer sentences:"))
        return json.dumps({"ratings": [{"sentence": i, "rating": 3, "passage": None, "quote": "", "reason": "ok"}
                                       for i in range(1, len(sentences) + 1)]})
    if '"questions"' in shape:
        n = int(re.search(r"exactly (\d+) entries", prompt).group(1))
        return json.dumps({"questions": [{"question": f"Question {i}?", "noncommittal": 0} for i in range(n)]})
    if '"rating"' in shape:
        return json.dumps({"rating": 3, "reason": "on topic"})
    if '"hedge_phrases"' in shape:
        return json.dumps({"hedge_phrases": [], "abstains": "don't know" in first})
    if '"equivalent"' in shape:
        return json.dumps({"equivalent": True, "reason": "same fact"})
    if '"tp"' in shape:
        return json.dumps({"tp": ["the answer states the fact"], "fp": [], "fn": []})
    return json.dumps({})

"""The judge-LLM extractor of AlignCheck facts: one call per distinct text, JSON triples back.

The prompt (``rageval/prompts/aligncheck_triples.txt``, its hash in the metrics' signature) asks
for ``{"triples": [{"subject", "subject_type", "predicate", "object", "object_type"}]}`` with
spaCy's entity labels as types, passive voice written active, and the text's own language kept,
so the judge also covers languages that have no offline pipeline. A reply that is not valid
JSON of that shape is asked for once more by the LLM layer; then the texts' samples are unscored
(``judge_parse_error``) or failed (``llm_error: ...``), never scored on a partial extraction.
"""
from __future__ import annotations

import re
from typing import Any, Sequence

from rageval.aligncheck.triples import Candidate
from rageval.claims.judge import Failure
from rageval.judge.ask import ask

PROMPT = "aligncheck_triples"
MAX_TRIPLES = 80
TEXT_CHARS = 12000
_TYPE = re.compile(r"^[A-Z][A-Z_]{1,20}$")


def validate_triples(value: Any) -> list[Candidate]:
    """A validated ``Triples`` reply (or the same shape as a dict) -> Candidates (at most
    MAX_TRIPLES); entries without subject, predicate or object are dropped."""
    if hasattr(value, "model_dump"):
        value = value.model_dump()
    items = value.get("triples") if isinstance(value, dict) else None
    if not isinstance(items, list):
        raise ValueError('expected a JSON object with a list "triples"')
    out = []
    for item in items[:MAX_TRIPLES]:
        if not isinstance(item, dict):
            raise ValueError("each triple must be a JSON object")
        s, p, o = (str(item.get(k) or "").strip() for k in ("subject", "predicate", "object"))
        if not (s and p and o):
            continue
        s_type = re.sub(r"[\s\-]+", "_", str(item.get("subject_type") or "").strip().upper())
        o_type = re.sub(r"[\s\-]+", "_", str(item.get("object_type") or "").strip().upper())
        if not _TYPE.match(s_type):
            raise ValueError(
                f"subject_type must be an entity label such as PERSON or ORG, not {item.get('subject_type')!r}"
            )
        out.append(Candidate(s, s_type, p.lower(), o, o_type if _TYPE.match(o_type) else "", ""))
    return out


def extract(llm: Any, texts: Sequence[str]) -> dict[str, list[Candidate] | Failure]:
    """``{text: candidates or Failure}`` for the distinct texts (calls fanned out on ``llm.map``)."""
    unique = list(dict.fromkeys(texts))

    def one(text: str) -> list[Candidate] | Failure:
        reply = ask(llm, PROMPT, validate_triples, text=text[:TEXT_CHARS])
        return reply.value if reply.status == "ok" else Failure.of(reply)

    return dict(zip(unique, llm.map(one, unique)))

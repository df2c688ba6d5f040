"""The reply schema of every judge prompt, as pydantic models: one validator for all metrics.

Each ``rageval/prompts/<name>.txt`` that asks for JSON has a model here (``REPLIES[name]``). The
LLM layer sends ``model_json_schema()`` as the ``response_format`` JSON schema when the server
supports it, and validates every reply with the model, whatever mode produced it. Coercion is
the same everywhere (pydantic's lax mode) except for a rubric's rating, read strictly
(:class:`RubricRating`): ``"3"`` and ``3.0`` are the integer 3, ``3.5`` is not;
booleans are ``true``/``false`` or the words true/false/yes/no, never numbers (but RAGAS's
``noncommittal``, which is 0 or 1, and takes the words too); labels ignore
case, spaces and hyphens (``"not mentioned"`` is ``NOT_MENTIONED``); strings are stripped and
empty list entries dropped; unknown keys are ignored. What depends on the call (how many
entries, which passage numbers exist) is checked by :func:`rageval.prompts.entries.numbered_entries` and
:func:`rageval.prompts.entries.passage_index`, which the metrics call on the validated model.

A reply schema is part of what a prompt asks, so its hash goes into the judge signature with
the prompt's (:func:`schema_hash`).
"""
from __future__ import annotations

import re
from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field

from rageval.types import LABELS
from rageval.util import canonical_json, sha256_hex


def _flag(value: Any) -> Any:
    if isinstance(value, str) and value.strip().lower() in ("true", "false", "yes", "no"):
        return value.strip().lower() in ("true", "yes")
    if not isinstance(value, bool):
        raise ValueError(f"must be true or false, not {value!r}")
    return value


def _label(value: Any) -> Any:
    return re.sub(r"[\s\-]+", "_", str(value).strip().upper())


def _text(value: Any) -> Any:
    return "" if value is None else (value.strip() if isinstance(value, str) else value)


def _texts(value: Any) -> Any:
    if isinstance(value, list):
        return [x.strip() for x in value if not (isinstance(x, str) and not x.strip())]
    return value


def _optional_index(value: Any) -> Any:
    return None if value in (None, "", 0, "0") else value


def _binary(value: Any) -> bool:
    """RAGAS's 0/1 flag, read like every other flag too: 1, true and yes are True, anything else False."""
    if isinstance(value, bool):
        return value
    if isinstance(value, (int, float)):
        return value == 1
    return str(value).strip().lower() in ("1", "true", "yes")


Flag = Annotated[bool, BeforeValidator(_flag)]
Text = Annotated[str, BeforeValidator(_text)]
Texts = Annotated[list[str], BeforeValidator(_texts)]
Rating = Annotated[int, Field(ge=0, le=3)]
Index = Annotated[Annotated[int, Field(ge=1)] | None, BeforeValidator(_optional_index)]
Label = Annotated[Literal[LABELS], BeforeValidator(_label)]


class Reply(BaseModel):
    model_config = ConfigDict(extra="ignore", coerce_numbers_to_str=True)


class Claims(Reply):
    claims: Texts


class VerdictItem(Reply):
    claim: int | None = None
    verdict: Label
    passage: Index = None
    quote: Text = ""
    reason: Text = ""
    conflict: Flag = False


class Verdicts(Reply):
    verdicts: list[VerdictItem]


class RatingReply(Reply):
    rating: Rating
    reason: Text = ""


#: the longest reason a rubric judge may give (characters); a longer reply is re-asked, then unscored
REASON_CHARS = 2000


class RubricRating(Reply):
    """A 1-5 score on a user's rubric (rageval.prompts.rubric), read strictly: the rating is a JSON
    integer 1-5 (``"5"``, ``5.0`` and ``true`` are refused with the reason, not coerced) and the
    reason, when given, a JSON string of at most :data:`REASON_CHARS` characters."""

    rating: Annotated[int, Field(ge=1, le=5, strict=True)]
    reason: Annotated[str, Field(max_length=REASON_CHARS, strict=True)] = ""


class SentenceRating(Reply):
    sentence: int | None = None
    rating: Rating
    passage: Index = None
    quote: Text = ""
    reason: Text = ""


class Ratings(Reply):
    ratings: list[SentenceRating]


class GeneratedQuestion(Reply):
    question: Annotated[str, BeforeValidator(_text), Field(min_length=1)]
    noncommittal: Annotated[bool, BeforeValidator(_binary)] = False


class Questions(Reply):
    questions: Annotated[list[GeneratedQuestion], Field(min_length=1)]


class StatementSort(Reply):
    tp: Texts
    fp: Texts
    fn: Texts


class Hedges(Reply):
    hedge_phrases: Texts
    abstains: Flag


class Equivalence(Reply):
    equivalent: Flag
    reason: Text = ""


class Triple(Reply):
    subject: Text = ""
    subject_type: Text = ""
    predicate: Text = ""
    object: Text = ""
    object_type: Text = ""


class Triples(Reply):
    triples: list[Triple]


class GeneratedQA(Reply):
    """A question the test-set generator wrote (rageval.testsets.llm): question, answer, the source
    sentences it copied."""

    question: Annotated[str, BeforeValidator(_text), Field(min_length=1)]
    answer: Annotated[str, BeforeValidator(_text), Field(min_length=1)]
    sentences: Texts = []


#: prompt name -> the model of its reply
REPLIES: dict[str, type[Reply]] = {
    "claim_extract": Claims,
    "claim_verify": Verdicts,
    "context_relevance": RatingReply,
    "answer_relevance": RatingReply,
    "groundedness": Ratings,
    "answer_relevance_questions": Questions,
    "answer_correctness": StatementSort,
    "hedging": Hedges,
    "answer_equivalence": Equivalence,
    "aligncheck_triples": Triples,
    "rubric": RubricRating,
    # the test-set generator's prompts, one per kind (rageval.config.TESTSET_KINDS)
    **{
        f"testset_{kind}": GeneratedQA for kind in ("single_fact", "multi_hop", "numeric", "unanswerable", "paraphrase")
    },
}


def json_schema(name: str) -> dict[str, Any]:
    """The JSON schema of prompt ``name``'s reply (what ``response_format`` sends)."""
    return REPLIES[name].model_json_schema()


def schema_hash(*names: str) -> str:
    """8 hex digits of sha256 over the reply schemas of the named prompts (prompts without one skipped)."""
    return sha256_hex(canonical_json([json_schema(n) for n in names if n in REPLIES]))[:8]

"""Shared plumbing of the judged metrics: the judge check, signatures, numbered passages,
asking with the prompt's reply model, and turning a failed reply into a Score.

Prompts are rendered by :func:`rageval.prompts.render`; a metric's signature carries
:func:`rageval.prompts.prompt_hash` of the prompt files it uses (their text and reply schemas),
so editing a prompt or its schema changes the signature and old values are no longer compared
with new ones.
"""
from __future__ import annotations

from typing import Any, Callable, Sequence

from rageval.llm.roles import display_url, role_config
from rageval.types import Resources, Score, Spec
from rageval.prompts import prompt_hash, render, reply_model

VERSION = "v1"


def signature(name: str, judge: Spec, prompts: Sequence[str], *extra: str) -> str:
    """``name|judge:J|prompt:HASH|...|server:URL|v1``; heuristic judges use no prompt and say so.

    ``server:URL`` names the judge's server (``RAGEVAL_JUDGE_BASE_URL``, else ``OPENAI_BASE_URL``,
    without user info or query) when it is not OpenAI's API: a local "gpt-4o-mini" is another
    judge than OpenAI's, and its values are not compared with OpenAI's.
    """
    parts = [name, f"judge:{judge}"]
    if judge.online:
        parts.append(f"prompt:{prompt_hash(*prompts)}")
    parts.extend(extra)
    parts.append(server_part(judge) + VERSION)
    return "|".join(parts)


def server_part(judge: Spec) -> str:
    """``"server:URL|"`` for an online judge on a server other than OpenAI's API, else ``""``
    (see :func:`signature`); every judged metric's signature puts it before its version."""
    if not judge.online:
        return ""
    base = role_config("judge", judge.model).base_url
    return f"server:{display_url(base)}|" if base else ""


def judge_client(metric: str, judge: Spec, resources: Resources) -> Any:
    """The LLM client that runs ``metric``'s judge ``judge``: the resolved judge role's
    (:meth:`rageval.types.Judge.client`), or a ConfigError saying what to set."""
    return resources.judge_role().client(metric, judge)


def ask(llm: Any, name: str, check: Callable[[Any], Any] | None = None, **values: Any) -> Any:
    """One judge call of prompt ``name`` filled with ``values``; a JSONReply (value, status,
    reason, raw). The reply is validated by the prompt's reply model (:func:`rageval.prompts.reply_model`, also
    sent as the ``response_format`` schema), then by ``check`` on the validated model."""
    return llm.chat_json("judge", [{"role": "user", "content": render(name, **values)}],
                         schema=reply_model(name), validate=check)


def failed_score(reply: Any, details: dict | None = None) -> Score:
    """``unscored`` (judge_parse_error) or ``failed`` (llm_error: ...) from a JSONReply."""
    make = Score.unscored if reply.status == "unscored" else Score.failed
    return make(reply.reason or reply.status, {**(details or {}), "raw": reply.raw})


def numbered(texts: Sequence[str], *, width: int = 4000) -> str:
    """``[1] text`` blocks, each cut to ``width`` characters."""
    return "\n\n".join(f"[{i}] {t[:width]}" for i, t in enumerate(texts, 1))


# --- checks of validated reply models (rageval.prompts.schemas): what depends on the call ---

def rating_of(reply: Any) -> dict[str, Any]:
    """A validated ``RatingReply`` -> ``{"rating": 0..3, "reason": ".."}``."""
    return {"rating": reply.rating, "reason": reply.reason}

"""Shared plumbing of the judged metrics: prompt files and their hashes, the judge check,
rendering numbered passages, JSON validators, and turning a failed reply into a Score.

Prompts live in ``rageval/prompts/*.txt``; a metric's signature carries the first 8 hex digits
of sha256 over the text of the prompt files it uses (joined in order), so editing a prompt
changes the signature and old values are no longer compared with new ones.
"""
from __future__ import annotations

import functools
import re
from pathlib import Path
from typing import Any, Callable, Sequence

from rageval.errors import ConfigError
from rageval.metrics.base import Resources, Score
from rageval.util import sha256_hex

PROMPT_DIR = Path(__file__).resolve().parent.parent / "prompts"
VERSION = "v1"


@functools.lru_cache(maxsize=None)
def prompt_text(name: str) -> str:
    """The text of ``rageval/prompts/<name>.txt``."""
    return (PROMPT_DIR / f"{name}.txt").read_text(encoding="utf-8")


def prompt_hash(*names: str) -> str:
    """8 hex digits of sha256 over the named prompt files, joined by a NUL in order."""
    return sha256_hex("\0".join(prompt_text(n) for n in names))[:8]


def render(name: str, **values: Any) -> str:
    """The prompt ``name`` with each ``{key}`` of ``values`` filled in once (JSON braces in the
    prompt are left alone because only the given keys are replaced)."""
    keys = "|".join(map(re.escape, values))
    return re.sub(r"\{(" + keys + r")\}", lambda m: str(values[m[1]]), prompt_text(name))


def check_judge(judge: str, metric: str) -> str | None:
    """``"heuristic"`` -> None; ``"openai:MODEL"`` -> ``MODEL``; anything else is a ConfigError."""
    if judge == "heuristic":
        return None
    if judge.startswith("openai:") and judge.split(":", 1)[1].strip():
        return judge.split(":", 1)[1].strip()
    raise ConfigError(f"{metric}: judge={judge!r} must be 'heuristic' or 'openai:MODEL'")


def signature(name: str, judge: str, prompts: Sequence[str], *extra: str) -> str:
    """``name|judge:J|prompt:HASH|...|v1``; heuristic judges use no prompt and say so."""
    check_judge(judge, name)
    parts = [name, f"judge:{judge}"]
    if judge != "heuristic":
        parts.append(f"prompt:{prompt_hash(*prompts)}")
    parts.extend(extra)
    parts.append(VERSION)
    return "|".join(parts)


def judge_client(metric: str, judge: str, resources: Resources) -> Any:
    """The LLM client whose judge role runs the model named in ``judge``, or a ConfigError."""
    model = check_judge(judge, metric)
    llm = resources.llm
    if llm is None or not llm.has_role("judge"):
        raise ConfigError(
            f"metric {metric} needs an LLM judge; set OPENAI_BASE_URL (and OPENAI_API_KEY) or "
            "use --judge heuristic"
        )
    if llm.model("judge") != model:
        raise ConfigError(
            f"{metric} is configured with judge={judge!r} but the judge role runs {llm.model('judge')!r}"
        )
    return llm


def ask(llm: Any, prompt: str, validate: Callable[[Any], Any]) -> Any:
    """One judge call with a JSON reply (a JSONReply: value, status, reason, raw)."""
    return llm.chat_json("judge", [{"role": "user", "content": prompt}], validate=validate)


def failed_score(reply: Any, details: dict | None = None) -> Score:
    """``unscored`` (judge_parse_error) or ``failed`` (llm_error: ...) from a JSONReply."""
    make = Score.unscored if reply.status == "unscored" else Score.failed
    return make(reply.reason or reply.status, {**(details or {}), "raw": reply.raw})


def numbered(texts: Sequence[str], *, width: int = 4000) -> str:
    """``[1] text`` blocks, each cut to ``width`` characters."""
    return "\n\n".join(f"[{i}] {t[:width]}" for i, t in enumerate(texts, 1))


# --- validators: return the cleaned value or raise ValueError (the LLM layer re-asks once) ---

def _obj(value: Any, key: str) -> Any:
    if not isinstance(value, dict) or key not in value:
        raise ValueError(f'expected a JSON object with the key "{key}"')
    return value[key]


def strings(value: Any, key: str) -> list[str]:
    """``{"key": ["..", ..]}`` -> the non-empty stripped strings."""
    items = _obj(value, key)
    if not isinstance(items, list) or not all(isinstance(x, str) for x in items):
        raise ValueError(f'"{key}" must be a list of strings')
    return [x.strip() for x in items if x.strip()]


def rating(value: Any, top: int = 3) -> dict[str, Any]:
    """``{"rating": 0..top, "reason": ".."}`` with an integer rating."""
    r = _obj(value, "rating")
    if isinstance(r, str) and r.strip().isdigit():
        r = int(r.strip())
    if isinstance(r, bool) or not isinstance(r, (int, float)) or r != int(r) or not 0 <= r <= top:
        raise ValueError(f'"rating" must be an integer from 0 to {top}')
    reason = value.get("reason", "")
    return {"rating": int(r), "reason": reason if isinstance(reason, str) else str(reason)}


def index(value: Any, n: int, what: str) -> int | None:
    """A 1-based index into ``n`` items, or None for null/0; raises on anything else."""
    if value in (None, "", 0):
        return None
    if isinstance(value, str) and value.strip().isdigit():
        value = int(value.strip())
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= n:
        raise ValueError(f"{what} must be a number from 1 to {n} or null")
    return value

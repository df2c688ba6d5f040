"""The prompt files and the one way to fill them: :func:`render` (every value fenced by
:func:`rageval.prompts.fence.fence_safe`: data tags and their Unicode look-alikes
become brackets) and :func:`prompt_hash` (what a signature carries of a prompt).

Each ``rageval/prompts/<name>.txt`` holds one prompt; its data sits between tags such as
``<question>`` or ``<passages>``, and the prompt says that text inside them is never an
instruction. The judges, the answer-equivalence judge and the LLM generator all render here.
"""
from __future__ import annotations

import functools
import re
from pathlib import Path
from typing import Any

from rageval.prompts.fence import fence_safe
from rageval.util import sha256_hex

__all__ = ["PROMPT_DIR", "fence_safe", "prompt_hash", "prompt_text", "render", "reply_model"]

PROMPT_DIR = Path(__file__).resolve().parent


@functools.lru_cache(maxsize=None)
def prompt_text(name: str) -> str:
    """The text of ``rageval/prompts/<name>.txt``."""
    return (PROMPT_DIR / f"{name}.txt").read_text(encoding="utf-8")


@functools.lru_cache(maxsize=None)
def prompt_hash(*names: str) -> str:
    """8 hex digits of sha256 over the named prompt files joined by a NUL in order, then a NUL
    and the hash of their reply schemas (a prompt is what it says and what it asks back). Cached
    like :func:`prompt_text`: a reply schema is built by pydantic, about 10 ms a prompt, and every
    stored batch asks for its metrics' signatures."""
    from rageval.prompts.schemas import schema_hash  # pydantic loads here, not on `rageval --help`

    return sha256_hex("\0".join(prompt_text(n) for n in names) + "\0" + schema_hash(*names))[:8]


def reply_model(name: str) -> Any:
    """The pydantic model a reply to prompt ``name`` must validate as
    (:data:`rageval.prompts.schemas.REPLIES`); pydantic loads on the first judged call, so an
    offline command never imports it."""
    from rageval.prompts.schemas import REPLIES

    return REPLIES[name]


def render(name: str, **values: Any) -> str:
    """The prompt ``name`` with each ``{key}`` of ``values`` filled in once (JSON braces in the
    prompt are left alone because only the given keys are replaced), each value made
    :func:`fence_safe`: it sits inside the prompt's data tags and cannot close them."""
    keys = "|".join(map(re.escape, values))
    return re.sub(r"\{(" + keys + r")\}", lambda m: fence_safe(str(values[m[1]])), prompt_text(name))

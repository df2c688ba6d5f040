"""A scripted stand-in for the test-set generator model (tests and bench/bench_testsets.py; beside
devtools/judge_responder.py).

It answers the ``testset_<kind>`` prompts from their passages, the way a careful model would,
but deterministically: a question built from the first content words of the chosen sentence, the
sentence (or, for ``paraphrase``, a reworded sentence that is no longer a verbatim copy, and for
``multi_hop`` one sentence of each passage) as the answer, the sentence as its source. Every other
prompt goes to :func:`devtools.judge_responder.respond`, except the critic's claim_verify, judged here
on the whole passages (that responder reads the first line of each passage only): SUPPORTED when
at least 60% of a claim's words longer than 3 letters are in the passages, else NOT_MENTIONED.

``faults`` turns chosen slots into the mistakes a real model makes, for the critic to catch
(:data:`FAULTS`): a question that points at the passage, an answer the passages do not support,
the question of another slot (one fixed question), a content-free question with an empty answer
("What can you tell me about no content?" / "No content."), a question that holds its own answer,
an answer copied from a badly decoded passage (mojibake). A slot is recognised by the first words
of its passage [1]; ``default`` gives every other slot one fault (a model that fails every time).
"""
from __future__ import annotations

import json
import re
from typing import Any, Callable

from devtools import judge_responder

FAULTS = ("pointer", "unsupported", "same", "content_free", "self_answering", "garbled")
SAME_QUESTION = "Which rules apply to every person named in the handbook of the company?"
_STOP = frozenset("the a an of to in on and is are was were it its this that for with by at as from".split())


def kind_of(prompt: str) -> str | None:
    """The testset kind a prompt asks for, from its task line; None for other prompts."""
    if not prompt.startswith("You write one question for a test set"):
        return None
    if "combining a fact from passage [1]" in prompt:
        return "multi_hop"
    if "about a number in the passage" in prompt:
        return "numeric"
    if "that the passage does NOT answer" in prompt:
        return "unanswerable"
    if "using different words from the passage" in prompt:
        return "paraphrase"
    return "single_fact"


def passages(prompt: str) -> list[str]:
    block = prompt.split("\n<passages>\n", 1)[1].split("\n</passages>", 1)[0]
    return [p.strip() for p in re.split(r"(?:^|\n\n)\[\d+\] ", block) if p.strip()]


def sentences(text: str) -> list[str]:
    return [s.strip() for s in re.split(r"(?<=[.!?])\s+|\n+", text) if len(s.split()) >= 5 and "|" not in s]


def topic(sentence: str, n: int = 4) -> str:
    words = [w for w in re.findall(r"[\w'-]+", sentence) if w.lower() not in _STOP]
    return " ".join(words[:n])


def write(prompt: str) -> dict[str, Any]:
    """The reply to one testset prompt (module doc)."""
    kind = kind_of(prompt)
    found = [sentences(p) for p in passages(prompt)]
    first = (found[0] or ["The passage gives no sentence to ask about."])[0]
    if kind == "numeric":
        first = next((s for s in found[0] if re.search(r"\d", s)), first)
    question = f"What do the documents say about {topic(first)}?"
    answer, quoted = first, [first]
    if kind == "multi_hop" and len(found) > 1 and found[1]:
        answer, quoted = f"{first} {found[1][0]}", [first, found[1][0]]
        question = f"How are {topic(first, 3)} and {topic(found[1][0], 3)} related?"
    elif kind == "paraphrase":
        answer = "In other words: " + first[0].lower() + first[1:]
        question = f"Could you explain {topic(first)}?"
    elif kind == "unanswerable":
        question = f"What was the budget for {topic(first, 3)} in 1850?"
        answer = "The documents do not say."
    return {"question": question, "answer": answer, "sentences": quoted}


def verify(prompt: str) -> str:
    """The critic's claim_verify call, judged by word overlap with all of the passages (module doc)."""
    block = prompt.split("\n<passages>\n", 1)[1].split("\n</passages>", 1)[0]
    claims = [c for c in re.findall(r"^\d+\. (.+)$", prompt.split("\n<claims>\n", 1)[1].split("\n</claims>", 1)[0],
                                    re.M)]
    have = judge_responder._words(block)
    return json.dumps(
        {
            "verdicts": [
                {
                    "claim": i,
                    "verdict": "SUPPORTED"
                    if len(judge_responder._words(c) & have) >= 0.6 * max(len(judge_responder._words(c)), 1)
                    else "NOT_MENTIONED",
                    "passage": None,
                    "quote": "",
                    "reason": "word overlap",
                    "conflict": False,
                }
                for i, c in enumerate(claims, 1)
            ]
        }
    )


def mojibake(text: str) -> str:
    """``text`` as a passage decoded with the wrong codec shows it: accents and apostrophes turned
    into ``Ã©`` and ``â€™`` (every ``e``, ``E`` and ``'`` here, so plain ASCII shows it too)."""
    return re.sub("[eE]", "\u00c3\u00a9", text.replace("'", "\u00e2\u20ac\u2122"))


def _fault(reply: dict[str, Any], fault: str | None) -> dict[str, Any]:
    if fault == "pointer":
        reply["question"] = "According to the passage, " + reply["question"][0].lower() + reply["question"][1:]
    elif fault == "unsupported":
        reply["answer"] = "Purple elephants negotiated the treaty under a midnight moon."
    elif fault == "same":
        reply["question"] = SAME_QUESTION
    elif fault == "content_free":
        reply["question"], reply["answer"] = "What can you tell me about no content?", "No content."
    elif fault == "self_answering":  # the answer leaks into the question, in brackets
        number = re.search(r"\d[\d,.]*\d|\d", reply["answer"])
        reply["answer"] = number.group(0) if number else topic(reply["answer"], 2)
        reply["question"] = f"{reply['question'].rstrip('?')} ({reply['answer']})?"
    elif fault == "garbled":
        reply["answer"] = mojibake(reply["answer"])
    return reply


def make(faults: dict[str, str] | None = None, default: str | None = None) -> Callable[[dict[str, Any]], str]:
    """A responder for the fake server; ``faults`` maps the first three words of passage [1] to one
    of :data:`FAULTS` (module doc); ``default`` is the fault of every other slot (None: none)."""
    faults = dict(faults or {})

    def respond(request: dict[str, Any]) -> str:
        prompt = str(request["messages"][0]["content"])
        if '"verdicts"' in prompt and "\n<claims>\n" in prompt:
            return verify(prompt)
        if kind_of(prompt) is None:
            return judge_responder.respond(request)
        reply = write(prompt)
        key = " ".join(passages(prompt)[0].split()[:3])
        return json.dumps(_fault(reply, faults.get(key, default)))

    return respond

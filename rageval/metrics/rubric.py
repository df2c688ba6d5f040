"""A rubric a user wrote (rageval.prompts.rubric) as a judged metric named ``rubric:<name>``.

The LLM judge reads the rubric (description, criteria, the five anchors), the question, the
answer, and the reference and passages when the rubric needs them (``rubric.txt``), and replies
with a rating 1-5 (``RubricRating``). ``score = (rating - 1) / 4``, so 1 -> 0.0, 3 -> 0.5 and
5 -> 1.0; the rating and the judge's reason are kept in the details. Offline (``judge =
"heuristic"``) there is no judge that can read a rubric, so every answer is unscored with the
reason ``no_llm_judge``. The signature pins the judge, the prompt and reply schema hash and the
rubric's own digest: editing any word of the rubric makes new values incomparable with old ones.
The metric receives its rubric parsed; the project's stored rubrics are read by
:mod:`rageval.runs.rubrics`, which resolves ``rubric:NAME`` before a run or ``score`` builds its metrics.

>>> round((4 - 1) / 4, 2)
0.75
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

from rageval.judge.ask import ask, failed_score, judge_client, numbered, signature
from rageval.prompts import prompt_text
from rageval.prompts.rubric import Rubric
from rageval.types import OFFLINE_JUDGE, Resources, Sample, Score, Spec

#: why an offline run leaves a rubric metric unscored
OFFLINE_REASON = "no_llm_judge"
NOT_USED = "(not used by this rubric)"


def rubric_text(rubric: Rubric) -> str:
    """The rubric as the judge reads it."""
    criteria = "\n".join(f"- {c}" for c in rubric.criteria)
    anchors = "\n".join(f"{i} = {a}" for i, a in enumerate(rubric.anchors, 1))
    return f"Name: {rubric.name}\nWhat it measures: {rubric.description}\nCriteria:\n{criteria}\nScores:\n{anchors}"


def _rating(reply: Any) -> dict[str, Any]:
    return {"rating": reply.rating, "reason": reply.reason.strip()}


@dataclass(frozen=True)
class RubricMetric:
    """A user's rubric scored 1-5 by the LLM judge, stored as ``(rating - 1) / 4`` (module docstring)."""

    rubric: Rubric
    judge: Spec = OFFLINE_JUDGE
    range = (0.0, 1.0)
    higher_is_better = True
    kind = "judged"
    languages = ("en", "it")
    needs_llm = True

    @property
    def name(self) -> str:
        return self.rubric.metric

    @property
    def needs(self) -> frozenset[str]:
        return frozenset({"question", "answer", *self.rubric.needs})

    def signature(self) -> str:
        return signature(self.name, self.judge, ("rubric",), f"rubric:{self.rubric.digest()}")

    def llm_calls(self, shape: Any) -> int:
        """One judge call per answer."""
        return 1

    @property
    def llm_prompt_chars(self) -> int:
        """Characters of instructions per call, for the cost estimate: the prompt and the rubric."""
        return len(prompt_text("rubric")) + len(rubric_text(self.rubric))

    def score_batch(self, samples: Sequence[Sample], resources: Resources) -> list[Score]:
        if not self.judge.online:
            return [Score.unscored(OFFLINE_REASON, {"judge": "heuristic", "rubric": self.rubric.digest()})
                    for _ in samples]
        llm = judge_client(self.name, self.judge, resources)
        replies = llm.map(self._ask_one(llm), list(samples))
        base = {"judge": str(self.judge), "method": "llm", "rubric": self.rubric.digest()}
        out = []
        for reply in replies:
            if reply.status != "ok":
                out.append(failed_score(reply, base))
                continue
            rating = int(reply.value["rating"])
            out.append(Score.ok((rating - 1) / 4, {**base, "rating": rating, "reason": reply.value["reason"]}))
        return out

    def _ask_one(self, llm: Any):
        text = rubric_text(self.rubric)
        uses = set(self.rubric.needs)

        def one(s: Sample) -> Any:
            reference = "\n".join(r for r in s.references if r.strip()) if "reference" in uses else NOT_USED
            passages = numbered(s.contexts) if "contexts" in uses else NOT_USED
            return ask(llm, "rubric", _rating, rubric=text, question=s.question, answer=s.answer or "",
                       reference=reference, passages=passages)

        return one

"""A rubric a user wrote (rageval.prompts.rubric) as a judged metric named ``rubric:<name>``.

The LLM judge reads the rubric (description, criteria, the five anchors), the question, the
answer, and the reference and passages when the rubric needs them (``rubric.txt``), and replies
with a rating 1-5 (``RubricRating``). ``score = (rating - 1) / 4``, so 1 -> 0.0, 3 -> 0.5 and
5 -> 1.0; the rating and the judge's reason are kept in the details. Offline (``judge =
"heuristic"``) there is no judge that can read a rubric, so every answer is unscored with the
reason ``no_llm_judge``. The signature pins the judge, the prompt and reply schema hash and the
rubric's own digest: editing any word of the rubric makes new values incomparable with old ones.

>>> round((4 - 1) / 4, 2)
0.75
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from rageval.errors import ConfigError
from rageval.judge.ask import ask, failed_score, judge_client, numbered, signature
from rageval.prompts import prompt_text
from rageval.project import Project
from rageval.prompts.rubric import PREFIX, Rubric, parse_rubric
from rageval.store import rubrics as rubric_store
from rageval.types import OFFLINE_JUDGE, Resources, Sample, Score, Spec
from rageval.util import canonical_json

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


# --- the project's stored rubrics ---------------------------------------------------------

def add_rubric(project: Project, rubric: Rubric, source_text: str | None = None) -> None:
    """Store ``rubric`` in the project (replacing one of the same name)."""
    from rageval.access import acting

    with acting(project, "run", "rubric_save", rubric.name, digest=rubric.digest()):
        rubric_store.save_rubric(project.db_path, rubric.name, canonical_json(rubric.to_dict()), rubric.digest(),
                                 source_text)


def add_rubric_text(project: Project, text: str, source: str = "the rubric") -> Rubric:
    """Parse the rubric ``text`` (TOML, from ``source``: a file name) and store it with its text in the
    project: ``rageval rubric add`` and the Run page's rubric form. A ConfigError says what to fix."""
    rubric = parse_rubric(text, source)
    add_rubric(project, rubric, text)
    return rubric


def project_rubrics(project: Project) -> dict[str, Rubric]:
    """The project's stored rubrics by name; one stored before a limit it breaks (more than 20
    criteria, say) is left out, so ``resolve`` asks for it to be added again, where the message
    names the limit, instead of a page or command failing on every other rubric."""
    out = {}
    for r in rubric_store.rubrics(project.db_path):
        try:
            out[r["name"]] = Rubric.from_dict(json.loads(r["body"]), f"stored rubric {r['name']}")
        except ConfigError:
            continue
    return out


def resolve(metrics: list[str], rubrics: Mapping[str, Rubric], project: Project | None) -> tuple[Rubric, ...]:
    """The rubrics that ``metrics`` name (``rubric:NAME``), from ``rubrics`` first, then the project's
    stored ones; a ConfigError names a rubric that is in neither."""
    wanted = [m[len(PREFIX):] for m in metrics if m.startswith(PREFIX)]
    if not wanted:
        return ()
    known = dict(project_rubrics(project)) if project is not None else {}
    known.update(rubrics)
    missing = [w for w in wanted if w not in known]
    if missing:
        raise ConfigError(f"no rubric {', '.join(map(repr, missing))} in this project; add it with "
                          "`rageval rubric add FILE` or pass --rubric FILE"
                          + (f" (stored: {', '.join(sorted(known))})" if known else ""))
    return tuple(known[w] for w in dict.fromkeys(wanted))

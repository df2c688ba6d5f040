"""Uncertainty signalling (seed paper 001): flag answers that hedge or abstain, for human
review, and say whether an abstention was right.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Sequence

from rageval.claims.diagnose import gold_ranks
from rageval.text import version as text_version
from rageval.types import OFFLINE_JUDGE, Resources, Sample, Score, Spec
from rageval.judge.ask import ask, failed_score, judge_client, signature
from rageval.text.hedges import abstention_cues, hedge_cues

if TYPE_CHECKING:  # the reply models load pydantic; they are needed only when a judge answers
    from rageval.prompts.schemas import Hedges


def hedges_of(reply: Hedges) -> dict[str, Any]:
    return {"hedge_phrases": reply.hedge_phrases, "abstains": reply.abstains}


@dataclass(frozen=True)
class Hedging:
    """1 when the answer hedges or abstains, else 0 (lower is better; a flag for review).

    ``hedging = 1 if cues(answer) else 0``. Offline the cues are phrase lists
    (:data:`cues.HEDGE_CUES`, :data:`cues.ABSTAIN_CUES`; approximations such as
    "about 70" do not count); with the judge, the phrases and the abstention flag come from
    ``hedging.txt``. Details: ``cues``, ``abstained``, ``gold_in_contexts`` (a reference,
    normalised, occurs in a retrieved chunk; null without references) and
    ``abstention_right``: for an abstaining answer, True when the gold answer was in no
    retrieved chunk (nothing to answer from), False when it was (a missed answer); null
    otherwise.

    >>> Hedging().signature() == f"hedging|judge:heuristic|{text_version()}|v1"  # text-<hash>: the cue tables
    True
    """

    judge: Spec = OFFLINE_JUDGE
    name = "hedging"
    needs = frozenset({"answer"})
    range = (0.0, 1.0)
    higher_is_better = False
    kind = "judged"
    languages = ("en",)
    needs_llm = True

    def signature(self) -> str:
        tables = (text_version(),) if not self.judge.online else ()  # the phrase lists it reads
        return signature(self.name, self.judge, ("hedging",), *tables)

    def llm_calls(self, shape: Any) -> int:
        return 1

    def score_batch(self, samples: Sequence[Sample], resources: Resources) -> list[Score]:
        if not self.judge.online:
            found = [{"hedge_phrases": hedge_cues(s.answer or ""), "abstains": bool(abstention_cues(s.answer or "")),
                      "abstention_cues": abstention_cues(s.answer or "")} for s in samples]
            method = "heuristic"
        else:
            llm = judge_client(self.name, self.judge, resources)
            found = llm.map(lambda s: ask(llm, "hedging", hedges_of, answer=s.answer or ""), list(samples))
            method = "llm"
        out = []
        for s, f in zip(samples, found):
            base = {"judge": str(self.judge), "method": method}
            if not isinstance(f, dict):
                if f.status != "ok":
                    out.append(failed_score(f, base))
                    continue
                f = f.value
            cues = list(f["hedge_phrases"]) + list(f.get("abstention_cues", []))
            ranks = gold_ranks(s)
            gold = None if ranks is None else bool(ranks)
            right = (not gold) if (f["abstains"] and gold is not None) else None
            flagged = bool(cues) or f["abstains"]
            out.append(Score.ok(float(flagged), {**base, "cues": cues, "abstained": f["abstains"],
                                                 "gold_in_contexts": gold, "abstention_right": right,
                                                 "review": flagged}))
        return out

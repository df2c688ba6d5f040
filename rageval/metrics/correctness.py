"""Answer correctness against gold answers: an offline logistic score and a BEM-style equivalence judge.

``answer_correctness_offline`` combines lexical and embedding signals with a logistic model whose
weights were fit once, by ``bench/fit_correctness.py``, on one human-labelled data set (named in
``correctness_weights.json``) and validated on others (docs/validation.md).

``answer_equivalence`` asks "is the candidate equivalent to the gold answer for this question?",
in the spirit of BEM (Bulian et al. 2022). The BEM checkpoint is NOT shipped with rageval (it is a
TensorFlow BERT model): with ``judge="openai:MODEL"`` an LLM answers the question through the
LLM layer; with ``judge="heuristic"`` the decision is answer_correctness_offline >= 0.5.
"""
from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Mapping, Sequence

from rageval.errors import ConfigError
from rageval.metrics.base import Resources, Sample, Score, register
from rageval.metrics.lexical import references_of, token_prf
from rageval.metrics.semantic import checked_embedder, embedder_name, sentence_similarities
from rageval.metrics.tokenize import answer_tokens, check_language, contains_tokens, normalization_name
from rageval.llm.replies import validator
from rageval.metrics.judge_io import fence_safe
from rageval.prompts.schemas import Equivalence, schema_hash
from rageval.util import sha256_hex

WEIGHTS_PATH = Path(__file__).with_name("correctness_weights.json")
PROMPT_PATH = Path(__file__).resolve().parent.parent / "prompts" / "answer_equivalence.txt"
FEATURES = ("contains", "recall", "f1", "similarity", "question_overlap", "length")
LENGTH_CAP = 256  # tokens; the length feature is log1p(n) / log1p(LENGTH_CAP), capped at 1
BEM_NOTE = (
    "BEM checkpoint not shipped: this is a BEM-style, question-aware equivalence decision by {by}, "
    "not the BEM model's score"
)


def correctness_features(
    question: str, answer: str, references: Sequence[str], similarity: float, language: str = "en"
) -> dict[str, float]:
    """The six signals, each in [0, 1].

    contains: a normalised reference occurs in the normalised answer as whole tokens;
    recall, f1: SQuAD token recall / F1, max over references; similarity: max(cosine, 0);
    question_overlap: share of answer tokens that occur in the question (high for answers that
    only repeat it); length: log1p(answer tokens) / log1p(256), capped at 1.
    """
    pred = answer_tokens(answer, language)
    golds = [g for g in (answer_tokens(r, language) for r in references) if g]
    prf = [token_prf(pred, g) for g in golds] or [(0.0, 0.0, 0.0)]
    asked = set(answer_tokens(question, language))
    return {
        "contains": 1.0 if any(contains_tokens(pred, g) for g in golds) else 0.0,
        "recall": max(x[1] for x in prf),
        "f1": max(x[2] for x in prf),
        "similarity": max(float(similarity), 0.0),
        "question_overlap": sum(1 for t in pred if t in asked) / len(pred) if pred else 0.0,
        "length": min(math.log1p(len(pred)) / math.log1p(LENGTH_CAP), 1.0),
    }


@lru_cache(maxsize=4)
def load_weights(path: str = str(WEIGHTS_PATH)) -> Mapping[str, Any]:
    """The fitted model: ``{"features", "weights", "bias", "embedder", "fit_on", ...}`` plus its hash."""
    file = Path(path)
    if not file.is_file():
        raise ConfigError(f"{file} is missing; run bench/fit_correctness.py to fit the correctness weights")
    text = file.read_text(encoding="utf-8")
    model = json.loads(text)
    if list(model["features"]) != list(FEATURES):
        raise ConfigError(f"{file} was fit on features {model['features']}, this code computes {list(FEATURES)}")
    return {**model, "hash": sha256_hex(text)[:8]}


def logistic(features: Mapping[str, float], model: Mapping[str, Any]) -> float:
    """sigmoid(bias + sum_i w_i * x_i)."""
    z = model["bias"] + sum(model["weights"][f] * features[f] for f in FEATURES)
    return 1.0 / (1.0 + math.exp(-z)) if z >= 0 else math.exp(z) / (1.0 + math.exp(z))


def _correctness(samples: Sequence[Sample], embedder: Any, language: str) -> list[tuple[float, dict]]:
    model = load_weights()
    sims = sentence_similarities(embedder, samples)
    out = []
    for sample, (sim, _) in zip(samples, sims):
        feats = correctness_features(sample.question, sample.answer or "", references_of(sample), sim, language)
        out.append((logistic(feats, model), feats))
    return out


@register("answer_correctness_offline")
@dataclass(frozen=True)
class AnswerCorrectnessOffline:
    """Probability that the answer is correct given the gold answers, from a fitted logistic model.

    Signals: gold containment, token recall, token F1, embedding similarity, overlap with the
    question and length (see :func:`correctness_features`). The weights were fit on one data set
    and are reported on others; ``correctness_weights.json`` says which. The question is used
    when present (question_overlap = 0 without it).

    Formula: p = 1 / (1 + exp(-(b + w · x))), x = (contains, recall, f1, similarity, question_overlap, length)
    """

    language: str = "en"
    embedder: str = "local"

    name = "answer_correctness_offline"
    needs = frozenset({"answer", "reference"})
    range = (0.0, 1.0)
    higher_is_better = True
    kind = "semantic"
    languages = ("en",)
    needs_llm = False

    def __post_init__(self) -> None:
        object.__setattr__(self, "language", check_language(self.language))

    def signature(self) -> str:
        model = load_weights()
        return (
            f"answer_correctness_offline|weights:{model['hash']}|model:{embedder_name(self.embedder)}"
            f"|norm:{normalization_name(self.language)}|v1"
        )

    def score_batch(self, samples: Sequence[Sample], resources: Resources) -> list[Score]:
        embedder = checked_embedder(self.embedder, resources, self.name)
        model = load_weights()
        note = {}
        if embedder.name != model["embedder"]:
            note = {"warning": f"weights were fit with {model['embedder']} similarities, not {embedder.name}"}
        return [Score.ok(p, {"features": feats, **note}) for p, feats in _correctness(samples, embedder, self.language)]


# ------------------------------------------------------------------------- answer equivalence
def prompt_template() -> str:
    return PROMPT_PATH.read_text(encoding="utf-8")


def render_prompt(question: str, references: Sequence[str], candidate: str) -> str:
    """The judge prompt with {question}, {references} (joined by " | ") and {candidate} filled in once."""
    values = {"question": fence_safe(question), "references": fence_safe(" | ".join(references)),
              "candidate": fence_safe(candidate)}
    return re.sub(r"\{(question|references|candidate)\}", lambda m: values[m[1]], prompt_template())


def equivalence_of(reply: Equivalence) -> dict[str, Any]:
    return {"equivalent": reply.equivalent, "reason": reply.reason}


def validate_verdict(value: Any) -> dict[str, Any]:
    """Raw judge JSON -> ``{"equivalent": bool, "reason": str}`` through the reply model;
    ValueError explains a bad shape."""
    return validator(Equivalence, equivalence_of)(value)


@register("answer_equivalence")
@dataclass(frozen=True)
class AnswerEquivalence:
    """BEM-style decision: is the answer equivalent to a gold answer for this question? 1 yes, 0 no.

    The BEM checkpoint is not shipped. ``judge="openai:MODEL"``: an LLM judge answers with the
    prompt in rageval/prompts/answer_equivalence.txt. ``judge="heuristic"``: the decision is
    answer_correctness_offline >= 0.5 (its probability is in details).

    Formula: equivalence = 1 if judge(question, references, answer) says equivalent else 0;
    heuristic: equivalence = [p_correct >= 0.5]
    """

    judge: str = "heuristic"
    language: str = "en"
    embedder: str = "local"

    name = "answer_equivalence"
    needs = frozenset({"answer", "reference", "question"})
    range = (0.0, 1.0)
    higher_is_better = True
    kind = "judged"
    languages = ("en",)
    needs_llm = True
    threshold = 0.5

    def __post_init__(self) -> None:
        object.__setattr__(self, "language", check_language(self.language))
        if self.judge != "heuristic" and not (self.judge.startswith("openai:") and self.judge[7:].strip()):
            raise ConfigError(f"judge={self.judge!r}; use 'heuristic' or 'openai:MODEL'")

    def signature(self) -> str:
        if self.judge == "heuristic":
            model = load_weights()
            return (
                f"answer_equivalence|judge:heuristic|weights:{model['hash']}|model:{embedder_name(self.embedder)}"
                f"|threshold:{self.threshold}|norm:{normalization_name(self.language)}|v1"
            )
        prompt = sha256_hex(prompt_template() + "\0" + schema_hash("answer_equivalence"))[:8]
        return f"answer_equivalence|judge:{self.judge}|prompt:{prompt}|v1"

    def llm_calls(self, shape: Any) -> int:
        """One judge call (all references in one prompt), none without a reference."""
        return 1 if shape.references else 0

    def score_batch(self, samples: Sequence[Sample], resources: Resources) -> list[Score]:
        if self.judge == "heuristic":
            embedder = checked_embedder(self.embedder, resources, self.name)
            note = BEM_NOTE.format(by="a heuristic (answer_correctness_offline >= 0.5)")
            return [
                Score.ok(float(p >= self.threshold), {"equivalent": p >= self.threshold, "probability": p, "note": note})
                for p, _ in _correctness(samples, embedder, self.language)
            ]
        return self._judged(samples, resources)

    def _judged(self, samples: Sequence[Sample], resources: Resources) -> list[Score]:
        llm = resources.llm
        if llm is None:
            raise ConfigError(
                f"metric {self.name} needs an LLM judge; set OPENAI_BASE_URL (and OPENAI_API_KEY) "
                "or use --judge heuristic"
            )
        model = self.judge.split(":", 1)[1].strip()
        if llm.model("judge") != model:
            raise ConfigError(f"{self.name} is configured with judge={self.judge!r} but the judge role runs {llm.model('judge')!r}")
        note = BEM_NOTE.format(by=f"the LLM judge {self.judge}")

        def one(sample: Sample) -> Score:
            prompt = render_prompt(sample.question, references_of(sample), sample.answer or "")
            reply = llm.chat_json("judge", [{"role": "user", "content": prompt}], schema=Equivalence,
                                  validate=equivalence_of)
            if reply.status != "ok":
                details = {"raw": reply.raw, "note": note}
                make = Score.unscored if reply.status == "unscored" else Score.failed
                return make(reply.reason or reply.status, details)
            verdict = reply.value
            return Score.ok(float(verdict["equivalent"]), {**verdict, "judge": self.judge, "note": note})

        return llm.map(one, list(samples))

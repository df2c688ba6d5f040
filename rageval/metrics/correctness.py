"""Answer correctness against gold answers: a learned offline equivalence model and a BEM-style judge.

``answer_correctness_offline`` (v2) is a logistic model over the features of one (question,
reference, candidate) triple (rageval/metrics/correctness_features.py: token overlap after number,
unit, date and currency normalisation, MiniLM similarity, quantity match and conflict, negation
mismatch, abstention). Its parameters, ``rageval/models/answer_correctness.json``, were trained by
``training/train_correctness.py`` on EVOUNA's TriviaQA part plus generated pairs, and are reported on
other data only (docs/validation.md). With several references the item's score is the max.
Long gold answers (a reference of more than 40 tokens) are scored by sentence alignment instead
(rageval/metrics/correctness_long.py): the head was trained on references of at most 19 tokens.

``answer_equivalence`` asks "is the candidate equivalent to the gold answer for this question?",
in the spirit of BEM (Bulian et al. 2022). The BEM checkpoint is NOT shipped with rageval (it is a
TensorFlow BERT model): with ``judge="openai:MODEL"`` an LLM answers the question through the
LLM layer; with ``judge="heuristic"`` the decision is answer_correctness_offline >= 0.5.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Mapping, Sequence

import numpy as np

from rageval import models
from rageval.errors import ConfigError
from rageval.types import OFFLINE_JUDGE, Resources, Sample, Score, Spec
from rageval.metrics.correctness_features import FEATURES, correctness_features
from rageval.metrics.correctness_long import LONG_REFERENCE_TOKENS, is_long, long_correctness
from rageval.metrics.lexical import references_of
from rageval.metrics.semantic import checked_embedder, embedder_name, reference_cosines
from rageval.text.tokenize import check_language, normalization_name
from rageval.judge.ask import judge_client, server_part
from rageval.prompts import prompt_hash, render, reply_model
from rageval.text import version as text_version

NAME = "answer_correctness"
MODEL_PATH = models.path(NAME)
BEM_NOTE = (
    "BEM checkpoint not shipped: this is a BEM-style, question-aware equivalence decision by {by}, "
    "not the BEM model's score"
)


@lru_cache(maxsize=4)
def load_model(path: str = str(MODEL_PATH)) -> Mapping[str, Any]:
    """The trained model (:func:`rageval.models.load`): ``{"features", "weights", "bias",
    "embedder", "trained_on", ...}`` plus ``hash`` (the model's hash, :func:`rageval.models.digest`
    of the file, pinned in the signature) and ``vector`` (bias first, then the weights in feature
    order, as a NumPy array)."""
    shipped = models.load(NAME, meta_path=path)
    model = shipped.meta
    if list(model["features"]) != list(FEATURES):
        raise ConfigError(f"{path} was trained on features {model['features']}, this code computes {list(FEATURES)}")
    vector = np.array([model["bias"], *[model["weights"][f] for f in FEATURES]], dtype=np.float64)
    return {**model, "hash": shipped.hash, "vector": vector}


def probability(features: Mapping[str, float], model: Mapping[str, Any]) -> float:
    """sigmoid(bias + sum_i w_i * x_i), computed stably for large |z|."""
    x = np.array([1.0, *[features[f] for f in FEATURES]], dtype=np.float64)
    z = float(x @ model["vector"])
    return 1.0 / (1.0 + math.exp(-z)) if z >= 0 else math.exp(z) / (1.0 + math.exp(z))


def score_references(
    question: str, answer: str, references: Sequence[str], similarities: Sequence[float], language: str = "en"
) -> tuple[float, int, dict[str, float]]:
    """(max probability over references, index of that reference, its features)."""
    model = load_model()
    best = (-1.0, 0, {})
    for i, (ref, sim) in enumerate(zip(references, similarities)):
        feats = correctness_features(question, ref, answer, sim, language)
        p = probability(feats, model)
        if p > best[0]:
            best = (p, i, feats)
    return best


def _similarities(embedder: Any, samples: Sequence[Sample]) -> list[list[float]]:
    """Per sample, cos(e(answer), e(reference)) for each reference, in order, clipped to [-1, 1]."""
    return [[min(max(c, -1.0), 1.0) for c in sims] for sims in reference_cosines(embedder, samples)]


def _correctness(samples: Sequence[Sample], embedder: Any, language: str) -> list[tuple[float, dict]]:
    """Per sample ``(score, details)``: the learned head for short references, the sentence
    alignment of :mod:`rageval.metrics.correctness_long` for long ones (``details["route"]``)."""
    long = [is_long(references_of(s), language) for s in samples]
    short = [s for s, lg in zip(samples, long) if not lg]
    heads = iter([])
    if short:
        heads = iter(zip(short, _similarities(embedder, short)))
    aligned = iter(long_correctness(embedder, [s.answer or "" for s, lg in zip(samples, long) if lg],
                                    [references_of(s) for s, lg in zip(samples, long) if lg]) if any(long) else [])
    out = []
    for lg in long:
        if lg:
            out.append(next(aligned))
            continue
        sample, sims = next(heads)
        p, i, feats = score_references(
            sample.question or "", sample.answer or "", references_of(sample), sims, language
        )
        out.append((p, {"route": "short", "features": feats, "best_reference": i}))
    return out


@dataclass(frozen=True)
class AnswerCorrectnessOffline:
    """Probability that the answer is correct given the gold answers, from a learned equivalence model.

    For each reference r the features x(q, r, a) of rageval/metrics/correctness_features.py are
    computed (token overlap after normalising numbers, units, dates and currencies in English and
    Italian; MiniLM similarity; quantity recall and conflict; negation mismatch; abstention) and
    scored by the logistic model in rageval/models/answer_correctness.json, trained by
    training/train_correctness.py on EVOUNA-TQ plus generated pairs. A wrong number, a negated rule or
    an "I don't know" scores low; "one week" for "7 days" scores as the same answer.

    A long gold answer (a reference of more than 40 tokens: a paragraph) is outside what the head
    was trained on; there the score is the sentence-alignment F of rageval/metrics/correctness_long.py
    (coverage of reference sentences and support of answer sentences, a score, not a probability).

    Formula: p = max_r 1 / (1 + exp(-(b + w · x(q, r, a)))) when every reference has <= 40 tokens;
    else F = 2 P R / (P + R), P = mean_i max_j max(cos(a_i, r_j), 0), R = mean_j max_i max(cos(a_i, r_j), 0)
    over answer sentences a_i and the pooled reference sentences r_j
    """

    language: str = "en"
    embedder: str = "local"

    name = "answer_correctness_offline"
    needs = frozenset({"answer", "reference"})
    range = (0.0, 1.0)
    higher_is_better = True
    kind = "semantic"
    languages = ("en", "it")
    needs_llm = False

    def __post_init__(self) -> None:
        object.__setattr__(self, "language", check_language(self.language))

    def signature(self) -> str:
        model = load_model()
        return (
            f"answer_correctness_offline|weights:{model['hash']}|model:{embedder_name(self.embedder)}"
            f"|norm:{normalization_name(self.language)}+numbers|refs:max"
            f"|long:sentalign-gt{LONG_REFERENCE_TOKENS}tok|{text_version()}|v3"
        )

    def score_batch(self, samples: Sequence[Sample], resources: Resources) -> list[Score]:
        embedder = checked_embedder(self.embedder, resources, self.name)
        model = load_model()
        note = {}
        if embedder.name != model["embedder"]:
            note = {"warning": f"the model was trained with {model['embedder']} similarities, not {embedder.name}"}
        return [Score.ok(p, {**details, **note}) for p, details in _correctness(samples, embedder, self.language)]


# ------------------------------------------------------------------------- answer equivalence
def equivalence_of(reply: Any) -> dict[str, Any]:
    return {"equivalent": reply.equivalent, "reason": reply.reason}


@dataclass(frozen=True)
class AnswerEquivalence:
    """BEM-style decision: is the answer equivalent to a gold answer for this question? 1 yes, 0 no.

    The BEM checkpoint is not shipped. ``judge="openai:MODEL"``: an LLM judge answers with the
    prompt in rageval/prompts/answer_equivalence.txt. ``judge="heuristic"``: the decision is
    answer_correctness_offline >= 0.5 (its probability is in details).

    Formula: equivalence = 1 if judge(question, references, answer) says equivalent else 0;
    heuristic: equivalence = [p_correct >= 0.5]
    """

    judge: Spec = OFFLINE_JUDGE
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

    def signature(self) -> str:
        if not self.judge.online:
            model = load_model()
            return (
                f"answer_equivalence|judge:heuristic|weights:{model['hash']}|model:{embedder_name(self.embedder)}"
                f"|threshold:{self.threshold}|norm:{normalization_name(self.language)}+numbers"
                f"|long:sentalign-gt{LONG_REFERENCE_TOKENS}tok|{text_version()}|v3"
            )
        prompt = prompt_hash("answer_equivalence")
        return f"answer_equivalence|judge:{self.judge}|prompt:{prompt}|{server_part(self.judge)}v1"

    def llm_calls(self, shape: Any) -> int:
        """One judge call (all references in one prompt), none without a reference."""
        return 1 if shape.references else 0

    def score_batch(self, samples: Sequence[Sample], resources: Resources) -> list[Score]:
        if not self.judge.online:
            embedder = checked_embedder(self.embedder, resources, self.name)
            note = BEM_NOTE.format(by="a heuristic (answer_correctness_offline >= 0.5)")
            return [
                Score.ok(
                    float(p >= self.threshold), {"equivalent": p >= self.threshold, "probability": p, "note": note}
                )
                for p, _ in _correctness(samples, embedder, self.language)
            ]
        return self._judged(samples, resources)

    def _judged(self, samples: Sequence[Sample], resources: Resources) -> list[Score]:
        llm = judge_client(self.name, self.judge, resources)
        note = BEM_NOTE.format(by=f"the LLM judge {self.judge}")

        def one(sample: Sample) -> Score:
            prompt = render("answer_equivalence", question=sample.question,
                            references=" | ".join(references_of(sample)), candidate=sample.answer or "")
            reply = llm.chat_json(
                "judge",
                [{"role": "user", "content": prompt}],
                schema=reply_model("answer_equivalence"),
                validate=equivalence_of,
            )
            if reply.status != "ok":
                details = {"raw": reply.raw, "note": note}
                make = Score.unscored if reply.status == "unscored" else Score.failed
                return make(reply.reason or reply.status, details)
            verdict = reply.value
            return Score.ok(float(verdict["equivalent"]), {**verdict, "judge": str(self.judge), "note": note})

        return llm.map(one, list(samples))

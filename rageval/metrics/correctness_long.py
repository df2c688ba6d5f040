"""Answer correctness for long gold answers: sentence-level alignment of answer and references.

The learned head of ``answer_correctness_offline`` was trained on references of at most 19 tokens
(EVOUNA's TriviaQA aliases and one-sentence generated rules). Against a reference paragraph its
features stop meaning what they meant in training: ``contains`` is always 0, the length features
saturate at their 256-token cap, ``negation_mismatch`` and ``quantity_conflict`` fire on most
paragraphs (any "not" or number in the closest answer sentence), and the whole-text similarity
reads only the first 254 word-pieces of each text. docs/metrics.md gives the measured figures.

So a sample whose longest reference has more than :data:`LONG_REFERENCE_TOKENS` tokens is scored
here instead, by aligning sentences, as BERTScore aligns tokens. With ``a_1..a_m`` the unit
sentence vectors of the answer and ``r_1..r_k`` those of every reference's sentences pooled
(:func:`rageval.embed.sentences.sentence_spans`), ``s_ij = max(cos(a_i, r_j), 0)``:

- precision ``P = (1/m) sum_i max_j s_ij`` (how much of the answer is backed by reference content),
- recall ``R = (1/k) sum_j max_i s_ij`` (how much reference content the answer covers),
- ``F = 2 P R / (P + R)`` (0 when both are 0), the score.

F is a coverage score in [0, 1], not a probability: unrelated English sentences still have
cosines near 0.2, so an answer unrelated to the references scores well above 0.
"""
from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from rageval.embed.sentences import sentence_spans, sentence_vectors
from rageval.text.tokenize import answer_tokens

#: a reference longer than this (tokens) is a long gold answer: about twice the longest the head was trained on
LONG_REFERENCE_TOKENS = 40


def is_long(references: Sequence[str], language: str = "en") -> bool:
    """Whether the longest reference has more than :data:`LONG_REFERENCE_TOKENS` answer tokens.

    >>> is_long(["Paris"]), is_long(["The crew lands on the planet and finds the colony empty. " * 6])
    (False, True)
    """
    return any(len(answer_tokens(r, language)) > LONG_REFERENCE_TOKENS for r in references)


def sentences_of(text: str) -> list[str]:
    """The sentence texts of ``text`` (its spans), or the text itself when it has none."""
    return [sp.text for sp in sentence_spans(text)] or [text]


def alignment(answer: np.ndarray, reference: np.ndarray) -> tuple[float, float, float]:
    """``(P, R, F)`` of the module docstring from unit sentence vectors ``(m, d)`` and ``(k, d)``.

    >>> a = np.array([[1.0, 0.0], [0.0, 1.0]]); r = np.array([[1.0, 0.0]])
    >>> alignment(a, r)
    (0.5, 1.0, 0.6666666666666666)
    """
    sims = np.clip(answer.astype(np.float64) @ reference.astype(np.float64).T, 0.0, 1.0)
    precision, recall = float(sims.max(axis=1).mean()), float(sims.max(axis=0).mean())
    f = 0.0 if precision + recall == 0 else 2 * precision * recall / (precision + recall)
    return precision, recall, f


def long_correctness(embedder: Any, answers: Sequence[str], references: Sequence[Sequence[str]]
                     ) -> list[tuple[float, dict[str, Any]]]:
    """Per (answer, references): ``(F, details)`` with P, R and the sentence counts (one embedding call)."""
    answer_sents = [sentences_of(a) for a in answers]
    ref_sents = [[s for r in refs for s in sentences_of(r)] for refs in references]
    texts = list(dict.fromkeys(s for group in (*answer_sents, *ref_sents) for s in group))
    vectors = sentence_vectors(embedder, texts)
    row = {t: i for i, t in enumerate(texts)}
    out = []
    for a, r in zip(answer_sents, ref_sents):
        p, rc, f = alignment(vectors[[row[s] for s in a]], vectors[[row[s] for s in r]])
        out.append((f, {"route": "long", "precision": p, "recall": rc, "answer_sentences": len(a),
                        "reference_sentences": len(r)}))
    return out

"""Answer generation: the ``Generator`` protocol, the offline extractive generator and the LLM one.

The LLM prompt (``prompts/generator.txt``) follows the structure of the seed paper's generator:
instructions, the retrieved context, the chat history, the question, and the clause that tells
the model to say it does not know when the context lacks the answer.
"""
from __future__ import annotations

import re
import threading
from dataclasses import dataclass, field
from typing import Any, Callable, Protocol, Sequence

import numpy as np

from rageval.prompts import prompt_hash, render
from rageval.text import version as text_version
from rageval.text.tokenize import word_tokens

ABSTENTION = "I don't know based on the provided documents."
_STOP = frozenset(
    "a an the of in on at to for from by with and or is are was were be been what which who whom "
    "when where why how does do did it its this that these those as into than then there their his "
    "her our your my many much can could should would will shall may might".split()
)


def build_prompt(question: str, contexts: Sequence[str], history: Sequence[tuple[str, str]] = ()) -> str:
    """The generator prompt with numbered context passages and ``(role, text)`` history turns,
    rendered like every judge prompt: each value inside its data tags, unable to close them."""
    context = "\n\n".join(f"[{i}] {c.strip()}" for i, c in enumerate(contexts, start=1)) or "(no context)"
    past = "\n".join(f"{role}: {text}" for role, text in history) or "(none)"
    return render("generator", context=context, history=past, question=question.strip())


@dataclass(frozen=True)
class Generation:
    text: str | None
    status: str = "ok"  # ok | failed
    reason: str | None = None
    details: dict[str, Any] = field(default_factory=dict)


class Generator(Protocol):
    name: str

    def generate_batch(self, questions: Sequence[str], contexts: Sequence[Sequence[str]], *,
                       answered: Callable[[int], None] | None = None) -> list[Generation]:
        """One generation per question; ``answered(n)`` hears how many are done so far (for progress)."""
        ...


_MARKUP = re.compile(r"\*\*|__|`|^#+\s*", re.MULTILINE)


def passage_units(text: str) -> list[str]:
    """Answerable units of a passage: sentences, list items and table rows, markup removed.

    The units are :func:`rageval.text.sentences.split_sentences` of the passage (lines inside a
    sentence joined, list items and headings on their own), whitespace collapsed; a table row is
    spelled out with its column headers (:func:`~rageval.text.sentences.table_rows`) so that it can
    answer a question on its own, and a table's header line is dropped. Headings and fragments
    under four words are dropped.
    """
    from rageval.text.sentences import split_sentences, table_rows

    clean = _MARKUP.sub("", text)
    rows = {_line_start(clean, r.start): r.text for r in table_rows(clean)}
    units: list[str] = []
    for span in split_sentences(clean):
        line = _line_start(clean, span.start)
        if line in rows:
            units.append(rows[line])
        elif "|" in span.text and clean.find("\n", span.end) + 1 in rows:
            continue  # a table's header line: its cells are spelled out in each row
        else:
            units.append(" ".join(span.text.split()))
    return [u for u in units if len(u.split()) >= 4 and not _is_heading(u)]


def _line_start(text: str, at: int) -> int:
    return text.rfind("\n", 0, at) + 1


def _is_heading(unit: str) -> bool:
    """A short line with no closing punctuation and no figure reads as a title, not an answer."""
    return len(unit.split()) <= 8 and unit.rstrip()[-1] not in ".!?;:)" and not re.search(r"\d", unit)


def question_names(question: str) -> set[str]:
    """Capitalised words after the first one (names the answer must be about), lower-cased."""
    tokens = word_tokens(question)
    return {t.lower() for t in tokens[1:] if t[:1].isupper() and t.lower() not in _STOP}


def content_words(text: str) -> set[str]:
    return {w for w in (m.lower() for m in word_tokens(text)) if w not in _STOP and len(w) > 1}


@dataclass
class ExtractiveGenerator:
    """Answers with the retrieved sentence that best matches the question, or abstains.

    Each sentence of the top ``max_chunks`` contexts gets
    ``score = cosine(question, sentence) + overlap_weight * |Q ∩ S| / |Q|
    - name_penalty * |N \\ C| / |N| - rank_penalty * (rank - 1)`` where Q and S are the
    content-word sets of question and sentence, C that of the sentence's chunk, and N the names
    (capitalised words) of the question: a passage about another entity is penalised. The best sentence is the answer
    when its score is at least ``min_score``; otherwise the generator says it does not know.
    """

    embedder: Any
    min_score: float = 0.45
    overlap_weight: float = 0.5
    rank_penalty: float = 0.02
    name_penalty: float = 0.5
    max_chunks: int = 5
    name: str = "extractive"

    def signature(self) -> str:
        return (f"extractive|{self.embedder.name}|min:{self.min_score}|ov:{self.overlap_weight}"
                f"|rp:{self.rank_penalty}|np:{self.name_penalty}|chunks:{self.max_chunks}|{text_version()}|v3")

    def generate_batch(self, questions: Sequence[str], contexts: Sequence[Sequence[str]], *,
                       answered: Callable[[int], None] | None = None) -> list[Generation]:
        out = self._generate(questions, contexts)
        if answered is not None:
            answered(len(out))  # one vectorised pass: all answers at once
        return out

    def _generate(self, questions: Sequence[str], contexts: Sequence[Sequence[str]]) -> list[Generation]:
        candidates: list[tuple[int, int, str, set[str]]] = []  # (question, rank, sentence, chunk words)
        for qi, ctx in enumerate(contexts):
            for rank, chunk in enumerate(ctx[: self.max_chunks], start=1):
                chunk_words = content_words(chunk)
                for sent in passage_units(chunk):
                    candidates.append((qi, rank, sent, chunk_words))
        q_vecs = self.embedder.embed(list(questions)) if questions else np.zeros((0, 1), np.float32)
        s_vecs = self.embedder.embed([c[2] for c in candidates]) if candidates else None
        best: dict[int, tuple[float, str, int]] = {}
        for ci, (qi, rank, sent, chunk_words) in enumerate(candidates):
            q_words, s_words = content_words(questions[qi]), content_words(sent)
            overlap = len(q_words & s_words) / len(q_words) if q_words else 0.0
            names = question_names(questions[qi])
            missing = len(names - chunk_words) / len(names) if names else 0.0
            score = (float(q_vecs[qi] @ s_vecs[ci]) + self.overlap_weight * overlap
                     - self.name_penalty * missing - self.rank_penalty * (rank - 1))
            if qi not in best or score > best[qi][0]:
                best[qi] = (score, sent, rank)
        out = []
        for qi in range(len(questions)):
            if qi not in best or best[qi][0] < self.min_score:
                top = round(best[qi][0], 4) if qi in best else None
                out.append(Generation(ABSTENTION, details={"abstained": True, "best_score": top}))
            else:
                score, sent, rank = best[qi]
                out.append(Generation(sent, details={"abstained": False, "best_score": round(score, 4),
                                                     "source_rank": rank}))
        return out


@dataclass
class LLMGenerator:
    """Answers with a chat model through the LLM layer, using the paper-style prompt."""

    client: Any
    temperature: float = 0.0
    name: str = "llm"

    def signature(self) -> str:
        return (f"llm|model:{self.client.model('generator')}|t:{self.temperature}"
                f"|prompt:{prompt_hash('generator')}")

    def generate_batch(self, questions: Sequence[str], contexts: Sequence[Sequence[str]], *,
                       answered: Callable[[int], None] | None = None) -> list[Generation]:
        count, lock = [0], threading.Lock()

        def one(pair: tuple[str, Sequence[str]]) -> Generation:
            try:
                return ask(pair)
            finally:
                if answered is not None:
                    with lock:
                        count[0] += 1
                        answered(count[0])

        def ask(pair: tuple[str, Sequence[str]]) -> Generation:
            question, ctx = pair
            reply = self.client.chat(
                "generator", [{"role": "user", "content": build_prompt(question, ctx)}],
                temperature=self.temperature,
            )
            if reply.status != "ok" or not (reply.text or "").strip():
                return Generation(None, status="failed", reason=reply.reason or "llm_error: empty reply")
            return Generation(reply.text.strip(), details={"cached": reply.cached})

        return self.client.map(one, list(zip(questions, contexts)))

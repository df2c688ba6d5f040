"""The offline claim check (no judge): SUPPORTED only where the text proves it, UNVERIFIED otherwise.

A claim copied from a context that lets the copy stand (:class:`ContainChecker`, the one
registered checker :data:`CHECKER`; docs/claim-rules.md) is SUPPORTED. Every other claim is
UNVERIFIED: nothing offline is shown to decide it right often enough (three learned verifiers,
now in ``training/``, scored at or below always answering SUPPORTED on claims written by people;
docs/validation.md). A withdrawn copy keeps its sentence and the hint naming the cue; any other
UNVERIFIED claim keeps its most likely evidence sentence, whole with its span (the sentence of highest
keyword coverage + cosine of the sentence vectors, :class:`rageval.claims.features.FeatureExtractor`,
whose vector cache is reused), and the hints of :func:`rageval.claims.hints.hints`. No offline
path writes CONTRADICTED or NOT_MENTIONED; only a judge does (:mod:`rageval.claims.judge`).
"""
from __future__ import annotations

import threading
from pathlib import Path
from typing import Any, Sequence

from rageval.claims import containment, extract, guards, hints
from rageval.claims.features import FeatureExtractor
from rageval.claims.verdict import SUPPORTED, UNVERIFIED, Verdict
from rageval.text.lang import guess_language
from rageval.text.pipeline import pipeline_version

#: the modules whose code and tables make the offline verdicts (hashed into :meth:`ContainChecker.version`)
RULE_MODULES = ("rageval.claims.offline", "rageval.claims.containment", "rageval.claims.guards",
                "rageval.claims.extract", "rageval.claims.hints", "rageval.claims.cues", "rageval.text.markdown",
                "rageval.text.sentences", "rageval.text.words", "rageval.text.numbers", "rageval.text.number_tables",
                "rageval.text.hedges", "rageval.text.lang", "rageval.text.pipeline")


def tree_hash(source: str) -> str:
    """sha256 of the syntax tree of Python ``source`` without its docstrings (comments are not in
    the tree), so it moves whenever code or a table written in it changes, not when only prose does.

    >>> tree_hash("X = 1  # one") == tree_hash("'Doc.'\\nX = 1"), tree_hash("X = 1") == tree_hash("X = 2")
    (True, False)
    """
    import ast
    import hashlib

    tree = ast.parse(source)
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if (isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and body
                and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant)
                and isinstance(body[0].value.value, str)):
            node.body = body[1:] or [ast.Pass()]
    return hashlib.sha256(ast.dump(tree, annotate_fields=False).encode("utf-8")).hexdigest()


def code_hash(modules: Sequence[str] = RULE_MODULES) -> str:
    """8 hex characters over :func:`tree_hash` of each of ``modules`` and the spaCy pipeline's
    version (:func:`rageval.text.pipeline.pipeline_version`, whose tags the English verb test reads)."""
    import hashlib
    import importlib

    parts = [f"{name}:{tree_hash(Path(importlib.import_module(name).__file__).read_text(encoding='utf-8'))}"
             for name in modules]
    return hashlib.sha256("\n".join([*parts, pipeline_version()]).encode("utf-8")).hexdigest()[:8]


class ContainChecker:
    """The offline claim check, a named rule set with a revision: a claim copied from a context
    sentence that asserts it as it stands (:func:`rageval.claims.containment.check`) and that no
    whole-context guard withdraws (:mod:`rageval.claims.guards`) is SUPPORTED; a copy that is
    refused is UNVERIFIED with a hint naming the cue; any other claim is left to the caller
    (None). *Copies stay copies*: when a sentence of the answer is itself such a copy, every claim
    extracted from it is SUPPORTED by that sentence, so no rewritten fragment ("Curie won two
    prizes" from "She won two prizes") loses the copy. ``docs/claim-rules.md`` has one heading per
    revision; :data:`RULES` declares each rule a guard or a normalisation."""

    name = "contain"
    #: bumped with a heading in docs/claim-rules.md whenever a verdict of the recorded development
    #: cases moves (tests/data/claim_rules_golden.json)
    revision = 5

    def version(self) -> str:
        """``contain-r<revision>/<code hash>``, e.g. ``contain-r5/1a2b3c4d``."""
        return f"{self.name}-r{self.revision}/{code_hash()}"

    def signature(self) -> str:
        """The signature part every claim metric carries: ``verifier:<version>``."""
        return f"verifier:{self.version()}"

    def decide(self, claims: Sequence[str], contexts: Sequence[str], question: str = "", answer: str = "",
               skip: frozenset[str] = frozenset()) -> list[Verdict | None]:
        """Per claim: SUPPORTED, UNVERIFIED with a withdrawal hint, or None (not a copy); the rules
        named in ``skip`` are not applied (the direction tests switch one guard off)."""
        found = [containment.check(c, contexts, question, answer, skip) for c in claims]
        if "copies stay copies" in skip or all(v is not None and v.label == SUPPORTED for v in found):
            return found
        whole: dict[str, Verdict] = {}
        for sentence, parts in extract.sentence_claims(question, answer):
            if len(parts) > 1 or (parts and parts[0] != extract.as_claim(sentence)):
                v = containment.check(sentence, contexts, question, answer, skip)
                if v is not None and v.label == SUPPORTED:
                    whole.update((p, v) for p in parts)
        return [whole.get(c, v) if v is None or v.label != SUPPORTED else v for c, v in zip(claims, found)]


#: every rule of the checker: (name, kind, what it does). A *guard* can only remove SUPPORTED; a
#: *normalisation* changes what is compared (a claim's or a context's form, its unit), so it may
#: add SUPPORTED. Each guard named here can be switched off by ``decide(skip=...)``.
RULES = (
    ("normalise", "normalisation", "case, quotes, dashes, whitespace, zero-width characters, Markdown marks"),
    ("segment", "normalisation", "one sentence segmenter for contexts and answers (rageval.text.sentences)"),
    ("copies stay copies", "normalisation", "a copied answer sentence supports every claim extracted from it"),
    ("sentence", "guard", "the copy's own sentence asserts it as it stands (containment.refusal)"),
    ("verbless part", "guard", "a part of a sentence needs a verb of its own; a bare name is no claim"),
    *((name, "guard", what) for name, _, what in guards.GUARDS),
)
#: the registered offline checkers by name (one, as sacrebleu registers its tokenizers)
CHECKERS = {"contain": ContainChecker}
CHECKER = CHECKERS["contain"]()


def version() -> str:
    """The offline checker's version (part of every claim metric's signature)."""
    return CHECKER.version()


class RulesVerifier:
    """The registered checker's verdicts, else UNVERIFIED with evidence and hints (the module docstring)."""

    def __init__(self, embedder: Any = None):
        self.features = FeatureExtractor(embedder)

    def verify(self, claims: Sequence[str], contexts: Sequence[str]) -> list[Verdict]:
        return self.verify_many([(claims, contexts)])[0]

    def verify_many(self, jobs: Sequence[tuple]) -> list[list[Verdict]]:
        """``[(claims, contexts[, question, answer]), ...]`` -> verdict lists."""
        decided = [CHECKER.decide(job[0], job[1], *job[2:4]) for job in jobs]
        rest = [([t for t, v in zip(job[0], vs) if v is None], job[1]) for job, vs in zip(jobs, decided)]
        ranked = iter([f for fs in self.features.many(rest) for f in fs])
        out = []
        for job, vs in zip(jobs, decided):
            claims, contexts = job[0], job[1]
            joined = "\n".join(contexts)
            lang = guess_language(" ".join(claims)[:500] + " " + joined[:2000]) if claims else None
            out.append([v if v is not None else unverified(t, next(ranked), lang, joined)
                        for t, v in zip(claims, vs)])
        return out


def unverified(claim: str, f: Any, lang: str | None, context: str = "") -> Verdict:
    """The UNVERIFIED verdict of ``claim`` with the first of its ranked sentences as likely evidence."""
    if not f.ranked:
        return Verdict(UNVERIFIED, reason="no context sentence to compare with", hints=())
    s = f.ranked[0]
    found = hints.hints(claim, s.text, lang, context)
    why = "not found as stated in the contexts; the most likely evidence sentence is shown for a person to decide"
    return Verdict(UNVERIFIED, s.text, s.ctx, (s.start, s.end), why, evidence_role="likely evidence",
                   coverage=round(float(f.vector[0]), 4), hints=found)


_shared: list[Any] = [None, None]
_lock = threading.RLock()


def offline_verify(embedder: Any, jobs: Sequence[tuple]) -> list[list[Verdict]]:
    """``verify_many`` of :class:`RulesVerifier`, one per embedder object so its vector cache is
    reused, one caller at a time."""
    with _lock:
        if _shared[0] is not embedder:
            _shared[:] = [embedder, RulesVerifier(embedder)]
        return _shared[1].verify_many(jobs)

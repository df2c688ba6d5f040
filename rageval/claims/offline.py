"""The offline claim check (no judge): SUPPORTED only where the text proves it, UNVERIFIED otherwise.

A claim contained in one context sentence or two adjacent ones, as the sentence asserts it
(:func:`rageval.claims.containment.contained`), is SUPPORTED. Every other claim is UNVERIFIED:
nothing offline is shown to decide it right often enough (three learned verifiers scored at or
below always answering SUPPORTED on claims written by people; docs/validation.md). An UNVERIFIED
claim keeps its most likely evidence sentence, whole with its span (the sentence of highest
keyword coverage + cosine of the sentence vectors, :class:`rageval.claims.features.FeatureExtractor`,
whose vector cache is reused), and the hints of :func:`rageval.claims.hints.hints`. No offline
path writes CONTRADICTED or NOT_MENTIONED; only a judge does (:mod:`rageval.claims.judge`).

The NLI cross-encoder (:class:`rageval.claims.verifier.CrossEncoderVerifier`) is an explicit
opt-in, ``RAGEVAL_CLAIM_VERIFIER=xenc`` (:data:`XENC_HELP` gives its measured figures); the
signature then names its version instead of this module's.
"""
from __future__ import annotations

import threading
from typing import Any, Sequence

from rageval import settings
from rageval.claims import containment, cues, extract, hints
from rageval.claims.features import FeatureExtractor
from rageval.claims.verdict import UNVERIFIED, Verdict
from rageval.errors import ConfigError
from rageval.text.lang import guess_language
from rageval.util import tables_hash

SETTING = "RAGEVAL_CLAIM_VERIFIER"
CHOICES = ("rules", "xenc")
XENC_HELP = ("xenc: the learned NLI cross-encoder decides claims that are not copied (opt-in; measured 0.32 "
             "3-way accuracy on 152 hand-written claims where always SUPPORTED scores 0.39, and 0.383 on "
             "Climate-FEVER where the majority class scores 0.673: its verdicts are guesses)")


def chosen() -> str:
    """The offline verifier: ``rules`` (default) or ``xenc`` (``RAGEVAL_CLAIM_VERIFIER``); a
    ConfigError names another value."""
    name = settings.value(SETTING).lower()
    if name not in CHOICES:
        raise ConfigError(f"{SETTING}={name!r} must be one of {', '.join(CHOICES)} (rules is the default)")
    return name


def rules_version() -> str:
    """``rules-<8 hex>``: a hash of the containment rules' word lists and patterns (with their
    ``RULES_REVISION``, bumped when their code changes), the hint cues and the extraction rules
    (a short answer's question claim, the verb a split-off clause needs)."""
    return "rules-" + tables_hash(containment, cues, hints, extract)


def version() -> str:
    """The version of the chosen offline verifier (part of every claim metric's signature)."""
    if chosen() == "xenc":
        from rageval.claims.verifier import version as xenc_version
        return xenc_version()
    return rules_version()


class RulesVerifier:
    """Containment, else UNVERIFIED with evidence and hints (the module docstring)."""

    def __init__(self, embedder: Any = None):
        self.features = FeatureExtractor(embedder)

    def verify(self, claims: Sequence[str], contexts: Sequence[str]) -> list[Verdict]:
        return self.verify_many([(claims, contexts)])[0]

    def verify_many(self, jobs: Sequence[tuple[Sequence[str], Sequence[str]]]) -> list[list[Verdict]]:
        copied = [[containment.contained(t, contexts) for t in claims] for claims, contexts in jobs]
        rest = [([t for t, v in zip(claims, vs) if v is None], contexts)
                for (claims, contexts), vs in zip(jobs, copied)]
        ranked = iter([f for fs in self.features.many(rest) for f in fs])
        out = []
        for (claims, contexts), vs in zip(jobs, copied):
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


_shared: list[Any] = [None, None, None]
_lock = threading.RLock()


def offline_verify(embedder: Any, jobs: Sequence[tuple[Sequence[str], Sequence[str]]]) -> list[list[Verdict]]:
    """``verify_many`` of the chosen offline verifier, one per (embedder object, choice) so its
    vector cache is reused, one caller at a time."""
    name = chosen()
    with _lock:
        if _shared[0] is not embedder or _shared[2] != name:
            if name == "xenc":
                from rageval.claims.verifier import shipped_verifier
                made = shipped_verifier(embedder)
            else:
                made = RulesVerifier(embedder)
            _shared[:] = [embedder, made, name]
        return _shared[1].verify_many(jobs)

"""A claim copied from the contexts is SUPPORTED by containment when its context lets the copy stand.

Both texts are *normalised* (:func:`normalise`): lower case; curly and angled quotes made
straight; every dash (hyphen, en and em dash, minus) one ``-``; soft hyphens and zero-width
characters dropped; each run of whitespace (line breaks included) one space, and none after an
apostrophe (``dell' Area`` is ``dell'area``); Markdown's inline marks dropped, their text kept
(:func:`rageval.text.markdown.markup`: ``**bold**``, ``*em*``, ``_em_``, `` `code` ``, ``[text](url)``). The claim also
loses its final punctuation and a leading list marker or heading ``#`` (a context's are outside
its sentences already, :func:`rageval.text.sentences.split_sentences`). Dropping marks never
joins what the sentences keep apart: an occurrence must still lie within one sentence or two
adjacent ones of the original text.

A claim is *contained* in a context when its normalised text occurs in the context's normalised
text starting and ending at word boundaries, the occurrence lies within one sentence or two
adjacent sentences of that context (:func:`rageval.text.sentences.split_sentences`), and the
sentence asserts it as it stands:

- the words before it in its sentence hold no negation and no cue that the rest is not asserted
  (``if``, ``whether``, ``unless``, ``false``, ``se``, ``qualora`` ...: :data:`NOT_ASSERTED`): "It
  is not true that the fee is 20 EUR" does not support "the fee is 20 EUR";
- it starts the sentence, or follows only articles, a framing phrase that does not restrict it
  ("However,", "Fact:": :data:`_FRAME`), an attribution to the document itself ("According to the
  manual,": :data:`_ATTRIBUTION` with a source of :data:`_OWN_SOURCE`; "According to critics," is
  refused) or a coordinating ``and`` / ``but`` / ``;`` (:data:`_JOIN`); an introductory phrase
  ("In winter, the office opens at 9") restricts;
- no ``?`` follows it in its sentence (a question, in any language, asserts nothing);
- it ends the sentence (only closing punctuation after it), or the rest of the sentence starts at
  a clause boundary with a non-restricting link (``, which``, ``, and``, ``; ``...: :data:`_LINKS`)
  and holds no restricting or withdrawing word (``only``, ``except``, ``if``, ``until``,
  ``retracted``, ``withdrawn``, ``solo``, ``tranne``...: :data:`RESTRICTING`) and no condition
  (``as long as``, ``although``, ``purché``...: :data:`_CONDITION`): "the office opens at 9, which
  is early" supports "the office opens at 9"; "the office opens at 9 in winter", "..., except on
  Sundays" and "..., which was later retracted" do not.

Then the whole-context guards run (:func:`rageval.claims.guards.withdrawal`). A copy refused by its
sentence or by a guard is UNVERIFIED with its sentence as evidence and the hint of
:func:`refusal` or of the guard (:func:`check`); :func:`contained` keeps only SUPPORTED verdicts
(the judge path sends every other claim to the judge).

A copied claim that is only part of its sentence (words of the sentence before or after it)
must have a verb of its own (:func:`rageval.claims.extract.has_own_verb`, spaCy's tagger for
English, word rules for Italian, the language guessed from its sentence): "the continuing
uncertainty associated with COVID" after "..., raw material costs, and" is an item of the
sentence's list, a noun phrase that states nothing by itself. A whole sentence is the
document's own unit and needs no verb (a table row "Cap: 190 EUR", a list item, "Come in,
please!"), unless it is a bare name or title: every word capitalised, no digit and no colon
("Sheryl Lee Ralph."), which states nothing and is never SUPPORTED.

A claim needs at least ``MIN_WORDS`` words, and a question claim (a short answer read with its
question, :func:`rageval.claims.extract.question_claim`: it holds ``?`` or `` -> ``) is never
contained. The verdict is SUPPORTED with confidence 1.0, the whole sentence (or the two
sentences) as evidence with its span, the exact span of the copied text in ``quote_span``, and
a reason saying it was found verbatim.
"""
from __future__ import annotations

import functools
import re
from typing import Sequence

from rageval.claims.extract import has_own_verb
from rageval.claims import guards
from rageval.claims.verdict import CONTRADICTED, NOT_MENTIONED, SUPPORTED, UNVERIFIED, Verdict
from rageval.text.lang import guess_language
from rageval.text.markdown import markup, unmarked
from rageval.text.sentences import enclosing, split_sentences
from rageval.text.words import ALL_NEGATIONS, fold, words

MIN_WORDS = 3
#: words before the copied text that make it not asserted (English and Italian, accent-folded)
NOT_ASSERTED = frozenset(
    """if unless whether suppose supposing assuming false untrue myth wrong denied denies deny
    rumour rumor rumoured rumored allegedly claimed claims doubt doubtful
    se qualora falso falsa smentito smentita nega negano presunto presunta dubbio""".split()
) | ALL_NEGATIONS
#: words that narrow what comes before them (English and Italian, accent-folded)
RESTRICTING = frozenset(
    """only except excepting excluding exclusively unless if when whenever provided providing until till
    before after during while subject limited solely save but unless otherwise retracted withdrawn
    cancelled canceled abolished revoked corrected denied incorrect untrue disproved debunked
    ritirato ritirata cancellato cancellata abolito abolita revocato revocata smentito smentita
    solo soltanto solamente unicamente tranne eccetto salvo escluso esclusi esclusa purche se quando
    qualora finche prima dopo durante limitatamente""".split()
) | NOT_ASSERTED
#: a clause boundary and a link after it that keep the clause before it asserted
_LINKS = re.compile(r"^\s*(?:[,;]|-(?=\s))\s*(?:which|who|whose|and|so|"
                    r"che|il quale|la quale|i quali|le quali|e|mentre)\b")
#: phrases after the copy that condition or withdraw it whatever the link (accent-folded)
_CONDITION = re.compile(r"\b(?:as long as|so long as|on condition that|a patto che|a condizione che|anche se|"
                        r"sebbene|benche|although|though|pero)\b")
#: "According to X," / "As reported by X," / "Secondo X,": X is the source the copy is attributed to
_ATTRIBUTION = re.compile(r"^(?:according to|as (?:stated|noted|reported|described|explained|claimed) (?:in|by)|"
                          r"secondo|stando a|come (?:riportato|indicato|spiegato|affermato) (?:in|da|nel|nella|"
                          r"dal|dalla))\s+(?P<source>[^,:]{1,60}?)\s*[,:]$")
#: an attributed source that is the document the context is (its manual, policy, contract ...)
_OWN_SOURCE = re.compile(
    r"^(?:(?:the|this|our|these|its|il|lo|la|l'|questo|questa|questi|queste|i|gli|le|nostro|nostra)\s*)?"
    r"(?:(?:user|user's|owner's|owners|installation|product|reference|service|following|present|above)\s+)?"
    r"(?:manual|guide|handbook|documentation|docs|policy|contract|agreement|terms(?: and conditions)?|document|"
    r"page|table|specifications?|spec sheet|datasheet|regulations?|rules|faq|notice|"
    r"manuale|guida|documentazione|contratto|accordo|regolamento|condizioni(?: generali)?|documento|pagina|"
    r"tabella|scheda tecnica|informativa|presente (?:contratto|documento|regolamento))\b")
#: what may come before a copied claim in its sentence without restricting it
_FRAME = re.compile(r"^(?:however|also|moreover|furthermore|in addition|additionally|importantly|note|fact|"
                    r"in fact|indeed|in particular|inoltre|tuttavia|infatti|in particolare|nota|fatto)\s*[,:]$")
_JOIN = re.compile(r"(?:^|[,;]|\s)(?:and|but|e|ma)$|;$")
_ARTICLES = frozenset("the a an il lo la i gli le l un una uno".split())
_CLOSING = ".!?;:,\u2026 \"')]\u00bb\u201d\u2019*_"
#: a value in a verbless sentence (a digit or a colon): it states something, it is no bare name
_VALUE = re.compile(r"[\d:]")
_LEADING_MARKER = re.compile(r"^(?:[-*+\u2022]|\d{1,3}[.)]|#{1,6})\s+")
_QUOTES = {**dict.fromkeys("\u2018\u2019\u201a\u201b\u2032\u0060\u00b4", "'"),
           **dict.fromkeys("\u201c\u201d\u201e\u201f\u2033\u00ab\u00bb", '"')}
_DASHES = dict.fromkeys("\u2010\u2011\u2012\u2013\u2014\u2015\u2212\ufe58\ufe63\uff0d", "-")
_DROP = frozenset("\u00ad\u200b\u200c\u200d\u2060\ufeff")
_TRAILING = ".!?;:,\u2026 "
_OPENING = " \t\n\"'(*_-\u2022"


@functools.lru_cache(maxsize=512)
def normalise(text: str) -> tuple[str, tuple[int, ...]]:
    """``text`` normalised as in the module docstring, and for each character of the result the
    offset in ``text`` of the character it came from (memoised: every claim of an answer is
    looked up in the same contexts).

    >>> normalise("It\u2019s  \\nfree \u2013 now")[0]
    "it's free - now"
    """
    out: list[str] = []
    index: list[int] = []
    marks = markup(text)
    for i, ch in enumerate(text):
        if ch in _DROP or i in marks:
            continue
        if ch.isspace():
            if out and out[-1] not in " '":
                out.append(" ")
                index.append(i)
            continue
        for low in _QUOTES.get(ch) or _DASHES.get(ch) or ch.lower():
            out.append(low)
            index.append(i)
    return "".join(out), tuple(index)


def _claim_form(claim: str) -> str:
    norm = _LEADING_MARKER.sub("", normalise(claim)[0].strip())
    return norm.rstrip(_TRAILING).strip()


def check(claim: str, contexts: Sequence[str], question: str = "", answer: str = "",
          skip: frozenset[str] = frozenset()) -> Verdict | None:
    """The offline verdict of a copied ``claim``: SUPPORTED when one of ``contexts`` holds it in a
    sentence that asserts it as it stands and no whole-context guard withdraws it
    (:func:`rageval.claims.guards.withdrawal`, with ``question`` and ``answer``; guards named in
    ``skip`` are not run); UNVERIFIED with the copy's sentence as evidence and a hint naming the
    cue when every occurrence is refused; None when the claim is not copied at all."""
    needle = _claim_form(claim)
    if len(needle.split()) < MIN_WORDS or "?" in needle or " -> " in needle:
        return None
    refused: Verdict | None = None
    asked = guards.Asked(claim, question, answer)
    for ci, ctx in enumerate(contexts):
        hay, index = normalise(ctx)
        at = hay.find(needle)
        while at >= 0:
            end = at + len(needle)
            if (at == 0 or not hay[at - 1].isalnum()) and (end == len(hay) or not hay[end].isalnum()):
                found = _verdict(ctx, ci, index[at], index[end - 1] + 1, asked, skip)
                if found is not None and found.label == SUPPORTED:
                    return found
                refused = refused or found
            at = hay.find(needle, at + 1)
    return refused


def contained(claim: str, contexts: Sequence[str], question: str = "", answer: str = "") -> Verdict | None:
    """The SUPPORTED verdict of :func:`check`, else None (a refused copy too)."""
    found = check(claim, contexts, question, answer)
    return found if found is not None and found.label == SUPPORTED else None


def refusal(prefix: str, rest: str) -> str | None:
    """Why a sentence does not assert the copied text between ``prefix`` and ``rest`` (the
    sentence's text before and after it) as it stands, as a hint; None when it does (the rules in
    the module docstring).

    >>> refusal("According to critics, ", "."), refusal("According to the manual, ", ".") is None
    ("its sentence attributes it to 'critics', not to the document", True)
    """
    said = " ".join(prefix.split())
    if set(words(prefix)) & NOT_ASSERTED:
        return f"the words before it in its sentence say: '{said}'"
    before = fold(normalise(prefix)[0]).strip(_OPENING)
    source = _ATTRIBUTION.match(before)
    if source and not _OWN_SOURCE.match(source.group("source")):
        return f"its sentence attributes it to '{source.group('source')}', not to the document"
    if before and not (set(words(before)) <= _ARTICLES or source or _FRAME.match(before) or _JOIN.search(before)):
        return f"the words before it in its sentence restrict it: '{said}'"
    after = fold(normalise(rest)[0])
    tail = " ".join(rest.split())
    if "?" in after:
        return "its sentence is a question"
    if not after.strip(_CLOSING):
        return None
    if not _LINKS.match(after) or set(words(after)) & RESTRICTING or _CONDITION.search(after):
        return f"the rest of its sentence restricts, conditions or withdraws it: '{tail}'"
    return None


def _bare_name(text: str) -> bool:
    """Whether ``text`` is a bare name or title: every word capitalised, no digit and no colon."""
    return not _VALUE.search(text) and all(w[0].isupper() for w in re.findall(r"[^\W\d_][\w'-]*", text))


def _verdict(ctx: str, ci: int, start: int, end: int, asked: guards.Asked,
             skip: frozenset[str]) -> Verdict | None:
    evidence = enclosing(ctx, start, end, most=2)
    if evidence is None:
        return None
    prefix, rest = unmarked(ctx, evidence.start, start), unmarked(ctx, end, evidence.end)
    part = bool(prefix.strip(_OPENING) or rest.strip(_CLOSING))
    if ("verbless part" not in skip and (part or _bare_name(ctx[start:end]))
            and not has_own_verb(ctx[start:end], guess_language(evidence.text))):
        return None  # a part of its sentence with no verb of its own, or a bare name or title: no claim
    hint = ("sentence" not in skip and refusal(prefix, rest)) or guards.withdrawal(
        guards.Copy(ctx, start, end, evidence), asked, skip
    )
    if hint:
        return Verdict(UNVERIFIED, evidence.text, ci, (evidence.start, evidence.end),
                       "copied from context %d, but the context does not let the copy stand: %s" % (ci + 1, hint),
                       evidence_role="likely evidence", quote_span=(start, end), hints=(hint,))
    two = sum(evidence.start <= s.start and s.end <= evidence.end for s in split_sentences(ctx)) > 1
    where = "two adjacent sentences" if two else "one sentence"
    return Verdict(SUPPORTED, evidence.text, ci, (evidence.start, evidence.end),
                   f"found verbatim in context {ci + 1} ({where}; case, quotes, dashes and line breaks ignored)",
                   coverage=1.0, similarity=1.0, confidence=1.0,
                   probabilities={SUPPORTED: 1.0, CONTRADICTED: 0.0, NOT_MENTIONED: 0.0},
                   evidence_role="support", quote_span=(start, end))

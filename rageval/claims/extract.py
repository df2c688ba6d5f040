"""Offline claim extraction: an answer -> short, self-contained factual statements.

Steps, each a plain rule:

1. split into sentences (:func:`rageval.text.sentences.split_sentences`), strip list markers;
2. drop what is not a claim: questions, greetings and sign-offs, abstentions ("I don't know",
   "the documents do not say"), and sentences left with no content word after removing
   hedge and framing phrases ("I think", "Based on the context,"). A *yes* or *no* that opens a
   sentence, or stands alone before one, is kept at the head of that sentence's claim ("Yes, the
   maximum score is 300."): it answers the question, which the rest may not prove ("Do you bowl?"),
   so a copy of the rest alone never makes the claim SUPPORTED;
3. split clauses where it is safe: on ``;``; on ``, and`` / ``, but`` / ``, while`` / ``, whereas``
   when a new subject follows with a verb of its own (:func:`has_own_verb`: "..., raw material
   costs, and the uncertainty associated with COVID." is one list, so one claim); on ``and`` + a verb when the sentence
   starts with a named subject
   (``Curie was born in 1867 and won two prizes`` -> two claims about Curie); on a
   non-restrictive ``, which`` (the antecedent is repeated);
4. pronoun-light rewriting: a claim starting with he/she/it/they (or his/her/its/their) gets the
   last named subject instead, when the previous claim started with one.

Instructions and requests are claims too ("Please report bugs to Fedora's tracker." states where
bugs go); only closing pleasantries ("let me know if ...") and advice tails (", but please check
with HR") are dropped.

A *short answer* (:func:`is_short_answer`: one sentence of at most ``SHORT_WORDS`` words with no
finite verb, "€1.32 billion.", "WPA3") says nothing by itself: :func:`answer_claims` turns it into
the claim the question makes of it (:func:`question_claim`), so it is never checked as a bare value
that may occur anywhere in a context. An answer with text and no claim gets the reason of
:func:`why_no_claims`.
"""
from __future__ import annotations

import re

from rageval.text.hedges import abstention_cues
from rageval.text.markdown import markup, unmarked
from rageval.text.numbers import quantities
from rageval.text.lang import guess_language
from rageval.text.pipeline import tags
from rageval.text.sentences import split_sentences
from rageval.text.words import STOPWORDS, content_stems

_LIST_MARK = re.compile(r"^\s*(?:[-*•·]|\d+[.)]|\(?[a-z]\))\s+")
_GREETING = re.compile(
    r"^(?:hi|hello|hey|yes|no|ok|okay|dear\b.*|thanks?(?: you)?|you're welcome|sure|certainly|of course|"
    r"great question|good question|i hope (?:this|that) helps|hope (?:this|that) helps|"
    r"let me know\b.*|feel free\b.*|happy to help\b.*|glad to help\b.*|"
    r"please (?:let me know|feel free|ask)\b.*|is there anything else\b.*)[\s!.,]*$",
    re.IGNORECASE,
)
_FRAMING = re.compile(
    r"^(?:(?:based on|according to|from|in|per) (?:the |this |these )?(?:provided |given |available |retrieved )?"
    r"(?:context|documents?|passages?|information|sources?|text|excerpts?|data)(?: provided| given)?\s*,\s*|"
    r"(?:i think|i believe|i guess|i suppose|i would say|it seems|it appears)(?: that)?\s*,?\s+|"
    r"(?:as far as i know|to my knowledge|in summary|in short|overall|to summari[sz]e|"
    r"to answer your question|well|so|basically|essentially|in fact|actually|indeed|however|"
    r"also|additionally|furthermore|moreover|in addition|finally|first|second|third|lastly)\s*,\s*)",
    re.IGNORECASE,
)
_PRONOUNS = {"he": "", "she": "", "it": "", "they": "", "his": "'s", "her": "'s", "its": "'s", "their": "'s"}
_CLAUSE_SUBJECT = re.compile(
    r"^(?:he|she|it|they|we|i|you|this|these|that|those|there|the|its|his|her|their|a|an|"
    r"[A-Z\u00C0-\u00DE]\w*)\b",
)
_VERBISH = re.compile(
    r"^(?:is|are|was|were|has|have|had|will|would|can|could|may|might|must|should|did|does|do|"
    r"won|lost|became|began|made|took|gave|held|led|sold|bought|built|grew|rose|fell|wrote|"
    r"received|remains?|includes?|provides?|uses?|runs?|offers?|\w{3,}ed|\w{3,}s)$",
    re.IGNORECASE,
)
#: verbs that may start the second half of "<subject> <verb> ... and <verb> ..." (no bare
#: plurals: "studied chemistry and physics" must stay one claim)
_VERB_AFTER_AND = re.compile(
    r"^(?:is|are|was|were|has|had|will|can|did|won|lost|became|began|made|took|gave|held|led|"
    r"sold|bought|built|grew|rose|fell|wrote|\w{3,}ed)$",
    re.IGNORECASE,
)


#: a yes or no that answers the question (kept with its sentence, step 2); a "no" only before
#: punctuation or the end, since "No one knows" and "No two cases are alike" start a statement
_YES_NO = re.compile(r"^(?:(yes|yeah|yep|yup)\b[\s!.,;:]*|(no|nope)(?:\s*[!.,;:]+\s*|\s*$))", re.IGNORECASE)


def _after_reply(reply: str, text: str) -> str:
    """``Yes, <text>``, the text's first word in lower case when it is a function word ("The")."""
    first = text.split(maxsplit=1)[0]
    if first.lower() in STOPWORDS and first[1:].islower():
        text = text[0].lower() + text[1:]
    return f"{reply}, {text}"


def answer_sentences(answer: str) -> list[str]:
    """The sentences of ``answer`` that may carry claims (steps 1-2), framing phrases removed and an
    opening yes or no kept as ``Yes, `` / ``No, `` (also one that stood alone before the sentence)."""
    out: list[str] = []
    reply = ""
    for span in split_sentences(answer):
        text = _LIST_MARK.sub("", " ".join(span.text.split())).strip()
        yes_no = _YES_NO.match(text)
        if yes_no:
            reply, text = ("Yes" if yes_no.group(1) else "No"), text[yes_no.end():].strip()
        if not text:
            continue
        if text.endswith("?") or _GREETING.match(text) or abstention_cues(text):
            reply = ""
            continue
        prev = None
        while prev != text:
            prev = text
            text = _FRAMING.sub("", text).strip()
        if text and (content_stems(text) or quantities(text)):
            out.append(_after_reply(reply, text) if reply else text[0].upper() + text[1:])
        reply = ""
    return out


SHORT_WORDS = 6
_FINITE = re.compile(
    r"\b(?:is|are|was|were|be|been|has|have|had|will|would|can|could|may|might|must|shall|should|do|does|did|"
    r"isn't|aren't|wasn't|weren't|hasn't|haven't|doesn't|don't|didn't|won't|can't|"
    r"è|sono|era|erano|fu|furono|ha|hanno|aveva|avevano|sarà|saranno|può|possono|deve|devono)\b",
    re.IGNORECASE)
#: "What is X?" / "Who was X?" / "Which X is Y?": the question's statement form is "X is <value>"
_COPULA_QUESTION = re.compile(r"^\s*(?:what|who|which)\s+(is|are|was|were)\s+(?P<subject>[^?]{3,}?)\s*\?*\s*$",
                              re.IGNORECASE)


#: Penn Treebank tags of a finite verb: past, present (both persons), modal
_FINITE_TAGS = frozenset({"VBD", "VBP", "VBZ", "MD"})
#: Italian subject pronouns: a word after one is its verb wherever it stands
_IT_SUBJECTS = frozenset("egli lui lei essi esse noi voi".split())
#: Italian finite endings read as a verb (3rd person plural, imperfect, past): "registrano", "aveva"; "chiuse" is missed
_IT_FINITE = re.compile(r"^\w{2,}(?:ano|ono|ava|eva|iva|avano|evano|ivano)$|^\w{3,}ò$")


def has_own_verb(text: str, language: str | None = None) -> bool:
    """Whether ``text`` has a finite verb of its own. English (``language``, else
    :func:`rageval.text.lang.guess_language` of the text): a token that spaCy's English pipeline
    tags as a finite verb (:data:`_FINITE_TAGS`, :func:`rageval.text.pipeline.tags`). Other
    languages (Italian: no tagger ships) by word rules: an auxiliary, copula or modal
    (:data:`_FINITE`), a subject pronoun with a word after it, or an Italian finite ending
    (:data:`_IT_FINITE`). A noun phrase has none: "The continuing uncertainty associated with COVID."

    >>> has_own_verb("children swim in the lake"), has_own_verb("the continuing uncertainty associated with COVID")
    (True, False)
    >>> has_own_verb("i dati registrano un calo", "it"), has_own_verb("il calo dei dati", "it")
    (True, False)
    """
    if (language or guess_language(text)) == "en":
        return any(tag in _FINITE_TAGS for _, _, tag in tags(text))
    if _FINITE.search(text):
        return True
    toks = [t.lower() for t in re.findall(r"[\w'’-]+", text)]
    return (any(t in _IT_SUBJECTS for t in toks[:-1])
            or any(_IT_FINITE.match(t) for t in toks))


def is_short_answer(answer: str) -> bool:
    """One sentence of at most ``SHORT_WORDS`` words, with no finite verb (:func:`has_own_verb`).

    >>> is_short_answer("€1.32 billion."), is_short_answer("WPA3"), is_short_answer("The router supports WPA3.")
    (True, True, False)
    """
    text = " ".join(answer.split())
    return (bool(text) and not text.endswith("?") and len(split_sentences(text)) == 1
            and len(text.split()) <= SHORT_WORDS and not has_own_verb(text))


def question_claim(question: str, value: str) -> str:
    """The claim a question makes of a short answer: "X is <value>." for "What/Who/Which is X?"
    (the verb as asked), else ``"<question> -> <value>"``, which no containment ever matches
    (:func:`rageval.claims.containment.contained`: the claim stays UNVERIFIED offline).

    >>> question_claim("What is the capital of France?", "Paris.")
    'The capital of France is Paris.'
    >>> question_claim("How much did revenue grow in 2023?", "€1.32 billion.")
    'How much did revenue grow in 2023? -> €1.32 billion'
    """
    value = " ".join(value.split()).rstrip(" .!;,")
    q = " ".join((question or "").split())
    m = _COPULA_QUESTION.match(q)
    if m and not _FINITE.search(m.group("subject")):
        subject = m.group("subject")
        return f"{subject[0].upper()}{subject[1:]} {m.group(1).lower()} {value}."
    return f"{q or '(no question)'} -> {value}"


def answer_claims(question: str, answer: str) -> list[str]:
    """The claims of ``answer`` to ``question``: :func:`question_claim` of a short answer, else
    :func:`extract_claims`."""
    if is_short_answer(answer) and (content_stems(answer) or quantities(answer)) and not abstention_cues(answer):
        return [question_claim(question, answer)]
    return extract_claims(answer)


def why_no_claims(answer: str) -> str:
    """Why an answer with text has no claim: the kinds of sentence that were dropped."""
    kinds = []
    for span in split_sentences(answer):
        text = _LIST_MARK.sub("", " ".join(span.text.split())).strip()
        if not text:
            continue
        kind = ("asks a question" if text.endswith("?") else "abstains" if abstention_cues(text)
                else "greets or signs off" if _GREETING.match(text) else "states nothing checkable")
        if kind not in kinds:
            kinds.append(kind)
    return "no_claims: the answer " + (" and ".join(kinds) if kinds else "has no sentence")


def extract_claims(answer: str) -> list[str]:
    """Atomic claims of ``answer`` by the rules in the module docstring.

    >>> extract_claims("Hi! Marie Curie was born in 1867 and won two Nobel Prizes. She died in 1934.")
    ['Marie Curie was born in 1867.', 'Marie Curie won two Nobel Prizes.', 'Marie Curie died in 1934.']
    >>> extract_claims("I don't know. The documents do not say.")
    []
    """
    return [c for _, claims in _claims_by_sentence(answer) for c in claims]


def sentence_claims(question: str, answer: str) -> list[tuple[str, list[str]]]:
    """``(sentence, its claims)`` for each sentence of ``answer`` that carries claims
    (:func:`answer_sentences`), in order; none for a short answer (its one claim is the question's,
    :func:`answer_claims`). A sentence's Markdown marks are dropped before it is split into
    clauses (:func:`rageval.text.markdown.unmarked`), so a bold span cut in two leaves no piece an
    unmatched ``**``.

    >>> sentence_claims("", "**The reset takes 3 min; the light turns green.**")
    [('**The reset takes 3 min; the light turns green.**', ['The reset takes 3 min.', 'The light turns green.'])]
    """
    if is_short_answer(answer) and (content_stems(answer) or quantities(answer)):
        return []
    return _claims_by_sentence(answer)


def _claims_by_sentence(answer: str) -> list[tuple[str, list[str]]]:
    out: list[tuple[str, list[str]]] = []
    subject: str | None = None
    for sentence in answer_sentences(answer):
        clauses = _split_clauses(sentence)
        if len(clauses) > 1 and markup(sentence):
            clauses = _split_clauses(unmarked(sentence))
        claims = []
        for clause in clauses:
            clause, subject = _resolve_pronoun(clause, subject)
            if len(content_stems(clause)) + len(quantities(clause)) >= 1:
                claims.append(_finish(clause))
        out.append((sentence, claims))
    return out


def as_claim(sentence: str) -> str:
    """``sentence`` in the form of a claim (trimmed, capitalised, a final full stop)."""
    return _finish(sentence)


def resolved_sentences(answer: str) -> list[str]:
    """:func:`answer_sentences` with the pronoun-light rewriting but no clause splitting (the
    units of groundedness)."""
    out: list[str] = []
    subject: str | None = None
    for sentence in answer_sentences(answer):
        sentence, subject = _resolve_pronoun(sentence, subject)
        out.append(sentence)
    return out


def _finish(text: str) -> str:
    text = text.strip().rstrip(",;:").strip()
    text = text[0].upper() + text[1:]
    return text if text.endswith((".", "!")) else text + "."


_ADVICE = r"(?:please\s+)?(?:double-check|check|confirm|verify|consult|contact|ask|refer to|see)\b"
_ADVICE_TAIL = re.compile(r",\s*(?:but|so|and)?\s*" + _ADVICE + r"[^.;!?,]*(?=[.!?]?\s*$)", re.IGNORECASE)
_LABELLED = re.compile(r"^[^:;]{1,40}:\s*[^;]+$")


def _split_clauses(sentence: str) -> list[str]:
    # advice to the reader at the end of a statement ("..., but please check with HR.") is dropped;
    # a sentence that is an instruction ("Please report bugs to ...") is a claim
    sentence = _ADVICE_TAIL.sub("", sentence)
    if not sentence.strip(" .!"):
        return []
    pieces = re.split(r"\s*;\s*", sentence)
    if len(pieces) > 1 and all(_LABELLED.match(p.strip().rstrip(".")) for p in pieces if p.strip()):
        return [sentence]  # "City: Oslo; Cap: 190 EUR." is one fact (a table row), not several
    parts: list[str] = []
    for piece in pieces:
        parts.extend(_split_coordinated(piece))
    out: list[str] = []
    for part in parts:
        out.extend(_split_which(part))
    return [p for p in out if p.strip()]


def _split_coordinated(text: str) -> list[str]:
    # ", and|but|while|whereas <new subject> ..." -> two clauses
    m = re.search(r",\s+(?:and|but|while|whereas|although|though|yet)\s+(?=\S)", text)
    if m:
        left, right = text[: m.start()], text[m.end():]
        rtoks = right.split()
        new_clause = ((_CLAUSE_SUBJECT.match(right) or any(_VERB_AFTER_AND.match(t) for t in rtoks[1:4]))
                      and has_own_verb(right))
        if len(left.split()) >= 3 and len(rtoks) >= 3 and new_clause:
            return _split_coordinated(left) + _split_coordinated(right)
    # "... and|but he/she/it/they <verb> ..." -> two clauses
    m = re.search(r"\s+(?:and|but)\s+(?=(?:he|she|it|they|we)\s+(\w+))", text)
    if m and _VERBISH.match(m.group(1)) and len(text[: m.start()].split()) >= 3:
        return _split_coordinated(text[: m.start()]) + _split_coordinated(text[m.end():])
    # "<Named subject> <verb> ... and <verb> ..." -> repeat the subject
    subject = _leading_subject(text)
    if subject:
        for m in re.finditer(r"\s+and\s+(\w+)", text):
            no_comma = "," not in text[m.start() - 2 : m.start()]
            if m.start() > len(subject) and _VERB_AFTER_AND.match(m.group(1)) and no_comma:
                left, right = text[: m.start()], text[m.start() + len(m.group()) - len(m.group(1)):]
                if len(left.split()) - len(subject.split()) >= 2 and len(right.split()) >= 2:
                    return [left] + _split_coordinated(f"{subject} {right}")
    return [text]


def _split_which(text: str) -> list[str]:
    m = re.search(r",\s+(?:which|who)\s+", text)
    if not m:
        return [text]
    left, rest = text[: m.start()], text[m.end():]
    np = re.search(r"\b(?:the|a|an|The|A|An)\s+[\w\- ]{2,40}$", left) or re.search(
        r"\b[A-Z][\w\-]*(?:\s+[A-Z][\w\-]*)*$", left
    )
    if not np or len(rest.split()) < 2:
        return [text]
    antecedent = re.sub(r"^(?:a|an)\s", "the ", np.group(), flags=re.IGNORECASE)
    return [left, f"{antecedent} {rest}"]


def _leading_subject(text: str, *, named_only: bool = False) -> str | None:
    """``Marie Curie`` / ``The fund`` at the start of ``text`` when a verb follows it
    (only capitalised names with ``named_only``)."""
    toks = text.split()
    for n in range(1, min(6, len(toks))):
        if _VERBISH.match(toks[n]):
            head = toks[:n]
            named = all(t[:1].isupper() or t[:1].isdigit() or t.lower() in ("of", "the") for t in head)
            the_np = head[0].lower() == "the" and n <= 4
            if (named or (the_np and not named_only)) and not (len(head) == 1 and head[0].lower() in _PRONOUNS):
                return " ".join(head)
            return None
    return None


def _resolve_pronoun(clause: str, subject: str | None) -> tuple[str, str | None]:
    first, _, rest = clause.partition(" ")
    key = first.lower()
    if key in _PRONOUNS and subject and rest:
        replaced = subject + _PRONOUNS[key] + " " + rest
        return replaced, subject
    return clause, _leading_subject(clause, named_only=True) or subject

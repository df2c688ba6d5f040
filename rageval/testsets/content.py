"""What a reviewer rejects in a question and its reference before asking whether the chunks
support it (the critic's first checks, :mod:`rageval.testsets.critic`).

- ``content_free``: the question has no content word beyond its question word and the words any
  question may hold (:data:`EMPTY_WORDS`: stop words, ``tell``, ``describe``, ``know``,
  ``information``, ``content``, ``details`` ...): "What can you tell me about no content?".
- ``self_answering``: every content word and number of the answer is already in the question
  ("In which year, 1964, did the line open?" / "1964"). The answer is the reference; a template
  question is not checked (its reference is the whole sentence it was made from, and the phrase
  it asks for has left the question by construction).
- ``empty_reference``: the reference has no content word ("No content.", "N/A", "Unknown.").
- ``garbled_reference``: the reference holds U+FFFD, control characters or mojibake
  (:func:`rageval.text.repair.garbled_share` above 0, or text ftfy would change:
  ``ftfy.badness.is_bad``).
- ``boilerplate_reference``: the reference is a licence notice, an address or a table of contents
  (:mod:`rageval.testsets.boilerplate`).

Content words are :func:`rageval.text.words.words` outside :data:`EMPTY_WORDS`, compared by
:func:`rageval.text.words.stem`; numbers count as content. An ``unanswerable`` question's fixed
reference is not checked.
"""
from __future__ import annotations

from rageval.testsets.boilerplate import boilerplate_reason
from rageval.text.repair import garbled_share
from rageval.text.words import ALL_NEGATIONS, IT_STOPWORDS, STOPWORDS, stem, words

#: words any question or empty answer may hold: they say nothing about what is asked
EMPTY_WORDS = STOPWORDS | IT_STOPWORDS | ALL_NEGATIONS | frozenset(
    """tell say said know describe explain mean means give find show list mention mentioned talk
    information info content contents detail details thing things something anything everything
    stuff topic subject matter aspect aspects fact facts document documents text passage
    answer question kind sort type unknown n/a na none null nil applicable available given
    dimmi descrivi spiega sai cosa informazioni contenuto dettagli""".split())
BOILERPLATE_KINDS = ("licence notice", "address", "table of contents")


def content(text: str) -> set[str]:
    """The stems of ``text``'s content words and its numbers (module doc)."""
    return {stem(w) for w in words(text) if w not in EMPTY_WORDS and (len(w) > 1 or w.isdigit())}


def question_problem(question: str, answer: str | None) -> tuple[str, str] | None:
    """``(reason, detail)`` when the question is content-free or answers itself, else None."""
    asked = content(question)
    if not asked:
        return "content_free", "no content word beyond the question word"
    if answer is not None:
        given = content(answer)
        if given and given <= asked:
            return "self_answering", f"the question already holds its answer ({', '.join(sorted(given))})"
    return None


def reference_problem(reference: str) -> tuple[str, str] | None:
    """``(reason, detail)`` when the reference is empty, garbled or boilerplate (in this order:
    mojibake's ``Ã©`` holds a copyright sign), else None."""
    if not content(reference):
        return "empty_reference", f"no content word in {reference.strip()[:60]!r}"
    from ftfy.badness import is_bad

    share = garbled_share(reference)
    if share > 0 or is_bad(reference):
        return "garbled_reference", (f"{share:.0%} of its characters are undecodable or mojibake" if share
                                     else "mojibake that a text repair would change")
    kind = boilerplate_reason(reference)
    if kind in BOILERPLATE_KINDS:
        return "boilerplate_reference", f"the reference is a {kind}"
    return None

"""A cheap guess of a text's language from its function words (en, it, fr, es, de, pt).

One guesser for the whole project: number parsing (``1.500`` is 1500 in Italian, 1.5 in
English), the claim verifier's and the correctness model's Italian cues, and AlignCheck (which
scores English only) all ask it. It counts hits of about 25 frequent words per language (for Italian also a few frequent
question words and the words of durations and prices that answers repeat: giorni, anni, euro) (words
shared by two lists count for both; words that are also English, such as "per" or "a", count only
for English) and returns the language with most hits; English when English ties for the most or
when fewer than 2 such words are found (short names-only texts are read as English, which is what
the rest of the project assumes).

>>> guess_language("Il rimborso è previsto entro sette giorni dalla data di acquisto")
'it'
>>> guess_language("Refunds are issued within seven days")
'en'
>>> guess_language("City: Oslo; Lodging cap per night: 190 EUR; Meals per diem: 70 EUR.")
'en'
"""
from __future__ import annotations

from rageval.text.tokenize import word_tokens

_FUNCTION_WORDS = {
    "en": "the of and to in is was that for it with as on by be are this from at an have has not which were "
          "within after before its their".split(),
    "it": "il lo la gli le di che è e un una per non con del della dei delle degli sono nel nella alla anche "
          "come più ma si dal dalla sul sulla ha hanno entro dopo prima quando dove quanto quanti quale cosa perché "
          "circa giorni mesi anni anno euro".split(),
    "fr": "le la les des est et un une pour que qui dans du en pas au sur avec sont ce cette mais".split(),
    "es": "el la los las de que y en un una es por con para del se no al lo como más pero".split(),
    "de": "der die das und ist ein eine nicht mit von zu den im auf für sich dem des auch es".split(),
    "pt": "o a os as de que e em um uma é para com não do da dos das no na se por".split(),
}
#: tokens that are also English words or pieces of English text ("per night", "a", "e.g.", ".com"):
#: they never count as evidence for another language
_ENGLISH_TOO = frozenset("a an as be do e i in is me no o on per so to we die con com son".split())
_FUNCTION_SETS = {lang: frozenset(words) - (_ENGLISH_TOO if lang != "en" else frozenset())
                  for lang, words in _FUNCTION_WORDS.items()}
#: languages that write ``0,75`` for 0.75 and ``1.500`` for 1500
DECIMAL_COMMA = frozenset({"it", "fr", "es", "de", "pt"})


def guess_language(text: str) -> str:
    """ISO 639-1 code of the language whose function words occur most in ``text`` (module docstring).

    >>> guess_language("Marie Curie won the Nobel Prize in 1903.")
    'en'
    >>> guess_language("Die Regierung hat das Gesetz nicht mit der Mehrheit beschlossen.")
    'de'
    """
    words = [w.lower() for w in word_tokens(text)]
    hits = {lang: sum(w in vocab for w in words) for lang, vocab in _FUNCTION_SETS.items()}
    best = max(hits.values())
    if best < 2 or hits["en"] == best:
        return "en"
    return min(lang for lang, n in hits.items() if n == best)

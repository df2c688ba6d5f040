"""Language-aware normalisation and tokenisation shared by the reference-based metrics.

Two tools, for two families of metrics:

- :func:`normalize_answer` / :func:`answer_tokens`: SQuAD answer normalisation for exact match
  and token P/R/F1. For ``language="en"`` it is exactly the official SQuAD script's
  (lowercase, drop ASCII punctuation, drop the articles a/an/the, squeeze whitespace). For
  ``"it"`` the elided articles (``l'``, ``un'``, ``gl'``) are split off first, Unicode
  punctuation and symbols are dropped, and the Italian articles il, lo, la, i, gli, le, un,
  uno, una are removed. Any other language code gets the same Unicode-aware rules with no
  article list (nothing language-specific is guessed).
- :class:`WordTokenizer`: the tokenizer handed to ``rouge_score.RougeScorer``. rouge-score's
  default tokenizer keeps only ``[a-z0-9]`` and so turns "città" into "citt" and drops
  Greek or Cyrillic words entirely; this one keeps every Unicode letter and digit. On ASCII
  text it yields exactly rouge-score's tokens (tested), including Porter stemming of tokens
  longer than 3 characters for English. For other languages ``stem=True`` uses NLTK's
  Snowball stemmer for that language (NLTK comes with rouge-score) and never Porter.

Limitation: both split on whitespace, so languages written without spaces (Chinese,
Japanese, Thai) come out as whole runs of characters; no metric here claims to support them.
"""
from __future__ import annotations

import re
import string
import unicodedata
from functools import lru_cache

from rageval.errors import ConfigError

#: articles removed by the SQuAD normaliser, per language (other languages: none)
ARTICLES = {
    "en": ("a", "an", "the"),
    "it": ("il", "lo", "la", "i", "gli", "le", "un", "uno", "una"),
}
_ELIDED = {"it": re.compile(r"\b(?:l|un|gl)['\u2019]", re.IGNORECASE)}
_ARTICLE_RE = {lang: re.compile(r"\b(" + "|".join(words) + r")\b") for lang, words in ARTICLES.items()}
_ASCII_PUNCT = frozenset(string.punctuation)
_NON_WORD = re.compile(r"[\W_]+")

#: NLTK Snowball stemmer names for ISO 639-1 codes (used only when stemming is asked for)
_SNOWBALL = {
    "it": "italian", "fr": "french", "es": "spanish", "de": "german", "pt": "portuguese",
    "nl": "dutch", "sv": "swedish", "da": "danish", "no": "norwegian", "fi": "finnish",
    "hu": "hungarian", "ro": "romanian", "ru": "russian", "ar": "arabic",
}


def check_language(language: str) -> str:
    """``language`` lowercased if it looks like an ISO 639-1 code, else ConfigError."""
    code = (language or "").strip().lower()
    if not re.fullmatch(r"[a-z]{2}", code):
        raise ConfigError(f"language={language!r} is not a two-letter ISO 639-1 code such as 'en' or 'it'")
    return code


def normalization_name(language: str) -> str:
    """The name that goes into signatures: ``squad`` for English, ``squad-it`` and so on."""
    return "squad" if language == "en" else f"squad-{language}"


def _is_unicode_punct(ch: str) -> bool:
    return unicodedata.category(ch)[0] in "PS"


def normalize_answer(text: str, language: str = "en") -> str:
    """SQuAD normalisation of ``text`` (see the module docstring for the per-language rules).

    >>> normalize_answer("The  Eiffel Tower!")
    'eiffel tower'
    >>> normalize_answer("L'acqua è la vita.", "it")
    'acqua è vita'
    """
    text = text.lower()
    if language == "en":
        text = "".join(ch for ch in text if ch not in _ASCII_PUNCT)
    else:
        text = unicodedata.normalize("NFC", text)
        if language in _ELIDED:
            text = _ELIDED[language].sub(" ", text)
        text = "".join(" " if _is_unicode_punct(ch) else ch for ch in text)
    if language in _ARTICLE_RE:
        text = _ARTICLE_RE[language].sub(" ", text)
    return " ".join(text.split())


def answer_tokens(text: str, language: str = "en") -> list[str]:
    """The SQuAD tokens of ``text``: its normalised form split on whitespace."""
    return normalize_answer(text, language).split()


def contains_tokens(haystack: list[str], needle: list[str]) -> bool:
    """Whether ``needle`` occurs as a contiguous run of whole tokens in ``haystack``.

    >>> contains_tokens("he was born in new york city".split(), ["new", "york"])
    True
    >>> contains_tokens(["newyork"], ["york"])
    False
    """
    if not needle:
        return False
    n = len(needle)
    first = needle[0]
    return any(haystack[i] == first and haystack[i : i + n] == needle for i in range(len(haystack) - n + 1))


def word_tokens(text: str) -> list[str]:
    """The word tokenizer: ``text`` NFC-normalised, split on every run of characters that are not
    a Unicode letter or digit (``_`` included); case is kept. :class:`WordTokenizer` (ROUGE), the
    extractive generator and the language guess read words through it.

    >>> word_tokens("Città_vecchia, l'acqua (2021)!")
    ['Città', 'vecchia', 'l', 'acqua', '2021']
    """
    return _NON_WORD.sub(" ", unicodedata.normalize("NFC", text)).split()


def pattern_text() -> str:
    """The tokenizer's rule, hashed into :func:`rageval.text.version`."""
    return "nfc|split:" + _NON_WORD.pattern


@lru_cache(maxsize=None)
def _stemmer(language: str):
    if language == "en":
        from nltk.stem import porter

        return porter.PorterStemmer()  # the stemmer rouge-score's DefaultTokenizer uses
    if language in _SNOWBALL:
        from nltk.stem.snowball import SnowballStemmer

        return SnowballStemmer(_SNOWBALL[language])
    raise ConfigError(
        f"no stemmer for language={language!r}; use use_stemmer=False or one of: en, {', '.join(sorted(_SNOWBALL))}"
    )


def stemmer_name(language: str, stem: bool) -> str:
    """``porter`` / ``snowball-it`` / ``none``: how :class:`WordTokenizer` stems, for signatures."""
    if not stem:
        return "none"
    _stemmer(language)  # raises ConfigError for a language without a stemmer
    return "porter" if language == "en" else f"snowball-{language}"


class WordTokenizer:
    """Unicode word tokenizer with rouge-score's interface (``tokenize(text) -> list[str]``).

    Lowercase, NFC-normalise, replace every run of non-letter/non-digit characters (and ``_``)
    by a space, split; with ``stem`` stem tokens longer than 3 characters (rouge-score's rule).

    >>> WordTokenizer("it").tokenize("La città è bella, perché sì!")
    ['la', 'città', 'è', 'bella', 'perché', 'sì']
    """

    def __init__(self, language: str = "en", stem: bool = False):
        self.language = language
        self._stem = _stemmer(language).stem if stem else None

    def tokenize(self, text: str) -> list[str]:
        tokens = word_tokens(text.lower())
        if self._stem is not None:
            tokens = [self._stem(t) if len(t) > 3 else t for t in tokens]
        return [t for t in tokens if t]

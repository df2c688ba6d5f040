"""Language cues for the learned claim verifier (English and Italian): language guess, number
normalisation, stop words, negation, quantifier and antonym word lists.

Numbers are normalised before :func:`rageval.metrics.claim_text.quantities` reads them, so
"1,5 miliardi di euro", "EUR 1.5 billion" and "1.500 milioni" all give ``1.5e9``:

- Italian text (see :func:`language`) swaps the decimal comma and the thousands dot
  (``1.500,75`` -> ``1500.75``; ``0,75%`` -> ``0.75%``);
- scale words ``mila`` (x 1e3), ``milione/milioni`` (1e6), ``miliardo/miliardi`` (1e9) and
  ``per cento`` are rewritten to the English forms; ``EUR 5`` / ``5 EUR`` / ``5 euro`` -> eur;
- Italian month names become English ones (``3 marzo 2021`` -> ``3 march 2021``).

The word lists below are part of the verifier's version: :func:`word_lists_text` is hashed
into the signature of every claim metric.
"""
from __future__ import annotations

import re

from rageval.metrics.claim_text import fold, words

IT_STOPWORDS = frozenset(
    """il lo la i gli le un uno una di a da in con su per tra fra e o ma se che chi cui non del
    dello della dei degli delle al allo alla ai agli alle dal dallo dalla dai dagli dalle nel
    nello nella nei negli nelle sul sullo sulla sui sugli sulle col è e' sono era erano essere
    stato stata stati state ha hanno aveva avevano avere questo questa questi queste quello
    quella quelli quelle come anche più piu molto suo sua suoi sue loro ogni dopo prima quando
    dove ci si ne già gia solo viene vengono può puo possono deve devono essere""".split()
)
_IT_MARKERS = frozenset("il lo gli della delle dei degli nel nella è che sono per una non anche del alla".split())
_EN_MARKERS = frozenset("the of and is are was were to in that with for on by it this".split())

NEGATIONS = {
    "en": frozenset("not no never none nobody nothing neither nor without cannot n't nowhere".split()),
    "it": frozenset("non mai nessun nessuno nessuna niente nulla senza né ne' neanche nemmeno".split()),
}
#: quantifier / bound words; a clash is a claim word absent from the evidence while the
#: evidence uses another word of the same group
QUANTIFIERS = (
    ("all", "every", "each", "some", "none", "most", "few", "many", "several", "only"),
    ("always", "never", "sometimes", "often", "rarely", "usually", "seldom"),
    ("least", "most", "more", "less", "fewer", "exactly", "maximum", "minimum", "over", "under", "up"),
    ("tutti", "tutte", "ogni", "alcuni", "alcune", "nessuno", "pochi", "molti", "solo", "soltanto"),
    ("sempre", "mai", "spesso", "raramente", "talvolta"),
    ("almeno", "massimo", "minimo", "oltre", "meno", "più", "esattamente", "fino"),
)
TEMPORAL = (("before", "after"), ("earlier", "later"), ("first", "last"), ("previous", "next"),
            ("prima", "dopo"), ("primo", "ultimo"), ("precedente", "successivo"))
IT_ANTONYMS = (
    ("aumento", "calo"), ("aumento", "diminuzione"), ("aumentato", "diminuito"), ("aumentare", "diminuire"),
    ("crescita", "calo"), ("cresciuto", "calato"), ("superiore", "inferiore"), ("maggiore", "minore"),
    ("massimo", "minimo"), ("obbligatorio", "facoltativo"), ("consentito", "vietato"),
    ("permesso", "vietato"), ("alto", "basso"), ("incluso", "escluso"), ("vero", "falso"),
    ("apertura", "chiusura"), ("entrata", "uscita"), ("vinto", "perso"), ("vittoria", "sconfitta"),
    ("pubblico", "privato"), ("positivo", "negativo"), ("utile", "perdita"), ("gratuito", "pagamento"),
    ("acuto", "cronico"), ("benigno", "maligno"), ("nord", "sud"), ("est", "ovest"),
    ("ridotto", "aumentato"), ("rimborsabile", "non rimborsabile"), ("accettato", "respinto"),
)
IT_MONTHS = ("gennaio", "febbraio", "marzo", "aprile", "maggio", "giugno", "luglio", "agosto",
             "settembre", "ottobre", "novembre", "dicembre")
EN_MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august",
             "september", "october", "november", "december")


def language(text: str) -> str:
    """``"it"`` when Italian function words outnumber English ones, else ``"en"``."""
    toks = words(text)
    it = sum(t in _IT_MARKERS for t in toks)
    en = sum(t in _EN_MARKERS for t in toks)
    return "it" if it > en else "en"


_IT_NUMBER = re.compile(r"(?<![\w.,])(\d{1,3}(?:\.\d{3})+(?:,\d+)?|\d+,\d+)(?![\w])")
_SCALE_WORDS = ((r"mila", "thousand"), (r"milion[ei]", "million"), (r"miliard[oi]", "billion"),
                (r"per\s?cento", "percent"))


def normalise_numbers(text: str, lang: str | None = None) -> str:
    """``text`` with Italian number forms, scale words, currencies and months in English form.

    >>> normalise_numbers("1,5 miliardi di euro il 3 marzo 2021, 0,75% all'anno")
    "1.5 billion di euro il 3 march 2021, 0.75% all'anno"
    >>> normalise_numbers("EUR 1,500,000,000")
    '€1500000000'
    """
    lang = lang or language(text)
    if lang == "it":
        text = _IT_NUMBER.sub(lambda m: m.group(1).replace(".", "").replace(",", "."), text)
        for pat, repl in _SCALE_WORDS:
            text = re.sub(rf"(?<=\d)\s?{pat}\b", f" {repl}", text, flags=re.I)
        for it, en in zip(IT_MONTHS, EN_MONTHS):
            text = re.sub(rf"\b{it}\b", en, text, flags=re.I)
        text = re.sub(r"\b(\d+(?:\.\d+)?)\s+(?:di\s+)?euro\b", r"\1 euros", text, flags=re.I)
    text = re.sub(r"\b(?:EUR|eur)\s?(\d[\d,.]*)", lambda m: "€" + m.group(1).replace(",", ""), text)
    text = re.sub(r"(\d[\d,.]*)\s?EUR\b", lambda m: "€" + m.group(1).replace(",", ""), text)
    text = re.sub(r"\b(?:USD|US\$)\s?(\d[\d,.]*)", lambda m: "$" + m.group(1).replace(",", ""), text)
    return text


def negation_parity(text: str, lang: str) -> int:
    """Parity (0/1) of negation cues of both languages' lists found in ``text``."""
    toks = words(text)
    return sum(t in NEGATIONS["en"] or t in NEGATIONS["it"] for t in toks) % 2


def content_words(text: str) -> list[str]:
    """Folded words that are neither English nor Italian stop words (used for Italian text)."""
    from rageval.metrics.claim_text import STOPWORDS

    return [w for w in words(text) if w not in STOPWORDS and w not in IT_STOPWORDS and len(w) > 1
            and not w[0].isdigit()]


def group_clash(claim: str, evidence: str, groups) -> int:
    """1 when the claim uses a word of a group that the evidence lacks while the evidence uses
    another word of that group, else 0."""
    c, e = set(words(claim)), set(words(evidence))
    for group in groups:
        mine = (c & set(group)) - e
        theirs = (e & set(group)) - c
        if mine and theirs:
            return 1
    return 0


def it_antonym_clash(claim: str, evidence: str) -> int:
    """1 when the claim and the evidence use two opposite Italian words (table above)."""
    c, e = fold(claim), fold(evidence)
    for a, b in IT_ANTONYMS:
        for x, y in ((a, b), (b, a)):
            if re.search(rf"\b{x[:-1]}\w?\b", c) and re.search(rf"\b{y[:-1]}\w?\b", e) \
                    and not re.search(rf"\b{x[:-1]}\w?\b", e):
                return 1
    return 0


def word_lists_text() -> str:
    """Every word list above as one string (hashed into the verifier's version)."""
    parts = [" ".join(sorted(IT_STOPWORDS)), repr(sorted((k, sorted(v)) for k, v in NEGATIONS.items())),
             repr(QUANTIFIERS), repr(TEMPORAL), repr(IT_ANTONYMS), repr(IT_MONTHS)]
    return "\n".join(parts)

"""Word-level cues of the claim verifier: opposites (English and Italian), quantifier and
temporal-order groups, negation parity, month names and capitalised names.

Each check the verifier's features make (:mod:`rageval.claims.features`) is one function here.
These lists are part of the verifier's version: :func:`cue_lists_text` is hashed into the
signature of every claim metric.
"""
from __future__ import annotations

import re

from rageval.text.numbers import MONTHS
from rageval.text.words import (
    ALL_NEGATIONS,
    ELISIONS,
    STOPWORDS,
    fold,
    negation_count,
    stem,
    words,
)

# --- opposites ---------------------------------------------------------------------------

_ANTONYM_PAIRS = """increase/decrease increase/reduce rise/fall rise/drop rise/decline grow/shrink
higher/lower high/low more/less more/fewer larger/smaller large/small big/small bigger/smaller
before/after first/last win/lose victory/defeat gain/loss profit/loss accept/reject
allow/prohibit allow/forbid permit/prohibit permit/forbid allow/ban permit/ban mandatory/optional
required/optional always/never maximum/minimum most/least above/below over/under early/late
earlier/later earliest/latest positive/negative true/false open/close include/exclude
success/failure strong/weak stronger/weaker hot/cold warm/cool fast/slow faster/slower
long/short longer/shorter expand/contract expand/limit approve/reject approve/deny start/end
begin/end inside/outside public/private legal/illegal safe/dangerous effective/ineffective
benign/malignant acute/chronic buy/sell import/export old/young older/younger oldest/youngest
largest/smallest highest/lowest best/worst better/worse up/down upper/lower add/remove
enable/disable north/south east/west northern/southern eastern/western increase/cut raise/lower
raise/cut strengthen/weaken improve/worsen above/beneath majority/minority common/rare
entry/exit arrive/depart internal/external input/output remove/add remove/include remove/keep
succeed/fail pass/fail present/absent presence/absence same/different similar/different
full/empty heavy/light rich/poor wide/narrow thick/thin deep/shallow ancient/modern
possible/impossible likely/unlikely""".split()


def _antonym_table() -> dict[str, set[str]]:
    table: dict[str, set[str]] = {}
    for pair in _ANTONYM_PAIRS:
        a, b = (stem(x) for x in pair.split("/"))
        table.setdefault(a, set()).add(b)
        table.setdefault(b, set()).add(a)
    return table


ANTONYMS = _antonym_table()
_PREFIXES = ("un", "non", "in", "im", "il", "ir", "dis")


def antonym_clash(claim: str, evidence: str) -> tuple[str, str] | None:
    """A (claim word, evidence word) pair of opposites, when the claim uses a word whose opposite
    the evidence uses and the evidence does not use the claim's word itself.

    Opposites come from a small table and from negating prefixes (``paid``/``unpaid``).

    >>> antonym_clash("Operating margin rose to 18%", "Operating margin fell to 18%")
    ('rise', 'fall')
    """
    c_stems = {stem(w) for w in words(claim)}
    e_stems = {stem(w) for w in words(evidence)}
    for c in sorted(c_stems - e_stems):
        for opposite in sorted(ANTONYMS.get(c, ())):
            if opposite in e_stems and opposite not in c_stems:
                return c, opposite
        for p in _PREFIXES:
            if c.startswith(p) and len(c) - len(p) >= 4 and stem(c[len(p):]) in e_stems:
                return c, c[len(p):]
            if p + c in e_stems and len(c) >= 4:
                return c, p + c
    return None


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


def negation_parity(text: str) -> int:
    """Parity (0/1) of the negation cues of both languages found in ``text``."""
    return negation_count(text) % 2


def group_clash(claim: str, evidence: str, groups) -> int:
    """1 when the claim uses a word of a group that the evidence lacks while the evidence uses
    another word of that group, else 0."""
    c, e = set(words(claim)), set(words(evidence))
    for group in groups:
        folded = {fold(w) for w in group}
        mine = (c & folded) - e
        theirs = (e & folded) - c
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


def month_names(text: str) -> set[int]:
    """Months named in ``text`` (English or Italian, full or abbreviated), as 1-12; ``may`` and
    ``mar`` only next to a number (they are also words)."""
    low = fold(text)
    found = set()
    for m in re.finditer(r"[a-z]+", low):
        w = m.group()
        if w not in MONTHS or len(w) < 3:
            continue
        if w in ("may", "mar", "dec", "sep") and not re.search(r"\d\s*$", low[:m.start()]) \
                and not re.match(r"\s*\d", low[m.end():]):
            continue
        found.add(MONTHS[w])
    return found


# --- capitalised names -------------------------------------------------------------------

_CAP_RUN = re.compile(
    r"\b[A-Z\u00C0-\u00DE][\w\u00C0-\u024F'\-]*(?:\s+(?:of|de|van|von|the|and|du|la|del)?\s*"
    r"[A-Z\u00C0-\u00DE][\w\u00C0-\u024F'\-]*)*"
)
_NOT_NAMES = STOPWORDS | ALL_NEGATIONS | ELISIONS | set(MONTHS) | {
    "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday", "yes",
    "according", "based", "however", "also", "overall", "today", "yesterday", "tomorrow",
}


def names(text: str) -> set[str]:
    """Capitalised spans that look like names, folded to lower case, minus function words.

    A single capitalised word that starts a sentence is not taken as a name (it is capitalised
    anyway); a run of two or more (``Marie Curie``) is.

    >>> sorted(names("The Berlin Wall was built by the German Democratic Republic in 1961."))
    ['berlin wall', 'german democratic republic']
    >>> sorted(names("Plants need light. Bolt's record stands. Full-time staff met Usain Bolt."))
    ['usain bolt']
    """
    out: set[str] = set()
    for m in _CAP_RUN.finditer(text):
        toks = [t for t in words(m.group()) if t not in _NOT_NAMES]
        before = text[: m.start()].rstrip()
        starts_sentence = (before == "" or before[-1] in ".!?:;\n\"'("
                           or re.search(r"(?:^|\n)\s*(?:[-*\u2022]|\d+[.)])$", before))
        if starts_sentence and len(m.group().split()) == 1:
            continue
        if toks:
            out.add(" ".join(toks))
    return out


def name_tokens(text: str) -> set[str]:
    """The single folded words of :func:`names`."""
    return {t for n in names(text) for t in n.split()}


def name_heads(text: str) -> dict[str, str]:
    """The last word of each name (``marie curie`` -> ``curie``), which identifies it in English
    ("Curie" refers back to "Marie Curie"; "King Henry" is not "King John"): {head: name}."""
    return {n.split()[-1]: n for n in names(text)}


def cue_lists_text() -> str:
    """Every list above as one string (hashed into the verifier's version)."""
    return "\n".join([" ".join(_ANTONYM_PAIRS), repr(QUANTIFIERS), repr(TEMPORAL), repr(IT_ANTONYMS),
                      " ".join(sorted(_NOT_NAMES))])

"""Plain-text helpers for the offline claim pipeline: sentences with spans, content words,
numbers, years, negation, antonyms, capitalised names and hedging cues.

Everything here is a small, readable rule (no model); the rules are English-only. The claim
extractor and the heuristic verifier are built from these pieces, so each check they make can
be traced to one function below.
"""
from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

# --- sentences ---------------------------------------------------------------------------

_ABBREV = {
    "mr", "mrs", "ms", "dr", "prof", "sr", "jr", "st", "vs", "etc", "e.g", "i.e", "no", "fig",
    "inc", "ltd", "co", "corp", "jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep", "sept",
    "oct", "nov", "dec", "u.s", "u.k", "approx", "dept", "est", "vol", "art", "sec", "gen", "gov",
}
_BOUNDARY = re.compile(r"[.!?]+[\"')\]]*\s+|\n+|\s+[•·]\s+")


@dataclass(frozen=True)
class Span:
    """A piece of a text with its character offsets: ``text == source[start:end]``."""

    text: str
    start: int
    end: int


def split_sentences(text: str) -> list[Span]:
    """Sentences of ``text`` with their character spans (split on . ! ? and line breaks).

    A full stop after a known abbreviation, a single capital (``J. Smith``) or a digit followed
    by a digit (``3.5``) does not end a sentence.

    >>> [s.text for s in split_sentences("Dr. Smith arrived. He left at 3.5 pm!\\nBye")]
    ['Dr. Smith arrived.', 'He left at 3.5 pm!', 'Bye']
    """
    spans: list[Span] = []
    start = 0
    for m in _BOUNDARY.finditer(text):
        piece = text[start:m.start()]
        if "\n" not in m.group() and m.group().startswith("."):
            last = re.search(r"(\S+)$", piece)
            word = last.group(1).lower().lstrip("(\"'") if last else ""
            nxt = text[m.end():m.end() + 1]
            list_marker = re.fullmatch(r"\s*\(?(?:\d+|[a-z])", piece) is not None
            if word in _ABBREV or re.fullmatch(r"[a-z]", word) or nxt.islower() or list_marker:
                continue
        _add(spans, text, start, m.end())
        start = m.end()
    _add(spans, text, start, len(text))
    return spans


def _add(spans: list[Span], text: str, start: int, end: int) -> None:
    piece = text[start:end]
    lead = len(piece) - len(piece.lstrip())
    body = piece.strip()
    if body and re.search(r"\w", body):
        spans.append(Span(body, start + lead, start + lead + len(body)))


# --- words -------------------------------------------------------------------------------

STOPWORDS = frozenset(
    """a an the and or but if of at by for with about against between into through during before
    after above below to from up down in out on off over under again further then once here there
    when where why how all any both each few more most other some such only own same so than too
    very s t can will just don should now is are was were be been being have has had having do
    does did doing i me my we our you your he him his she her it its they them their what which
    who whom this that these those am would could also may might must shall as per via within
    while although though because since until unless whether yet however therefore thus etc
    one's itself themselves himself herself ourselves yourself get got gets""".split()
)
NEGATIONS = frozenset(
    "not no never none nobody nothing neither nor without cannot n't nowhere".split()
)
_IRREGULAR = {
    "won": "win", "lost": "lose", "rose": "rise", "risen": "rise", "fell": "fall", "fallen": "fall",
    "grew": "grow", "grown": "grow", "began": "begin", "begun": "begin", "wrote": "write",
    "written": "write", "made": "make", "took": "take", "taken": "take", "gave": "give",
    "given": "give", "held": "hold", "led": "lead", "sold": "sell", "bought": "buy",
    "built": "build", "became": "become", "ran": "run", "chose": "choose", "chosen": "choose",
    "paid": "pay", "said": "say", "met": "meet", "left": "leave", "sent": "send", "spent": "spend",
    "kept": "keep", "brought": "bring", "taught": "teach", "thought": "think", "known": "know",
    "knew": "know", "shown": "show", "beat": "beat", "beaten": "beat", "struck": "strike",
    "children": "child", "men": "man", "women": "woman", "people": "person", "mice": "mouse",
}
_WORD = re.compile(r"[A-Za-z\u00C0-\u024F]+(?:['\u2019][A-Za-z]+)?|\d+(?:[.,]\d+)*")


def fold(text: str) -> str:
    """Lower case without accents (``Mbappé`` -> ``mbappe``)."""
    norm = unicodedata.normalize("NFKD", text)
    return "".join(ch for ch in norm if not unicodedata.combining(ch)).lower()


def words(text: str) -> list[str]:
    """Lower-cased, accent-folded word tokens; ``don't`` -> ``do``, ``n't``."""
    out: list[str] = []
    for tok in _WORD.findall(fold(text).replace("\u2019", "'")):
        if tok.endswith("n't"):
            out.extend([tok[:-3] or "not", "n't"])
        elif tok.endswith("'s"):
            out.append(tok[:-2])
        else:
            out.append(tok)
    return out


def stem(word: str) -> str:
    """A light suffix stripper so ``released``/``releases``/``release`` meet (no dictionary).

    >>> [stem(w) for w in ("released", "studies", "increasing", "won", "boxes", "permitted")]
    ['releas', 'study', 'increas', 'win', 'box', 'permit']
    """
    w = _IRREGULAR.get(word, word)
    if len(w) <= 3 or w[0].isdigit():
        return w
    for suffix, repl, min_len in (
        ("ies", "y", 5), ("ied", "y", 5), ("sses", "ss", 5), ("xes", "x", 4), ("ches", "ch", 5),
        ("shes", "sh", 5), ("ing", "", 6), ("edly", "", 7), ("ed", "", 5), ("ly", "", 6),
        ("es", "e", 5), ("s", "", 4),
    ):
        if w.endswith(suffix) and len(w) >= min_len and not w.endswith(("ss", "us", "is")):
            w = w[: len(w) - len(suffix)] + repl
            if suffix in ("ed", "ing") and len(w) > 3 and w[-1] == w[-2] and w[-1] not in "lsz":
                w = w[:-1]  # permitted -> permit, stopped -> stop
            break
    return w.rstrip("e") if len(w) > 4 else w


def content_stems(text: str) -> list[str]:
    """Stems of the words that carry content: not stop words, negations or numbers (digits or
    number words: the verifier checks those separately)."""
    return [
        stem(w) for w in words(text)
        if w not in STOPWORDS and w not in NEGATIONS and not w[0].isdigit() and len(w) > 1
        and w not in _NUMBER_WORDS
    ]


def negation_count(text: str) -> int:
    """How many negation cues (``not``, ``no``, ``never``, ``n't``, ``without`` ...) occur."""
    return sum(1 for w in words(text) if w in NEGATIONS)


# --- numbers and dates -------------------------------------------------------------------

_NUMBER_WORDS = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13,
    "fourteen": 14, "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18,
    "nineteen": 19, "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60,
    "seventy": 70, "eighty": 80, "ninety": 90, "hundred": 100, "twice": 2, "thrice": 3,
    "once": 1, "dozen": 12, "half": 0.5, "single": 1, "double": 2, "triple": 3,
}
_SCALES = {"thousand": 1e3, "million": 1e6, "billion": 1e9, "trillion": 1e12, "bn": 1e9, "m": 1e6}
_NUM = re.compile(
    r"(?<![\w.])(?P<cur>[$€£¥])?\s?(?P<num>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)"
    r"(?P<pct>\s?%|\s?per\s?cent\b|\s?percent\b)?"
    r"(?:\s?(?P<scale>thousand|million|billion|trillion|bn|m)\b)?"
)
MONTHS = (
    "january", "february", "march", "april", "may", "june", "july", "august", "september",
    "october", "november", "december",
)


def numbers(text: str) -> set[float]:
    """Numeric values in ``text`` (digits, with scale words, and number words), not years.

    >>> sorted(numbers("Revenue rose 12% to $4.2 billion over eight quarters in 2021"))
    [8.0, 12.0, 4200000000.0]
    """
    return {value for value, _ in quantities(text)}


_UNITS = {
    "mg": "mg", "milligram": "mg", "milligrams": "mg", "g": "g", "gram": "g", "grams": "g",
    "kg": "kg", "kilogram": "kg", "kilograms": "kg", "mcg": "mcg", "ml": "ml", "l": "l",
    "litre": "l", "litres": "l", "liter": "l", "liters": "l", "mm": "mm", "cm": "cm",
    "m": "m", "metre": "m", "metres": "m", "meter": "m", "meters": "m", "km": "km",
    "kilometre": "km", "kilometres": "km", "kilometer": "km", "kilometers": "km",
    "mile": "mile", "miles": "mile", "second": "s", "seconds": "s", "sec": "s", "s": "s",
    "minute": "min", "minutes": "min", "min": "min", "hour": "h", "hours": "h", "h": "h",
    "hr": "h", "hrs": "h", "day": "day", "days": "day", "week": "week", "weeks": "week",
    "month": "month", "months": "month", "year": "year", "years": "year", "degree": "deg",
    "degrees": "deg", "kb": "kb", "mb": "mb", "gb": "gb", "tb": "tb", "kilobytes": "kb",
    "megabytes": "mb", "gigabytes": "gb", "terabytes": "tb", "terabyte": "tb", "gigabyte": "gb",
    "cents": "cent", "cent": "cent", "euros": "eur", "euro": "eur", "dollars": "usd",
    "dollar": "usd", "pounds": "gbp", "percent": "%", "per cent": "%",
}
_CURRENCY = {"$": "usd", "€": "eur", "£": "gbp", "¥": "jpy"}
_UNIT_AFTER = re.compile(r"\s?([a-z]+(?: cent)?)")


def quantities(text: str) -> set[tuple[float, str]]:
    """``(value, unit)`` pairs; unit is ``"%"``, a currency (``usd``), a unit from a small table
    (``mg``, ``h``, ``tb``) or ``""``; cents become the currency's unit (``35 cents`` ->
    ``(0.35, "usd")``). Years are left out (see :func:`years`).

    >>> sorted(quantities("a dose of 500 mg every 8 hours costs $4.2 billion or 35 cents, 12%"))
    [(0.35, 'usd'), (8.0, 'h'), (12.0, '%'), (500.0, 'mg'), (4200000000.0, 'usd')]
    """
    out: set[tuple[float, str]] = set()
    low = fold(text)
    for m in _NUM.finditer(low):
        raw = m.group("num").replace(",", "")
        if _is_year(raw) and not (m.group("cur") or m.group("pct") or m.group("scale")):
            continue
        value = float(raw)
        scale = m.group("scale")
        if scale and not (scale == "m" and not m.group("cur")):
            value *= _SCALES[scale]
        unit = ""
        if m.group("pct"):
            unit = "%"
        elif m.group("cur"):
            unit = _CURRENCY.get(m.group("cur"), "usd")
        elif scale == "m":  # "100 m" is metres; with a currency sign it was millions above
            unit = "m"
        elif not scale:
            unit = _unit_after(low, m.end())
        if unit == "cent":
            value, unit = value / 100, "usd"
        out.add((round(value, 6), unit))
    for m in re.finditer(r"\b[a-z]+\b", low):
        if m.group() in _NUMBER_WORDS and m.group() not in ("once", "single", "half"):
            out.add((float(_NUMBER_WORDS[m.group()]), _unit_after(low, m.end())))
    return out


def _unit_after(low: str, pos: int) -> str:
    after = _UNIT_AFTER.match(low, pos)
    if not after:
        return ""
    word = after.group(1)
    return _UNITS.get(word, _UNITS.get(word.split()[0], ""))


def _is_year(raw: str) -> bool:
    return re.fullmatch(r"1[5-9]\d\d|20\d\d", raw) is not None


def years(text: str) -> set[str]:
    """Four-digit years 1500-2099 that are not amounts (no currency sign or percent)."""
    out = set()
    for m in _NUM.finditer(fold(text)):
        raw = m.group("num")
        if _is_year(raw) and not m.group("cur") and not m.group("pct") and not m.group("scale"):
            out.add(raw)
    return out


def months(text: str) -> set[str]:
    """Month names mentioned (``may`` only when next to a number or a year)."""
    low = fold(text)
    found = {m for m in MONTHS if m != "may" and re.search(rf"\b{m}\b", low)}
    if re.search(r"\bmay\s+\d|\d\s+may\b", low):
        found.add("may")
    return found


# --- antonyms ----------------------------------------------------------------------------

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


# --- capitalised names -------------------------------------------------------------------

_CAP_RUN = re.compile(
    r"\b[A-Z\u00C0-\u00DE][\w\u00C0-\u024F'\-]*(?:\s+(?:of|de|van|von|the|and|du|la|del)?\s*"
    r"[A-Z\u00C0-\u00DE][\w\u00C0-\u024F'\-]*)*"
)
_NOT_NAMES = STOPWORDS | NEGATIONS | set(MONTHS) | {
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


# --- tables ------------------------------------------------------------------------------

_TABLE_LINE = re.compile(r"^[^\n]*\|[^\n]*$", re.M)


def table_rows(text: str) -> list[Span]:
    """Rows of each ``a | b | c`` table in ``text``, spelled out with their column headers.

    A table is a run of two or more consecutive lines holding a ``|``; its first line
    is the header. Each later row becomes ``"Header1: cell1; Header2: cell2."`` (rule rows such as
    ``---|---`` are skipped) with ``start``/``end`` of the row's own line, so that evidence found
    in a spelled-out row can still be located in the original text.

    >>> [r.text for r in table_rows("City | Cap\\nOslo | 190 EUR")]
    ['City: Oslo; Cap: 190 EUR.']
    """
    lines = [(m.start(), m.end(), m.group()) for m in _TABLE_LINE.finditer(text)]
    rows: list[Span] = []
    run: list[tuple[int, int, str]] = []
    for line in lines + [(-1, -1, "")]:
        if run and line[0] != run[-1][1] + 1:  # the run of adjacent table lines ended
            if len(run) >= 2:
                header = _cells(run[0][2])
                for start, end, raw in run[1:]:
                    cells = _cells(raw)
                    if all(set(c) <= set("-: ") for c in cells):
                        continue
                    body = ("; ".join(f"{h}: {c}" for h, c in zip(header, cells)) + "."
                            if len(cells) == len(header) else " | ".join(cells))
                    rows.append(Span(body, start, end))
            run = []
        if line[0] >= 0:
            run.append(line)
    return rows


def _cells(line: str) -> list[str]:
    return [c.strip() for c in line.strip().strip("|").split("|")]

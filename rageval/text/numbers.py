"""Numbers, units, currencies, percentages and dates in English and Italian, normalised.

One parser for every part of rageval that compares quantities. :func:`quantities` finds each
quantity in a text and gives it a canonical form; :func:`normalize_numbers` rewrites a text with
every quantity replaced by that form, so that token-level metrics see "EUR 1,500,000,000" and
"1.5 billion euros" as the same tokens. The rules:

- digits: ``1,500,000`` / ``1.500.000`` / ``1 500 000`` (narrow or no-break spaces) are grouped
  thousands, ``3.5`` / ``3,5`` are decimals; one separator followed by exactly three digits
  (``1,500`` / ``1.500``) is a thousands separator when it is a comma in English or a full stop in
  Italian, else a decimal point;
- number words: English (``seven``, ``twenty-one``, ``two hundred and five``) and Italian
  (``sette``, ``ventuno``, ``duemila``); ``a`` / ``an`` / ``un`` / ``una`` count as 1 before a
  scale or a unit ("a week");
- scales: thousand/k, million/mn/m (``m`` only after a currency), billion/bn, trillion; Italian
  mila/mille, milione/milioni/mln, miliardo/miliardi/mld;
- currencies: $ € £ ¥, USD/EUR/GBP/JPY/CHF codes before or after, euro(s), dollar(s), pound(s),
  yen, franc(s), "di euro"; cents become hundredths;
- percent: ``%``, percent, per cent, per cento, percento;
- units, converted to one base unit per dimension: durations in days (second ... year, a month
  is 365/12 days, Italian secondi ... anni), lengths in metres, masses in grams, volumes in
  litres, data in bytes; rates "a year" / "per annum" / "all'anno" / "annuo" become "per year" (after an amount,
  a percentage, a bare number or a duration: "three days a week" is ``3 day per week``);
- dates: ``3 March 2021``, ``March 3, 2021``, ``3rd of March 2021``, ``3 marzo 2021``,
  ``1° marzo 2021``, ``2021-03-03``, ``03/03/2021`` (day first; month first only in English
  when the second number exceeds 12) become ISO ``2021-03-03``; ``March 2021`` becomes ``2021-03``; a lone year
  1500-2099 is a year.

Canonical forms: ``1500000000 eur``, ``0.75 % per year``, ``7 day``, ``2021-03-03``, ``2021``.
A digit string too large for a float (309 digits or more: a serial number) is text, not a quantity.
Values are rounded to 6 significant digits in the canonical text, so equal quantities written
differently have equal canonical text, and :func:`same_quantity` compares by it.

>>> normalize_numbers("EUR 1,500,000,000") == normalize_numbers("1.5 billion euros")
True
>>> normalize_numbers("on 3 March 2021")
'on 2021-03-03'
>>> normalize_numbers("0,75% all'anno", "it") == normalize_numbers("0.75% a year")
True
>>> [q.canonical for q in quantities("refunds within 7 days, or one week")]
['7 day', '7 day']
"""
from __future__ import annotations

import functools
import math
import re
import unicodedata
from dataclasses import dataclass

from rageval.text.lang import DECIMAL_COMMA, guess_language
# the tables (data only), under their own names: text.version() hashes them as this module's
from rageval.text.number_tables import (  # noqa: F401 (some are read only by the hash)
    _CURRENCY_CODES, _DATE_PATTERNS, _DAY, _DIGITS, _DIGITS_RE, _EN_SMALL, _EN_TENS, _IT_ENGLISH_HOMOGRAPHS,
    _IT_SMALL, _IT_TENS, _MONTH_RE, _ONE, _RATE_PERIOD, _WORD, CURRENCY_SIGNS, CURRENCY_WORDS, MONTHS, PERCENT,
    RATE, SCALES, UNITS,
)

__all__ = ["Quantity", "quantities", "normalize_numbers", "same_quantity", "parse_number", "format_value",
           "is_number_word"]


@dataclass(frozen=True)
class Quantity:
    """One quantity found in a text: its kind, value in the base unit, unit and canonical text.

    kind is one of ``number``, ``percent``, ``money``, ``day`` (durations), ``m``, ``g``, ``l``,
    ``byte``, ``deg`` (unit dimensions), ``date`` (value 0, canonical ISO text) and ``year``.
    """

    kind: str
    value: float
    unit: str
    canonical: str
    start: int
    end: int


def format_value(value: float) -> str:
    """A number with 6 significant digits, no exponent, no trailing zeros.

    >>> format_value(1.5e9), format_value(0.75), format_value(7.0), format_value(2 / 3)
    ('1500000000', '0.75', '7', '0.666667')
    """
    if value == 0:
        return "0"
    text = f"{float(f'{value:.6g}'):.6f}".rstrip("0").rstrip(".")
    return text if text not in ("", "-0") else "0"


def parse_number(raw: str, language: str = "en") -> float:
    """The value of a digit string under the separator rules of the module docstring.

    >>> parse_number("1,500,000"), parse_number("1.500.000", "it"), parse_number("0,75", "it")
    (1500000.0, 1500000.0, 0.75)
    >>> parse_number("1,500"), parse_number("1,500", "it"), parse_number("1.500", "it"), parse_number("3.5")
    (1500.0, 1.5, 1500.0, 3.5)
    """
    s = re.sub(r"[\u00a0\u202f ']", "", raw)
    if "," in s and "." in s:
        dec = "," if s.rfind(",") > s.rfind(".") else "."
        s = s.replace("." if dec == "," else ",", "").replace(dec, ".")
    elif "," in s or "." in s:
        sep = "," if "," in s else "."
        parts = s.split(sep)
        if len(parts) > 2:
            s = "".join(parts)
        elif len(parts[1]) == 3 and parts[0] not in ("0", ""):
            grouping = sep == ("." if language in DECIMAL_COMMA else ",")
            s = "".join(parts) if grouping else parts[0] + "." + parts[1]
        else:
            s = parts[0] + "." + parts[1]
    return float(s)


#: texts whose quantities are remembered (a context of 1,000 characters holds a few dozen); eight
#: times as many words have their number value (or None) remembered: the scanner reads every word
QUANTITY_MEMO = 4096


@functools.lru_cache(maxsize=8 * QUANTITY_MEMO)
def _it_word(w: str) -> float | None:
    """Value of an Italian number word written as one word (``ventitré``, ``duemila``)."""
    w = unicodedata.normalize("NFD", w)
    w = "".join(c for c in w if unicodedata.category(c) != "Mn")
    if not w:
        return None
    if w in _IT_SMALL:
        return float(_IT_SMALL[w])
    if w in _IT_TENS:
        return float(_IT_TENS[w])
    if w in ("cento", "mille"):
        return 100.0 if w == "cento" else 1000.0
    if w.endswith("mila") and len(w) > 4:
        left = _it_word(w[:-4])
        return left * 1000 if left is not None else None
    if w.startswith("mille"):
        rest = _it_word(w[5:])
        return 1000 + rest if rest is not None else None
    if "cento" in w:
        i = w.index("cento")
        left = _it_word(w[:i]) if i else 1.0
        rest = _it_word(w[i + 5:]) if w[i + 5:] else 0.0
        return left * 100 + rest if left is not None and rest is not None else None
    for tens, value in _IT_TENS.items():
        for stem in (tens, tens[:-1]):  # ventuno, ventotto drop the vowel
            if w.startswith(stem) and w[len(stem):] in _IT_SMALL and _IT_SMALL[w[len(stem):]] < 10:
                return float(value + _IT_SMALL[w[len(stem):]])
    return None


@functools.lru_cache(maxsize=8 * QUANTITY_MEMO)
def _en_word(w: str) -> float | None:
    if w in _EN_SMALL:
        return float(_EN_SMALL[w])
    if w in _EN_TENS:
        return float(_EN_TENS[w])
    if "-" in w:
        a, _, b = w.partition("-")
        if a in _EN_TENS and b in _EN_SMALL and _EN_SMALL[b] < 10:
            return float(_EN_TENS[a] + _EN_SMALL[b])
    return None


#: Italian number words that are also common English words ("payment due")

def is_number_word(word: str) -> bool:
    """Whether a folded word is an English or Italian number word (``seven``, ``ventuno``,
    ``duemila``; not ``due``, which is also English), a scale word or ``dozen`` / ``half`` / ``twice``."""
    if _en_word(word) is not None or word in SCALES:
        return True
    if word in ("hundred", "dozen", "half", "twice", "thrice", "once", "double", "triple"):
        return True
    return word not in _IT_ENGLISH_HOMOGRAPHS and _it_word(word) is not None


def _dates(text: str, language: str) -> list[Quantity]:
    out: list[Quantity] = []
    taken: list[tuple[int, int]] = []
    for kind, pattern in enumerate(_DATE_PATTERNS):
        for m in pattern.finditer(text):
            if any(m.start() < e and s < m.end() for s, e in taken):
                continue
            g = m.groups()
            if kind == 0:
                y, mo, d = int(g[0]), int(g[1]), int(g[2])
            elif kind == 1:
                d, mo, y = int(g[0]), MONTHS[g[1].lower()], int(g[2])
            elif kind == 2:
                mo, d, y = MONTHS[g[0].lower()], int(g[1]), int(g[2])
            elif kind == 3:
                a, b, y = int(g[0]), int(g[1]), int(g[2])
                d, mo = (b, a) if language == "en" and b > 12 else (a, b)
            else:
                mo, y, d = MONTHS[g[0].lower()], int(g[1]), 0
            if g and kind in (2, 4) and g[0].lower() == "may" and not m.group().lower().startswith("may "):
                continue
            if not (1 <= mo <= 12 and 0 <= d <= 31 and 1000 <= y <= 2999) or (kind != 4 and d == 0):
                continue
            iso = f"{y:04d}-{mo:02d}" + (f"-{d:02d}" if d else "")
            out.append(Quantity("date", 0.0, "", iso, m.start(), m.end()))
            taken.append((m.start(), m.end()))
    return out


def _number_at(text: str, low: str, pos: int, language: str) -> tuple[float, int] | None:
    """A number (digits or words) starting at ``pos``: (value, end) or None."""
    m = _DIGITS_RE.match(text, pos)
    if m and (pos == 0 or not (text[pos - 1].isalnum() or text[pos - 1] in ".,")):
        if re.match(r"[.,]\d", text[m.end():m.end() + 2]):  # "2.0.1", an IP or a version: not a number
            return None
        value = parse_number(m.group(), language)
        # a serial number of 309+ digits is infinite as a float: it stays text, never a quantity
        return (value, m.end()) if math.isfinite(value) else None
    w = _WORD.match(low, pos)
    if not w or (pos and low[pos - 1].isalnum()):
        return None
    word = w.group()
    value = _en_word(word)
    if value is None and (language == "it" or len(word) >= 5):
        value = _it_word(word)
    if value is None:
        return None
    end = w.end()
    while True:  # "two hundred (and) five", "one thousand two hundred"
        nxt = re.compile(r"\s+(?:and\s+)?([a-z]+(?:-[a-z]+)?)").match(low, end)
        if not nxt:
            break
        word = nxt.group(1)
        if word == "hundred" and value < 100:
            value, end = value * 100, nxt.end()
        elif value >= 100 and (_en_word(word) or 0) and (_en_word(word) or 0) < 100 and value % 100 == 0:
            value, end = value + (_en_word(word) or 0), nxt.end()
        else:
            break
    return value, end


def _quantity_after(text: str, low: str, start: int, value: float, end: int, cur: str | None) -> Quantity:
    """Extend a number at [start, end) by scale, currency, percent, unit and rate words."""
    scale = re.compile(r"\s?([a-z]+)\b\.?").match(low, end)
    if scale and scale.group(1) in SCALES and (scale.group(1) != "m" or cur):
        value, end = value * SCALES[scale.group(1)], scale.end()
        if scale.group(1).rstrip(".") in ("mila", "milioni", "miliardi", "milione", "miliardo"):
            di = re.compile(r"\s+di\b").match(low, end)
            if di and re.compile(r"\s+di\s+(euro|dollari|sterline)\b").match(low, end):
                end = di.end()
    kind, unit = "number", ""
    if cur:
        kind, unit = "money", cur
    pct = PERCENT.match(low, end)
    word = re.compile(r"\s?([a-z°$]+[a-z$]*)\b").match(low, end)
    if pct:
        kind, unit, end = "percent", "%", pct.end()
    elif word and word.group(1) in CURRENCY_WORDS and kind != "money":
        kind, unit, end = "money", CURRENCY_WORDS[word.group(1)], word.end()
    elif word and word.group(1) in ("cents", "cent", "centesimi") and not cur:
        kind, unit, value, end = "money", "usd", value / 100, word.end()
    elif word and word.group(1) in UNITS and kind == "number":
        dim, factor = UNITS[word.group(1)]
        single = word.group(1) in ("h", "m", "g", "l")
        if not single or word.end() == len(low) or not low[word.end()].isalpha():
            kind, unit, value, end = dim, dim, value * factor, word.end()
    rate = RATE.match(low, end) if kind in ("percent", "money", "number", "day") else None
    canonical = format_value(value) + (f" {unit}" if unit else "")
    if rate:
        period = _RATE_PERIOD[(rate.group(1) or rate.group(2)).lower()]
        canonical, end = f"{canonical} per {period}", rate.end()
        unit = f"{unit}/{period}"
    elif (kind == "number" and math.isfinite(value) and value == int(value) and 1500 <= value <= 2099
          and re.fullmatch(r"\d{4}", text[start:end])):
        kind, canonical = "year", str(int(value))
        if low[end:end + 1] == "s" and not low[end + 1:end + 2].isalnum():  # "the 1990s"
            canonical, end = f"{canonical}s", end + 1
    return Quantity(kind, value, unit, canonical, start, end)


def quantities(text: str, language: str | None = None) -> list[Quantity]:
    """Every date and quantity in ``text``, in order (see the module docstring for the rules).

    ``language`` ("en", "it") decides ambiguous separators and which number words count; ``None``
    guesses it from the text (:func:`rageval.text.lang.guess_language`).

    >>> [q.canonical for q in quantities("Il canone è di 1.200 euro al mese dal 1° marzo 2021")]
    ['1200 eur per month', '2021-03-01']
    >>> [q.canonical for q in quantities("$4.2bn, 35 cents, 12%, 500 mg every 8 hours, in 1999")]
    ['4200000000 usd', '0.35 usd', '12 %', '0.5 g', '0.333333 day', '1999']

    Results are remembered per ``(text, language)`` (the last ``QUANTITY_MEMO`` texts): contexts
    repeat across the answers of a run and are read for every claim.
    """
    return list(_quantities(text, language))


# the scanner's own patterns, compiled once (code, not tables: lower case, outside util.tables_hash)
_code_before_digits = re.compile(r"(usd|eur|gbp|jpy|chf|us\$)\s?(?=\d)")  # "usd 5", "eur5"
_half_a = re.compile(r"half (?:an? |un |una )?(?=[a-z])")  # "half a year", "half an hour"
_one_unit = re.compile(r"(an|a|una|uno|un|one|single)\s+([a-z]+)\b")  # "a million", "one hour"
_unit_word = re.compile(r"([a-z]+)\b")
_sign_at_end = re.compile(r"(?:€|\$|£)$")  # "$" also matches before a final newline: the sign, or it and "\n"


@functools.lru_cache(maxsize=QUANTITY_MEMO)
def _quantities(text: str, language: str | None) -> tuple[Quantity, ...]:
    language = language or guess_language(text)
    text = unicodedata.normalize("NFC", text)
    low = text.lower()
    found = _dates(text, language)
    # a position inside a date jumps to the end of the first date (in _dates' order) that holds it;
    # a quantity found below is passed at once (pos = its end), so only dates can hold a position
    skip: dict[int, int] = {}
    for q in reversed(found):
        skip.update(dict.fromkeys(range(q.start, q.end), q.end))
    pos = 0
    while pos < len(low):
        if pos in skip:
            pos = skip[pos]
            continue
        start, cur, at = pos, None, pos
        sign = low[pos]
        if sign in CURRENCY_SIGNS:
            cur, at = CURRENCY_SIGNS[sign], pos + 1 + (low[pos + 1:pos + 2] == " ")
        else:
            code = _code_before_digits.match(low, pos)
            if code and (pos == 0 or not low[pos - 1].isalnum()):
                cur, at = CURRENCY_WORDS[code.group(1)], code.end()
        got = _number_at(text, low, at, language)
        one = None
        half = _half_a.match(low, at) if got is None else None
        if half and (at == 0 or not low[at - 1].isalnum()):  # "half a year", "half an hour"
            unit = _unit_word.match(low, half.end())
            if unit and unit.group(1) in UNITS and len(unit.group(1)) > 2:
                dim, factor = UNITS[unit.group(1)]
                q = Quantity(dim, 0.5 * factor, dim, f"{format_value(0.5 * factor)} {dim}", at, unit.end())
                found.append(q)
                pos = q.end
                continue
        if got is None and low[at:at + 4].split(" ")[0] in _ONE and (at == 0 or not low[at - 1].isalnum()):
            one = _one_unit.match(low, at)
            if one and (one.group(2) in SCALES and one.group(2) != "m"
                        or one.group(2) in UNITS and len(one.group(2)) > 2):
                got = (1.0, at + len(one.group(1)))
        if got is None:
            pos += 1
            while pos < len(low) and low[pos - 1].isalnum() and low[pos].isalnum():
                pos += 1
            continue
        value, end = got
        if cur is None:
            before = _sign_at_end.search(low[max(0, start - 2):start])
            if before:
                cur = CURRENCY_SIGNS[before.group()]
        q = _quantity_after(text, low, start, value, end, cur)
        if one and q.kind == "number" or not math.isfinite(q.value):  # "a man": the article stays a word;
            pos = end                                                   # 1e300 trillion: text, as above
            continue
        found.append(q)
        pos = q.end
    return tuple(sorted(found, key=lambda q: q.start))


def normalize_numbers(text: str, language: str | None = None) -> str:
    """``text`` with each quantity replaced by its canonical form (module docstring).

    >>> normalize_numbers("Rimborso entro sette giorni", "it")
    'Rimborso entro 7 day'
    >>> normalize_numbers("It costs 2 mila euro")
    'It costs 2000 eur'
    """
    out, last = [], 0
    for q in quantities(text, language):
        out.append(text[last:q.start])
        out.append(q.canonical)
        last = q.end
    out.append(text[last:])
    return "".join(out)


def same_quantity(a: Quantity, b: Quantity) -> bool:
    """Whether two quantities agree: equal canonical text; the same amount with and without a rate
    ("EUR 120" and "EUR 120 a month"); a bare number and any quantity of the same value; a year and
    a date in that year; a month (``2021-03``) and a day in it.

    >>> a, b = quantities("7"), quantities("7 days")
    >>> same_quantity(a[0], b[0])
    True
    """
    if a.canonical == b.canonical:
        return True
    if ("/" in a.unit) != ("/" in b.unit) and a.kind == b.kind:  # "EUR 120" answers "EUR 120 a month"
        return a.canonical.split(" per ")[0] == b.canonical.split(" per ")[0]
    if "date" in (a.kind, b.kind) or "year" in (a.kind, b.kind):
        x, y = sorted((a.canonical, b.canonical), key=len)
        return a.kind in ("date", "year") and b.kind in ("date", "year") and y.startswith(x + "-")
    if "number" in (a.kind, b.kind) and not ({a.kind, b.kind} & {"date", "year"}):
        return format_value(a.value) == format_value(b.value)
    return False

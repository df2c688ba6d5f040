"""The tables :mod:`rageval.text.numbers` reads: month names, number words, scales, currencies,
units with their factors, percent and rate patterns (English and Italian).

Data only. :mod:`rageval.text.numbers` imports every table under its own name, so
:func:`rageval.text.version` (which hashes that module's tables) moves whenever one changes.
"""
from __future__ import annotations

import re

MONTHS = {
    **{
        m: i + 1
        for i, m in enumerate(
            "january february march april may june july august september october november december".split()
        )
    },
    **{m: i + 1 for i, m in enumerate("jan feb mar apr may jun jul aug sep oct nov dec".split())},
    "sept": 9,
    **{
        m: i + 1
        for i, m in enumerate(
            "gennaio febbraio marzo aprile maggio giugno luglio agosto settembre ottobre novembre dicembre".split()
        )
    },
}
_EN_SMALL = {w: i for i, w in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen "
    "sixteen seventeen eighteen nineteen".split())}
_EN_TENS = {w: 10 * (i + 2) for i, w in enumerate("twenty thirty forty fifty sixty seventy eighty ninety".split())}
_IT_SMALL = {w: i for i, w in enumerate(
    "zero uno due tre quattro cinque sei sette otto nove dieci undici dodici tredici quattordici quindici "
    "sedici diciassette diciotto diciannove".split())}
_IT_TENS = {
    w: 10 * (i + 2) for i, w in enumerate("venti trenta quaranta cinquanta sessanta settanta ottanta novanta".split())
}
_ONE = {"a", "an", "un", "una", "uno", "one", "single"}

SCALES = {
    "thousand": 1e3, "thousands": 1e3, "k": 1e3, "mila": 1e3, "mille": 1e3,
    "million": 1e6, "millions": 1e6, "mn": 1e6, "mln": 1e6, "milione": 1e6, "milioni": 1e6, "m": 1e6,
    "billion": 1e9, "billions": 1e9, "bn": 1e9, "miliardo": 1e9, "miliardi": 1e9, "mld": 1e9, "mrd": 1e9,
    "trillion": 1e12, "trillions": 1e12, "bilione": 1e12, "bilioni": 1e12,
}
CURRENCY_SIGNS = {"$": "usd", "€": "eur", "£": "gbp", "¥": "jpy"}
CURRENCY_WORDS = {
    "usd": "usd", "us$": "usd", "dollar": "usd", "dollars": "usd", "dollari": "usd", "dollaro": "usd",
    "eur": "eur", "euro": "eur", "euros": "eur",
    "gbp": "gbp", "pound": "gbp", "pounds": "gbp", "sterline": "gbp", "sterlina": "gbp",
    "jpy": "jpy", "yen": "jpy", "chf": "chf", "franc": "chf", "francs": "chf", "franchi": "chf",
}
_CURRENCY_CODES = ("usd", "eur", "gbp", "jpy", "chf", "us$")
_DAY = 1.0
#: unit word -> (dimension, factor to the base unit of the dimension)
UNITS = {
    **dict.fromkeys(("second", "seconds", "sec", "secs", "secondo", "secondi"), ("day", 1 / 86400)),
    **dict.fromkeys(("minute", "minutes", "min", "mins", "minuto", "minuti"), ("day", 1 / 1440)),
    **dict.fromkeys(("hour", "hours", "h", "hr", "hrs", "ora", "ore"), ("day", 1 / 24)),
    **dict.fromkeys(("day", "days", "giorno", "giorni", "gg", "giornata", "giornate"), ("day", _DAY)),
    **dict.fromkeys(("week", "weeks", "settimana", "settimane"), ("day", 7.0)),
    **dict.fromkeys(("fortnight", "fortnights"), ("day", 14.0)),
    **dict.fromkeys(("month", "months", "mese", "mesi"), ("day", 365 / 12)),
    **dict.fromkeys(("year", "years", "yr", "yrs", "anno", "anni"), ("day", 365.0)),
    **dict.fromkeys(("decade", "decades", "decennio", "decenni"), ("day", 3650.0)),
    **dict.fromkeys(
        ("mm", "millimetre", "millimetres", "millimeter", "millimeters", "millimetro", "millimetri"), ("m", 1e-3)
    ),
    **dict.fromkeys(
        ("cm", "centimetre", "centimetres", "centimeter", "centimeters", "centimetro", "centimetri"), ("m", 1e-2)
    ),
    **dict.fromkeys(("m", "metre", "metres", "meter", "meters", "metro", "metri"), ("m", 1.0)),
    **dict.fromkeys(
        ("km", "kilometre", "kilometres", "kilometer", "kilometers", "chilometro", "chilometri"), ("m", 1e3)
    ),
    **dict.fromkeys(("mile", "miles", "miglio", "miglia"), ("m", 1609.344)),
    **dict.fromkeys(("ft", "foot", "feet", "piede", "piedi"), ("m", 0.3048)),
    **dict.fromkeys(("inch", "inches", "pollice", "pollici"), ("m", 0.0254)),
    **dict.fromkeys(("mg", "milligram", "milligrams", "milligrammo", "milligrammi"), ("g", 1e-3)),
    **dict.fromkeys(("g", "gram", "grams", "grammo", "grammi"), ("g", 1.0)),
    **dict.fromkeys(
        ("kg", "kilogram", "kilograms", "kilo", "kilos", "chilo", "chili", "chilogrammo", "chilogrammi"), ("g", 1e3)
    ),
    **dict.fromkeys(("tonne", "tonnes", "ton", "tons", "tonnellata", "tonnellate"), ("g", 1e6)),
    **dict.fromkeys(("lb", "lbs"), ("g", 453.59237)),
    **dict.fromkeys(
        ("ml", "millilitre", "millilitres", "milliliter", "milliliters", "millilitro", "millilitri"), ("l", 1e-3)
    ),
    **dict.fromkeys(("l", "litre", "litres", "liter", "liters", "litro", "litri"), ("l", 1.0)),
    **dict.fromkeys(("kb", "kilobyte", "kilobytes"), ("byte", 1e3)),
    **dict.fromkeys(("mb", "megabyte", "megabytes"), ("byte", 1e6)),
    **dict.fromkeys(("gb", "gigabyte", "gigabytes"), ("byte", 1e9)),
    **dict.fromkeys(("tb", "terabyte", "terabytes"), ("byte", 1e12)),
    **dict.fromkeys(("°c", "celsius", "degrees", "degree", "gradi", "grado"), ("deg", 1.0)),
}
PERCENT = re.compile(r"\s?(?:%|per\s?cent\b|percent\b|per\s?cento\b|percento\b)")
RATE = re.compile(
    r"\s*(?:(?:a|an|per|each|every|ogni|al|all['\u2019]|l['\u2019])\s*(year|annum|anno|month|mese|week|settimana|day|giorno)\b"
    r"|(annually|yearly|annuo|annua|annui|annue|monthly|mensile|mensili|weekly|settimanale|daily|giornaliero))"
)
_RATE_PERIOD = {
    "year": "year", "annum": "year", "anno": "year", "annually": "year", "yearly": "year", "annuo": "year",
    "annua": "year", "annui": "year", "annue": "year", "month": "month", "mese": "month", "monthly": "month",
    "mensile": "month", "mensili": "month", "week": "week", "settimana": "week", "weekly": "week",
    "settimanale": "week", "day": "day", "giorno": "day", "daily": "day", "giornaliero": "day",
}

_IT_ENGLISH_HOMOGRAPHS = frozenset({"due"})

#: digits, words and the date patterns the scanner matches
_DIGITS = r"\d{1,3}(?:(?:,\d{3})+|(?:\.\d{3})+|(?:[\u00a0\u202f]\d{3})+)(?:[.,]\d+)?|\d+(?:[.,]\d+)?"
_DIGITS_RE = re.compile(_DIGITS)
_WORD = re.compile(r"[^\W\d_]+(?:-[^\W\d_]+)?|\d", re.UNICODE)
_MONTH_RE = "|".join(sorted(MONTHS, key=len, reverse=True))
_DATE_PATTERNS = (
    re.compile(r"(?<!\d)(\d{4})-(\d{1,2})-(\d{1,2})(?!\d)"),  # ISO
    re.compile(rf"(?<!\d)(\d{{1,2}})(?:st|nd|rd|th|°|º)?\s+(?:of\s+|di\s+)?({_MONTH_RE})\.?,?\s+(\d{{4}})(?!\d)", re.I),
    re.compile(rf"\b({_MONTH_RE})\.?\s+(\d{{1,2}})(?:st|nd|rd|th)?,?\s+(\d{{4}})(?!\d)", re.I),
    re.compile(r"(?<![\d/.])(\d{1,2})[/.](\d{1,2})[/.](\d{4})(?![\d/.])"),
    re.compile(rf"\b({_MONTH_RE})\s+(?:of\s+|del\s+|di\s+)?(\d{{4}})(?!\d)", re.I),
)

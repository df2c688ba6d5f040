"""rageval.text.numbers: equal quantities written differently normalise to one canonical form."""
import pytest

from rageval.text.lang import guess_language
from rageval.text.numbers import format_value, normalize_numbers, parse_number, quantities, same_quantity

EQUAL = [  # (a, b, language of b or None to guess): the same quantity in two spellings
    ("EUR 1,500,000,000", "1.5 billion euros", None),
    ("EUR 1,500,000,000", "1,5 miliardi di euro", "it"),
    ("€1.5bn", "1500 million euros", None),
    ("3 March 2021", "2021-03-03", None),
    ("March 3, 2021", "3rd of March 2021", None),
    ("3 March 2021", "3 marzo 2021", "it"),
    ("3 March 2021", "03/03/2021", None),
    ("0.75% a year", "0,75% all'anno", "it"),
    ("0.75% a year", "0.75 percent per annum", None),
    ("7 days", "one week", None),
    ("7 days", "a week", None),
    ("7 days", "sette giorni", "it"),
    ("7 days", "una settimana", "it"),
    ("30,000", "30 mila", "it"),
    ("30,000", "trentamila", "it"),
    ("30,000", "30.000", "it"),
    ("21", "twenty-one", None),
    ("205", "two hundred and five", None),
    ("3.5 kg", "3500 g", None),
    ("3.5 kg", "3,5 kg", "it"),
    ("2 hours", "120 minutes", None),
    ("12 months", "1 year", None),
    ("6 months", "half a year", None),
    ("10 km", "10,000 m", None),
    ("$20", "20 dollars", None),
    ("$20", "US$ 20", None),
    ("50%", "cinquanta per cento", "it"),
    ("50%", "50 per cent", None),
    ("1,234.56", "1.234,56", None),
]
DIFFERENT = [
    ("7 days", "14 days"),
    ("7 days", "7 weeks"),
    ("EUR 1,500,000,000", "EUR 1,500,000"),
    ("$20", "20 euros"),
    ("3 March 2021", "4 March 2021"),
    ("3 March 2021", "3 May 2021"),
    ("0.75% a year", "0.75% a month"),
    ("50%", "5%"),
]


@pytest.mark.parametrize("a,b,lang", EQUAL)
def test_equal_quantities_share_one_canonical_form(a, b, lang):
    assert normalize_numbers(a) == normalize_numbers(b, lang)
    qa, qb = quantities(a), quantities(b, lang)
    assert len(qa) == len(qb) == 1 and same_quantity(qa[0], qb[0])


@pytest.mark.parametrize("a,b", DIFFERENT)
def test_different_quantities_differ(a, b):
    qa, qb = quantities(a), quantities(b)
    assert len(qa) == len(qb) == 1 and not same_quantity(qa[0], qb[0])


@pytest.mark.parametrize(
    "text,expected",
    [("EUR 1,500,000,000", ["1500000000 eur"]), ("3 March 2021", ["2021-03-03"]),
     ("0,75% all'anno", ["0.75 % per year"]), ("refund within 7 days", ["7 day"]),
     ("May 2020", ["2020-05"]), ("in 1999", ["1999"]), ("in the 1990s", ["1990s"]),
     ("a man walked in", []), ("version 2.0.1", []), ("in May we met", []), ("due to rain", []),
     ("$4.2bn, 35 cents, 12%", ["4200000000 usd", "0.35 usd", "12 %"])],
)
def test_canonical_forms(text, expected):
    assert [q.canonical for q in quantities(text)] == expected


def test_spans_point_into_the_text():
    text = "Il canone è di 1.200 euro al mese dal 1° marzo 2021."
    got = quantities(text)
    assert [text[q.start:q.end] for q in got] == ["1.200 euro al mese", "1° marzo 2021"]


def test_year_matches_a_date_in_it_and_a_bare_number_matches_a_unit():
    year, date = quantities("2021")[0], quantities("3 March 2021")[0]
    assert same_quantity(year, date) and same_quantity(date, year)
    assert not same_quantity(quantities("2020")[0], date)
    assert same_quantity(quantities("7")[0], quantities("7 days")[0])


@pytest.mark.parametrize(
    "raw,lang,value",
    [
        ("1,500", "en", 1500),
        ("1,500", "it", 1.5),
        ("1.500", "en", 1.5),
        ("1.500", "it", 1500),
        ("0,75", "it", 0.75),
        ("1\u202f500\u202f000", "en", 1.5e6),
    ],
)
def test_parse_number_separators(raw, lang, value):
    assert parse_number(raw, lang) == pytest.approx(value)


def test_format_value_and_language_guess():
    assert format_value(1500000000.0) == "1500000000" and format_value(1 / 3) == "0.333333"
    assert guess_language("La ricevuta non è necessaria per il reso") == "it"
    assert guess_language("A receipt is not required for the return") == "en"

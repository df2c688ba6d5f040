"""Seeded generator of labelled (question, reference, candidate) pairs for answer correctness.

Used by training/train_correctness.py only (training data; nothing generated here is reported).
Two sources:

- fact templates (below, English and Italian: policies, finance, science, history, sport) whose
  slots hold a quantity (duration, money, percentage, date, count, measure) or a rule that can be
  negated; values are drawn at random;
- EVOUNA TriviaQA questions with their gold answers (the training part; entity answers).

Correct candidates (label 1): the reference itself, the reference inside a longer sentence, the
bare value, and the same value written another way (words for digits, "one week" for "7 days",
"1.5 billion euros" for "EUR 1,500,000,000", Italian separators, other date formats).
Wrong candidates (label 0): another number, unit, date or period; the rule negated (or its
negation dropped); another entity from the same source; an abstention ("I don't know",
"non lo so", "the context does not say"); the question repeated back.
"""
from __future__ import annotations

import random
from typing import Callable

IT_MONTHS = "gennaio febbraio marzo aprile maggio giugno luglio agosto settembre ottobre novembre dicembre".split()
EN_MONTHS = "January February March April May June July August September October November December".split()
EN_WORDS = ("zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
            "seventeen eighteen nineteen twenty").split()
IT_WORDS = ("zero uno due tre quattro cinque sei sette otto nove dieci undici dodici tredici quattordici quindici "
            "sedici diciassette diciotto diciannove venti").split()

ABSTAIN = {
    "en": ["I don't know.", "I do not know the answer.", "The context does not say.",
           "The provided documents do not mention this.", "I cannot answer this from the information given.",
           "There is no information about that.", "Sorry, I'm unable to determine that."],
    "it": ["Non lo so.", "Il contesto non lo specifica.", "Non ci sono informazioni su questo.",
           "Non sono in grado di rispondere.", "I documenti non lo indicano.", "Non è specificato nel testo."],
}
WRAP = {
    "en": ["{x}", "The answer is {x}.", "According to the documents, {x}.", "Based on the context: {x}.",
           "{x}, as stated in the policy.", "It is {x}."],
    "it": ["{x}", "La risposta è {x}.", "Secondo i documenti, {x}.", "In base al contesto: {x}.", "È {x}."],
}


# ------------------------------------------------------------------------ value renderers
def _group(n: int, sep: str) -> str:
    return f"{n:,}".replace(",", sep)


def _decimal(v: float, lang: str) -> str:
    text = f"{v:g}"
    return text.replace(".", ",") if lang == "it" else text


def count_forms(n: int, lang: str, rng: random.Random) -> list[str]:
    """Ways to write the count ``n`` in ``lang``: digits, grouped digits, words, scale words."""
    forms = [str(n)]
    words = IT_WORDS if lang == "it" else EN_WORDS
    if n <= 20:
        forms.append(words[n])
    if n >= 1000:
        forms.append(_group(n, "." if lang == "it" else ","))
        if n % 1000 == 0 and n < 1_000_000:
            forms.append(f"{n // 1000} mila" if lang == "it" else f"{n // 1000} thousand")
    if n >= 1_000_000 and n % 100_000 == 0:
        m = n / 1e6
        forms.append(f"{_decimal(m, lang)} milioni" if lang == "it" else f"{m:g} million")
    return forms


DURATIONS = {  # unit -> (en singular, en plural, it singular, it plural, days)
    "day": ("day", "days", "giorno", "giorni", 1), "week": ("week", "weeks", "settimana", "settimane", 7),
    "month": ("month", "months", "mese", "mesi", 365 / 12), "year": ("year", "years", "anno", "anni", 365),
    "hour": ("hour", "hours", "ora", "ore", 1 / 24),
}


def duration_forms(n: int, unit: str, lang: str, rng: random.Random) -> list[str]:
    en1, en2, it1, it2, days = DURATIONS[unit]
    one, many = (it1, it2) if lang == "it" else (en1, en2)
    forms = [f"{c} {one if n == 1 else many}" for c in count_forms(n, lang, rng)[:2]]
    if n == 1:
        forms.append(("una " if unit in ("week", "hour") else "un ") + one if lang == "it" else f"a {one}")
    if unit == "day" and n % 7 == 0:
        w = n // 7
        forms += [f"{c} {('settimana' if w == 1 else 'settimane') if lang == 'it' else ('week' if w == 1 else 'weeks')}"
                  for c in count_forms(w, lang, rng)[:2]]
    if unit == "month" and n % 12 == 0:
        y = n // 12
        forms.append(f"{y} {('anno' if y == 1 else 'anni') if lang == 'it' else ('year' if y == 1 else 'years')}")
    if unit == "hour" and n <= 4:
        forms.append(f"{n * 60} {'minuti' if lang == 'it' else 'minutes'}")
    return forms


def money_forms(amount: int, cur: str, lang: str, rng: random.Random) -> list[str]:
    sign = {"eur": "€", "usd": "$", "gbp": "£"}[cur]
    word = {"eur": ("euros", "euro"), "usd": ("dollars", "dollari"), "gbp": ("pounds", "sterline")}[cur][lang == "it"]
    grouped = _group(amount, "." if lang == "it" else ",")
    forms = [f"{sign}{grouped}", f"{cur.upper()} {grouped}", f"{grouped} {word}"]
    for scale, en, it in ((1e9, "billion", "miliardi"), (1e6, "million", "milioni")):
        if amount >= scale and amount % (scale / 10) == 0:
            v = amount / scale
            forms += [
                f"{_decimal(v, lang)} {it} di {word}" if lang == "it" else f"{v:g} {en} {word}",
                f"{sign}{_decimal(v, lang)} "
                f"{'mld' if scale == 1e9 and lang == 'it' else ('bn' if scale == 1e9 else 'm')}",
            ]
            break
    if amount >= 1000 and amount % 1000 == 0 and amount < 1e6:
        forms.append(f"{amount // 1000} mila {word}" if lang == "it" else f"{amount // 1000} thousand {word}")
    return forms


def percent_forms(v: float, lang: str, rate: bool, rng: random.Random) -> list[str]:
    tail = ""
    if rate:
        tail = (
            rng.choice([" all'anno", " annuo", " l'anno"])
            if lang == "it"
            else rng.choice([" a year", " per year", " per annum", " annually"])
        )
    num = _decimal(v, lang)
    return [f"{num}%{tail}", f"{num} per cento{tail}" if lang == "it" else f"{num} percent{tail}", f"{num} %{tail}"]


def date_forms(y: int, m: int, d: int, lang: str, rng: random.Random) -> list[str]:
    if lang == "it":
        return [f"{d} {IT_MONTHS[m - 1]} {y}", f"{d:02d}/{m:02d}/{y}", f"{y}-{m:02d}-{d:02d}"]
    name = EN_MONTHS[m - 1]
    return [f"{d} {name} {y}", f"{name} {d}, {y}", f"{y}-{m:02d}-{d:02d}", f"the {d}{_suffix(d)} of {name} {y}"]


def _suffix(d: int) -> str:
    return "th" if 11 <= d % 100 <= 13 else {1: "st", 2: "nd", 3: "rd"}.get(d % 10, "th")


# --------------------------------------------------------------------------- templates
# (language, question, reference with {v}, slot kind); kinds: dur-<unit>, money-<cur>, pct, rate, date, count
TEMPLATES = [
    (
        "en",
        "How long do customers have to return a product?",
        "Products can be returned within {v} of delivery.",
        "dur-day",
    ),
    ("en", "How long is the warranty?", "The warranty lasts {v}.", "dur-month"),
    ("en", "How long does shipping take?", "Standard shipping takes {v}.", "dur-day"),
    ("en", "How long is the probation period?", "The probation period is {v}.", "dur-month"),
    ("en", "How long can the medicine be stored after opening?", "Once opened it keeps for {v}.", "dur-week"),
    ("en", "How much did the company raise in the bond issue?", "The bond issue raised {v}.", "money-eur"),
    ("en", "What was the annual revenue?", "Annual revenue was {v}.", "money-usd"),
    ("en", "What is the late fee?", "A late fee of {v} is charged.", "money-gbp"),
    ("en", "What is the interest rate on the deposit?", "The deposit pays {v}.", "rate"),
    ("en", "By how much did unemployment fall?", "Unemployment fell by {v}.", "pct"),
    ("en", "What share of patients responded?", "{v} of patients responded to the treatment.", "pct"),
    ("en", "When did the contract take effect?", "The contract took effect on {v}.", "date"),
    ("en", "When was the treaty signed?", "The treaty was signed on {v}.", "date"),
    ("en", "When does the offer expire?", "The offer expires on {v}.", "date"),
    ("en", "How many employees does the firm have?", "The firm employs {v} people.", "count"),
    ("en", "How many people live in the town?", "The town has {v} inhabitants.", "count"),
    ("en", "How many goals did she score that season?", "She scored {v} goals that season.", "count"),
    ("en", "How many tablets can be taken per day?", "No more than {v} tablets should be taken per day.", "count"),
    (
        "it",
        "Entro quanto tempo si può restituire un prodotto?",
        "I prodotti si possono restituire entro {v} dalla consegna.",
        "dur-day",
    ),
    ("it", "Quanto dura la garanzia?", "La garanzia dura {v}.", "dur-month"),
    ("it", "Quanto tempo richiede la spedizione?", "La spedizione standard richiede {v}.", "dur-day"),
    (
        "it",
        "Quanto ha raccolto la società con l'emissione obbligazionaria?",
        "L'emissione ha raccolto {v}.",
        "money-eur",
    ),
    ("it", "Qual è il canone mensile?", "Il canone è di {v} al mese.", "money-eur"),
    ("it", "Qual è il tasso di interesse del conto?", "Il conto rende {v}.", "rate"),
    ("it", "Di quanto è calata la disoccupazione?", "La disoccupazione è calata del {v}.", "pct"),
    ("it", "Quando è entrato in vigore il contratto?", "Il contratto è entrato in vigore il {v}.", "date"),
    ("it", "Quando scade l'offerta?", "L'offerta scade il {v}.", "date"),
    ("it", "Quanti dipendenti ha l'azienda?", "L'azienda ha {v} dipendenti.", "count"),
    ("it", "Quanti abitanti ha il comune?", "Il comune conta {v} abitanti.", "count"),
]
RULES = [  # (language, question, affirmative, negated)
    (
        "en",
        "Is a receipt required for a refund?",
        "A receipt is required for a refund.",
        "A receipt is not required for a refund.",
    ),
    (
        "en",
        "Can the deposit be withdrawn early?",
        "The deposit can be withdrawn early.",
        "The deposit cannot be withdrawn early.",
    ),
    (
        "en",
        "Does the policy cover water damage?",
        "The policy covers water damage.",
        "The policy does not cover water damage.",
    ),
    ("en", "Are pets allowed in the rooms?", "Pets are allowed in the rooms.", "Pets are not allowed in the rooms."),
    (
        "en",
        "Is the medicine safe during pregnancy?",
        "The medicine is safe during pregnancy.",
        "The medicine is not safe during pregnancy.",
    ),
    (
        "en",
        "Do employees need approval for remote work?",
        "Employees need approval for remote work.",
        "Employees do not need approval for remote work.",
    ),
    ("en", "Was the match played at home?", "The match was played at home.", "The match was never played at home."),
    (
        "en",
        "Is parking included in the price?",
        "Parking is included in the price.",
        "Parking is not included in the price.",
    ),
    (
        "it",
        "Serve lo scontrino per il rimborso?",
        "Lo scontrino è necessario per il rimborso.",
        "Lo scontrino non è necessario per il rimborso.",
    ),
    (
        "it",
        "La polizza copre i danni da acqua?",
        "La polizza copre i danni da acqua.",
        "La polizza non copre i danni da acqua.",
    ),
    (
        "it",
        "Gli animali sono ammessi nelle camere?",
        "Gli animali sono ammessi nelle camere.",
        "Gli animali non sono ammessi nelle camere.",
    ),
    (
        "it",
        "Il parcheggio è incluso nel prezzo?",
        "Il parcheggio è incluso nel prezzo.",
        "Il parcheggio non è incluso nel prezzo.",
    ),
    (
        "it",
        "Si può recedere dal contratto senza penali?",
        "Si può recedere dal contratto senza penali.",
        "Non si può recedere dal contratto senza penali.",
    ),
]


def _value(
    kind: str, lang: str, rng: random.Random
) -> tuple[Callable[[random.Random], list[str]], Callable[[random.Random], list[str]]]:
    """(forms of a drawn value, forms of a different value of the same kind)."""
    if kind.startswith("dur-"):
        unit = kind[4:]
        n = rng.choice({"day": [7, 14, 30, 10, 3, 5, 21, 60], "month": [6, 12, 24, 3, 18, 36],
                        "week": [1, 2, 3, 4, 6], "year": [1, 2, 5, 10], "hour": [1, 2, 3, 4]}[unit])
        other_n = rng.choice([x for x in (n * 2, n + 1, max(1, n - 1), n * 3) if x != n])
        other_unit = rng.choice([u for u in ("day", "week", "month", "year") if u != unit])
        wrong = (
            (lambda r: duration_forms(other_n, unit, lang, r))
            if rng.random() < 0.7
            else (lambda r: duration_forms(n, other_unit, lang, r))
        )
        return (lambda r: duration_forms(n, unit, lang, r)), wrong
    if kind.startswith("money-"):
        cur = kind[6:]
        amount = rng.choice([1_500_000_000, 2_000_000, 350_000, 4_200_000_000, 25, 120, 75_000, 1_200, 900_000_000])
        other = rng.choice([amount * 10, amount // 10 or 1, amount * 2, amount + amount // 2])
        other_cur = rng.choice([c for c in ("eur", "usd", "gbp") if c != cur])
        wrong = (
            (lambda r: money_forms(other, cur, lang, r))
            if rng.random() < 0.8
            else (lambda r: money_forms(amount, other_cur, lang, r))
        )
        return (lambda r: money_forms(amount, cur, lang, r)), wrong
    if kind in ("pct", "rate"):
        v = rng.choice([0.75, 1.5, 2.25, 3.0, 4.0, 12.0, 35.0, 60.0, 8.5])
        other = rng.choice([x for x in (v * 2, v + 1, v / 2, v + 0.25) if x != v])
        return (lambda r: percent_forms(v, lang, kind == "rate", r)), (
            lambda r: percent_forms(other, lang, kind == "rate", r)
        )
    if kind == "date":
        y, m, d = rng.randint(1950, 2030), rng.randint(1, 12), rng.randint(1, 28)
        wrong = rng.choice([(y + rng.choice([-1, 1, 10]), m, d), (y, m % 12 + 1, d), (y, m, d % 28 + 1)])
        return (lambda r: date_forms(y, m, d, lang, r)), (lambda r: date_forms(*wrong, lang, r))
    n = rng.choice([4, 8, 12, 15, 250, 1200, 3000, 45_000, 2_500_000, 30_000])
    other = rng.choice([n * 2, n + 1, n * 10, max(1, n - 3)])
    return (lambda r: count_forms(n, lang, r)), (lambda r: count_forms(other, lang, r))


def _row(lang: str, question: str, reference: str, candidate: str, label: int, kind: str) -> dict:
    return {
        "language": lang,
        "question": question,
        "reference": reference,
        "answer": candidate,
        "label": label,
        "kind": kind,
    }


def template_pairs(rng: random.Random, draws: int) -> list[dict]:
    """``draws`` values per template; for each, several correct and wrong candidates."""
    rows = []
    for lang, question, ref_t, kind in TEMPLATES:
        for _ in range(draws):
            right, wrong = _value(kind, lang, rng)
            forms, wrong_forms = right(rng), wrong(rng)
            reference = ref_t.format(v=forms[0])
            wrap = rng.choice(WRAP[lang])
            rows.append(_row(lang, question, reference, reference, 1, "copy"))
            rows.append(
                _row(lang, question, reference, ref_t.format(v=rng.choice(forms[1:] or forms)), 1, "other-form")
            )
            rows.append(_row(lang, question, reference, wrap.format(x=rng.choice(forms)), 1, "bare-value"))
            rows.append(_row(lang, question, reference, ref_t.format(v=rng.choice(wrong_forms)), 0, "wrong-value"))
            rows.append(_row(lang, question, reference, wrap.format(x=rng.choice(wrong_forms)), 0, "wrong-bare-value"))
            rows.append(_row(lang, question, reference, rng.choice(ABSTAIN[lang]), 0, "abstention"))
    return rows


def rule_pairs(rng: random.Random, draws: int) -> list[dict]:
    rows = []
    for lang, question, yes, no in RULES:
        for _ in range(draws):
            for reference, right, wrong in ((yes, yes, no), (no, no, yes)):
                wrap = rng.choice(WRAP[lang][1:])
                rows.append(_row(lang, question, reference, right, 1, "copy"))
                rows.append(_row(lang, question, reference, wrap.format(x=right.rstrip(".").lower()), 1, "wrapped"))
                rows.append(_row(lang, question, reference, wrong, 0, "negation"))
                rows.append(_row(lang, question, reference, wrap.format(x=wrong.rstrip(".").lower()), 0, "negation"))
                rows.append(_row(lang, question, reference, rng.choice(ABSTAIN[lang]), 0, "abstention"))
    return rows


def entity_pairs(items: list[dict], rng: random.Random, per_item: float) -> list[dict]:
    """From (question, references) items: wrapped gold (1), another item's gold (0), negated gold (0),
    abstention (0), the question echoed (0). ``per_item`` is the share of items used."""
    rows = []
    chosen = [it for it in items if rng.random() < per_item]
    for it in chosen:
        gold = it["references"][0]
        other = rng.choice(items)["references"][0]
        if other.lower() == gold.lower():
            continue
        wrap = rng.choice(WRAP["en"])
        rows.append(_row("en", it["question"], gold, wrap.format(x=gold), 1, "entity-wrapped"))
        rows.append(_row("en", it["question"], gold, wrap.format(x=other), 0, "entity-swap"))
        rows.append(
            _row(
                "en",
                it["question"],
                gold,
                rng.choice([f"It is not {gold}.", f"Not {gold}; it is {other}."]),
                0,
                "negation",
            )
        )
        rows.append(_row("en", it["question"], gold, rng.choice(ABSTAIN["en"]), 0, "abstention"))
        rows.append(_row("en", it["question"], gold, it["question"].rstrip("?") + ".", 0, "question-echo"))
    return rows


def generate(entity_items: list[dict], seed: int = 13, draws: int = 12, entity_share: float = 0.25) -> list[dict]:
    """All generated pairs, deterministic for a seed."""
    rng = random.Random(seed)
    return template_pairs(rng, draws) + rule_pairs(rng, draws // 2) + entity_pairs(entity_items, rng, entity_share)

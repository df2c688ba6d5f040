"""Edits that turn a true sentence into a labelled claim (used by training/make_claim_data.py).

Each edit takes a sentence (and a random generator, the language and a pool of names) and
returns the edited claim, or None when it does not apply. English and Italian.
"""
from __future__ import annotations

import random
import re

# --- SUPPORTED ---------------------------------------------------------------------------

SYNONYMS = {
    "en": [("began", "started"), ("begin", "start"), ("purchased", "bought"), ("large", "big"),
           ("small", "little"), ("rapidly", "quickly"), ("received", "got"), ("employees", "staff"),
           ("assist", "help"), ("commenced", "started"), ("completed", "finished"), ("approximately", "about"),
           ("roughly", "about"), ("obtain", "get"), ("request", "ask for"), ("required", "needed"),
           ("must", "has to"), ("permitted", "allowed"), ("reside", "live"), ("frequently", "often"),
           ("company", "firm"), ("attempt", "try"), ("sufficient", "enough"), ("demonstrated", "showed"),
           ("reported", "said"), ("however", "but"), ("ended", "finished"), ("chose", "picked"),
           ("moved", "relocated"), ("important", "significant"), ("increase", "rise"), ("decreased", "fell"),
           ("nearly", "almost"), ("additional", "extra"), ("presently", "currently"), ("said", "stated")],
    "it": [("iniziato", "cominciato"), ("acquistato", "comprato"), ("grande", "ampio"), ("rapidamente", "velocemente"),
           ("dipendenti", "lavoratori"), ("circa", "approssimativamente"), ("ottenere", "avere"),
           ("necessario", "richiesto"), ("consentito", "permesso"), ("spesso", "frequentemente"),
           ("azienda", "società"), ("sufficiente", "bastante"), ("ha dichiarato", "ha affermato"),
           ("aumento", "crescita"), ("quasi", "pressoché"), ("attualmente", "oggi"), ("medico", "dottore")],
}
#: more pairs, used only by :func:`chain` (the second pass), so the first pass stays as it was
SYNONYMS_MORE = {
    "en": [("can", "may"), ("up to", "as many as"), ("no more than", "at most"), ("receive", "get"),
           ("needs to", "must"), ("starts", "begins"), ("gets", "receives"), ("shows", "indicates"),
           ("big", "large"), ("buy", "purchase"), ("help", "support"), ("about", "around")],
    "it": [("può", "potrà"), ("fino a", "al massimo"), ("ricevono", "ottengono"), ("hanno diritto a", "ricevono"),
           ("costa", "ha un prezzo di"), ("dura", "ha una durata di"), ("è stato", "è risultato")],
}
_TRAILING = re.compile(r",\s+(?:which|who|where|while|including|with|and|but|although|as well as|che|dove|mentre|con|"
                       r"e|ma|inclusi|compresi)\b[^,;]*$", re.I)
_LEADING = re.compile(r"^(?:However|In addition|Moreover|Meanwhile|Also|Inoltre|Tuttavia|Intanto),\s+", re.I)


def _swap_word(text: str, a: str, b: str) -> str | None:
    pat = re.compile(rf"\b{re.escape(a)}\b", re.I)
    if not pat.search(text):
        return None
    return pat.sub(lambda m: b.capitalize() if m.group()[0].isupper() else b, text, count=1)


def paraphrase(s: str, rng: random.Random, lang: str, more: bool = False) -> str | None:
    """Synonym swaps and a moved leading phrase ("In 2019, X did Y." -> "X did Y in 2019.")."""
    out, changed = s, False
    pairs = SYNONYMS[lang][:] + (SYNONYMS_MORE[lang] if more else [])
    rng.shuffle(pairs)
    for a, b in pairs:
        for x, y in ((a, b), (b, a)):
            new = _swap_word(out, x, y)
            if new:
                out, changed = new, True
                break
    m = re.match(r"^((?:In|On|By|During|After|Before|Nel|Il|Dal|Entro)\s+[^,]{2,30}),\s+(.+?)([.!?])?$", out)
    if m:
        body = m.group(2)
        out = body[0].upper() + body[1:] + " " + m.group(1)[0].lower() + m.group(1)[1:] + (m.group(3) or ".")
        changed = True
    return out if changed and out != s else None


def compression(s: str, rng: random.Random, lang: str) -> str | None:
    """A clause dropped: a trailing "which/and/with ..." clause, a leading connective or a parenthesis."""
    for pat in (_TRAILING, _LEADING, re.compile(r"\s*\([^)]*\)")):
        new = pat.sub("", s).strip()
        if new != s and len(new.split()) >= 5:
            new = new[0].upper() + new[1:]
            return new if new[-1] in ".!?" else new + "."
    return None


def number_format(s: str, rng: random.Random, lang: str) -> str | None:
    """The same value written differently (1500 -> 1,500 / 1.5 thousand; 12% -> 12 per cent)."""
    m = re.search(r"(?<![\d.,])(\d{4,7})(?![\d.,])", s)
    if m and not re.fullmatch(r"1[5-9]\d\d|20\d\d", m.group(1)):
        v = int(m.group(1))
        sep = "." if lang == "it" else ","
        return s[:m.start()] + f"{v:,}".replace(",", sep) + s[m.end():]
    m = re.search(r"(\d+)\s?%", s)
    if m:
        return s[:m.start()] + m.group(1) + (" per cento" if lang == "it" else " percent") + s[m.end():]
    m = re.search(r"(?<![\d.,])(\d{1,3}(?:[.,]\d{3})+)(?![\d])", s)
    if m:
        return s[:m.start()] + re.sub(r"[.,]", "", m.group(1)) + s[m.end():]
    return None


# --- CONTRADICTED ------------------------------------------------------------------------

_NUMBER = re.compile(r"(?<![\w.,])(\d+(?:[.,]\d+)?)(?![\w])")


def numbers(s: str, rng: random.Random, lang: str) -> str | None:
    """One number (not a year) replaced by another value in the same format."""
    spots = [m for m in _NUMBER.finditer(s) if not re.fullmatch(r"1[5-9]\d\d|20\d\d", m.group(1))]
    if not spots:
        return None
    m = rng.choice(spots)
    raw = m.group(1)
    dec = "," if "," in raw else "."
    if dec in raw and not re.fullmatch(r"\d{1,3}[.,]\d{3}", raw):
        a, b = raw.split(dec)
        new = f"{int(a) + rng.choice([1, 2, 3])}{dec}{b}"
    else:
        v = int(re.sub(r"[.,]", "", raw))
        choices = [v + d for d in (1, 2, 5, 10) if v + d != v] + [v * 2, max(v - 1, 0) if v > 1 else v + 3]
        nv = rng.choice([c for c in choices if c != v])
        new = f"{nv:,}".replace(",", "." if lang == "it" else ",") if len(raw) > 4 else str(nv)
    return s[:m.start()] + new + s[m.end():]


def numbers_from_context(s: str, rng: random.Random, lang: str, context: str) -> str | None:
    """One number (not a year) replaced by another number that the contexts state elsewhere: the
    mix-up of two figures of one document that answers often make."""
    spots = [m for m in _NUMBER.finditer(s) if not re.fullmatch(r"1[5-9]\d\d|20\d\d", m.group(1))]
    mine = {m.group(1) for m in spots}
    others = sorted(
        {n for n in _NUMBER.findall(context) if n not in mine and not re.fullmatch(r"1[5-9]\d\d|20\d\d", n)}
    )
    if not spots or not others:
        return None
    m = rng.choice(spots)
    return s[:m.start()] + rng.choice(others) + s[m.end():]


_MONTHS = {"en": ["January", "February", "March", "April", "May", "June", "July", "August", "September",
                  "October", "November", "December"],
           "it": ["gennaio", "febbraio", "marzo", "aprile", "maggio", "giugno", "luglio", "agosto", "settembre",
                  "ottobre", "novembre", "dicembre"]}


def dates(s: str, rng: random.Random, lang: str) -> str | None:
    """A year moved by 1-15 years, or a month replaced by another."""
    m = re.search(r"\b(1[5-9]\d\d|20\d\d)\b", s)
    if m and rng.random() < 0.7:
        y = int(m.group(1)) + rng.choice([-15, -10, -5, -3, -2, -1, 1, 2, 3, 5, 10])
        return s[:m.start()] + str(y) + s[m.end():]
    for name in _MONTHS[lang]:
        mm = re.search(rf"\b{name}\b", s)
        if mm:
            other = rng.choice([x for x in _MONTHS[lang] if x != name])
            return s[:mm.start()] + other + s[mm.end():]
    if m:
        return s[:m.start()] + str(int(m.group(1)) + rng.choice([-2, -1, 1, 2])) + s[m.end():]
    return None


_UNIT_SWAPS = [("km", "miles"), ("kilometres", "miles"), ("kg", "g"), ("mg", "g"), ("days", "weeks"),
               ("hours", "minutes"), ("minutes", "seconds"), ("weeks", "months"), ("months", "years"),
               ("euros", "dollars"), ("EUR", "USD"), ("ml", "litres"), ("metres", "feet"), ("GB", "MB"),
               ("giorni", "settimane"), ("ore", "minuti"), ("mesi", "anni"), ("chilometri", "metri"),
               ("euro", "dollari"), ("%", " punti base")]


def units(s: str, rng: random.Random, lang: str) -> str | None:
    """A unit replaced by another of the same kind, the value kept (5 km -> 5 miles)."""
    pairs = _UNIT_SWAPS[:]
    rng.shuffle(pairs)
    for a, b in pairs:
        for x, y in ((a, b), (b, a)):
            m = re.search(rf"(?<=\d)(\s?){re.escape(x)}(?![\w])", s)
            if m:
                return s[:m.start()] + (m.group(1) or " ") + y.strip() + s[m.end():]
    return None


_NAME = re.compile(r"(?<![.!?]\s)(?<!^)\b([A-Z][a-z]{2,}(?:\s[A-Z][a-z]{2,})?)\b")


def entities(s: str, rng: random.Random, lang: str, pool: list[str]) -> str | None:
    """A name (not the first word) replaced by another name of the same document or pool."""
    found = [m for m in _NAME.finditer(s) if m.start() > 0]
    others = [p for p in pool if p not in s]
    if not found or not others:
        return None
    m = rng.choice(found)
    return s[:m.start()] + rng.choice(others) + s[m.end():]


def role(s: str, rng: random.Random, lang: str) -> str | None:
    """Two different names of the sentence swapped ("A hired B" -> "B hired A")."""
    found = list(dict.fromkeys(m.group(1) for m in re.finditer(r"\b([A-Z][a-z]{2,}(?:\s[A-Z][a-z]{2,})?)\b", s)))
    if len(found) < 2:
        return None
    a, b = found[0], found[1]
    if a in b or b in a:
        return None
    return s.replace(a, "\0").replace(b, a).replace("\0", b)


_QUANT = {"en": [("all", "some"), ("every", "no"), ("always", "never"), ("at least", "at most"),
                 ("no more than", "at least"), ("more than", "less than"), ("most", "few"), ("many", "few"),
                 ("maximum", "minimum"), ("up to", "at least"), ("only", "also"), ("often", "rarely")],
          "it": [("tutti", "alcuni"), ("tutte", "alcune"), ("sempre", "mai"), ("almeno", "al massimo"),
                 ("più di", "meno di"), ("massimo", "minimo"), ("fino a", "almeno"), ("spesso", "raramente"),
                 ("molti", "pochi"), ("ogni", "nessun")]}


def quantifier(s: str, rng: random.Random, lang: str) -> str | None:
    for a, b in _QUANT[lang]:
        for x, y in ((a, b), (b, a)):
            new = _swap_word(s, x, y)
            if new:
                return new
    return None


_AUX = re.compile(r"\b(is|are|was|were|can|will|would|should|must|has|have|had|does|did|may|could)\b(?!\s+not)")
_IT_AUX = re.compile(r"\b(è|sono|era|erano|ha|hanno|può|possono|deve|devono|viene|vengono|sarà)\b")


def negation(s: str, rng: random.Random, lang: str) -> str | None:
    """A negation inserted after the first auxiliary (or removed when the sentence has one)."""
    if lang == "it":
        if re.search(r"\bnon\s", s):
            return re.sub(r"\bnon\s", "", s, count=1)
        m = _IT_AUX.search(s)
        return s[:m.start()] + "non " + s[m.start():] if m else None
    for pat, repl in ((r"\bcannot\b", "can"), (r"\b(\w+)n't\b", r"\1"), (r"\s+not\b", ""), (r"\bnever\s", "")):
        if re.search(pat, s) and rng.random() < 0.8:
            return re.sub(pat, repl, s, count=1).replace("  ", " ")
    m = _AUX.search(s)
    if not m:
        return None
    word = m.group(1)
    return s[:m.start()] + ("cannot" if word == "can" else f"{word} not") + s[m.end():]


ANTONYMS = {
    "en": [
        ("increased", "decreased"),
        ("rose", "fell"),
        ("higher", "lower"),
        ("larger", "smaller"),
        ("more", "less"),
        ("won", "lost"),
        ("accepted", "rejected"),
        ("allowed", "prohibited"),
        ("required", "optional"),
        ("mandatory", "optional"),
        ("early", "late"),
        ("open", "closed"),
        ("included", "excluded"),
        ("success", "failure"),
        ("strong", "weak"),
        ("fast", "slow"),
        ("long", "short"),
        ("public", "private"),
        ("legal", "illegal"),
        ("safe", "dangerous"),
        ("buy", "sell"),
        ("bought", "sold"),
        ("old", "young"),
        ("north", "south"),
        ("east", "west"),
        ("gain", "loss"),
        ("profit", "loss"),
        ("approved", "rejected"),
        ("easy", "difficult"),
        ("cheap", "expensive"),
        ("happy", "sad"),
        ("love", "hate"),
        ("arrived", "left"),
        ("inside", "outside"),
        ("up", "down"),
        ("best", "worst"),
        ("highest", "lowest"),
        ("paid", "unpaid"),
        ("free", "paid"),
        ("full", "empty"),
        ("first", "last"),
    ],
    "it": [
        ("aumentato", "diminuito"),
        ("aumento", "calo"),
        ("superiore", "inferiore"),
        ("maggiore", "minore"),
        ("vinto", "perso"),
        ("obbligatorio", "facoltativo"),
        ("consentito", "vietato"),
        ("alto", "basso"),
        ("incluso", "escluso"),
        ("pubblico", "privato"),
        ("positivo", "negativo"),
        ("gratuito", "a pagamento"),
        ("crescita", "diminuzione"),
        ("utile", "perdita"),
        ("accettato", "respinto"),
        ("prima", "dopo"),
    ],
}


def antonyms(s: str, rng: random.Random, lang: str) -> str | None:
    pairs = ANTONYMS[lang][:]
    rng.shuffle(pairs)
    for a, b in pairs:
        for x, y in ((a, b), (b, a)):
            new = _swap_word(s, x, y)
            if new:
                return new
    return None


_TEMPORAL = [("before", "after"), ("earlier", "later"), ("first", "last"), ("preceded", "followed"),
             ("prima di", "dopo"), ("precedente", "successivo")]


def temporal(s: str, rng: random.Random, lang: str) -> str | None:
    for a, b in _TEMPORAL:
        for x, y in ((a, b), (b, a)):
            new = _swap_word(s, x, y)
            if new:
                return new
    return None


def year_front(s: str, rng: random.Random, lang: str) -> str | None:
    """A leading "In 2019" / "Nel 2019" moved to the end (or a trailing one to the front)."""
    m = re.match(r"^(In|Nel|Il|Dal)\s+(\d{4}),?\s+(.+?)([.!?])?$", s)
    if m:
        body = m.group(3)
        return body[0].upper() + body[1:] + f" {m.group(1).lower()} {m.group(2)}" + (m.group(4) or ".")
    m = re.match(r"^(.+?)\s+(in|nel)\s+(\d{4})([.!?])$", s)
    if m and len(m.group(1).split()) >= 3:
        head = m.group(1)
        return (
            f"{m.group(2).capitalize()} {m.group(3)} " + head[0].lower() + head[1:] + m.group(4)
            if not re.match(r"^[A-Z][a-z]+\s[A-Z]", head)
            else f"{m.group(2).capitalize()} {m.group(3)} {head}{m.group(4)}"
        )
    return None


_VERBS = re.compile(r"\b(is|was|are|were|has|have|had|can|will|weighs|costs|opens|lasts|covers|è|ha|sono|pesa|"
                    r"costa|dura|copre|può)\b")
_PRONOUN = re.compile(r"^(It|He|She|They|Esso|Essa)\s+(.+)$")


def resolve_pronoun(prev: str, s: str) -> str | None:
    """"The X weighs 2 kg. It is not ..." -> "The X is not ..." (the subject of ``prev``)."""
    m = _PRONOUN.match(s)
    v = _VERBS.search(prev)
    if not m or not v:
        return None
    subject = prev[:v.start()].strip().rstrip(",")
    if not (1 <= len(subject.split()) <= 6) or not subject[0].isupper():
        return None
    return f"{subject} {m.group(2)}"


def chain(s: str, rng: random.Random, lang: str) -> str | None:
    """Several meaning-keeping edits in a row (each applied when it can be)."""
    out, n = s, 0
    for edit in (paraphrase, year_front, compression, number_format):
        new = edit(out, rng, lang, True) if edit is paraphrase else edit(out, rng, lang)
        if new and rng.random() < 0.75:
            out, n = new, n + 1
    return out if n >= 1 and out != s else None


SUPPORT_EDITS = {"paraphrase": paraphrase, "compression": compression, "number_format": number_format}
CONTRA_EDITS = {"numbers": numbers, "dates": dates, "units": units, "role": role, "quantifier": quantifier,
                "negation": negation, "antonyms": antonyms, "temporal": temporal}

# --- NOT_MENTIONED: facts true in the world, absent from any context ---------------------

WORLD_FACTS = {
    "en": ["Paris is the capital of France.", "Water boils at 100 degrees Celsius at sea level.",
           "The Pacific is the largest ocean on Earth.", "Mount Everest is the highest mountain in the world.",
           "The human heart has four chambers.", "Light travels at about 300,000 km per second.",
           "The Earth orbits the Sun once a year.", "Shakespeare wrote Hamlet.", "Tokyo is the capital of Japan.",
           "The euro was introduced in 1999.", "Penicillin was discovered by Alexander Fleming in 1928.",
           "The Great Wall is in China.", "A marathon is 42.195 km long.", "Oxygen has the atomic number 8.",
           "The Moon landing took place in 1969.", "Football teams field eleven players.",
           "Interest rates are set by central banks.", "Most contracts can be signed electronically.",
           "Aspirin can thin the blood.", "The company is listed on the stock exchange.",
           "Employees must wear a badge at all times.", "The warranty covers accidental damage.",
           "The library includes free printing.", "Refunds are paid within 30 days.",
           "The product is available in three colours.", "The museum is open on Mondays."],
    "it": ["Roma è la capitale d'Italia.", "L'acqua bolle a 100 gradi al livello del mare.",
           "Il Monte Bianco è la montagna più alta delle Alpi.", "La Divina Commedia è stata scritta da Dante.",
           "L'euro è entrato in circolazione nel 2002.", "Il cuore umano ha quattro cavità.",
           "La Costituzione italiana è entrata in vigore nel 1948.", "Il Po è il fiume più lungo d'Italia.",
           "I dipendenti devono timbrare il cartellino ogni giorno.", "Il rimborso viene pagato entro 30 giorni.",
           "La garanzia copre anche i danni accidentali.", "Il museo è aperto il lunedì.",
           "La squadra ha vinto il campionato nel 2010.", "Il farmaco può causare sonnolenza.",
           "Il contratto può essere firmato online.", "La biblioteca offre la stampa gratuita."],
}

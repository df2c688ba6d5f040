"""The one sentence segmenter (rageval.text.sentences) and the shared word tokens (rageval.text.words):
hard wraps joined, units that stay apart, abbreviations, decimals, spans that index the original."""
import pytest

from rageval.claims.cues import names
from rageval.claims.containment import contained, normalise
from rageval.generate.generators import passage_units
from rageval.text.lang import guess_language
from rageval.text.sentences import split_sentences, table_rows
from rageval.text.words import content_stems, words


def texts(text: str) -> list[str]:
    spans = split_sentences(text)
    for s in spans:  # every span indexes the original text
        assert text[s.start:s.end] == s.text
    return [" ".join(s.text.split()) for s in spans]


@pytest.mark.parametrize(
    "text, expected",
    [
        # hard wraps and PDF line breaks inside a sentence are joined
        (
            "The service is available on weekdays. It is\nnot available on Sundays, when the\nteam is off.",
            ["The service is available on weekdays.", "It is not available on Sundays, when the team is off."],
        ),
        ("Revenue was $3.5\nbillion in 2023.\nCosts fell.", ["Revenue was $3.5 billion in 2023.", "Costs fell."]),
        # a short line without final punctuation before a capital is a fragment (web navigation) ...
        (
            "Skip to content\nZoo Map\nZoo Calendar\n"
            "The zoo opened in 1971 and is home to animals from six continents.",
            [
                "Skip to content",
                "Zoo Map",
                "Zoo Calendar",
                "The zoo opened in 1971 and is home to animals from six continents.",
            ],
        ),
        # ... but a long wrapped line before a capitalised word (a name) is joined
        (
            "The travel desk books trains at least five days before the trip, on behalf of\nMario Rossi and his team.",
            ["The travel desk books trains at least five days before the trip, on behalf of Mario Rossi and his team."],
        ),
        # a blank line ends a sentence even without punctuation
        ("A line without a full stop\n\nanother paragraph", ["A line without a full stop", "another paragraph"]),
        # Markdown headings and list items are units; an item's wrapped line joins it
        (
            "# Setup\nInstall the tool with pip.\n\n## Usage\n- Run the score command on a file\n  that has answers\n"
            "- Read the report.\n1. First step\n2) Second step.",
            [
                "Setup",
                "Install the tool with pip.",
                "Usage",
                "Run the score command on a file that has answers",
                "Read the report.",
                "First step",
                "Second step.",
            ],
        ),
        # a short title-case line before a longer line or a blank line is a heading
        (
            "Installation Guide\nThe installer copies files to the target folder and checks them.\n\nScope\n\nIt "
            "covers all.",
            [
                "Installation Guide",
                "The installer copies files to the target folder and checks them.",
                "Scope",
                "It covers all.",
            ],
        ),
        # ... but a short line in the middle of a sentence is not
        ("The Service Is\nnot available.", ["The Service Is not available."]),
        # abbreviations stay inside sentences
        (
            "Mr. Rossi met Dr. Bianchi and Prof. Verdi, e.g. at the U.S. office, i.e. in Rome. Then he left.",
            ["Mr. Rossi met Dr. Bianchi and Prof. Verdi, e.g. at the U.S. office, i.e. in Rome.", "Then he left."],
        ),
        (
            "Vedi art. 5 e No. 3 vs. pag. 12 ecc. con il Sig. Neri e il Dott. Gialli. Poi firma.",
            ["Vedi art. 5 e No. 3 vs. pag. 12 ecc. con il Sig. Neri e il Dott. Gialli.", "Poi firma."],
        ),
        # etc. ends a sentence before a capital, not before a lower-case word
        (
            "We sell apples, pears, etc. The shop opens at 9. Apples, pears, etc. are fresh.",
            ["We sell apples, pears, etc.", "The shop opens at 9.", "Apples, pears, etc. are fresh."],
        ),
        # an abbreviation that also ends sentences ends one only before a word that opens sentences
        (
            "He was born in Clones, Co. Monaghan, on 1 December 1872. He died in 1950.",
            ["He was born in Clones, Co. Monaghan, on 1 December 1872.", "He died in 1950."],
        ),
        (
            "He works at Acme Co. The firm is small. Apple Inc. Chief Executive Tim Cook spoke. Rossi S.p.A. e F.lli "
            "Neri "
            "Ltd. It closed.",
            [
                "He works at Acme Co.",
                "The firm is small.",
                "Apple Inc. Chief Executive Tim Cook spoke.",
                "Rossi S.p.A. e F.lli Neri Ltd.",
                "It closed.",
            ],
        ),
        (
            "Carta, penna ecc. Il negozio apre alle 9. Carta, penna ecc. Verdi e Neri firmano.",
            ["Carta, penna ecc.", "Il negozio apre alle 9.", "Carta, penna ecc. Verdi e Neri firmano."],
        ),
        # a title before a name never ends a sentence
        (
            "We climbed Mt. Everest with Sen. Warren and Capt. Hook from St. Ives. La Dott.ssa Neri e la Prof.ssa "
            "Bianchi "
            "firmano.",
            [
                "We climbed Mt. Everest with Sen. Warren and Capt. Hook from St. Ives.",
                "La Dott.ssa Neri e la Prof.ssa Bianchi firmano.",
            ],
        ),
        # Markdown's closing marks after end punctuation
        (
            "**Note.** The fee is 20 EUR. _Paid monthly._ Use `pip.` Then go.",
            ["**Note.**", "The fee is 20 EUR.", "_Paid monthly._", "Use `pip.`", "Then go."],
        ),
        # decimal numbers of both conventions
        (
            "Prices rose 3.5% to 1.500,00 EUR. Il tasso è 2,75 per cento.",
            ["Prices rose 3.5% to 1.500,00 EUR.", "Il tasso è 2,75 per cento."],
        ),
        # table rows (as the PDF loader writes them) are one unit each, never joined to prose
        (
            "City | Cap\nOslo | 190 EUR\nRome | 150 EUR\nThe rates apply\nto all staff.",
            ["City | Cap", "Oslo | 190 EUR", "Rome | 150 EUR", "The rates apply to all staff."],
        ),
        # the fields of a form or spec sheet are one unit each; one colon in wrapped prose is not a field
        (
            "Price: 20 EUR\nWeight: 2,1 kg\nColour: dark\ngreen\n\nThe rule is simple: staff\nfile within 30 days.",
            ["Price: 20 EUR", "Weight: 2,1 kg", "Colour: dark green", "The rule is simple: staff file within 30 days."],
        ),
        (
            "L'utente dell'Area Riservata deve accedere\ncon le credenziali. Poi conferma.",
            ["L'utente dell'Area Riservata deve accedere con le credenziali.", "Poi conferma."],
        ),
    ],
)
def test_segmenter(text, expected):
    assert texts(text) == expected


def test_spans_round_trip_and_skip_markers():
    text = "  # Title\n\n- first item\n  wrapped.\n* second. Third!\r\nLast"
    spans = split_sentences(text)
    assert [text[s.start:s.end] for s in spans] == [s.text for s in spans]
    assert [s.text for s in spans] == ["Title", "first item\n  wrapped.", "second.", "Third!", "Last"]
    assert spans[1].start == text.index("first")


def test_table_rows_keep_their_line_spans():
    text = "Rates\n\nCity | Cap\nOslo | 190 EUR\n\nEnd."
    (row,) = table_rows(text)
    assert row.text == "City: Oslo; Cap: 190 EUR." and text[row.start:row.end] == "Oslo | 190 EUR"


def test_generator_units_come_from_the_one_segmenter():
    units = passage_units("Policy Overview\nExpense claims are submitted within\n30 days of returning home.")
    assert units == ["Expense claims are submitted within 30 days of returning home."]


def test_italian_elisions_are_two_words_for_every_helper():
    assert words("dell'Area") == ["dell", "area"] == words("dell\u2019Area")
    assert words("nell'anno, all'inizio, un'altra, quell'uomo, c'è, d'oro, s'è, l'Aquila") == [
        "nell", "anno", "all", "inizio", "un", "altra", "quell", "uomo", "c", "e", "d", "oro", "s", "e", "l", "aquila"]
    assert content_stems("il direttore dell'Area") == content_stems("il direttore della Area")
    assert words("don't, it's") == ["do", "n't", "it"]
    assert names("Il direttore dell'Area Tecnica.") == {"area tecnica"}
    assert names("La sede è a L'Aquila.") == names("La sede è nella città di Aquila.")
    assert guess_language("Il direttore dell'Area non è presente nella sede.") == "it"


def test_normalise_for_containment():
    assert normalise("It\u2019s  \nfree \u2013 now")[0] == "it's free - now"
    text = "Tariffa \u201cbase\u201d:\n10\u00a0EUR"
    norm, index = normalise(text)
    assert norm == 'tariffa "base": 10 eur' and text[index[norm.index("10")]] == "1"


@pytest.mark.parametrize("claim, ok", [
    ("The fee is 20 EUR.", False),         # negated in its sentence
    ("fee is 20 EUR", False),              # the same copied words, still negated
    ("Refunds take 5 day", False),         # not at a word boundary ("days")
    ("take 5", False),                     # fewer than MIN_WORDS words
    ("Refunds take 5 days", True),
    ("Refunds take 5 days. They are paid by bank transfer", True),  # two adjacent sentences
])
def test_containment_guards(claim, ok):
    ctx = "It is not true that the fee is 20 EUR. Refunds take 5 days. They are paid by\nbank transfer."
    assert (contained(claim, [ctx]) is not None) is ok


MARKDOWN = ("## Fees\n\n- The **monthly fee** is *20 EUR* for _every_ user.\n"
            "- Run `rageval score` on a file of answers.\n"
            "1. Read [the guide](https://example.org/guide_v2 \"Guide\") before you install it.\n\n"
            "Payment is due on **Monday.** Late fees apply. Cards are accepted at the desk.")


@pytest.mark.parametrize("claim", [
    "The monthly fee is 20 EUR for every user.",            # emphasis: **, *, _ dropped on the context side
    "The **monthly fee** is *20 EUR* for _every_ user.",    # ... and on the claim side
    "- The monthly fee is 20 EUR for every user.",          # a claim's leading list marker
    "Run rageval score on a file of answers.",              # inline code
    "Run `rageval score` on a file of answers.",
    "Read the guide before you install it.",                # a link keeps its text
    "1. Read [the guide](https://example.org/guide_v2) before you install it.",
    "## Fees",                                              # a heading (too short to be a claim) ...
])
def test_a_copy_of_markdown_is_contained_with_or_without_its_marks(claim):
    found = contained(claim, [MARKDOWN])
    if claim == "## Fees":
        assert found is None  # fewer than MIN_WORDS words
        return
    assert found is not None and "\n" not in found.evidence.strip()  # one list item: its own sentence


def test_dropped_marks_never_join_sentences_that_are_not_adjacent():
    # the copy matches only once "**" is gone, across three sentences: never SUPPORTED
    assert "payment is due on monday. late fees apply. cards are accepted" in normalise(MARKDOWN)[0]
    assert contained("Payment is due on Monday. Late fees apply. Cards are accepted at the desk", [MARKDOWN]) is None
    # two adjacent sentences stay supportable, as in plain text
    assert contained("Payment is due on Monday. Late fees apply", [MARKDOWN]) is not None
    # a list item is never joined to the next one, marks or not
    assert contained("for every user. Run rageval score on a file", [MARKDOWN]) is None
    # asterisks and underscores that are not paired marks stay as they are
    assert normalise("5 * 3 * 2 and my_var_name")[0] == "5 * 3 * 2 and my_var_name"
    assert contained("Use myvarname in code now.", ["Use my_var_name in code now."]) is None
    # a backtick that opens a quotation (```no way'``, as news corpora write it) is no code mark
    news = "He said `no way' and left the room. Then `yes' came later."
    assert normalise(news)[0].startswith("he said 'no way'") and "`" not in normalise(news)[0]
    assert contained("He said `no way' and left the room.", [news]) is not None


def test_a_verbless_whole_sentence_needs_a_value():
    ctx = "Sheryl Lee Ralph .\nShe played Madame Morrible.\n\nCap: 190 EUR\nTerm: 12 months"
    assert contained("Sheryl Lee Ralph.", [ctx]) is None  # a bare name states nothing
    assert contained("Cap: 190 EUR", [ctx]) is not None   # a field states its value


# --- the text rules are pinned in the signature of every metric whose values they change ---------

TEXT_METRICS = ("faithfulness", "contradicted_share", "not_mentioned_share", "ragas_answer_correctness",
                "ragas_answer_relevance", "groundedness", "context_relevance", "answer_relevance",
                "hedging", "answer_correctness_offline", "answer_equivalence")  # the last three read text tables


def test_text_rules_are_in_the_signatures(monkeypatch):
    from rageval import text
    from rageval.metrics.base import get_metric, metric_names
    from rageval.text import sentences, words

    before = {n: get_metric(n).signature() for n in TEXT_METRICS}
    assert all(text.version() in sig for sig in before.values())
    for name in ("groundedness", "faithfulness", "contradicted_share"):  # answers split / copied claims found
        assert text.version() in get_metric(name, judge="openai:gpt-4o-mini").signature()
    untouched = [n for n in metric_names() if n not in TEXT_METRICS]
    assert not any(text.version() in get_metric(n.replace("@K", "@10")).signature() for n in untouched)
    monkeypatch.setattr(sentences, "ABBREVIATIONS", sentences.ABBREVIATIONS | {"approx2"})
    assert all(get_metric(n).signature() != before[n] for n in TEXT_METRICS)
    monkeypatch.undo()
    monkeypatch.setattr(words, "ELISIONS", words.ELISIONS - {"dell"})
    assert get_metric("context_relevance").signature() != before["context_relevance"]


def test_generator_signature_follows_the_segmenter(monkeypatch):
    from rageval.generate.generators import ExtractiveGenerator
    from rageval.text import sentences
    from tests.fakes import BowEmbedder

    gen = ExtractiveGenerator(BowEmbedder())
    before = gen.signature()
    monkeypatch.setattr(sentences, "HEADING_WORDS", 12)
    assert gen.signature() != before


def test_pdf_table_rows_stay_one_unit_each():
    from rageval.ingest.loaders import load_file
    from tests.test_loaders import table_pdf

    text = load_file("rates.pdf", table_pdf()).pages[0].text
    units = [" ".join(s.text.split()) for s in split_sentences(text)]
    assert "Oslo | 180 EUR | 65 EUR" in units and "Lyon | 140 EUR | 50 EUR" in units
    assert "Travel rates apply to every trip booked after March 2025." in units
    assert "Rates are reviewed every January." in units
    assert [r.text for r in table_rows(text)][0] == "City: Oslo; Lodging: 180 EUR; Meals: 65 EUR."


def test_an_abbreviation_after_markdown_marks_ends_no_sentence():
    text = "Case 12. **Ms. R., aged 54, was admitted on 3 May.** She left."
    assert [s.text for s in split_sentences(text)] == ["Case 12.", "**Ms. R., aged 54, was admitted on 3 May.**",
                                                      "She left."]


def test_a_long_word_before_a_full_stop_ends_the_sentence_before_a_lower_case_name():
    text = "Please test them very carefully. gzip is used for backups. See e.g. zlib for more."
    assert [s.text for s in split_sentences(text)] == ["Please test them very carefully.",
                                                      "gzip is used for backups.", "See e.g. zlib for more."]

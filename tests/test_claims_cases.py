"""Cases met in the demo for the learned cross-encoder of training/ (no part of the product):
tables, model numbers, parentheses, numbers found elsewhere in a chunk, swapped names, off-topic
refutations; and advice to the reader for the extractor."""
import pytest

from rageval.claims.extract import extract_claims

#: cases the shipped offline verifier still gets wrong (listed in training/VALIDATION.md); strict, so a
#: model that gets one right makes the test fail until the mark is removed
KNOWN_WEAKNESS = pytest.mark.xfail(strict=True, reason="known weakness of the shipped cross-encoder")

CONTEXT = ("The rates below apply from 1 March 2025.\n"
           "City | Lodging cap per night | Meals per diem\n"
           "Oslo | 190 EUR | 70 EUR\n"
           "Lyon | 135 EUR | 50 EUR\n")


def test_table_row_supports_and_contradicts_claims(xenc_verifier):
    verdicts = xenc_verifier.verify(
        ["The lodging cap per night in Lyon is 135 EUR.", "The meals per diem in Oslo is 55 EUR."], [CONTEXT])
    assert [v.label for v in verdicts] == ["SUPPORTED", "CONTRADICTED"]
    start, end = verdicts[0].span
    assert CONTEXT[start:end] == "Lyon | 135 EUR | 50 EUR"


def test_advice_tail_is_dropped_but_an_instruction_sentence_is_a_claim():
    assert extract_claims("The primary caregiver gets 16 weeks of paid leave, but please check with HR.") == [
        "The primary caregiver gets 16 weeks of paid leave."]
    assert extract_claims("Please contact HR. The tent weighs 2 kg.") == ["Please contact HR.", "The tent weighs 2 kg."]
    assert extract_claims("The report, see page 4, says revenue grew 5%.") != ["The report."]


MANUAL = ("NORTHWIND OUTFITTERS - TRAILHEAD 2 TENT\nThe Trailhead 2 is a two-person tent.\nSpecifications\n"
          "Packed weight: 2.1 kg (minimum trail weight without stakes and stuff sacks: 1.85 kg).")


@pytest.mark.parametrize("claim, label", [
    # the 2 of the model name is not a weight
    pytest.param("The Trailhead 2 weighs 2.1 kg when packed.", "SUPPORTED", marks=KNOWN_WEAKNESS),
    ("The packed weight is 2.1 kg.", "SUPPORTED"),  # "without" inside a parenthesis does not negate
    ("The Trailhead 2 weighs 2.4 kg when packed.", "CONTRADICTED"),
    ("The Trailhead 3 weighs 2.1 kg.", "CONTRADICTED"),
])
def test_model_numbers_and_parentheses(xenc_verifier, claim, label):
    verdict = xenc_verifier.verify([claim], [MANUAL])[0]
    assert verdict.label == label, (verdict.reason, verdict.probabilities)


@KNOWN_WEAKNESS
def test_a_bare_number_found_elsewhere_in_the_chunk_still_counts(xenc_verifier):
    context = ("Up to 5 unused days may be carried over into the next year. Requests for absences must be "
               "submitted at least 10 working days in advance.")
    verdict = xenc_verifier.verify(["Employees can carry over up to 10 unused days."], [context])[0]
    assert verdict.label == "CONTRADICTED", (verdict.reason, verdict.probabilities)


@KNOWN_WEAKNESS
def test_a_name_mentioned_elsewhere_does_not_support_a_swapped_founder(xenc_verifier):
    contexts = ["In 1987 Maja Eklund founded Northwind Outfitters in a former net loft.",
                "Northwind Outfitters - Leave Policy. Owner: People Team (Ingrid Solberg, Head of People)."]
    verdict = xenc_verifier.verify(["Northwind Outfitters was founded by Ingrid Solberg."], contexts)[0]
    assert verdict.label == "CONTRADICTED", (verdict.reason, verdict.probabilities)


def test_a_context_that_only_names_a_person_is_no_conflicting_source(xenc_verifier):
    from rageval.claims.diagnose import diagnose
    from rageval.types import Sample

    contexts = ("In 1987 Maja Eklund founded Northwind Outfitters in a former net loft.",
                "Northwind Outfitters - Leave Policy. Owner: People Team (Ingrid Solberg, Head of People).")
    claim = "Northwind Outfitters was founded by Ingrid Solberg."
    verdict = xenc_verifier.verify([claim], contexts)[0]
    assert not verdict.conflict
    sample = Sample(id="n", answer=claim, contexts=contexts)
    causes = diagnose(sample, [{"text": claim, "verdict": "CONTRADICTED", "conflict": verdict.conflict}])
    assert causes["claim_causes"] != ["conflicting_sources"]


def test_an_off_topic_refutation_does_not_override_support(xenc_verifier):
    contexts = ["Carried-over days must be taken by 31 March; days not used by then are lost.",
                "A lost-receipt declaration may be used at most twice per calendar year."]
    verdict = xenc_verifier.verify(["Days not used by then are lost."], contexts)[0]
    assert verdict.label == "SUPPORTED", (verdict.reason, verdict.probabilities)

"""The learned NLI cross-encoder of training/ (no part of the product) on claims about the Berlin Wall and
cases met in the demo: tables, model numbers, parentheses, numbers found elsewhere in a chunk,
swapped names, off-topic refutations. Run where its parameters are restored (see conftest.py here)."""
import pytest

CTX = (
    "The Berlin Wall was built in 1961 by the German Democratic Republic. It divided the city for 28 years.",
    "The wall fell on 9 November 1989. German reunification followed in October 1990.",
)

#: cases the shipped cross-encoder gets wrong (training/VALIDATION.md: it was chosen on real-labelled
#: development rows, where it beats the feature MLP 0.70 to 0.49; it can miss one changed date, and
#: since its third training stage taught it "same topic, not decided" it can read a swapped entity
#: as not mentioned rather than contradicted); strict, so a model that gets one right fails the test
#: until the mark is removed
XENC_WEAKNESS = pytest.mark.xfail(strict=True, reason="known weakness of the shipped cross-encoder")

VERIFY_CASES = [
    ("The wall fell on 9 November 1989.", "SUPPORTED", None),
    pytest.param("The wall fell on 9 November 1991.", "CONTRADICTED", "dates", marks=XENC_WEAKNESS),
    ("The wall divided the city for 35 years.", "CONTRADICTED", "numbers"),
    pytest.param("The Berlin Wall was built by the Soviet Union.", "CONTRADICTED", "entities", marks=XENC_WEAKNESS),
    ("The wall did not fall in 1989.", "CONTRADICTED", "negation"),
    ("About 140 people died at the wall.", "NOT_MENTIONED", None),
]

CONTEXT = ("The rates below apply from 1 March 2025.\n"
           "City | Lodging cap per night | Meals per diem\n"
           "Oslo | 190 EUR | 70 EUR\n"
           "Lyon | 135 EUR | 50 EUR\n")


@XENC_WEAKNESS
def test_a_claim_that_leaves_out_a_year_is_supported(xenc_verifier):
    # the cross-encoder reads "around 1600" in the premise as a reason to contradict (p_C = 0.77)
    (v,) = xenc_verifier.verify(["Hamlet was written by William Shakespeare."],
                                   ["Hamlet is a tragedy written by William Shakespeare around 1600."])
    assert v.label == "SUPPORTED", v.probabilities


@pytest.mark.parametrize("claim, label, mismatch", VERIFY_CASES)
def test_verifier_labels_and_evidence(xenc_verifier, claim, label, mismatch):
    (v,) = xenc_verifier.verify([claim], CTX)
    assert (v.label, v.mismatch) == (label, mismatch), v.reason
    if label != "NOT_MENTIONED":
        assert CTX[v.context_index][v.span[0]:v.span[1]] == v.evidence
        assert v.reason


@pytest.mark.xfail(strict=True, reason="the shipped cross-encoder reads the newer context as support "
                   "(SUPPORTED, p = 0.61); the conflict flag is raised only on CONTRADICTED verdicts")
def test_conflicting_chunks_contradict_with_conflict_flag(xenc_verifier):
    ctx = ("The annual fee is 2% of the balance.", "Since 2020 the annual fee has been 3% of the balance.")
    (v,) = xenc_verifier.verify(["The annual fee is 3% of the balance."], ctx)
    assert (v.label, v.conflict, v.context_index) == ("CONTRADICTED", True, 0), v.reason
    assert "context 2 states the claim's figures" in v.reason


def test_table_row_supports_and_contradicts_claims(xenc_verifier):
    verdicts = xenc_verifier.verify(
        ["The lodging cap per night in Lyon is 135 EUR.", "The meals per diem in Oslo is 55 EUR."], [CONTEXT])
    assert [v.label for v in verdicts] == ["SUPPORTED", "CONTRADICTED"]
    start, end = verdicts[0].span
    assert CONTEXT[start:end] == "Lyon | 135 EUR | 50 EUR"


MANUAL = ("NORTHWIND OUTFITTERS - TRAILHEAD 2 TENT\nThe Trailhead 2 is a two-person tent.\nSpecifications\n"
          "Packed weight: 2.1 kg (minimum trail weight without stakes and stuff sacks: 1.85 kg).")


@pytest.mark.parametrize("claim, label", [
    # the 2 of the model name is not a weight
    pytest.param("The Trailhead 2 weighs 2.1 kg when packed.", "SUPPORTED", marks=XENC_WEAKNESS),
    ("The packed weight is 2.1 kg.", "SUPPORTED"),  # "without" inside a parenthesis does not negate
    ("The Trailhead 2 weighs 2.4 kg when packed.", "CONTRADICTED"),
    ("The Trailhead 3 weighs 2.1 kg.", "CONTRADICTED"),
])
def test_model_numbers_and_parentheses(xenc_verifier, claim, label):
    verdict = xenc_verifier.verify([claim], [MANUAL])[0]
    assert verdict.label == label, (verdict.reason, verdict.probabilities)


@XENC_WEAKNESS
def test_a_bare_number_found_elsewhere_in_the_chunk_still_counts(xenc_verifier):
    context = ("Up to 5 unused days may be carried over into the next year. Requests for absences must be "
               "submitted at least 10 working days in advance.")
    verdict = xenc_verifier.verify(["Employees can carry over up to 10 unused days."], [context])[0]
    assert verdict.label == "CONTRADICTED", (verdict.reason, verdict.probabilities)


@XENC_WEAKNESS
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

"""The offline verifier reads table rows with their headers, and locates the row as evidence."""
from rageval.metrics.claim_verify import HeuristicVerifier

CONTEXT = ("The rates below apply from 1 March 2025.\n"
           "City | Lodging cap per night | Meals per diem\n"
           "Oslo | 190 EUR | 70 EUR\n"
           "Lyon | 135 EUR | 50 EUR\n")


def test_table_row_supports_and_contradicts_claims():
    verdicts = HeuristicVerifier().verify(
        ["The lodging cap per night in Lyon is 135 EUR.", "The meals per diem in Oslo is 55 EUR."], [CONTEXT])
    assert [v.label for v in verdicts] == ["SUPPORTED", "CONTRADICTED"]
    start, end = verdicts[0].span
    assert CONTEXT[start:end] == "Lyon | 135 EUR | 50 EUR"


def test_advice_to_the_reader_is_not_a_claim():
    from rageval.metrics.claim_extract import extract_claims

    assert extract_claims("The primary caregiver gets 16 weeks of paid leave, but please check with HR.") == [
        "The primary caregiver gets 16 weeks of paid leave."]
    assert extract_claims("Please contact HR. The tent weighs 2 kg.") == ["The tent weighs 2 kg."]
    assert extract_claims("The report, see page 4, says revenue grew 5%.") != ["The report."]

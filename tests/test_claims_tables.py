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

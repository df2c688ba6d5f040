"""Advice to the reader in an answer, met in the demo: the claim extractor drops it as a tail and keeps
an instruction that stands as a sentence (the learned cross-encoder's cases met in the demo are in
training/tests/test_xenc_cases.py)."""
from rageval.claims.extract import extract_claims


def test_advice_tail_is_dropped_but_an_instruction_sentence_is_a_claim():
    assert extract_claims("The primary caregiver gets 16 weeks of paid leave, but please check with HR.") == [
        "The primary caregiver gets 16 weeks of paid leave."]
    assert extract_claims("Please contact HR. The tent weighs 2 kg.") == ["Please contact HR.", "The tent weighs 2 kg."]
    assert extract_claims("The report, see page 4, says revenue grew 5%.") != ["The report."]

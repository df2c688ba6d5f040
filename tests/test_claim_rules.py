"""The offline checker as a named, frozen rule set: its signature, the recorded verdicts of the
development cases, the direction of every guard, the changelog, and the hand-written cases of
withdrawn and true copies (tests/data/claim_rules_dev.jsonl)."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from rageval.claims import guards
from rageval.claims.extract import answer_claims
from rageval.claims.offline import CHECKER, CHECKERS, RULES, code_hash, tree_hash
from rageval.claims.verdict import CONTRADICTED, NOT_MENTIONED, SUPPORTED, UNVERIFIED
from rageval.metrics.base import get_metric
from validation.validate_claim_rules import case_verdicts, cases

ROOT = Path(__file__).resolve().parents[1]
GOLDEN = ROOT / "tests" / "data" / "claim_rules_golden.json"
CHANGELOG = ROOT / "docs" / "claim-rules.md"
CASES = cases()
GUARD_NAMES = [name for name, kind, _ in RULES if kind == "guard"]
RERECORD = ("a verdict of the development cases moved while ContainChecker.revision stayed {rev}: bump the "
            "revision, add its heading to docs/claim-rules.md and re-record with "
            "`python -m devtools.record_claim_verdicts tests/data/claim_rules_golden.json`")


def test_every_claim_metric_signature_names_the_rule_set_and_revision():
    assert re.fullmatch(r"verifier:contain-r\d+/[0-9a-f]{8}", CHECKER.signature())
    assert CHECKER.signature() == f"verifier:contain-r{CHECKER.revision}/{code_hash()}"
    for metric in ("faithfulness", "groundedness", "ragas_answer_correctness"):
        assert CHECKER.signature() in get_metric(metric).signature()
    assert CHECKERS["contain"] is type(CHECKER)


def test_the_hash_follows_code_and_tables_not_prose():
    assert tree_hash('"""Rules."""\nWORDS = ("myth",)\n# a comment') == tree_hash("WORDS = ('myth',)")
    assert tree_hash("WORDS = ('myth',)") != tree_hash("WORDS = ('myth', 'hoax')")  # a table
    assert tree_hash("def f(x):\n    return x > 1") != tree_hash("def f(x):\n    return x >= 1")  # code


def test_the_development_verdicts_match_the_recorded_file_for_this_revision():
    golden = json.loads(GOLDEN.read_text(encoding="utf-8"))
    assert golden["checker"] == CHECKER.name
    assert golden["revision"] == CHECKER.revision, (
        f"the recorded verdicts are revision {golden['revision']}'s, the checker is revision {CHECKER.revision}: "
        "re-record with `python -m devtools.record_claim_verdicts tests/data/claim_rules_golden.json`")
    now = {c["id"]: [list(pair) for pair in case_verdicts(c)] for c in CASES}
    moved = {k: (golden["verdicts"].get(k), v) for k, v in now.items() if golden["verdicts"].get(k) != v}
    assert not moved, RERECORD.format(rev=CHECKER.revision) + f"; moved: {moved}"


def test_every_rule_is_a_guard_or_a_normalisation_and_every_guard_is_declared():
    assert {kind for _, kind, _ in RULES} == {"guard", "normalisation"}
    assert {name for name, _, _ in guards.GUARDS} <= set(GUARD_NAMES)
    assert len({name for name, _, _ in RULES}) == len(RULES)


def _supported(skip: frozenset[str]) -> set[tuple[str, str]]:
    out = set()
    for case in CASES:
        claims = answer_claims(case["question"], case["answer"])
        found = CHECKER.decide(claims, case["contexts"], case["question"], case["answer"], skip=skip)
        out |= {(case["id"], c) for c, v in zip(claims, found) if v is not None and v.label == SUPPORTED}
    return out


@pytest.fixture(scope="module")
def all_rules() -> set[tuple[str, str]]:
    """The claims every rule together calls SUPPORTED (computed once, by the test process that needs it)."""
    return _supported(frozenset())


@pytest.mark.parametrize("guard", GUARD_NAMES)
def test_a_guard_only_removes_supported(guard, all_rules):
    without = _supported(frozenset({guard}))
    assert all_rules <= without, f"guard {guard!r} added SUPPORTED to {sorted(all_rules - without)}"
    assert without - all_rules, f"guard {guard!r} withdrew no copy of the development cases: no case shows it"


def test_no_withdrawn_copy_of_the_development_cases_is_supported():
    greens = [c["id"] for c in CASES if c["expect"] == UNVERIFIED
              and SUPPORTED in [label for _, label in case_verdicts(c)]]
    assert greens == []
    assert sum(c["expect"] == UNVERIFIED for c in CASES) >= 80


def test_true_copies_stay_supported():
    copies = [c for c in CASES if c["expect"] == SUPPORTED]
    missed = [c["id"] for c in copies if any(label != SUPPORTED for _, label in case_verdicts(c))]
    assert missed == ["copy-29"]  # an Italian verb the word lists do not know ("riceve"): a short answer


def test_a_withdrawal_names_its_cue_and_where_it_is_and_never_contradicts():
    for case in CASES:
        claims = answer_claims(case["question"], case["answer"])
        for v in CHECKER.decide(claims, case["contexts"], case["question"], case["answer"]):
            assert v is None or v.label in (SUPPORTED, UNVERIFIED)
            assert v is None or v.label not in (CONTRADICTED, NOT_MENTIONED)
    (v,) = CHECKER.decide(["The bridge is 1,200 metres long."],
                          ["The bridge is 1,200 metres long.\n\nEditor's note: this is incorrect; it is 980 metres."])
    assert (
        v.label == UNVERIFIED
        and v.hints[0] == "a later sentence says: 'Editor's note: this is incorrect; it is 980 metres.'"
    )
    assert v.evidence == "The bridge is 1,200 metres long." and v.quote_span == (0, 31)


@pytest.mark.parametrize("context, claim, question, cue", [
    ("Myths:\n- Vaccines cause autism.", "Vaccines cause autism.", "", "the header above it says: 'Myths:'"),
    ("According to the seller, the car has never crashed.", "The car has never crashed.", "",
     "attributes it to 'the seller'"),
    ("La garanzia copre i danni da acqua? No.", "La garanzia copre i danni da acqua.", "", "is a question"),
    ("The Alpha has USB. The Beta is cheaper. It has a fan.", "It has a fan.", "Does the Alpha have a fan?",
     "names beta"),
])
def test_each_family_hint(context, claim, question, cue):
    (v,) = CHECKER.decide([claim], [context], question)
    assert v.label == UNVERIFIED and cue in v.hints[0]


def test_every_revision_has_a_heading_in_the_changelog():
    text = CHANGELOG.read_text(encoding="utf-8")
    headings = re.findall(r"^## contain-r(\d+)\b", text, re.M)
    assert [int(h) for h in headings] == list(range(CHECKER.revision, 0, -1)), \
        f"docs/claim-rules.md needs one '## contain-rN' heading per revision, newest first, up to {CHECKER.revision}"


def test_a_copied_answer_sentence_supports_every_claim_extracted_from_it():
    sentence = "Washington Roebling was born in 1837 and was largely confined to his room after 1872."
    claims = answer_claims("", sentence)
    assert claims == ["Washington Roebling was born in 1837.",
                      "Washington Roebling was largely confined to his room after 1872."]  # rewritten pieces
    verdicts = CHECKER.decide(claims, [sentence], "", sentence)
    assert [v.label for v in verdicts] == [SUPPORTED, SUPPORTED] and {v.evidence for v in verdicts} == {sentence}
    assert [v is None or v.label for v in CHECKER.decide(claims, [sentence], "", sentence,
                                                        skip=frozenset({"copies stay copies"}))] != [SUPPORTED] * 2


def test_a_bold_span_cut_by_a_clause_split_leaves_no_unmatched_marks():
    answer = "**The reset takes about three minutes; the status light then turns green.**"
    assert answer_claims("", answer) == ["The reset takes about three minutes.", "The status light then turns green."]

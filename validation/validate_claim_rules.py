"""The offline checker on the hand-written development set of withdrawn copies and true copies.

    python -m validation.validate_claim_rules               # print the table
    python -m validation.validate_claim_rules --write-docs  # and write it into docs/claim-rules.md

``tests/data/claim_rules_dev.jsonl`` holds cases written to test the offline rules (English and
Italian; some contexts are excerpts of real package documentation): a context, an optional
question, an answer, and the verdict the answer's claims should get. ``UNVERIFIED`` cases are copies
whose context withdraws, re-frames or re-targets them (a correction, a myths list, a quiz, an
attribution to a third party, a pronoun pointing at another entity...) or edited copies; a case is
a *false green* when any of its claims is SUPPORTED. ``SUPPORTED`` cases are true copies (as they
stand, hard-wrapped, with list markers and Markdown emphasis); a case is *kept* when every claim
extracted from its answer is SUPPORTED. It is a development set: the rules were written looking at
it, so its figures are never held-out figures.

The path is the product's: :func:`rageval.claims.extract.answer_claims` with the question, then
the registered offline checker's verdicts (:data:`rageval.claims.offline.CHECKER`).
"""
from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path

from rageval.claims.extract import answer_claims
from rageval.claims.offline import CHECKER
from rageval.claims.verdict import SUPPORTED
from validation.docs_section import replace_section

ROOT = Path(__file__).resolve().parents[1]
SET = ROOT / "tests" / "data" / "claim_rules_dev.jsonl"
DOCS = ROOT / "docs" / "claim-rules.md"
BEGIN, END = "<!-- claim-rules-dev:begin -->", "<!-- claim-rules-dev:end -->"


def cases(path: Path = SET) -> list[dict]:
    """The development cases, one dict per line of ``path``."""
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def case_verdicts(case: dict) -> list[tuple[str, str]]:
    """(claim, verdict label) of each claim of the case's answer, by the product's path."""
    claims = answer_claims(case["question"], case["answer"])
    found = CHECKER.decide(claims, case["contexts"], question=case["question"], answer=case["answer"])
    return [(c, v.label if v is not None else "UNVERIFIED") for c, v in zip(claims, found)]


def outcome(case: dict) -> bool:
    """Whether the case came out as expected (module docstring)."""
    labels = [label for _, label in case_verdicts(case)]
    if case["expect"] == SUPPORTED:
        return bool(labels) and all(label == SUPPORTED for label in labels)
    return SUPPORTED not in labels


def table(rows: list[dict]) -> list[str]:
    """The Markdown table by family, and the totals."""
    by = Counter()
    ok = Counter()
    wrong: list[str] = []
    for case in rows:
        key = (case["family"], case["expect"])
        by[key] += 1
        if outcome(case):
            ok[key] += 1
        else:
            wrong.append(case["id"])
    lines = ["| family | expected | cases | as expected | SUPPORTED |", "|---|---|---|---|---|"]
    for (family, expect), n in sorted(by.items()):
        good = ok[(family, expect)]
        supported = good if expect == SUPPORTED else n - good
        lines.append(f"| {family} | {expect} | {n} | {good} | {supported} |")
    withdrawn = [c for c in rows if c["expect"] != SUPPORTED]
    copies = [c for c in rows if c["expect"] == SUPPORTED]
    greens = sum(not outcome(c) for c in withdrawn)
    kept = sum(outcome(c) for c in copies)
    lines += ["", f"Withdrawn or edited copies written SUPPORTED (false greens): **{greens} of {len(withdrawn)}**; "
                  f"true copies SUPPORTED: **{kept} of {len(copies)}**; not as expected: {', '.join(wrong) or 'none'}.",
              "", f"Checker `{CHECKER.signature()}`."]
    return lines


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--write-docs", action="store_true", help=f"write the table into {DOCS.relative_to(ROOT)}")
    args = ap.parse_args(argv)
    lines = ["Command: `python -m validation.validate_claim_rules --write-docs` (development set, "
             f"{len(cases())} cases).", "", *table(cases())]
    print("\n".join(lines))
    if args.write_docs:
        replace_section(DOCS, BEGIN, END, lines)


if __name__ == "__main__":
    main()

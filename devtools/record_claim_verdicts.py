"""Record the offline checker's verdict on every claim of the development cases, so a test fails
when a verdict moves while the checker's revision stays (``tests/test_claim_rules.py``).

Run from a checkout, after bumping ``ContainChecker.revision`` and adding its heading to
docs/claim-rules.md: ``python -m devtools.record_claim_verdicts tests/data/claim_rules_golden.json``.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path


def verdicts() -> dict:
    """``{checker, revision, version, verdicts: {case id: [[claim, label], ...]}}`` on the development set."""
    from rageval.claims.offline import CHECKER
    from validation.validate_claim_rules import case_verdicts, cases

    return {"checker": CHECKER.name, "revision": CHECKER.revision, "version": CHECKER.version(),
            "verdicts": {c["id"]: [list(pair) for pair in case_verdicts(c)] for c in cases()}}


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python -m devtools.record_claim_verdicts OUT.json", file=sys.stderr)
        return 2
    found = verdicts()
    lines = [
        f" {json.dumps(k)}: {json.dumps(found[k], ensure_ascii=False)}," for k in ("checker", "revision", "version")
    ]
    cases = [f"  {json.dumps(k)}: {json.dumps(v, ensure_ascii=False)}" for k, v in found["verdicts"].items()]
    text = "{\n" + "\n".join(lines) + '\n "verdicts": {\n' + ",\n".join(cases) + "\n }\n}\n"
    Path(argv[0]).write_text(text, encoding="utf-8")  # one case per line, so a moved verdict is one diff line
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))

"""Record the signature of every registered metric under each kind of judge, so a test can check that
a refactoring leaves every signature byte-identical (stored values stay comparable and cached).

Run from a checkout: ``python -m devtools.record_signatures tests/data/signatures_recorded.json``.
Each entry is ``"<metric> judge='<judge text>' server=<server>"`` -> the signature: ``@K`` families at K = 5, a
rubric metric (``rubric:tone``), the offline judge and ``openai:gpt-x`` (also typed as
`` OpenAI : gpt-x ``), on OpenAI's API and on a server named by ``RAGEVAL_JUDGE_BASE_URL``. The run reads only the
library (no model is called).
"""
from __future__ import annotations

import json
import os
import sys
from pathlib import Path

JUDGES = ("heuristic", "openai:gpt-x", " OpenAI : gpt-x ")  # the last: a judge text as a person types it
SERVERS = ("", "http://127.0.0.1:8000/v1")
TONE = ('name = "tone"\ndescription = "polite"\ncriteria = ["no slang"]\n'
        '[anchors]\n1 = "rude"\n2 = "curt"\n3 = "neutral"\n4 = "kind"\n5 = "warm"\n')


def signatures() -> dict[str, str]:
    """Entry -> signature, for every registered metric, judge text of :data:`JUDGES` and server of :data:`SERVERS`."""
    from rageval.metrics.base import get_metric, metric_names
    from rageval.prompts.rubric import parse_rubric

    rubrics = {"tone": parse_rubric(TONE)}
    names = [n.replace("@K", "@5") for n in metric_names()] + ["rubric:tone"]
    out = {}
    for server in SERVERS:
        os.environ.pop("RAGEVAL_JUDGE_BASE_URL", None)
        if server:
            os.environ["RAGEVAL_JUDGE_BASE_URL"] = server
        for judge in JUDGES:
            for name in names:
                out[f"{name} judge={judge!r} server={server or 'OpenAI'}"] = get_metric(
                    name, judge=judge, rubrics=rubrics
                ).signature()
    os.environ.pop("RAGEVAL_JUDGE_BASE_URL", None)
    return out


if __name__ == "__main__":
    for var in ("OPENAI_BASE_URL", "RAGEVAL_JUDGE_BASE_URL"):
        os.environ.pop(var, None)
    Path(sys.argv[1]).write_text(json.dumps(signatures(), indent=1, sort_keys=True) + "\n", encoding="utf-8")

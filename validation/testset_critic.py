"""The critic's figures on the LLM generator's kinds against the scripted OpenAI-compatible server.

    python -m validation.testset_critic [--n 20] [--bad-share 0.5]

The demo corpus is ingested into a fresh project; ``devtools/testset_responder.py`` answers the
generator prompts (a deterministic stand-in: a question from a sentence's first words, the
sentence as the answer) and the critic's judge calls. A seeded half of the corpus's chunks get
one of five faults each, in turn (content-free, self-answering, garbled, unsupported, pointing at
the passage): every slot whose first passage is such a chunk receives a bad candidate. The
generation runs with every kind (``--n`` questions, at most 2 x n slots) and the script prints, per
fault, how many bad candidates were asked and how many the critic dropped for the reason that
fault calls for, and, for the good slots, how many were kept and why the others were dropped.
An ``unanswerable`` slot's reference is fixed ("The documents do not say."), so an answer's fault
(garbled, unsupported, self-answering) cannot reach it: those slots are counted apart.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import tempfile
from collections import Counter
from pathlib import Path

CAUGHT_AS = {"pointer": "not_standalone", "unsupported": "unsupported", "content_free": "content_free",
             "self_answering": "self_answering", "garbled": "garbled_reference"}
ANSWER_FAULTS = ("unsupported", "self_answering", "garbled")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=20)
    parser.add_argument("--bad-share", type=float, default=0.5)
    args = parser.parse_args(argv)
    home = Path(tempfile.mkdtemp(prefix="testset-critic-"))
    os.environ["RAGEVAL_HOME"] = str(home / "home")
    from devtools import testset_responder
    from devtools.llm_server import FakeLLMServer
    from rageval.config import TESTSET_KINDS, ChunkingConfig, TestsetConfig
    from rageval.demo import DEMO_CORPUS, demo_dir
    from rageval.ingest.corpus import ensure_chunks, ingest
    from rageval.project import open_project
    from rageval.testsets.generate import MAX_ASKED, generate_set, outcome
    from rageval.testsets.llm import Planner

    server = FakeLLMServer().start()
    try:
        project = open_project("critic")
        ingest(project, DEMO_CORPUS, paths=[demo_dir() / "corpus"])
        chunks = ensure_chunks(project, DEMO_CORPUS, ChunkingConfig())
        keys = sorted({" ".join(c["text"].split()[:3]) for c in chunks})
        random.Random(0).shuffle(keys)
        bad = keys[:round(args.bad_share * len(keys))]
        faults = {k: list(CAUGHT_AS)[i % len(CAUGHT_AS)] for i, k in enumerate(bad)}
        server.script(responder=testset_responder.make(faults))
        os.environ.update({"OPENAI_BASE_URL": server.url, "OPENAI_API_KEY": "sk-validation-not-a-key"})
        config = TestsetConfig(corpus=DEMO_CORPUS, name="critic", n=args.n, generator="openai:scripted",
                               concurrency=4)
        result = generate_set(project, config, store=False)
        plan = Planner(chunks, TESTSET_KINDS, seed=0).slots(0, MAX_ASKED * args.n)
        rows: dict[str, Counter] = {}
        for c in result.kept + result.dropped:
            fault = faults.get(" ".join(chunks[plan[int(c.id[1:])].chunks[0]]["text"].split()[:3]))
            if fault and c.kind == "unanswerable" and fault in ANSWER_FAULTS:
                fault = f"{fault} (unanswerable slot: fault cannot reach it)"
            row = rows.setdefault(fault or "good", Counter())
            row["asked"] += 1
            row[c.dropped or "kept"] += 1
        table = {
            name: {
                "asked": row["asked"],
                "caught_as_expected": row[CAUGHT_AS[name]] if name in CAUGHT_AS else None,
                **{k: v for k, v in row.items() if k != "asked"},
            }
            for name, row in sorted(rows.items())
        }
        print(json.dumps({"n": args.n, "chunks": len(chunks), "faulted_chunks": len(faults), "asked": result.asked,
                          "kept": len(result.kept), "drops": result.drops, "by_fault": table,
                          "message": outcome(result)}, indent=1))
    finally:
        server.stop()
        shutil.rmtree(home, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

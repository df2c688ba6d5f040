"""``rageval qa import``: a QA set from a file; ``rageval qa generate``: one from an ingested corpus."""
from __future__ import annotations

import argparse

from rageval.cli.base import EXIT_OK, EXIT_PARTIAL, Commands, emit, input_file, names, progress, project, row_problem
from rageval.config import METHODS, TESTSET_KINDS, ChunkingConfig, TestsetConfig


def cmd_qa_import(args: argparse.Namespace) -> int:
    """Import a QA set from CSV, JSON or JSONL (id, question, reference, relevant_ids, domain)."""
    from rageval.ingest.qa import import_qa

    path = input_file(args.file)
    result = import_qa(project(args), path.name, path.read_bytes(), name=args.name)
    errors = [row_problem(e) for e in result.errors]
    payload = {"name": args.name, "items": len(result.items), "errors": errors,
               "notes": [row_problem(e) for e in result.notes]}
    text = "\n".join([f"ERROR {e}" for e in result.errors] + [f"NOTE {e}" for e in result.notes]
                     + [f"QA set {args.name}: {len(result.items)} item(s) imported, {len(errors)} row(s) rejected"])
    emit(args, payload, text)
    if not result.items:
        return EXIT_PARTIAL
    return EXIT_PARTIAL if errors else EXIT_OK


def cmd_qa_generate(args: argparse.Namespace) -> int:
    """Generate a QA set from an ingested corpus: questions with a reference, the ids of the chunks
    that hold it and the source sentences, checked by a critic (stands alone, supported by its
    chunks, not a near duplicate). --generator template works offline (a smoke test); openai:MODEL
    writes the --kinds. Re-running the same command resumes from the LLM cache."""
    from rageval.runs.pipeline import estimate_text
    from rageval.testsets.generate import generate_set, outcome

    proj = project(args)
    config = TestsetConfig(corpus=args.corpus, name=args.name, n=args.n,
                           kinds=tuple(names(args.kinds) or TESTSET_KINDS),
                           generator=args.generator, judge=args.judge, language=args.language, seed=args.seed,
                           chunking=_chunking(args, proj),
                           embedder=args.embedder, concurrency=args.concurrency, use_cache=not args.no_cache)
    result = generate_set(proj, config, progress=progress(args), dry_run=args.dry_run)
    if args.dry_run:
        est = result.estimate
        text = "no model calls: the template generator is offline" if est is None else estimate_text(est)
        emit(args, {"calls": 0} if est is None else {"calls": est.calls, "tokens_in": est.tokens_in,
                                                     "tokens_out": est.tokens_out, "cost_usd": est.cost_usd}, text)
        return EXIT_OK
    message = outcome(result)
    payload = {"name": args.name, "asked": result.asked, "kept": len(result.kept), "drops": result.drops,
               "sentences_read": result.sentences_read, "offered_nothing": result.offered_nothing,
               "message": message, "signature": result.signature, "chunking": result.chunking, "usage": result.usage}
    if not result.kept:
        emit(args, payload, f"ERROR QA set {args.name}: {message}")
        return EXIT_PARTIAL
    lines = [f"QA set {args.name}: {message}"]
    lines.append(f"  relevant ids are chunks of chunking {result.chunking}: run the set with that chunking")
    lines.append(f"  {result.signature}")
    if config.generator == "template":
        lines.append("  template questions keep most of their sentence's words: a smoke test, not a substitute "
                     "for an LLM-written set")
    emit(args, payload, "\n".join(lines))
    return EXIT_OK


def _chunking(args: argparse.Namespace, proj) -> ChunkingConfig | None:
    """None (the corpus's own chunking) when no chunking flag is given, else the corpus's chunking
    with the given flags in place of its fields."""
    from dataclasses import replace

    from rageval.ingest.corpus import corpus_chunking

    given = {k: v for k, v in (("method", args.chunking), ("size", args.chunk_size), ("overlap", args.chunk_overlap))
             if v is not None}
    return replace(corpus_chunking(proj, args.corpus), **given) if given else None


def register(commands: Commands) -> None:
    parsers = commands.group("qa", "QA sets: import, generate", {"import": cmd_qa_import, "generate": cmd_qa_generate})
    p = parsers["import"]
    p.add_argument("file", metavar="FILE", help="CSV, JSON or JSONL with id, question, reference, relevant_ids, domain")
    p.add_argument("--name", required=True, help="name of the QA set (replaces a set of that name)")
    g = parsers["generate"]
    g.add_argument("--corpus", required=True, help="the ingested corpus to write questions about")
    g.add_argument("--name", required=True, help="name of the QA set to store (replaces a set of that name)")
    g.add_argument("--n", type=int, default=TestsetConfig.n, help="questions to keep (default: %(default)s)")
    g.add_argument("--kinds", help=f"comma-separated question kinds of an LLM generator (default: all of "
                                   f"{', '.join(TESTSET_KINDS)})")
    g.add_argument("--generator", default=TestsetConfig.generator,
                   help="template (offline, a smoke test) or openai:MODEL (default: %(default)s)")
    g.add_argument("--judge", help="checks each reference against its chunks: openai:MODEL, or heuristic (copied "
                                   "text only); default: the generator's model, heuristic for templates")
    g.add_argument("--language", choices=("en", "it"), help="language to write in (default: each chunk's own)")
    g.add_argument("--seed", type=int, default=TestsetConfig.seed,
                   help="which chunks and sentences (default: %(default)s)")
    g.add_argument("--chunking", choices=METHODS,
                   help="the chunking whose chunk ids become relevant_ids (a run must use "
                                                       "the same; default: the one the corpus was ingested with)")
    g.add_argument("--chunk-size", type=int, help="(default: the corpus's; a flag given replaces that field only)")
    g.add_argument("--chunk-overlap", type=int, help="(default: the corpus's)")
    g.add_argument("--embedder", default=TestsetConfig.embedder, help="sentence vectors for near duplicates and "
                                                                      "multi-hop neighbours (default: %(default)s)")
    g.add_argument("--concurrency", type=int, default=TestsetConfig.concurrency,
                   help="model calls in flight at once (default: %(default)s)")
    g.add_argument("--no-cache", action="store_true", help="ask the models again instead of using cached replies")
    g.add_argument("--dry-run", action="store_true", help="estimate model calls, tokens and cost; generate nothing")
    g.add_argument("--progress", action="store_true", help="progress on stderr even when it is not a terminal")

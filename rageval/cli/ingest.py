"""``rageval ingest``: documents into a corpus."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from rageval.cli.base import EXIT_OK, EXIT_PARTIAL, Commands, chunk_args, emit, env_default, progress, project
from rageval.config import ChunkingConfig


def cmd_ingest(args: argparse.Namespace) -> int:
    """Load, chunk, store and index documents (PDF, TXT, MD; folders are walked)."""
    from rageval.ingest.corpus import ingest, repair_note
    from rageval.ingest.limits import Limits

    missing = [p for p in args.paths if not Path(p).exists()]
    chunking = ChunkingConfig(method=args.chunking, size=args.chunk_size, overlap=args.chunk_overlap)
    limits = Limits.from_env(file_mb=args.max_file_mb, pages=args.max_pages, chars=args.max_chars)
    proj = project(args)

    def waiting() -> None:
        print(f"waiting: another ingest into project {proj.slug} is running; this one starts when it "
              "ends", file=sys.stderr, flush=True)

    report = ingest(proj, args.corpus, paths=[p for p in args.paths if Path(p).exists()],
                    chunking=chunking, embedder=args.embedder, progress=progress(args), limits=limits,
                    on_wait=waiting, workers=args.workers)
    errors = [{"name": e.name, "reason": e.reason} for e in report.errors]
    errors += [{"name": str(p), "reason": "no such file or folder"} for p in missing]
    payload = {"corpus": args.corpus, "documents": report.documents, "errors": errors,
               "chunks_indexed": report.chunks_indexed}
    lines = [f"{d['name']}: {d['pages']} page(s), {d['chunks']} chunks{'' if d['new'] else ' (already ingested)'}"
             + (f"; {repair_note(d)}" if repair_note(d) else "") for d in report.documents]
    lines += [f"ERROR {e['name']}: {e['reason']}" for e in errors]
    lines.append(f"corpus {args.corpus}: {len(report.documents)} document(s) ok, {len(errors)} failed, "
                 f"{report.chunks_indexed} chunks indexed")
    emit(args, payload, "\n".join(lines))
    if not report.documents and not errors:
        print("error: no PDF, TXT or MD files found", file=sys.stderr)
        return EXIT_PARTIAL
    return EXIT_PARTIAL if errors else EXIT_OK


def register(commands: Commands) -> None:
    p = commands.add("ingest", cmd_ingest)
    p.add_argument("paths", nargs="+", metavar="PATH", help="PDF, TXT or MD files, or folders to walk")
    p.add_argument("--corpus", required=True, help="name of the corpus to add the documents to (made if new)")
    chunk_args(p)
    p.add_argument("--max-file-mb", type=float,
                   help=f"largest file to read (default $RAGEVAL_MAX_FILE_MB or {env_default('RAGEVAL_MAX_FILE_MB')})")
    p.add_argument("--max-pages", type=int,
                   help="most PDF pages per document "
                        f"(default $RAGEVAL_MAX_PAGES or {env_default('RAGEVAL_MAX_PAGES')})")
    p.add_argument("--max-chars", type=int, help="most characters per document (default $RAGEVAL_MAX_CHARS or "
                                                  f"{int(env_default('RAGEVAL_MAX_CHARS')):,})")
    p.add_argument("--progress", action="store_true", help="report progress on stderr even when it is not a terminal")

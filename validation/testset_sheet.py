"""A grading sheet of offline (template) questions on documentation nobody on the team wrote.

    python -m validation.testset_sheet [--n 30] [--seed 0] [--out sheet.csv]

The documents are those Debian installs under ``/usr/share/doc`` (present on a Debian or Ubuntu
machine with these packages): the shared-mime-info specification (a PDF of 17 pages), the
README of zstd (Markdown), of httplib2 (Markdown), of base-passwd, of MPFR and of Nettle (plain
hard-wrapped text), and the descriptions of two installed Python packages (defusedxml's
security notes, pandas' README: the body of their METADATA). A file that is missing is skipped
and named. They are copied into a temporary
folder (``.gz`` files unpacked, extension-less READMEs named ``.txt``), ingested into a fresh
project with the default chunking and embedder, and ``rageval qa generate --n N --seed S`` is run
through :func:`rageval.testsets.generate.generate_set`.

The sheet (CSV, one row per kept question) has the question, its reference, its document, its
kind, and the mechanical form checks of docs/testsets.md ("well formed"): ``opens_wh`` (the
question opens with a question word), ``split_token`` (a question word glued to a piece of a
token: "UTF- how many", "mid-when"), ``wh_after_determiner`` ("the which", "a how many"),
``words`` (at most 40). The four hand-graded columns (``standalone``, ``answerable``,
``reference_ok``, ``keep``, and ``type_ok``: the wh-word matches the answer's type) are left
empty for the grader. These documents are a development set: the template rules were written
while looking at them.
"""
from __future__ import annotations

import argparse
import csv
import gzip
import io
import re
import shutil
import sys
import tempfile
from pathlib import Path

DOCUMENTS = (
    "/usr/share/doc/shared-mime-info/shared-mime-info-spec.pdf",
    "/usr/share/doc/zstd/README.md.gz",
    "/usr/share/doc/python3-httplib2/README.md",
    "/usr/share/doc/base-passwd/README",
    "/usr/share/doc/libmpfr6/README",
    "/usr/share/doc/libnettle8/README",
)
#: installed Python packages whose description (their METADATA's body) is read as a document
PACKAGES = ("defusedxml", "pandas")
QUESTION_WORDS = ("what", "which", "who", "whom", "whose", "when", "where", "why", "how", "in which", "under which",
                  "by whom", "to whom", "from which", "on which", "at which", "for which", "with which", "of which",
                  "quale", "quali", "quando", "quanto", "quanti", "quante", "chi", "che", "come", "dove", "perché")
_WH = r"(?:what|which|who|whom|when|where|how many|how much)"


def copy_documents(folder: Path) -> list[str]:
    """The documents copied into ``folder`` under readable names; returns the ones missing."""
    missing = []
    for source in DOCUMENTS:
        path = Path(source)
        if not path.exists():
            missing.append(source)
            continue
        package = path.parent.name
        name = path.name.removesuffix(".gz")
        if "." not in name:
            name += ".txt"
        data = gzip.decompress(path.read_bytes()) if path.suffix == ".gz" else path.read_bytes()
        (folder / f"{package}-{name}").write_bytes(data)
    import importlib.metadata

    for package in PACKAGES:
        try:
            text = importlib.metadata.distribution(package).read_text("METADATA") or ""
        except importlib.metadata.PackageNotFoundError:
            missing.append(package)
            continue
        (folder / f"{package}-description.md").write_text(text.split("\n\n", 1)[-1], encoding="utf-8")
    return missing


def form_checks(question: str) -> dict[str, object]:
    """The mechanical well-formedness checks of one question (module doc)."""
    low = question.lower()
    return {"opens_wh": any(low.startswith(w + " ") for w in QUESTION_WORDS),
            "split_token": bool(re.search(rf"[\w]-\s*{_WH}\b|\b{_WH}-\w|\w\.\s?{_WH}\b", low)),
            "wh_after_determiner": bool(re.search(rf"\b(?:the|a|an|this|that|its|their)\s+{_WH}\b", low)),
            "words": len(question.split())}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=30)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", help="the sheet as CSV (default: stdout)")
    args = parser.parse_args(argv)
    import os

    home = Path(tempfile.mkdtemp(prefix="testset-sheet-"))
    os.environ["RAGEVAL_HOME"] = str(home / "home")
    from rageval.config import TestsetConfig
    from rageval.ingest.corpus import ingest
    from rageval.project import open_project
    from rageval.store.corpus import chunks_by_id
    from rageval.testsets.generate import generate_set

    try:
        docs = home / "docs"
        docs.mkdir()
        missing = copy_documents(docs)
        project = open_project("sheet")
        report = ingest(project, "docs", paths=[docs])
        result = generate_set(
            project, TestsetConfig(corpus="docs", name="sheet", n=args.n, seed=args.seed), store=False
        )
        chunks = chunks_by_id(project.db_path, sorted({cid for c in result.kept for cid in c.source_chunks}))
        rows = []
        for i, c in enumerate(result.kept, 1):
            doc = chunks[c.source_chunks[0]]["doc_name"] if c.source_chunks[0] in chunks else ""
            rows.append({"n": i, "document": doc, "kind": c.kind, "question": c.question, "reference": c.reference,
                         **form_checks(c.question), "type_ok": "", "standalone": "", "answerable": "",
                         "reference_ok": "", "keep": ""})
        out = io.StringIO()
        writer = csv.DictWriter(out, fieldnames=list(rows[0]) if rows else ["n"])
        writer.writeheader()
        writer.writerows(rows)
        if args.out:
            Path(args.out).write_text(out.getvalue(), encoding="utf-8")
        else:
            sys.stdout.write(out.getvalue())
        summary = getattr(result, "sentences_read", None)
        print(
            f"# documents: {len(report.documents) if hasattr(report, 'documents') else '?'} ingested, "
            f"missing: {missing or 'none'}; kept {len(result.kept)} of {result.asked} asked; drops {result.drops}; "
            f"sentences read {summary}, offered nothing {getattr(result, 'offered_nothing', None)}; "
            f"opens with a question word {sum(r['opens_wh'] for r in rows)}, split token "
            f"{sum(r['split_token'] for r in rows)}, wh after a determiner "
            f"{sum(r['wh_after_determiner'] for r in rows)}, "
            f"over 40 words {sum(r['words'] > 40 for r in rows)}",
            file=sys.stderr,
        )
    finally:
        shutil.rmtree(home, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Ingest limits (file size, pages, characters: named in the message), CLI progress, and two
concurrent ingests of the same documents embedding each chunk once."""
from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from pathlib import Path

from fpdf import FPDF

from rageval.cli import main
from rageval.ingest.limits import Limits
from rageval.ingest.loaders import Document, IngestProblem, load_file, load_path
from rageval.project import open_project
from rageval.store import corpus as corpus_store

ROOT = Path(__file__).resolve().parents[1]


def _pdf(pages: int) -> bytes:
    pdf = FPDF()
    pdf.set_font("helvetica", size=12)
    for i in range(pages):
        pdf.add_page()
        pdf.cell(text=f"Page {i + 1} says something.")
    return bytes(pdf.output())


def test_each_limit_is_named_in_the_message():
    text = ("word " * 60).encode()
    err = load_file("long.txt", text, limits=Limits(max_chars=100))
    assert isinstance(err, IngestProblem)
    assert err.reason == ("document has 299 characters of text, over the limit of 100 characters per document "
                          "(raise it with RAGEVAL_MAX_CHARS or --max-chars)")
    err = load_file("big.txt", text, limits=Limits(max_file_bytes=50))
    assert (
        isinstance(err, IngestProblem)
        and "over the limit of 0.0 MB per file (raise it with RAGEVAL_MAX_FILE_MB" in err.reason
    )
    err = load_file("three.pdf", _pdf(3), limits=Limits(max_pages=2))
    assert isinstance(err, IngestProblem)
    assert err.reason.startswith(
        "PDF has 3 pages, over the limit of 2 pages per document (raise it with RAGEVAL_MAX_PAGES"
    )
    assert isinstance(load_file("three.pdf", _pdf(3), limits=Limits(max_pages=3)), Document)
    assert isinstance(load_file("long.txt", text, limits=Limits(max_chars=299)), Document)


def test_size_is_checked_before_reading(tmp_path, monkeypatch):
    path = tmp_path / "huge.txt"
    path.write_bytes(b"x" * 3_000_001)
    monkeypatch.setenv("RAGEVAL_MAX_FILE_MB", "3")
    monkeypatch.setattr(Path, "read_bytes", lambda self: (_ for _ in ()).throw(AssertionError("read")))
    err = load_path(path)
    assert isinstance(err, IngestProblem) and "file is 3.0 MB, over the limit of 3.0 MB" in err.reason


def test_cli_limits_and_progress(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("RAGEVAL_HOME", str(tmp_path / "home"))
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "small.txt").write_text("A short document about tea. " * 40, encoding="utf-8")
    (docs / "huge.txt").write_text("one line without any break " * 2000, encoding="utf-8")
    code = main(["ingest", str(docs), "--corpus", "c", "--max-chars", "10000", "--progress"])
    cap = capsys.readouterr()
    assert code == 1
    assert "ERROR huge.txt: document has 53,999 characters of text, over the limit of 10,000 characters" in cap.out
    assert "small.txt: 1 page(s)" in cap.out  # the good file went on
    for line in ("documents: 2/2", "chunks: 1/1", "index: "):
        assert line in cap.err, cap.err


def test_two_concurrent_ingests_embed_each_chunk_once(tmp_path, monkeypatch, llm_env):
    docs = tmp_path / "docs"
    docs.mkdir()
    for i in range(6):
        (docs / f"d{i}.txt").write_text(f"Document {i}. " + " ".join(f"sentence {i}-{j} about topic {j}."
                                                                     for j in range(120)), encoding="utf-8")
    # the embedding server holds every call until one ingest waits for the other: they overlap for
    # sure, and no longer than that
    llm_env.script(latency=600.0)
    home = tmp_path / "home"
    env = {**os.environ, "RAGEVAL_HOME": str(home), "PYTHONPATH": str(ROOT)}
    cmd = [sys.executable, "-m", "rageval", "ingest", str(docs), "--corpus", "c", "--embedder", "openai:emb",
           "--chunk-size", "300", "--chunk-overlap", "0"]
    procs = [subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for _ in range(2)]
    errs: list[list[str]] = [[], []]
    waiting = threading.Event()

    def read(proc: subprocess.Popen, lines: list[str]) -> None:
        for line in proc.stderr:
            lines.append(line)
            if line.startswith("waiting: another ingest"):
                waiting.set()

    readers = [threading.Thread(target=read, args=(p, e), daemon=True) for p, e in zip(procs, errs)]
    for r in readers:
        r.start()
    deadline = time.monotonic() + 300
    while not waiting.wait(0.1):  # an ingest that ended before the other waited fails the test
        assert all(p.poll() is None for p in procs) and time.monotonic() < deadline, errs
    llm_env.end_latency()
    for p, r in zip(procs, readers):
        p.wait(timeout=300)
        r.join(timeout=30)
    outs = [(p.stdout.read(), "".join(e)) for p, e in zip(procs, errs)]
    assert all(p.returncode == 0 for p in procs), outs
    monkeypatch.setenv("RAGEVAL_HOME", str(home))
    chunks = corpus_store.chunks(open_project("default").db_path, "c", "recursive-300-0")
    embedded = [text for body in llm_env.bodies("/v1/embeddings")
                for text in (body["input"] if isinstance(body["input"], list) else [body["input"]])]
    texts = {c["text"] for c in chunks}
    assert chunks and texts <= set(embedded)
    assert sum(1 for t in embedded if t in texts) == len(texts), "a chunk was embedded twice"

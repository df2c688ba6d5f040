"""Load PDF, plain-text and Markdown files into :class:`Document` objects.

Every loader returns either a ``Document`` or an ``IngestProblem`` naming the file and a reason a
person can act on; nothing here raises for a bad file. A document's id is the SHA-256 of its
bytes, so the same bytes always give the same id whatever the file is called.

PDF text comes from pdfplumber, page by page:

* tables found by pdfplumber's ruling-line detection are written as text rows (cells joined
  with ``" | "``, one row per line) at their place on the page, and their characters are removed
  from the running text so that no table is read twice;
* a page whose words leave a clear vertical gutter near the middle is read as two columns,
  left column first (full-width lines above or below the columns are read before / after);
* lines are rebuilt with pdfplumber's line clustering, and a vertical gap clearly larger than
  the usual line gap (``gap > median_gap + 0.5 * median_line_height``) becomes a paragraph break;
* a hyphen at a line end between two lower-case letters is joined ("infor-\\nmation").

The PDF-specific layout code lives in :mod:`rageval.ingest.pdf_layout`.
"""
from __future__ import annotations

import bisect
import codecs
import hashlib
import io
import os
import re
import unicodedata
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Callable, Iterable, Union

from rageval.ingest.limits import Limits
from rageval.ingest.pdf_layout import page_text
from rageval.text.hygiene import clean_text, display_name

KINDS = {".pdf": "pdf", ".txt": "txt", ".md": "md", ".markdown": "md"}
PAGE_SEPARATOR = "\n\n"

REASON_EMPTY = "file is empty"
REASON_ENCRYPTED = "PDF is password-protected"
REASON_NO_TEXT = "no extractable text (scanned/image-only PDF?); OCR is not supported"
REASON_BINARY = "not a text file: it contains binary data (NUL bytes)"
REASON_UNPRINTABLE = (
    "not valid text: mostly non-printable characters in UTF-8, UTF-16 and Latin-1"
)


@dataclass(frozen=True)
class Page:
    """One page of a document; ``number`` is 1-based."""

    number: int
    text: str


@dataclass(frozen=True)
class Document:
    """A loaded file. ``id`` is the SHA-256 hex digest of the file's bytes."""

    id: str
    name: str
    kind: str
    pages: tuple[Page, ...]
    size_bytes: int
    original_name: str | None = None  # the escaped name as given, when ``name`` had to be cleaned
    #: characters ftfy repaired in the extracted text, and the share still garbled after it
    #: (:mod:`rageval.text.repair`)
    repaired: int = 0
    garbled: float = 0.0

    @cached_property
    def text(self) -> str:
        """All pages joined with a blank line (``"\\n\\n"``)."""
        return PAGE_SEPARATOR.join(page.text for page in self.pages)

    @cached_property
    def page_offsets(self) -> tuple[int, ...]:
        """Character offset in :attr:`text` at which each page starts (same order as pages)."""
        offsets, position = [], 0
        for page in self.pages:
            offsets.append(position)
            position += len(page.text) + len(PAGE_SEPARATOR)
        return tuple(offsets)

    def page_at(self, offset: int) -> int:
        """Number of the page that holds character ``offset`` of :attr:`text`.

        The separator after a page counts as part of that page.
        """
        if not self.pages:
            raise ValueError(f"document {self.name!r} has no pages")
        index = bisect.bisect_right(self.page_offsets, offset) - 1
        return self.pages[max(index, 0)].number


@dataclass(frozen=True)
class IngestProblem:
    """A file that could not be loaded. ``doc_id`` is the bytes' hash when they could be read."""

    name: str
    reason: str
    doc_id: str | None = None

    def __str__(self) -> str:
        return f"{self.name}: {self.reason}"


LoadResult = Union[Document, IngestProblem]


def load_file(name: str, data: bytes, *, limits: Limits | None = None) -> LoadResult:
    """Load a file given its name (whose extension picks the format) and its bytes.

    The name becomes a display name (:func:`rageval.text.hygiene.display_name`: no folders,
    controls or bidi characters, at most 120 characters); the original is kept escaped in
    ``Document.original_name``. A file over one of ``limits`` (default: :meth:`Limits.from_env`)
    is an ``IngestProblem`` naming the limit.
    """
    limits = limits or Limits.from_env()
    shown = display_name(name)
    name = shown.name
    doc_id = hashlib.sha256(data).hexdigest()
    kind = KINDS.get(_extension(name))
    if kind is None:
        return IngestProblem(name, _unsupported_reason(name), doc_id)
    if not data:
        return IngestProblem(name, REASON_EMPTY, doc_id)
    too_big = limits.size_error(len(data))
    if too_big:
        return IngestProblem(name, too_big, doc_id)
    try:
        if kind == "pdf":
            pages = _pdf_pages(data, limits)
        else:
            pages = _text_pages(data)
        too_long = limits.chars_error(sum(len(p.text) for p in pages))
        if too_long:
            raise _Rejected(too_long)
        pages, repaired, garbled = _repaired(pages)
    except _Rejected as rejected:
        return IngestProblem(name, str(rejected), doc_id)
    except Exception as exc:  # a loader must never take the caller down with it
        return IngestProblem(name, f"could not read file: {type(exc).__name__}: {exc}", doc_id)
    return Document(id=doc_id, name=name, kind=kind, pages=pages, size_bytes=len(data),
                    original_name=shown.original, repaired=repaired, garbled=garbled)


def _repaired(pages: tuple[Page, ...]) -> tuple[tuple[Page, ...], int, float]:
    """The pages with mojibake and broken Unicode repaired (:func:`rageval.text.repair.repair_text`),
    the characters repaired, and the garbled share of the whole text after repair."""
    from rageval.text.repair import garbled_share, repair_text

    fixed = [repair_text(p.text) for p in pages]
    out = tuple(Page(p.number, f.text) for p, f in zip(pages, fixed))
    return out, sum(f.repaired for f in fixed), garbled_share(PAGE_SEPARATOR.join(p.text for p in out))


def load_path(path: str | os.PathLike, *, limits: Limits | None = None) -> LoadResult:
    """Load one file from disk; an unsupported extension or a file over the size limit is
    reported before reading."""
    limits = limits or Limits.from_env()
    path = Path(path)
    if not path.exists():
        return IngestProblem(display_name(path.name or str(path)).name, f"file not found: {path}")
    if path.is_dir():
        return IngestProblem(display_name(path.name).name, "is a folder, not a file; use load_paths for folders")
    if _extension(path.name) not in KINDS:
        return IngestProblem(display_name(path.name).name, _unsupported_reason(path.name))
    try:
        too_big = limits.size_error(path.stat().st_size)
        if too_big:
            return IngestProblem(display_name(path.name).name, too_big)
        data = path.read_bytes()
    except OSError as exc:
        return IngestProblem(display_name(path.name).name, f"cannot read file: {exc.strerror or exc}")
    return load_file(path.name, data, limits=limits)


def load_paths(paths: Iterable[str | os.PathLike], *, limits: Limits | None = None,
               progress: Callable[[str, int, int], None] | None = None) -> list[LoadResult]:
    """Load files and folders in the given order.

    A folder is walked recursively in sorted order and only its .pdf, .txt, .md and .markdown
    files are loaded (others, and hidden files and folders, are skipped silently). A file named
    explicitly with another extension gives an ``IngestProblem``. A file reached twice is loaded once.
    """
    limits = limits or Limits.from_env()
    todo: list[Path] = []
    seen: set[Path] = set()
    for raw in paths:
        path = Path(raw)
        for file in (_folder_files(path) if path.is_dir() else [path]):
            key = file.resolve()
            if key not in seen:
                seen.add(key)
                todo.append(file)
    results: list[LoadResult] = []
    if progress is not None:
        progress("documents", 0, len(todo))  # at once: the first file may take seconds (a PDF)
    for file in todo:
        results.append(load_path(file, limits=limits))
        if progress is not None:
            progress("documents", len(results), len(todo))
    return results


def _folder_files(folder: Path) -> list[Path]:
    found = []
    for root, dirs, names in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for name in sorted(names):
            if not name.startswith(".") and _extension(name) in KINDS:
                found.append(Path(root) / name)
    return sorted(found, key=lambda p: p.relative_to(folder).parts)


def _extension(name: str) -> str:
    return os.path.splitext(name)[1].lower()


def _unsupported_reason(name: str) -> str:
    ext = _extension(name)
    what = f"unsupported file type {ext}" if ext else "file has no extension"
    return f"{what}; use PDF, TXT or MD"


class _Rejected(Exception):
    """Internal: the file is unusable for the reason in the message."""


# --- text -------------------------------------------------------------------------------------

_TRAILING_SPACE = re.compile(r"[ \t\u00a0]+$", re.MULTILINE)
_BLANK_RUN = re.compile(r"\n{3,}")
_ALLOWED_CONTROLS = frozenset("\n\t\f")


def normalize_text(text: str) -> str:
    """Replace lone surrogates by U+FFFD, NFC-normalise, turn \\r\\n and \\r into \\n, drop
    trailing spaces on each line, remove a stray BOM and other control characters (NUL
    included), keep at most one blank line between paragraphs, and strip blank lines at both
    ends."""
    text = unicodedata.normalize("NFC", clean_text(text).text)
    text = text.replace("\r\n", "\n").replace("\r", "\n").replace("\ufeff", "")
    if any(unicodedata.category(ch) == "Cc" and ch not in _ALLOWED_CONTROLS for ch in text):
        text = "".join(
            ch for ch in text
            if ch in _ALLOWED_CONTROLS or unicodedata.category(ch) != "Cc"
        )
    text = _TRAILING_SPACE.sub("", text)
    text = _BLANK_RUN.sub("\n\n", text)
    return text.strip("\n")


def decode_text(data: bytes) -> str:
    """Decode bytes as text: UTF-8 (with or without BOM), UTF-16/32 with a BOM, UTF-16 without a
    BOM when every other byte is NUL, else Windows-1252 and finally Latin-1. Raises
    ``_Rejected`` for binary data (NUL bytes) or text that is mostly non-printable."""
    for bom, codec in (
        (codecs.BOM_UTF8, "utf-8-sig"),
        (codecs.BOM_UTF32_LE, "utf-32"),
        (codecs.BOM_UTF32_BE, "utf-32"),
        (codecs.BOM_UTF16_LE, "utf-16"),
        (codecs.BOM_UTF16_BE, "utf-16"),
    ):
        if data.startswith(bom):
            try:
                text = data.decode(codec)
            except UnicodeDecodeError as exc:
                raise _Rejected(f"not valid {codec.upper()} text despite its byte-order mark: "
                                f"{exc.reason} at byte {exc.start}") from None
            _check_printable(text)
            return text
    if b"\x00" in data:
        text = _bomless_utf16(data)
        if text is None:
            raise _Rejected(REASON_BINARY)
        _check_printable(text)
        return text
    for codec in ("utf-8", "cp1252", "latin-1"):
        try:
            text = data.decode(codec)
        except UnicodeDecodeError:
            continue
        _check_printable(text)
        return text
    raise _Rejected(REASON_UNPRINTABLE)  # unreachable: Latin-1 decodes any bytes


def _bomless_utf16(data: bytes) -> str | None:
    """UTF-16 without a BOM, recognised only when all NULs sit on one byte parity and at least
    half of the code units have a NUL high byte (true of mostly-ASCII text)."""
    if len(data) % 2:
        return None
    even, odd = data[0::2], data[1::2]
    units = len(data) // 2
    for codec, high, low in (("utf-16-le", odd, even), ("utf-16-be", even, odd)):
        if b"\x00" not in low and high.count(0) >= units / 2:
            try:
                return data.decode(codec)
            except UnicodeDecodeError:
                return None
    return None


def _check_printable(text: str) -> None:
    """Reject text in which more than 10% of the characters are control, private-use,
    surrogate or unassigned code points (tab, newline and form feed are allowed)."""
    if not text:
        return
    bad = sum(
        1 for ch in text
        if ch not in _ALLOWED_CONTROLS and ch != "\r"
        and unicodedata.category(ch) in ("Cc", "Co", "Cs", "Cn")
    )
    if bad > 0.10 * len(text):
        raise _Rejected(REASON_UNPRINTABLE)


def _text_pages(data: bytes) -> tuple[Page, ...]:
    """A text file is one page, or several when it holds form feeds (as pdftotext writes)."""
    raw_pages = decode_text(data).split("\f")
    while len(raw_pages) > 1 and not raw_pages[-1].strip():
        raw_pages.pop()
    pages = tuple(Page(i + 1, normalize_text(t)) for i, t in enumerate(raw_pages))
    if not any(page.text.strip() for page in pages):
        raise _Rejected(REASON_EMPTY)
    return pages


# --- pdf --------------------------------------------------------------------------------------

def _pdf_pages(data: bytes, limits: Limits) -> tuple[Page, ...]:
    import pdfplumber
    from pdfplumber.utils.exceptions import PdfminerException

    if b"%PDF-" not in data[:1024]:
        raise _Rejected("not a readable PDF: the file does not start with a PDF header")
    try:
        with pdfplumber.open(io.BytesIO(data)) as pdf:
            if not pdf.pages:
                raise _Rejected("not a readable PDF: it has no pages")
            too_many = limits.pages_error(len(pdf.pages))
            if too_many:
                raise _Rejected(too_many)
            pages = tuple(
                Page(i + 1, normalize_text(page_text(page).replace("\f", "\n")))
                for i, page in enumerate(pdf.pages)
            )
    except PdfminerException as exc:
        raise _Rejected(_pdf_failure(exc.args[0] if exc.args else exc)) from None
    except _Rejected:
        raise
    except Exception as exc:
        raise _Rejected(_pdf_failure(exc)) from None
    if not any(page.text.strip() for page in pages):
        raise _Rejected(REASON_NO_TEXT)
    return pages


def _pdf_failure(cause: object) -> str:
    """A human reason for a pdfminer failure."""
    from pdfminer.pdfdocument import PDFEncryptionError, PDFPasswordIncorrect
    from pdfminer.psexceptions import PSEOF

    if isinstance(cause, (PDFPasswordIncorrect, PDFEncryptionError)):
        return REASON_ENCRYPTED
    if isinstance(cause, PSEOF):
        return "not a readable PDF: unexpected end of file (truncated download?)"
    detail = str(cause).strip() or type(cause).__name__
    if "No /Root object" in detail:
        detail = "the document structure is damaged (no root object)"
    return f"not a readable PDF: {detail}"

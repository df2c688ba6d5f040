"""Ingest limits: the largest file, the most pages and the most characters one document may have.

Without limits one 5 MiB single-line text file took minutes to chunk and embed with no word
of why. Each limit is checked as early as it can be (file size before reading, page count
before extracting text, characters after) and a file over it becomes an ``IngestProblem`` whose
reason names the limit, the value and the setting that raises it:

==================  ===================  =========================================
limit               default              set with
==================  ===================  =========================================
file size           100 MB               ``RAGEVAL_MAX_FILE_MB`` / ``--max-file-mb``
pages (PDF)         2,000                ``RAGEVAL_MAX_PAGES`` / ``--max-pages``
characters          5,000,000            ``RAGEVAL_MAX_CHARS`` / ``--max-chars``
==================  ===================  =========================================

(5,000,000 characters is about 2,500 pages of prose; the 127 SQuALITY stories average 28,000.)

Rows of user tables (QA sets, answers to score, ratings) have their own limits, checked per row by
:func:`rageval.ingest.rows.read_table`: a row over one is rejected with its number and a reason naming the
limit and the setting, and the other rows are kept (:class:`RowLimits`):

==================  ===================  =========================================
limit               default              set with
==================  ===================  =========================================
field size          100,000 characters   ``RAGEVAL_MAX_FIELD_CHARS`` / ``--max-field-chars``
nesting depth       32 levels            ``RAGEVAL_MAX_DEPTH`` / ``--max-depth``
==================  ===================  =========================================

(100,000 characters is about 50 pages; scoring one 1 MB answer with a claim metric took over two
minutes. A list field such as ``contexts`` counts all its passages together. JSON nested deeper
than about 900 levels cannot be read by Python at all, so a higher depth setting stops there.)
Numbers too large for a float (309 digits or more) are not limited: they are read as text.

Files of scores that ``check`` reads (a scored file, a baseline file) have their own limits
(:class:`ScoreFileLimits`), checked before and while the file is read; a file over one is an
error naming the file, the limit and the setting (``check`` exits 2):

==================  ===================  =========================================
limit               default              set with
==================  ===================  =========================================
file size           500 MB               ``RAGEVAL_MAX_SCORE_FILE_MB``
rows                1,000,000            ``RAGEVAL_MAX_SCORE_ROWS``
==================  ===================  =========================================

Files of people's labels (a ratings file, a claim-labels file) are parsed whole and every row
is checked against the project's runs, so they have limits too (:class:`LabelFileLimits`), checked
before the file is parsed (size) and before its rows are checked (rows); a file over one is refused
whole, naming the file, the limit and the setting, and nothing of it is stored (a 43 MB file of
claim labels took 1.3 GB and four minutes before):

==================  ===================  =========================================
limit               default              set with
==================  ===================  =========================================
file size           10 MB                ``RAGEVAL_MAX_LABEL_FILE_MB``
rows                50,000               ``RAGEVAL_MAX_LABEL_ROWS``
==================  ===================  =========================================

JSONL, CSV and Parquet are read row by row and keep only the id and the numbers, so memory grows
with the rows (about 250 bytes per row with three metrics: ``bench/bench_gate.py``), not with the
text in them; a ``.json`` file is one
array that is parsed whole, so it may be at most a tenth of the file size limit (write JSONL
beyond that).
"""
from __future__ import annotations

from dataclasses import dataclass

from rageval import settings
from rageval.errors import ConfigError

# the defaults are the settings table's (rageval.settings), so a limit has one default
DEFAULT_FILE_MB = settings.default("RAGEVAL_MAX_FILE_MB")
DEFAULT_PAGES = settings.default("RAGEVAL_MAX_PAGES")
DEFAULT_CHARS = settings.default("RAGEVAL_MAX_CHARS")
DEFAULT_FIELD_CHARS = settings.default("RAGEVAL_MAX_FIELD_CHARS")
DEFAULT_DEPTH = settings.default("RAGEVAL_MAX_DEPTH")
DEFAULT_SCORE_FILE_MB = settings.default("RAGEVAL_MAX_SCORE_FILE_MB")
DEFAULT_SCORE_ROWS = settings.default("RAGEVAL_MAX_SCORE_ROWS")
DEFAULT_LABEL_FILE_MB = settings.default("RAGEVAL_MAX_LABEL_FILE_MB")
DEFAULT_LABEL_ROWS = settings.default("RAGEVAL_MAX_LABEL_ROWS")


def _at_least_one(limits: object, names: tuple[str, ...]) -> None:
    for name in names:
        if getattr(limits, name) < 1:
            raise ConfigError(f"{name}={getattr(limits, name)} must be at least 1")


@dataclass(frozen=True)
class Limits:
    max_file_bytes: int = int(DEFAULT_FILE_MB * 1_000_000)
    max_pages: int = DEFAULT_PAGES
    max_chars: int = DEFAULT_CHARS

    def __post_init__(self) -> None:
        _at_least_one(self, ("max_file_bytes", "max_pages", "max_chars"))

    @classmethod
    def from_env(cls, *, file_mb: float | None = None, pages: int | None = None,
                 chars: int | None = None) -> "Limits":
        """Explicit values first, then ``RAGEVAL_MAX_FILE_MB`` / ``_PAGES`` / ``_CHARS``, then defaults."""
        mb = file_mb if file_mb is not None else settings.value("RAGEVAL_MAX_FILE_MB")
        return cls(max_file_bytes=int(mb * 1_000_000),
                   max_pages=int(pages if pages is not None else settings.value("RAGEVAL_MAX_PAGES")),
                   max_chars=int(chars if chars is not None else settings.value("RAGEVAL_MAX_CHARS")))

    def size_error(self, size: int) -> str | None:
        if size > self.max_file_bytes:
            return (f"file is {size / 1e6:,.1f} MB, over the limit of {self.max_file_bytes / 1e6:,.1f} MB "
                    "per file (raise it with RAGEVAL_MAX_FILE_MB or --max-file-mb)")
        return None

    def pages_error(self, pages: int) -> str | None:
        if pages > self.max_pages:
            return (f"PDF has {pages:,} pages, over the limit of {self.max_pages:,} pages per document "
                    "(raise it with RAGEVAL_MAX_PAGES or --max-pages)")
        return None

    def chars_error(self, chars: int) -> str | None:
        if chars > self.max_chars:
            return (f"document has {chars:,} characters of text, over the limit of {self.max_chars:,} "
                    "characters per document (raise it with RAGEVAL_MAX_CHARS or --max-chars)")
        return None


@dataclass(frozen=True)
class RowLimits:
    """The largest field (characters, all strings of the field together) and the deepest nesting
    one row of a user table may have (module docstring)."""

    max_field_chars: int = DEFAULT_FIELD_CHARS
    max_depth: int = DEFAULT_DEPTH

    def __post_init__(self) -> None:
        _at_least_one(self, ("max_field_chars", "max_depth"))

    @classmethod
    def from_env(cls, *, field_chars: int | None = None, depth: int | None = None) -> "RowLimits":
        """Explicit values first, then ``RAGEVAL_MAX_FIELD_CHARS`` / ``RAGEVAL_MAX_DEPTH``, then defaults."""
        return cls(max_field_chars=int(field_chars if field_chars is not None
                                       else settings.value("RAGEVAL_MAX_FIELD_CHARS")),
                   max_depth=int(depth if depth is not None else settings.value("RAGEVAL_MAX_DEPTH")))

    def field_error(self, chars: int) -> str | None:
        if chars > self.max_field_chars:
            return (f"field has {chars:,} characters, over the limit of {self.max_field_chars:,} characters "
                    "per field (raise it with RAGEVAL_MAX_FIELD_CHARS or --max-field-chars)")
        return None

    def depth_error(self, depth: int | None) -> str | None:
        """``depth`` None: deeper than Python's JSON reader goes (about 900 levels); the depth is counted
        only up to one past the limit, so the message says "more than" the limit."""
        if depth is None or depth > self.max_depth:
            levels = "more than 900" if depth is None else f"more than {self.max_depth:,}"
            return (f"row is nested {levels} levels deep, over the limit of {self.max_depth:,} levels "
                    "(raise it with RAGEVAL_MAX_DEPTH or --max-depth)")
        return None


@dataclass(frozen=True)
class ScoreFileLimits:
    """The largest file (bytes) and the most rows of a file of scores ``check`` reads (module docstring)."""

    max_bytes: int = int(DEFAULT_SCORE_FILE_MB * 1_000_000)
    max_rows: int = DEFAULT_SCORE_ROWS

    def __post_init__(self) -> None:
        _at_least_one(self, ("max_bytes", "max_rows"))

    @classmethod
    def from_env(cls) -> "ScoreFileLimits":
        """``RAGEVAL_MAX_SCORE_FILE_MB`` / ``RAGEVAL_MAX_SCORE_ROWS``, else the defaults."""
        return cls(max_bytes=int(settings.value("RAGEVAL_MAX_SCORE_FILE_MB") * 1_000_000),
                   max_rows=int(settings.value("RAGEVAL_MAX_SCORE_ROWS")))

    def size_error(self, size: int, *, whole: bool = False) -> str | None:
        """``whole``: a file parsed at once (one JSON array), allowed a tenth of the limit."""
        limit = self.max_bytes // 10 if whole else self.max_bytes
        if size > limit:
            why = (" for a .json file, which is parsed whole; write one row per line in a .jsonl file"
                   if whole else "")
            return (f"file is {size / 1e6:,.1f} MB, over the limit of {limit / 1e6:,.1f} MB{why} "
                    "(raise it with RAGEVAL_MAX_SCORE_FILE_MB)")
        return None

    def rows_error(self, rows: int) -> str | None:
        if rows > self.max_rows:
            return (f"file has more than {self.max_rows:,} rows, over the limit (raise it with "
                    "RAGEVAL_MAX_SCORE_ROWS)")
        return None


@dataclass(frozen=True)
class LabelFileLimits:
    """The largest file (bytes) and the most rows of a ratings or claim-labels file (module docstring)."""

    max_bytes: int = int(DEFAULT_LABEL_FILE_MB * 1_000_000)
    max_rows: int = DEFAULT_LABEL_ROWS

    def __post_init__(self) -> None:
        _at_least_one(self, ("max_bytes", "max_rows"))

    @classmethod
    def from_env(cls) -> "LabelFileLimits":
        """``RAGEVAL_MAX_LABEL_FILE_MB`` / ``RAGEVAL_MAX_LABEL_ROWS``, else the defaults."""
        return cls(max_bytes=int(settings.value("RAGEVAL_MAX_LABEL_FILE_MB") * 1_000_000),
                   max_rows=int(settings.value("RAGEVAL_MAX_LABEL_ROWS")))

    def size_error(self, size: int) -> str | None:
        if size > self.max_bytes:
            return (f"file is {_mb(size)}, over the limit of {_mb(self.max_bytes)} for a file of labels; nothing "
                    "was imported (split it, or raise the limit with RAGEVAL_MAX_LABEL_FILE_MB)")
        return None

    def rows_error(self, rows: int) -> str | None:
        if rows > self.max_rows:
            return (f"file has {rows:,} rows, over the limit of {self.max_rows:,} for a file of labels; nothing "
                    "was imported (split it, or raise the limit with RAGEVAL_MAX_LABEL_ROWS)")
        return None


def _mb(size: int) -> str:
    """``43.0 MB``; a size under 0.1 MB in bytes (``1,000 bytes``), so two small sizes never read alike."""
    return f"{size / 1e6:,.1f} MB" if size >= 100_000 else f"{size:,} bytes"

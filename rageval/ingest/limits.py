"""Ingest limits: the largest file, the most pages and the most characters one document may have.

Without limits one 5 MiB single-line text file took minutes to chunk and embed with no word
of why. Each limit is checked as early as it can be (file size before reading, page count
before extracting text, characters after) and a file over it becomes an ``IngestError`` whose
reason names the limit, the value and the setting that raises it:

==================  ===================  =========================================
limit               default              set with
==================  ===================  =========================================
file size           100 MB               ``RAGEVAL_MAX_FILE_MB`` / ``--max-file-mb``
pages (PDF)         2,000                ``RAGEVAL_MAX_PAGES`` / ``--max-pages``
characters          5,000,000            ``RAGEVAL_MAX_CHARS`` / ``--max-chars``
==================  ===================  =========================================

(5,000,000 characters is about 2,500 pages of prose; the 127 SQuALITY stories average 28,000.)
"""
from __future__ import annotations

import os
from dataclasses import dataclass

from rageval.errors import ConfigError

DEFAULT_FILE_MB = 100.0
DEFAULT_PAGES = 2000
DEFAULT_CHARS = 5_000_000


@dataclass(frozen=True)
class Limits:
    max_file_bytes: int = int(DEFAULT_FILE_MB * 1_000_000)
    max_pages: int = DEFAULT_PAGES
    max_chars: int = DEFAULT_CHARS

    def __post_init__(self) -> None:
        for name in ("max_file_bytes", "max_pages", "max_chars"):
            if getattr(self, name) < 1:
                raise ConfigError(f"{name}={getattr(self, name)} must be at least 1")

    @classmethod
    def from_env(cls, *, file_mb: float | None = None, pages: int | None = None,
                 chars: int | None = None) -> "Limits":
        """Explicit values first, then ``RAGEVAL_MAX_FILE_MB`` / ``_PAGES`` / ``_CHARS``, then defaults."""
        def env(name: str, default: float) -> float:
            raw = os.environ.get(name)
            if raw is None or not raw.strip():
                return default
            try:
                return float(raw)
            except ValueError:
                raise ConfigError(f"{name}={raw!r} is not a number") from None

        mb = file_mb if file_mb is not None else env("RAGEVAL_MAX_FILE_MB", DEFAULT_FILE_MB)
        return cls(max_file_bytes=int(mb * 1_000_000),
                   max_pages=int(pages if pages is not None else env("RAGEVAL_MAX_PAGES", DEFAULT_PAGES)),
                   max_chars=int(chars if chars is not None else env("RAGEVAL_MAX_CHARS", DEFAULT_CHARS)))

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

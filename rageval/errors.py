"""The one small hierarchy of errors rageval raises on purpose.

Messages name the offending value and, where there is one, the fix:
``chunk_overlap=600 must be smaller than chunk_size=512``.
"""
from __future__ import annotations


class RagevalError(Exception):
    """Base class: an error whose message is fit to show to a user as is."""


class ConfigError(RagevalError):
    """A setting or argument that cannot be used (CLI exit code 2)."""


class InputError(RagevalError):
    """A user file or row that cannot be read; names the file and, where known, the row."""

    def __init__(self, message: str, *, source: str | None = None, row: int | None = None):
        where = ""
        if source is not None:
            where = f"{source}"
            if row is not None:
                where += f", row {row}"
            where += ": "
        super().__init__(where + message)
        self.source = source
        self.row = row
        self.reason = message


class ProjectBusyError(RagevalError):
    """The project's database stayed locked by another process for longer than RAGEVAL_DB_WAIT."""


class LLMError(RagevalError):
    """A model call that failed after its retries; ``reason`` is a short machine-readable tag."""

    def __init__(self, message: str, *, reason: str = "llm_error", raw: str | None = None):
        super().__init__(message)
        self.reason = reason
        self.raw = raw


class StoreFullError(RagevalError):
    """The disk holding a project's database is full: a write could not be made (see
    :func:`rageval.store.db.connect`). What was stored before is kept; the run is resumable."""


class AccessError(RagevalError):
    """The acting identity may not do this in this project (not a member, or its role is too low);
    the message names the identity, the project, its role and the role the action needs. CLI exit 1."""

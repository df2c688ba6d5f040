"""Every environment variable rageval reads: its name, its default and what it changes.

The table is the one list; ``tests/test_settings.py`` checks that every variable the library,
the pages and the app read is in it, and that docs/cli.md documents each one. ``ROLE`` stands for
``GENERATOR``, ``JUDGE`` or ``EMBEDDER`` (one LLM server per role, if wanted). Command-line flags
override the variables that have one (``--project``, ``--max-file-mb``, ...).
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Mapping


@dataclass(frozen=True)
class Setting:
    name: str
    default: str  # "" when unset means "off" or "not used"
    meaning: str


SETTINGS: tuple[Setting, ...] = (
    Setting("RAGEVAL_HOME", ".rageval", "folder that holds every project (projects/<name>/: DuckDB file + Chroma)"),
    Setting("RAGEVAL_PROJECT", "default", "project used when --project is not given"),
    Setting("RAGEVAL_DB_WAIT", "30", "seconds a process waits for a project database locked by another"),
    Setting("RAGEVAL_HEARTBEAT", "10", "seconds between a running run's heartbeats"),
    Setting("RAGEVAL_RUN_STALE", "120", "seconds without a heartbeat after which a running run is shown interrupted"),
    Setting("RAGEVAL_PROGRESS", "", "1: the CLI prints progress lines even when stderr is not a terminal"),
    Setting("RAGEVAL_DEBUG", "", "any value: the CLI shows the traceback of an unexpected error"),
    Setting("RAGEVAL_NO_AUTODEMO", "", "1: the app starts on an empty project instead of building the demo"),
    Setting("RAGEVAL_CHROMA_HOST", "", "host of a shared Chroma server (unset: the project's own Chroma folder)"),
    Setting("RAGEVAL_CHROMA_PORT", "8000", "port of the shared Chroma server"),
    Setting("RAGEVAL_CHROMA_RETRIES", "3", "attempts to reach the Chroma server before giving up"),
    Setting("RAGEVAL_MAX_FILE_MB", "100", "largest document file ingested, in MB (--max-file-mb)"),
    Setting("RAGEVAL_MAX_PAGES", "2000", "most PDF pages read per document (--max-pages)"),
    Setting("RAGEVAL_MAX_CHARS", "5000000", "most characters kept per document (--max-chars)"),
    Setting("RAGEVAL_MAX_FIELD_CHARS", "100000", "longest field of a QA or answers row (--max-field-chars)"),
    Setting("RAGEVAL_MAX_DEPTH", "32", "deepest nesting of a JSON row (--max-depth)"),
    Setting("RAGEVAL_WORKERS", "", "worker processes for ingest, run and score (unset: one per core; 1: this process only; --workers)"),
    Setting("RAGEVAL_CLAIM_VERIFIER", "rules", "offline claim check: rules (a claim copied from a context is "
            "SUPPORTED, every other one UNVERIFIED) or xenc (opt-in learned NLI cross-encoder: 0.32 3-way on "
            "hand-written claims vs 0.39 always SUPPORTED; Climate-FEVER 0.383 vs majority class 0.673)"),
    Setting("RAGEVAL_PRICES", "", "a JSON price table laid over the shipped one (cost estimates and usage)"),
    Setting("OPENAI_BASE_URL", "https://api.openai.com/v1", "OpenAI-compatible server of every LLM role"),
    Setting("OPENAI_API_KEY", "", "API key of every LLM role (a local server may need none)"),
    Setting("RAGEVAL_ROLE_BASE_URL", "", "server of one role, over OPENAI_BASE_URL"),
    Setting("RAGEVAL_ROLE_API_KEY", "", "API key of one role, over OPENAI_API_KEY"),
    Setting("RAGEVAL_ROLE_RPM", "", "requests per minute a role may send (unset: no cap)"),
    Setting("RAGEVAL_ROLE_TPM", "", "tokens per minute a role may send (unset: no cap)"),
)

ROLES = ("GENERATOR", "JUDGE", "EMBEDDER")


def setting(name: str) -> Setting:
    """The row of ``name``; a per-role name (``RAGEVAL_JUDGE_TPM``) finds its ``ROLE`` row."""
    for role in ROLES:
        name = name.replace(f"RAGEVAL_{role}_", "RAGEVAL_ROLE_")
    for row in SETTINGS:
        if row.name == name:
            return row
    raise KeyError(f"{name} is not in rageval.settings.SETTINGS")


def get(name: str, env: Mapping[str, str] = os.environ) -> str:
    """The variable's value, or its default from the table when unset or blank."""
    value = env.get(name, "").strip()
    return value or setting(name).default

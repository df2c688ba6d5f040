"""Every environment variable rageval reads: its name, its type, its default and what it changes.

The table is the one list, and :func:`value` the one reader: it returns the variable as its type
(text, whole number, number or on/off flag), the table's default when the variable is unset or
blank, and a ConfigError naming the variable when the text is not of its type. ``tests/test_settings.py``
checks that every variable the library, the pages and the app read is in the table, and that
docs/cli.md documents each one. ``ROLE`` stands for ``GENERATOR``, ``JUDGE`` or ``EMBEDDER`` (one LLM
server per role, if wanted); those rows are read through :mod:`rageval.llm.roles`, which also looks in
Streamlit's secrets. Command-line flags override the variables that have one (``--project``, ...).
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Mapping, Union

from rageval.errors import ConfigError

Value = Union[str, int, float, bool, None]
#: how each type reads its text; a flag is on for any text but "0" (unset and blank are off)
_PARSE = {
    str: (str, "text"),
    int: (lambda raw: int(raw.replace("_", "")), "a whole number"),
    float: (float, "a number"),
    bool: (lambda raw: raw != "0", "a flag"),
}


@dataclass(frozen=True)
class Setting:
    name: str
    default: str  # "" when unset means "off" or "not used" (read as False for a flag, None otherwise)
    meaning: str
    type: type = str  # str, int, float or bool

    def parse(self, raw: str) -> Value:
        """``raw`` (stripped) as this setting's type; the default when blank; ConfigError when malformed."""
        text = raw.strip() or self.default
        if not text:
            return False if self.type is bool else None
        parse, kind = _PARSE[self.type]
        try:
            return parse(text)
        except ValueError:
            raise ConfigError(f"{self.name}={raw!r} must be {kind}") from None


SETTINGS: tuple[Setting, ...] = (
    Setting("RAGEVAL_HOME", ".rageval", "folder that holds every project (projects/<name>/: DuckDB file + Chroma)"),
    Setting("RAGEVAL_PROJECT", "default", "project used when --project is not given"),
    Setting("RAGEVAL_DB_WAIT", "30", "seconds a process waits for a project database locked by another", float),
    Setting("RAGEVAL_HEARTBEAT", "10", "seconds between a running run's heartbeats", float),
    Setting(
        "RAGEVAL_RUN_STALE", "120", "seconds without a heartbeat after which a running run is shown interrupted", float
    ),
    Setting("RAGEVAL_PROGRESS", "", "on (1): the CLI prints progress lines even when stderr is not a terminal", bool),
    Setting("RAGEVAL_DEBUG", "", "on (1): the CLI shows the traceback of an unexpected error", bool),
    Setting("RAGEVAL_NO_AUTODEMO", "", "on (1): the app starts on an empty project instead of building the demo", bool),
    Setting("RAGEVAL_CHROMA_HOST", "", "host of a shared Chroma server (unset: the project's own Chroma folder)"),
    Setting("RAGEVAL_CHROMA_PORT", "8000", "port of the shared Chroma server", int),
    Setting("RAGEVAL_CHROMA_RETRIES", "3", "attempts to reach the Chroma server before giving up", int),
    Setting("RAGEVAL_MAX_FILE_MB", "100", "largest document file ingested, in MB (--max-file-mb)", float),
    Setting("RAGEVAL_MAX_PAGES", "2000", "most PDF pages read per document (--max-pages)", int),
    Setting("RAGEVAL_MAX_CHARS", "5000000", "most characters kept per document (--max-chars)", int),
    Setting("RAGEVAL_MAX_FIELD_CHARS", "100000", "longest field of a QA or answers row (--max-field-chars)", int),
    Setting("RAGEVAL_MAX_DEPTH", "32", "deepest nesting of a JSON row (--max-depth)", int),
    Setting(
        "RAGEVAL_MAX_SCORE_FILE_MB", "500", "largest scored file or baseline `check` reads, in MB (docs/gate.md)", float
    ),
    Setting("RAGEVAL_MAX_SCORE_ROWS", "1000000", "most rows of a scored file or baseline `check` reads", int),
    Setting("RAGEVAL_MAX_LABEL_FILE_MB", "10", "largest ratings or claim-labels file imported, in MB", float),
    Setting("RAGEVAL_MAX_LABEL_ROWS", "50000", "most rows of a ratings or claim-labels file imported", int),
    Setting(
        "RAGEVAL_WORKERS",
        "",
        "worker processes for ingest, run and score (unset: one per core; 1: this process only; --workers)",
        int,
    ),
    Setting(
        "RAGEVAL_RAY_STOP_GRACE",
        "5",
        "seconds the cleanup of a killed Ray driver's local cluster waits after SIGTERM before it sends SIGKILL",
        float,
    ),
    Setting("RAGEVAL_PRICES", "", "a JSON price table laid over the shipped one (cost estimates and usage)"),
    Setting("OPENAI_BASE_URL", "https://api.openai.com/v1", "OpenAI-compatible server of every LLM role"),
    Setting("OPENAI_API_KEY", "", "API key of every LLM role (a local server may need none)"),
    Setting("OPENAI_ORG_ID", "", "OpenAI organization sent with every LLM request (OpenAI-Organization header)"),
    Setting("OPENAI_PROJECT_ID", "", "OpenAI project sent with every LLM request (OpenAI-Project header)"),
    Setting(
        "AZURE_OPENAI_ENDPOINT",
        "",
        "an Azure OpenAI endpoint (https://NAME.openai.azure.com) for every LLM role, "
        "over OPENAI_BASE_URL; the model given is the deployment name",
    ),
    Setting("AZURE_OPENAI_API_KEY", "", "API key of an Azure OpenAI endpoint (sent as the api-key header)"),
    Setting("OPENAI_API_VERSION", "2024-10-21", "api-version of the requests to an Azure OpenAI endpoint"),
    Setting(
        "RAGEVAL_LLM_DEADLINE",
        "300",
        "seconds one request to a model server may take in all (connect, send, "
        "wait, read); a request past it fails its item, not retried",
        float,
    ),
    Setting(
        "RAGEVAL_LLM_MAX_REPLY_MB",
        "8",
        "largest reply read from a model server, in MB; a longer one is cut off and fails its item, not retried",
        float,
    ),
    Setting(
        "RAGEVAL_LLM_CA_BUNDLE",
        "",
        "a PEM file of CA certificates trusted for model servers besides the default ones (a private or company CA)",
    ),
    Setting("RAGEVAL_ROLE_BASE_URL", "", "server of one role, over OPENAI_BASE_URL"),
    Setting("RAGEVAL_ROLE_AZURE_ENDPOINT", "", "an Azure OpenAI endpoint for one role, over every base URL"),
    Setting("RAGEVAL_ROLE_API_KEY", "", "API key of one role, over AZURE_OPENAI_API_KEY and OPENAI_API_KEY"),
    Setting("RAGEVAL_ROLE_RPM", "", "requests per minute a role may send (unset: no cap)", int),
    Setting("RAGEVAL_ROLE_TPM", "", "tokens per minute a role may send (unset: no cap)", int),
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


def value(name: str, env: Mapping[str, str] = os.environ) -> Value:
    """The variable ``name`` as its type: its text in ``env``, else the table's default (module docstring).

    >>> value("RAGEVAL_CHROMA_PORT", {}), value("RAGEVAL_CHROMA_PORT", {"RAGEVAL_CHROMA_PORT": " 9000 "})
    (8000, 9000)
    >>> value("RAGEVAL_DEBUG", {}), value("RAGEVAL_DEBUG", {"RAGEVAL_DEBUG": "1"}), value("RAGEVAL_WORKERS", {})
    (False, True, None)
    """
    return setting(name).parse(env.get(name, ""))


def default(name: str) -> Value:
    """The table's default of ``name``, as its type."""
    return setting(name).parse("")

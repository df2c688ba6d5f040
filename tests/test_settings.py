"""rageval.settings: every environment variable read anywhere is in the one table, with its
default where the code reads it, and documented in docs/cli.md (the README links it)."""
import re
from pathlib import Path

import pytest

from rageval import settings
from rageval.settings import SETTINGS, setting

ROOT = Path(__file__).resolve().parents[1]
NAME = re.compile(r"""["'`](?:RAGEVAL|OPENAI)_[A-Z_]+["'`]|RAGEVAL_\{[a-z_.()]+\}_[A-Z][A-Z_]*""")


def _read_names() -> set[str]:
    names = set()
    files = list((ROOT / "rageval").rglob("*.py")) + list((ROOT / "pages").glob("*.py")) + [ROOT / "app.py"]
    for path in files:
        if path.name == "settings.py":
            continue
        for hit in NAME.findall(path.read_text(encoding="utf-8")):
            names.add(re.sub(r"\{[^}]+\}", "ROLE", hit.strip("\"'`")))
    return names


def test_every_variable_the_code_reads_is_in_the_table():
    names = _read_names()
    assert {"RAGEVAL_HOME", "RAGEVAL_DEBUG", "RAGEVAL_ROLE_API_KEY"} <= names  # the scan finds them
    missing = []
    for name in sorted(names):
        try:
            setting(name)
        except KeyError:
            missing.append(name)
    assert missing == []


def test_every_variable_in_the_table_is_in_the_cli_reference():
    readme = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    missing = [s.name for s in SETTINGS if s.name.replace("_ROLE_", "_<ROLE>_") not in readme]
    assert missing == []


def test_a_per_role_name_finds_its_row_and_an_unknown_name_is_an_error():
    assert setting("RAGEVAL_JUDGE_TPM").name == "RAGEVAL_ROLE_TPM"
    with pytest.raises(KeyError, match="RAGEVAL_NOPE"):
        setting("RAGEVAL_NOPE")


def test_defaults_are_the_ones_the_code_uses(monkeypatch):
    from rageval.ingest import limits
    from rageval.store import owners

    for s in SETTINGS:
        monkeypatch.delenv(s.name, raising=False)
    assert owners.heartbeat_interval() == float(setting("RAGEVAL_HEARTBEAT").default)
    assert owners.stale_after() == float(setting("RAGEVAL_RUN_STALE").default)
    assert settings.get("RAGEVAL_PROJECT") == "default"
    monkeypatch.setenv("RAGEVAL_PROJECT", "  ")
    assert settings.get("RAGEVAL_PROJECT") == "default"  # blank is unset
    assert float(setting("RAGEVAL_MAX_FILE_MB").default) == limits.DEFAULT_FILE_MB
    assert int(setting("RAGEVAL_MAX_PAGES").default) == limits.DEFAULT_PAGES
    assert int(setting("RAGEVAL_MAX_CHARS").default) == limits.DEFAULT_CHARS
    assert int(setting("RAGEVAL_MAX_FIELD_CHARS").default) == limits.DEFAULT_FIELD_CHARS
    assert int(setting("RAGEVAL_MAX_DEPTH").default) == limits.DEFAULT_DEPTH

"""rageval.settings: every environment variable read anywhere is in the one table, with its
default where the code reads it, and documented in docs/cli.md (the README links it)."""
import re
from pathlib import Path

import pytest

from rageval import settings
from rageval.errors import ConfigError
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
    # the reference's row says what the table says: name, default and meaning
    reference = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8").splitlines()
    rows = [
        f"| `{s.name.replace('_ROLE_', '_<ROLE>_')}` | {f'`{s.default}`' if s.default else '(unset)'} | {s.meaning} |"
        for s in SETTINGS
    ]
    assert [row for row in rows if row not in reference] == []


def test_a_per_role_name_finds_its_row_and_an_unknown_name_is_an_error():
    assert setting("RAGEVAL_JUDGE_TPM").name == "RAGEVAL_ROLE_TPM"
    with pytest.raises(KeyError, match="RAGEVAL_NOPE"):
        setting("RAGEVAL_NOPE")


def test_the_code_reads_the_table_defaults_when_nothing_is_set(monkeypatch):
    from rageval.index import _server
    from rageval.ingest.limits import Limits, RowLimits
    from rageval.store import owners

    for s in SETTINGS:
        monkeypatch.delenv(s.name, raising=False)
    assert owners.heartbeat_interval() == 10.0 and owners.stale_after() == 120.0
    assert Limits.from_env() == Limits(max_file_bytes=100_000_000, max_pages=2000, max_chars=5_000_000)
    assert RowLimits.from_env() == RowLimits(max_field_chars=100_000, max_depth=32)
    assert settings.value("RAGEVAL_PROJECT") == "default" and _server() is None
    monkeypatch.setenv("RAGEVAL_PROJECT", "  ")
    assert settings.value("RAGEVAL_PROJECT") == "default"  # blank is unset
    monkeypatch.setenv("RAGEVAL_CHROMA_HOST", "chroma.internal")
    assert _server() == "chroma.internal:8000"


# (variable, text, value): each type read from its text; unset and blank read the default
TYPED = [
    ("RAGEVAL_HOME", "/data/rg", "/data/rg"),
    ("RAGEVAL_CHROMA_PORT", " 9000 ", 9000),
    ("RAGEVAL_MAX_CHARS", "1_000_000", 1_000_000),
    ("RAGEVAL_DB_WAIT", "2.5", 2.5),
    ("RAGEVAL_DEBUG", "1", True),
    ("RAGEVAL_DEBUG", "yes", True),
    ("RAGEVAL_DEBUG", "0", False),
    ("RAGEVAL_DEBUG", "", False),
    ("RAGEVAL_WORKERS", "", None),
    ("RAGEVAL_CHROMA_RETRIES", "  ", 3),
]


@pytest.mark.parametrize("name, text, expected", TYPED)
def test_one_reader_returns_each_setting_as_its_type(name, text, expected):
    got = settings.value(name, {name: text})
    assert got == expected and type(got) is type(expected)


@pytest.mark.parametrize("name, text, kind", [("RAGEVAL_CHROMA_PORT", "80a", "a whole number"),
                                               ("RAGEVAL_MAX_PAGES", "2.5", "a whole number"),
                                               ("RAGEVAL_HEARTBEAT", "soon", "a number")])
def test_a_malformed_setting_is_a_config_error_naming_it(name, text, kind):
    with pytest.raises(ConfigError, match=f"{name}='{text}' must be {kind}"):
        settings.value(name, {name: text})


def test_every_default_reads_as_its_type():
    for s in SETTINGS:
        assert isinstance(settings.default(s.name), (s.type, type(None))), s.name


def test_nothing_else_reads_a_rageval_variable_from_the_environment():
    # the table's reader, and the LLM roles (which look in Streamlit's secrets first), read them
    readers = {"settings.py", "roles.py"}
    direct = re.compile(r"""(environ|env|getenv)\s*(\.get\(|\[|\()\s*f?["'](RAGEVAL|OPENAI)_""")
    files = list((ROOT / "rageval").rglob("*.py")) + list((ROOT / "pages").glob("*.py")) + [ROOT / "app.py"]
    found = [
        str(p.relative_to(ROOT))
        for p in files
        if p.name not in readers and direct.search(p.read_text(encoding="utf-8"))
    ]
    assert found == []

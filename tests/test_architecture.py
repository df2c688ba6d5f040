"""Layering: the library never imports streamlit; only rageval/llm/ imports openai; pages hold no SQL."""
import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
    return names


def _library_files():
    return sorted((ROOT / "rageval").rglob("*.py"))


def test_library_never_imports_streamlit():
    offenders = [str(p.relative_to(ROOT)) for p in _library_files()
                 if any(n.split(".")[0] == "streamlit" for n in _imports(p))]
    assert offenders == []


def test_only_llm_module_imports_openai():
    offenders = [str(p.relative_to(ROOT)) for p in _library_files()
                 if any(n.split(".")[0] == "openai" for n in _imports(p)) and p.parent.name != "llm"]
    assert offenders == []


def test_store_imports_nothing_above_it():
    allowed = {"rageval.store", "rageval.errors", "rageval.util"}
    for path in (ROOT / "rageval" / "store").glob("*.py"):
        for name in _imports(path):
            if name.startswith("rageval"):
                assert any(name == a or name.startswith(a + ".") for a in allowed), (path.name, name)


def test_pages_hold_no_sql():
    for path in list((ROOT / "pages").glob("*.py")) + [ROOT / "app.py"]:
        if path.exists():
            text = path.read_text(encoding="utf-8")
            assert not re.search(r"\bSELECT\b[^\n]*\bFROM\b|\bINSERT INTO\b|\.execute\(", text), path.name
            assert "duckdb" not in _imports(path) and "openai" not in _imports(path), path.name


#: imports point one way: a module may import its own layer or lower ones, never a higher one
LAYERS = [
    {"errors", "util", "project", "store", "prompts", "text", "models", "types"},
    {"ingest", "embed", "llm", "config", "index"},
    {"generate", "metrics", "aligncheck", "claims", "judge"},
    {"runs", "report", "stats", "human"},
    {"demo", "cli", "__main__", "views"},
]


def _layer(module: str) -> int:
    top = module.split(".")[1] if module.count(".") else module
    for level, names in enumerate(LAYERS):
        if top in names:
            return level
    raise AssertionError(f"rageval.{top} is in no layer of tests/test_architecture.py: add it")


def test_imports_point_down_the_layers():
    wrong = []
    for path in _library_files():
        rel = path.relative_to(ROOT).with_suffix("")
        parts = rel.parts[1:] if rel.parts[-1] != "__init__" else rel.parts[1:-1]
        if not parts:
            continue
        here = _layer("rageval." + parts[0])
        for name in _imports(path):
            if name.startswith("rageval.") and _layer(name) > here:
                wrong.append(f"{'/'.join(rel.parts)} imports {name}")
    assert wrong == []

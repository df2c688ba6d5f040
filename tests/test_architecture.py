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
    allowed = {"rageval.store", "rageval.errors", "rageval.util", "rageval.settings"}
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


#: DESIGN.md's layers, lowest first: a module may import its own layer or lower ones, never a
#: higher one. `index` sits with ingest (the ingest service writes the collection) and `demo`
#: with views (it builds a project through runs and human); see docs/architecture.md.
LAYERS = [
    {"types", "text", "prompts", "store", "errors", "util", "settings", "project", "config", "models", "files"},
    {"ingest", "embed", "llm", "index"},
    {"judge", "generate", "claims", "aligncheck"},
    {"metrics"},
    {"stats", "human", "runs", "report", "scale", "gate"},
    {"views", "demo"},
    {"cli", "__main__"},
]

#: the modules allowed at the library's root (DESIGN.md's tree): everything else lives in a package
ROOT_MODULES = {"__init__", "__main__", "cli", "config", "errors", "files", "index", "project", "settings", "types", "util"}


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def _graph() -> dict[str, set[str]]:
    """rageval module -> the rageval modules it imports, at the top or inside a function."""
    modules = {_module_name(p): p for p in _library_files()}

    def resolve(name: str) -> str | None:
        while name and name not in modules:
            name = name.rpartition(".")[0]
        return name or None

    graph = {}
    for name, path in modules.items():
        edges = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                targets = [f"{node.module}.{a.name}" for a in node.names]
            else:
                continue
            for target in targets:
                if target.startswith("rageval"):
                    found = resolve(target)
                    if found and found != name:
                        edges.add(found)
        graph[name] = edges
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one node (Tarjan), each sorted."""
    index, low, stack, on, out = {}, {}, [], set(), []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def _top(module: str) -> str:
    return module.split(".")[1] if module.count(".") else module


def _layer(module: str) -> int:
    top = _top(module)
    for level, names in enumerate(LAYERS):
        if top in names:
            return level
    raise AssertionError(f"rageval.{top} is in no layer of tests/test_architecture.py: add it")


def test_imports_point_down_the_layers():
    wrong = [f"{a} imports {b}" for a, targets in sorted(_graph().items()) if a != "rageval"
             for b in sorted(targets) if b != "rageval" and _layer(b) > _layer(a)]
    assert wrong == []


def test_no_import_cycle_between_modules():
    assert _cycles(_graph()) == []


def test_no_import_cycle_between_packages():
    packages: dict[str, set[str]] = {}
    for a, targets in _graph().items():
        packages.setdefault(_top(a), set()).update(_top(b) for b in targets if _top(b) != _top(a))
    assert _cycles(packages) == []


def test_cycle_check_finds_a_cycle():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert _cycles(graph) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []


def test_library_root_holds_only_the_designed_modules():
    extra = sorted(p.stem for p in (ROOT / "rageval").glob("*.py") if p.stem not in ROOT_MODULES)
    assert extra == []


def test_pages_never_import_the_store():
    wrong = []
    for path in sorted((ROOT / "pages").glob("*.py")) + [ROOT / "app.py"]:
        for name in _imports(path):
            if name == "rageval.store" or name.startswith("rageval.store."):
                wrong.append(f"{path.name} imports {name}")
    assert wrong == []

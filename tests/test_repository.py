"""The repository around the library: the product apart from its tools, scripts runnable as
modules from the repository root, no large files in the tree.

The scripts live in four packages beside ``rageval/``: ``bench/`` (speed benchmarks), ``training/``
(data preparation and training of the shipped models), ``validation/`` (agreement with human
labels, written to docs/validation.md) and ``devtools/`` (the fake OpenAI-compatible server that
tests and benchmarks share). Each script runs as ``python -m <package>.<module>`` from the
repository root, so none edits ``sys.path`` or imports a sibling by its bare name.
"""
from __future__ import annotations

import ast
import re
import subprocess
from pathlib import Path

import pytest

from tests.source_trees import parsed

ROOT = Path(__file__).resolve().parents[1]
SCRIPT_PACKAGES = ("bench", "training", "validation", "devtools")
#: the shipped parameter files are read at run time and may be large; nothing else may
LARGE_FILES_ALLOWED_UNDER = "rageval/models/"
MAX_BYTES = 1_000_000


def _tracked_files() -> list[str]:
    try:
        out = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout (or git is not installed): the tracked files are unknown")
    return [name for name in out.decode("utf-8", "surrogateescape").split("\0") if name]


def _script_files() -> list[Path]:
    return sorted(p for package in SCRIPT_PACKAGES for p in (ROOT / package).rglob("*.py"))


def _top_level_imports(path: Path) -> set[str]:
    """The first component of every module ``path`` imports (absolute imports only)."""
    names = set()
    for node in ast.walk(parsed(path)):
        if isinstance(node, ast.Import):
            names.update(a.name.split(".")[0] for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module.split(".")[0])
    return names


def _large(files: list[str]) -> list[str]:
    sizes = {name: (ROOT / name).stat().st_size for name in files if (ROOT / name).is_file()}
    return sorted(f"{name} ({size:,} bytes)" for name, size in sizes.items()
                  if size > MAX_BYTES and not name.startswith(LARGE_FILES_ALLOWED_UNDER))


def test_no_tracked_file_over_one_megabyte_outside_the_shipped_models():
    # a checkpoint or a data set belongs in history or in $RAGEVAL_DATA, not in every clone
    assert _large(_tracked_files()) == []


def test_the_size_check_finds_a_large_file(tmp_path, monkeypatch):
    monkeypatch.setattr(f"{__name__}.ROOT", tmp_path)
    (tmp_path / "bench").mkdir()
    (tmp_path / "rageval" / "models").mkdir(parents=True)
    (tmp_path / "bench" / "best.pt").write_bytes(b"\0" * (MAX_BYTES + 1))
    (tmp_path / "rageval" / "models" / "weights.npz").write_bytes(b"\0" * (MAX_BYTES + 1))
    (tmp_path / "bench" / "small.json").write_bytes(b"{}")
    found = _large(["bench/best.pt", "rageval/models/weights.npz", "bench/small.json"])
    assert found == [f"bench/best.pt ({MAX_BYTES + 1:,} bytes)"]


def test_every_script_folder_is_a_package():
    assert [p for p in SCRIPT_PACKAGES if not (ROOT / p / "__init__.py").is_file()] == []


def test_no_script_edits_the_import_path():
    pattern = re.compile(r"\bsys\.path\.(insert|append|extend)\b|\bsys\.path\s*[+]?=")
    offenders = [str(p.relative_to(ROOT)) for p in [*_script_files(), *(ROOT / "tests").rglob("*.py")]
                 if pattern.search(p.read_text(encoding="utf-8"))]
    assert offenders == []


def test_scripts_import_their_siblings_through_the_package():
    # `import claim_edits` works only with the script's folder on sys.path; `from training import
    # claim_edits` works from the repository root, as `python -m training.make_claim_data` runs
    bare = []
    for path in _script_files():
        siblings = {p.stem for p in path.parent.glob("*.py")} - {"__init__"}
        bare += [f"{path.relative_to(ROOT)}: {name}" for name in sorted(_top_level_imports(path) & siblings)]
    assert bare == []


def test_scripts_name_no_machine_specific_path():
    # data comes from $RAGEVAL_DATA (training/data.py), models from the installed packages
    pattern = re.compile("|".join(("/" + "work/", "/" + r"home/\w", "site-packages/")))
    offenders = [f"{p.relative_to(ROOT)}:{n}" for p in _script_files()
                 for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1) if pattern.search(line)]
    assert offenders == []


def test_the_product_never_imports_its_tools():
    tools = {*SCRIPT_PACKAGES, "tests"}
    offenders = [str(p.relative_to(ROOT)) for p in [*(ROOT / "rageval").rglob("*.py"), ROOT / "app.py",
                                                    *(ROOT / "pages").rglob("*.py")]
                 if _top_level_imports(p) & tools]
    assert offenders == []



def _module_name(root: Path, path: Path) -> str:
    parts = path.relative_to(root).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imported_modules(root: Path, path: Path, known: set[str]) -> set[str]:
    """The modules of ``known`` that ``path`` imports anywhere in it (a function's import counts:
    it closes a circle as soon as that function runs). ``from a import b`` names the module ``a.b``
    when there is one, else ``a``."""
    here = _module_name(root, path)
    package = here if path.name == "__init__.py" else here.rpartition(".")[0]
    found = set()
    for node in ast.walk(parsed(path)):
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package.split(".")[:len(package.split(".")) - (node.level - 1)]
                base = ".".join([*up, *([base] if base else [])])
            targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in known else base for a in node.names]
        else:
            continue
        for name in targets:
            while name and name not in known:  # `import bench.bench_llm.x`: the longest known prefix
                name = name.rpartition(".")[0]
            if name and name != here:
                found.add(name)
    return found


def _import_circles(root: Path, packages: tuple[str, ...]) -> list[list[str]]:
    """Every import circle among the modules of ``packages`` under ``root``: the strongly connected
    components of the import graph with more than one module (Tarjan's algorithm), each sorted."""
    files = {_module_name(root, p): p for package in packages for p in (root / package).rglob("*.py")}
    known = set(files)
    graph = {m: sorted(_imported_modules(root, p, known)) for m, p in files.items()}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    circles = []

    def visit(m: str) -> None:
        index[m] = low[m] = len(index)
        stack.append(m)
        on_stack.add(m)
        for n in graph[m]:
            if n not in index:
                visit(n)
                low[m] = min(low[m], low[n])
            elif n in on_stack:
                low[m] = min(low[m], index[n])
        if low[m] == index[m]:
            component = []
            while True:
                n = stack.pop()
                on_stack.discard(n)
                component.append(n)
                if n == m:
                    break
            if len(component) > 1:
                circles.append(sorted(component))

    for m in sorted(graph):
        if m not in index:
            visit(m)
    return sorted(circles)


def test_no_import_circle_in_the_library_or_among_the_scripts():
    # a circle makes a module's behaviour depend on which of its members Python imported first
    assert _import_circles(ROOT, ("rageval", *SCRIPT_PACKAGES)) == []


def test_the_circle_check_finds_a_circle_through_a_function_import(tmp_path):
    (tmp_path / "bench").mkdir()
    (tmp_path / "devtools").mkdir()
    (tmp_path / "bench" / "__init__.py").write_text("")
    (tmp_path / "devtools" / "__init__.py").write_text("")
    (tmp_path / "bench" / "a.py").write_text("from devtools.b import f\n")
    (tmp_path / "devtools" / "b.py").write_text("def f():\n    from bench import c\n")
    (tmp_path / "bench" / "c.py").write_text("from . import a\n")
    (tmp_path / "bench" / "d.py").write_text("import bench.a\n")  # imports into the circle, not part of it
    assert _import_circles(tmp_path, ("bench", "devtools")) == [["bench.a", "bench.c", "devtools.b"]]


def test_the_scripts_import_nothing_from_the_tests():
    # tests may use the scripts' helpers (devtools/); a script that needs a test's helper moves it there
    offenders = [str(p.relative_to(ROOT)) for p in _script_files() if "tests" in _top_level_imports(p)]
    assert offenders == []

def test_docstring_examples_run_once_from_pytest_ini():
    # pytest.ini collects every example of the library (--doctest-modules over rageval/); a test that
    # calls doctest.testmod as well runs them twice
    ini = (ROOT / "pytest.ini").read_text(encoding="utf-8")
    assert "--doctest-modules" in ini and re.search(r"^testpaths\s*=.*\brageval\b", ini, re.M)
    twice = [
        str(p.relative_to(ROOT))
        for p in (ROOT / "tests").rglob("*.py")
        if p.name != Path(__file__).name
        and re.search(r"\bdoctest\.(testmod|run_docstring_examples)\b", p.read_text(encoding="utf-8"))
    ]
    assert twice == []


def test_only_exceptions_are_named_error():
    # a record of what went wrong (a file not loaded, a row rejected) is returned, not raised: it is a
    # Problem, and a name ending in Error promises something that can be raised and caught
    named = []
    for path in (ROOT / "rageval").rglob("*.py"):
        for node in ast.walk(parsed(path)):
            if isinstance(node, ast.ClassDef) and node.name.endswith("Error"):
                bases = [ast.unparse(b).rsplit(".", 1)[-1] for b in node.bases]
                if not any(b.endswith(("Error", "Exception")) for b in bases):
                    named.append(f"{path.relative_to(ROOT)}: {node.name}")
    assert named == []

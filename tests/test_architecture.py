"""Layering: the library never imports streamlit; only rageval/llm/ imports openai; pages hold no SQL."""
import ast
import re
from pathlib import Path

from tests.source_trees import parsed

ROOT = Path(__file__).resolve().parents[1]


def _tree(source: str | Path) -> ast.Module:
    """A file's parsed source (read once per process), or a snippet's."""
    return parsed(source) if isinstance(source, Path) else ast.parse(source)


def _imports(path: Path) -> set[str]:
    tree = parsed(path)
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
    # rageval.config: the store reads a stored run's config typed (rageval.store.record.Run)
    allowed = {"rageval.store", "rageval.errors", "rageval.util", "rageval.settings", "rageval.config"}
    for path in (ROOT / "rageval" / "store").glob("*.py"):
        for name in _imports(path):
            if name.startswith("rageval"):
                assert any(name == a or name.startswith(a + ".") for a in allowed), (path.name, name)


def _page_files() -> list[Path]:
    """The pages (pages/*.py) and their parts (pages/parts/*.py), without package markers."""
    return sorted(p for p in (ROOT / "pages").rglob("*.py") if p.name != "__init__.py")


def test_pages_hold_no_sql():
    for path in _page_files() + [ROOT / "app.py"]:
        if path.exists():
            text = path.read_text(encoding="utf-8")
            assert not re.search(r"\bSELECT\b[^\n]*\bFROM\b|\bINSERT INTO\b|\.execute\(", text), path.name
            assert "duckdb" not in _imports(path) and "openai" not in _imports(path), path.name


#: DESIGN.md's layers, lowest first: a module may import its own layer or lower ones, never a
#: higher one. `index` sits with ingest (the ingest service writes the collection) and `demo`
#: with views (it builds a project through runs and human); see docs/architecture.md.
LAYERS = [
    {"types", "text", "prompts", "store", "errors", "util", "settings", "project", "config", "models", "files",
     "access"},
    {"ingest", "embed", "llm", "index"},
    {"judge", "generate", "claims", "aligncheck"},
    {"metrics"},
    {"stats", "human", "runs", "report", "scale", "gate", "testsets"},
    {"views", "demo"},
    {"cli", "__main__"},
]

#: the modules allowed at the library's root (DESIGN.md's tree): everything else lives in a package
ROOT_MODULES = {
    "__init__",
    "__main__",
    "cli",
    "config",
    "errors",
    "files",
    "index",
    "project",
    "settings",
    "types",
    "util",
}


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
        for node in ast.walk(parsed(path)):
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
    for path in _page_files() + [ROOT / "app.py"]:
        for name in _imports(path):
            if name == "rageval.store" or name.startswith("rageval.store."):
                wrong.append(f"{path.name} imports {name}")
    assert wrong == []


#: page helpers (pages/parts/ modules that are not the frame): the page they belong to, whose view they use
PAGE_HELPERS = {"answer_table": "answers", "answer_view": "answers", "answer_compare": "answers",
                "answer_claims": "answers", "run_parts": "run", "review_parts": "human_review", "qa_score": "qa_sets",
                "qa_generate": "qa_sets", "doc_repairs": "documents"}
#: the page frame: shared widgets and cached loaders (pages/parts/common.py, pages/parts/data.py) and app.py's shell
FRAME = {"common", "data", "app"}


def _page_keys() -> set[str]:
    """The pages app.py's navigation lists (pages/parts/common.py's PAGES), by file stem."""
    return {
        Path(p).stem for p in re.findall(r'"pages/(\w+)\.py"', (ROOT / "pages" / "parts" / "common.py").read_text())
    }


def test_pages_folder_holds_only_pages_and_their_parts_package():
    """Streamlit's navigation would list any module in pages/ as a page: helpers live in pages/parts/."""
    pages = _page_keys()
    assert {"home", "documents", "qa_sets", "run", "answers", "human_review", "correlations", "compare"} <= pages
    assert {p.stem for p in (ROOT / "pages").glob("*.py")} == pages
    assert {p.name for p in (ROOT / "pages").iterdir() if p.is_dir() and p.name != "__pycache__"} == {"parts"}
    parts = {p.stem for p in (ROOT / "pages" / "parts").glob("*.py")} - {"__init__"}
    assert parts == (set(PAGE_HELPERS) | FRAME) - {"app"}
    assert set(PAGE_HELPERS.values()) <= pages


def _rageval_imports(path: Path) -> set[str]:
    """Every rageval module ``path`` imports, at the top or in a function; ``from rageval.views import home``
    counts as ``rageval.views.home``."""
    names = set()
    for node in ast.walk(parsed(path)):
        if isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            if node.module in ("rageval", "rageval.views"):
                names.update(f"{node.module}.{a.name}" for a in node.names)
            else:
                names.add(node.module)
    return {n for n in names if n == "rageval" or n.startswith("rageval.")}


def _page_import_offences(name: str, imports: set[str], page_keys: set[str]) -> list[str]:
    """What a page-side module may import from rageval: a page (or a page's helper) its own view module
    ``rageval.views.<page>`` and ``rageval.errors``; the frame (common, data, app) ``rageval.views.*`` and
    ``rageval.errors``. Anything else (the store, the library's other packages, another page's view) is wrong."""
    if name in FRAME:
        allowed = lambda m: m == "rageval.errors" or m.startswith("rageval.views.")  # noqa: E731
    else:
        own = PAGE_HELPERS.get(name, name)
        if own not in page_keys:
            return [f"{name}.py is neither a page, a helper in PAGE_HELPERS nor the frame: add it"]
        allowed = lambda m: m in ("rageval.errors", f"rageval.views.{own}")  # noqa: E731
    return [f"{name} imports {m}" for m in sorted(imports) if not allowed(m)]


def test_each_page_imports_only_its_own_view_module():
    pages = _page_keys()
    wrong = []
    for path in _page_files() + [ROOT / "app.py"]:
        wrong += _page_import_offences(path.stem, _rageval_imports(path), pages)
    assert wrong == []
    for page in pages:  # one view module per page, in rageval/views/
        assert (ROOT / "rageval" / "views" / f"{page}.py").exists(), page


def test_pages_use_only_the_frame_and_their_own_helpers():
    """From pages/, a page (or helper) imports only the frame (common, data) and its own page's helpers,
    all from pages/parts/: never another page."""
    wrong = []
    for path in _page_files() + [ROOT / "app.py"]:
        own = PAGE_HELPERS.get(path.stem, path.stem)
        for name in _imports(path) | _from_pages(path):
            if name.startswith("pages") and name not in ("pages", "pages.parts"):
                other = name.removeprefix("pages.parts.")
                if other == name or (other not in FRAME and PAGE_HELPERS.get(other) != own):
                    wrong.append(f"{path.stem} imports {name}")
    assert wrong == []


def _from_pages(path: Path) -> set[str]:
    """The modules named in ``from pages import a`` or ``from pages.parts import b``, as dotted names."""
    return {f"{node.module}.{a.name}" for node in ast.walk(parsed(path))
            if isinstance(node, ast.ImportFrom) and node.module in ("pages", "pages.parts") for a in node.names}


def test_the_page_import_rule_catches_what_it_should():
    pages = {"answers", "run"}
    assert _page_import_offences("answers", {"rageval.views.answers", "rageval.errors"}, pages) == []
    assert _page_import_offences("answer_view", {"rageval.views.answers"}, pages) == []
    assert _page_import_offences("answers", {"rageval.store.runs"}, pages) == ["answers imports rageval.store.runs"]
    assert _page_import_offences("answers", {"rageval.views.run"}, pages) == ["answers imports rageval.views.run"]
    assert _page_import_offences("run_parts", {"rageval.report.meaning"}, pages) == [
        "run_parts imports rageval.report.meaning"]
    assert _page_import_offences("common", {"rageval.views.frame", "rageval.project"}, pages) == [
        "common imports rageval.project"]
    assert _page_import_offences("stray", set(), pages)


def test_pages_hold_no_figures():
    """Every Plotly figure is built in rageval/views/charts.py: nothing else imports plotly."""
    offenders = [str(p.relative_to(ROOT)) for p in _page_files() + _library_files()
                 + [ROOT / "app.py"] if p.name != "charts.py" and any(n.split(".")[0] == "plotly" for n in _imports(p))]
    assert offenders == []


def test_pages_stay_short():
    """Pages stay within 100 lines (STYLE.md: widgets and layout only), their helpers within 150."""
    long = {p.name: n for p in _page_files() if p.stem not in FRAME
            for n in [len(p.read_text(encoding="utf-8").splitlines())]
            if n > (150 if p.stem in PAGE_HELPERS else 100)}
    assert long == {}


#: the calls that open a model client (rageval/llm/client.py defines them); only the model session
#: (rageval/llm/session.py) makes them, so every caller gets the same preflight, concurrency and cache
CLIENT_OPENERS = {"make_llm_client", "LLMClient"}


def _opens_clients(source: str | Path) -> bool:
    """Whether ``source`` calls one of CLIENT_OPENERS (``make_llm_client(...)``, ``client.LLMClient(...)``)."""
    for node in ast.walk(_tree(source)):
        if isinstance(node, ast.Call):
            func = node.func
            name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None
            if name in CLIENT_OPENERS:
                return True
    return False


def test_only_the_model_session_opens_model_clients():
    openers = [str(p.relative_to(ROOT)) for p in _library_files()
               if p != ROOT / "rageval" / "llm" / "client.py" and _opens_clients(p)]
    assert openers == ["rageval/llm/session.py"]


def test_the_client_rule_catches_what_it_should():
    assert _opens_clients("from rageval.llm.client import make_llm_client\nc = make_llm_client({'judge': 'x'})")
    assert _opens_clients("from rageval.llm import client\nc = client.LLMClient({})")
    assert not _opens_clients("from rageval.llm.session import model_session\nwith model_session({}) as s:\n    s.llm")


def _prefix_tests(source: str | Path) -> list[str]:
    """``text.startswith("openai...")`` calls: a model spec read by its prefix instead of types.Spec."""
    return [ast.unparse(node) for node in ast.walk(_tree(source))
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "startswith"
            and node.args and isinstance(node.args[0], ast.Constant) and str(node.args[0].value).startswith("openai")]


def test_no_module_reads_a_model_spec_by_its_prefix():
    """Specs are parsed by types.Spec.parse; the judge reaches metrics resolved (types.Judge)."""
    found = {str(p.relative_to(ROOT)): _prefix_tests(p) for p in _library_files()}
    assert {path: calls for path, calls in found.items() if calls} == {}
    assert _prefix_tests('spec.startswith("openai:")') == ["spec.startswith('openai:')"]


def _spec_parses(source: str | Path) -> list[str]:
    """``Spec.parse(...)`` calls: a model spec read from its text."""
    return [ast.unparse(node) for node in ast.walk(_tree(source))
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "parse"
            and isinstance(node.func.value, ast.Name) and node.func.value.id == "Spec"]


#: where metrics and what they call meet the judge: they hold its Spec, resolved where the text entered
JUDGE_USERS = ("metrics", "judge", "claims", "aligncheck")


def test_metrics_receive_the_judge_resolved():
    """A judge text is parsed once, where it enters (metrics.base.get_metric, the configs, the model
    session); the metrics, their signatures and the judge plumbing only read the Spec."""
    found = {str(p.relative_to(ROOT)): calls for package in JUDGE_USERS
             for p in sorted((ROOT / "rageval" / package).rglob("*.py"))
             for calls in [_spec_parses(p)] if calls}
    assert list(found) == ["rageval/metrics/base.py"]  # get_metric's judge_spec and parse_metric_list
    assert _spec_parses('from rageval.types import Spec\nSpec.parse("judge", text).model') == [
        "Spec.parse('judge', text)"
    ]


def _run_dict_reads(source: str | Path) -> list[str]:
    """Reads of a stored run as a dict: a string subscript or ``.get("...")`` of a name that says it
    holds a run (``run``, ``*_run``: ``run["status"]``, ``ctx.run["kind"]``, ``base_run.get("id")``) and
    any ``["config"]`` / ``.get("config")`` (a stored config read with its own defaults). A run is a
    typed record (rageval.store.record.Run) read by attribute, its config a RunConfig or ImportConfig."""

    def names_a_run(node: ast.AST) -> bool:
        name = node.id if isinstance(node, ast.Name) else node.attr if isinstance(node, ast.Attribute) else ""
        return name == "run" or name.endswith("_run")

    found = []
    for node in ast.walk(_tree(source)):
        if isinstance(node, ast.Subscript):
            target, key = node.value, node.slice
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get"
              and node.args):
            target, key = node.func.value, node.args[0]
        else:
            continue
        if (
            isinstance(key, ast.Constant)
            and isinstance(key.value, str)
            and (names_a_run(target) or key.value == "config")
        ):
            found.append(ast.unparse(node))
    return found


def test_no_stored_run_is_read_as_a_dict():
    found = {str(p.relative_to(ROOT)): reads for p in [*_library_files(), *_page_files()]
             for reads in [_run_dict_reads(p)] if reads}
    assert found == {}


def test_the_run_dict_rule_catches_what_it_should():
    caught = _run_dict_reads('run["status"]\nctx.run["kind"]\nbase_run.get("id")\nr["config"].get("judge")\n'
                             'r.get("config", {})\nrow["config"]')
    assert sorted(caught) == sorted(["run['status']", "ctx.run['kind']", "base_run.get('id')", "r['config']",
                                     "r.get('config', {})", "row['config']"])
    assert _run_dict_reads('run.status\nrun.config.judge\nitem["id"]\nrows["run"]\nrunner["x"]\nrun[0]') == []


#: the longest a library module may be (STYLE.md: a longer one is two modules), and the CLI package's
MAX_LINES, MAX_CLI_LINES = 400, 300
#: library files over MAX_LINES that hold data tables only (none today)
DATA_TABLES: set[str] = set()


def _long_files(paths, limit: int) -> dict[str, int]:
    return {str(p.relative_to(ROOT)): n for p in paths
            for n in [len(p.read_text(encoding="utf-8").splitlines())] if n > limit}


def test_no_library_file_over_400_lines_except_data_tables():
    long = _long_files(_library_files(), MAX_LINES)
    assert {path: n for path, n in long.items() if path not in DATA_TABLES} == {}


def test_no_cli_module_over_300_lines():
    assert _long_files(sorted((ROOT / "rageval" / "cli").glob("*.py")), MAX_CLI_LINES) == {}

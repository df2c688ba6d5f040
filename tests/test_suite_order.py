"""The suite's order under pytest-xdist (tests/conftest.py): each test process's first block opens
with its share of the long modules, every test is kept once, a long module's tests stay together
and the other tests keep their collected order."""
from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

from tests.conftest import LONG_MODULES, long_first_blocks


def _items(spec: dict[str, int]) -> list:
    return [SimpleNamespace(path=Path("tests") / module, n=i) for module, count in spec.items() for i in range(count)]


def _blocks(items: list, workers: int) -> list[list]:
    """The blocks worksteal hands out first: the i-th takes remaining // (workers - i) items."""
    out, rest = [], list(items)
    for i in range(workers):
        size = len(rest) // (workers - i)
        out.append(rest[:size])
        rest = rest[size:]
    return out


def test_each_process_starts_on_its_share_of_the_long_modules_and_no_test_is_lost():
    spec = {"test_a.py": 300, "test_browser.py": 5, "test_b.py": 200, "test_scale_ray.py": 3,
            "test_ray_cleanup.py": 1, "test_c.py": 400, "test_kill_resume.py": 2}
    items = _items(spec)
    ordered = long_first_blocks(items, 2)
    assert sorted(map(id, ordered)) == sorted(map(id, items))
    first, second = _blocks(ordered, 2)
    longs = [{i.path.name for i in block if i.path.name in LONG_MODULES} for block in (first, second)]
    assert longs[0] and longs[1] and not longs[0] & longs[1]  # shared, each module in one block
    for block, names in zip((first, second), longs):
        n_long = sum(1 for i in block if i.path.name in LONG_MODULES)
        assert {i.path.name for i in block[:n_long]} == names  # the block opens with them
    for module in LONG_MODULES.keys() & spec.keys():  # a long module's tests together, in order
        at = [k for k, i in enumerate(ordered) if i.path.name == module]
        assert at == list(range(at[0], at[0] + spec[module]))
    others = [i for i in ordered if i.path.name not in LONG_MODULES]  # the rest in collected order
    assert others == [i for i in items if i.path.name not in LONG_MODULES]
    for module in spec:
        assert [i.n for i in ordered if i.path.name == module] == list(range(spec[module]))


def test_one_process_runs_the_long_modules_first():
    ordered = long_first_blocks(_items({"test_a.py": 3, "test_browser.py": 2, "test_pipeline.py": 1}), 1)
    assert [i.path.name for i in ordered[:3]] == ["test_browser.py", "test_browser.py", "test_pipeline.py"]

"""Write the demo's shipped snapshot (rageval/demo/snapshot/): build the demo from nothing in a
temporary home, then copy its tables out (rageval.demo.snapshot).

    python -m devtools.demo_snapshot
"""
from __future__ import annotations

import os
import tempfile


def main() -> None:
    with tempfile.TemporaryDirectory() as home:
        os.environ["RAGEVAL_HOME"] = home
        from rageval.config import RunConfig
        from rageval.demo import DEMO_CORPUS, DEMO_QA, load_demo
        from rageval.demo.snapshot import snapshot_dir, write_snapshot
        from rageval.project import open_project

        load_demo(force=True)  # force: from nothing, never from the snapshot being replaced
        manifest = write_snapshot(open_project("demo"), RunConfig(corpus=DEMO_CORPUS, qa_set=DEMO_QA))
        size = sum(f.stat().st_size for f in snapshot_dir().iterdir())
        print(f"wrote {snapshot_dir()} ({size / 1024:.0f} KiB): {manifest['rows']}")


if __name__ == "__main__":
    main()

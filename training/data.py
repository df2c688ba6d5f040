"""Where the training and validation scripts read the public data sets, and how.

``DATA`` is the folder named by the environment variable ``RAGEVAL_DATA`` when it is set, else the
folder ``datasets/`` of the checkout (git-ignored). The data sets are not part of the repository; each
script names the files it reads under ``DATA`` (``squality/stories.jsonl.gz``, ``evouna/items.jsonl.gz``, ...).
"""
from __future__ import annotations

import gzip
import json
import os
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def data_root() -> Path:
    """``$RAGEVAL_DATA``, else ``datasets/`` in the checkout (where the data sets may be copied)."""
    if os.environ.get("RAGEVAL_DATA"):
        return Path(os.environ["RAGEVAL_DATA"])
    return ROOT / "datasets"


DATA = data_root()


def snapshot_file(mirror: Path, repo: str, path: str, rev: str = "HEAD", missing_ok: bool = False) -> bytes | None:
    """A file of a fetched repository snapshot (``MIRROR/<owner>+<name>/repo``, a bare git
    directory) at ``rev``; None when ``missing_ok`` and the snapshot does not hold it (its largest
    files are listed but absent), else a CalledProcessError."""
    proc = subprocess.run(["git", f"--git-dir={mirror / repo / 'repo'}", "show", f"{rev}:{path}"], capture_output=True)
    if proc.returncode and missing_ok:
        return None
    proc.check_returncode()
    return proc.stdout


def snapshot_names(mirror: Path, repo: str, folder: str, rev: str = "HEAD") -> list[str]:
    """The paths of the files directly in ``folder/`` of a fetched repository snapshot at ``rev``."""
    return subprocess.run(["git", f"--git-dir={mirror / repo / 'repo'}", "ls-tree", "--name-only", rev, f"{folder}/"],
                          check=True, capture_output=True).stdout.decode().split()


def read_jsonl(path: Path) -> list[dict]:
    """The JSON objects of a JSON-lines file, gzip-compressed when its name ends in ``.gz``; blank lines skipped."""
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def nq301() -> list[dict]:
    rows = read_jsonl(DATA / "openqa-eval-nq301" / "items.jsonl")
    return [{**r, "group": r["question_id"], "label": r["human"]} for r in rows]


def evouna(part: str) -> list[dict]:
    """EVOUNA rows of one part: "nq" (reported) or "tq" (used to train the correctness model)."""
    rows = read_jsonl(DATA / "evouna" / "items.jsonl.gz")
    return [
        {**r, "group": f"{r['dataset']}-{r['source_index']}", "label": r["human"]} for r in rows if r["dataset"] == part
    ]

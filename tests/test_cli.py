"""The CLI: exit codes 0 / 1 / 2, JSON output, and an end-to-end run on small data."""
import json
import subprocess
import sys

import pandas as pd
import pytest

from rageval.cli import main
from devtools.projects import QA, write_docs


@pytest.fixture()
def home(tmp_path, monkeypatch):
    monkeypatch.setenv("RAGEVAL_HOME", str(tmp_path / "home"))
    return tmp_path


def _json(capsys):
    return json.loads(capsys.readouterr().out)


def test_ingest_folder_with_corrupt_pdf_keeps_good_files_and_exits_1(home, capsys):
    folder = write_docs(home / "docs")
    (folder / "broken.pdf").write_bytes(b"%PDF-1.4\n this is not really a pdf")
    assert main(["ingest", str(folder), "--corpus", "c", "--json"]) == 1
    out = _json(capsys)
    assert sorted(d["name"] for d in out["documents"]) == ["tea.md", "trains.txt", "volcanoes.txt"]
    assert [e["name"] for e in out["errors"]] == ["broken.pdf"]
    assert out["errors"][0]["reason"]
    # the same files again: idempotent, nothing new, still exit 1 for the broken one
    assert main(["ingest", str(folder), "--corpus", "c", "--json"]) == 1
    assert not any(d["new"] for d in _json(capsys)["documents"])


def test_usage_errors_exit_2(home, capsys):
    with pytest.raises(SystemExit) as exc:
        main(["ingest", "--corpus", "c"])  # no PATH
    assert exc.value.code == 2
    assert main(["ingest", str(write_docs(home / "d")), "--corpus", "c", "--chunk-size", "100",
                 "--chunk-overlap", "200"]) == 2
    assert "must be smaller" in capsys.readouterr().err
    assert main(["run", "--corpus", "c"]) == 2
    assert main(["run", "--corpus", "c", "--qa", "x", "--generator", "gpt"]) == 2
    assert main(["export", "--run", "nope"]) == 2


def test_end_to_end_ingest_import_run_export(home, capsys):
    assert main(["ingest", str(write_docs(home / "docs")), "--corpus", "c", "--json"]) == 0
    capsys.readouterr()
    qa_file = home / "qa.jsonl"
    qa_file.write_text("".join(json.dumps(r) + "\n" for r in QA) + "{broken\n", encoding="utf-8")
    assert main(["qa", "import", str(qa_file), "--name", "qa", "--json"]) == 1  # one bad row
    out = _json(capsys)
    assert out["items"] == 5 and out["errors"] == [{"row": 6, "line": 6, "reason": out["errors"][0]["reason"]}]
    assert main(["run", "--corpus", "c", "--qa", "qa", "--top-k", "3", "--metrics", "exact_match,token_f1",
                 "--json"]) == 0
    run_id = _json(capsys)["run_id"]
    assert main(["runs", "--json"]) == 0
    runs = _json(capsys)["runs"]
    assert runs[0]["id"] == run_id and runs[0]["done"] == 5 and runs[0]["status"] == "finished"
    assert main(["export", "--run", run_id, "--format", "jsonl"]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [r["id"] for r in rows] == ["q1", "q2", "q3", "q4", "q5"]
    assert {"question", "reference", "answer", "retrieved_ids", "exact_match", "token_f1"} <= set(rows[0])
    parquet = home / "run.parquet"
    assert main(["export", "--run", run_id, "--format", "parquet", "--out", str(parquet)]) == 0
    assert len(pd.read_parquet(parquet)) == 5
    assert main(["run", "--resume", run_id, "--json"]) == 0  # nothing left to do: same items, no duplicates
    assert _json(capsys)["done"] == 5


def test_module_entry_point_help():
    proc = subprocess.run([sys.executable, "-m", "rageval", "--help"], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0
    for command in ("ingest", "qa", "run", "runs", "export", "score", "demo"):
        assert command in proc.stdout


def test_run_dry_run_estimates_without_running(home, capsys):
    assert main(["ingest", str(write_docs(home / "docs")), "--corpus", "c"]) == 0
    qa_file = home / "qa.jsonl"
    qa_file.write_text("".join(json.dumps(r) + "\n" for r in QA), encoding="utf-8")
    assert main(["qa", "import", str(qa_file), "--name", "qa"]) == 0
    capsys.readouterr()
    assert main(["run", "--corpus", "c", "--qa", "qa", "--dry-run", "--json"]) == 0
    assert _json(capsys) == {"calls": 0}
    assert main(["run", "--corpus", "c", "--qa", "qa", "--generator", "openai:gpt-4o-mini", "--judge",
                 "openai:gpt-4o-mini", "--metrics", "faithfulness,token_f1", "--dry-run", "--json"]) == 0
    est = _json(capsys)
    assert est["calls"] >= 5 * 2 and est["tokens_in"] > 0 and est["cost_usd"] > 0
    assert main(["runs", "--json"]) == 0 and _json(capsys)["runs"] == []  # nothing ran

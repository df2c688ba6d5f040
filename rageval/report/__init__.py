"""Reports of runs: exports (JSONL, CSV, Parquet, RAGAS format), the one-page HTML report, and
the read models the app's pages show (leaderboard, metric meaning, applicability)."""
from rageval.report.exports import FORMATS, export_run, ragas_rows, run_table, table_csv, to_text  # noqa: F401
from rageval.report.html import run_report_html  # noqa: F401

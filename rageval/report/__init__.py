"""Reports of runs: exports (:mod:`rageval.report.exports`: JSONL, CSV, Parquet, RAGAS format), the
one-page HTML report (:mod:`rageval.report.html`), and the read models the app's pages show
(leaderboard, metric meaning, applicability). Import the module you need: this package imports
nothing itself, so ``score --out`` (which writes through :mod:`rageval.report.score_out`) does not
load pandas."""

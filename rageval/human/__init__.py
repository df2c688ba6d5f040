"""Human evaluation and meta-evaluation: ratings in and out, consensus, agreement, the human
ceiling, correlation analyses stored in DuckDB, and comparisons of runs with a verdict."""
from rageval.human.analysis import CEILING, Analysis, correlate_runs, list_analyses, metric_vs_metric, open_analysis
from rageval.human.compare import Comparison, compare_runs, score_table
from rageval.human.consensus import CONSENSUS, agreement_of, combine, consensus, human_ceiling, ratings_frame
from rageval.human.frame import GROUPINGS, agreement, build_frame, metric_columns, shared_metric_columns
from rageval.human.ratings import LABELS, RatingsImport, export_ratings, import_ratings, parse_rating, rate
from rageval.store.human import set_agreed as _set_agreed


def set_agreed(project, run_id: str, item_id: str, score: float | None, note: str | None = None) -> None:
    """Set (``score`` 1-5) or clear (``None``) the agreed score that overrides an answer's consensus."""
    if score is not None:
        score = float(score)
        if not 1 <= score <= 5:
            from rageval.errors import ConfigError

            raise ConfigError(f"agreed score {score:g} is out of range: 1-5")
    from rageval.access import acting

    with acting(project, "rate", "agreed_score", f"{run_id}/{item_id}", score=score, note=note):
        _set_agreed(project.db_path, run_id, item_id, score, note)


__all__ = ["CEILING", "CONSENSUS", "GROUPINGS", "LABELS", "Analysis", "Comparison", "RatingsImport", "agreement",
           "agreement_of", "build_frame", "combine", "compare_runs", "consensus", "correlate_runs", "export_ratings",
           "human_ceiling", "import_ratings", "list_analyses", "metric_columns", "metric_vs_metric", "open_analysis",
           "parse_rating", "rate", "ratings_frame", "score_table", "set_agreed", "shared_metric_columns"]

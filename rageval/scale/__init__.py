"""Scoring beyond one process: the engine-neutral unit of work and the Ray Data engine.

- :mod:`rageval.scale.unit`: a pure, deterministic function from a batch of answer rows to a
  table of scores (what ``score`` runs, in one process or in any engine's workers);
- :mod:`rageval.scale.parts`: deterministic parts of the input, Parquet parts out, the
  ``_SUCCESS`` manifest (what makes a run resumable);
- :mod:`rageval.scale.ray_engine`: ``score --engine ray`` (Ray is imported only there);
- :mod:`rageval.scale.imports`: scored rows back into a project as an import run.
"""

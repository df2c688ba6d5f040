"""The scoring unit every stored score goes through, in one process or in any engine's workers.

- :mod:`rageval.scoring.unit`: a pure, deterministic function from a batch of answer rows to a
  table of scores (what ``score`` runs, in one process or in an engine's workers);
- :mod:`rageval.scoring.parallel`: the offline metrics on every core (worker processes, one machine);
- :mod:`rageval.scoring.records`: the score rows, signatures and claim rows a project stores;
- :mod:`rageval.scoring.parts`: deterministic parts of the input, Parquet parts out, the
  ``_SUCCESS`` manifest (what makes a run resumable);
- :mod:`rageval.scoring.imports`: scored rows back into a project as an import run.

Engines beyond one process (Ray) live in :mod:`rageval.scale` and call this unit.
"""

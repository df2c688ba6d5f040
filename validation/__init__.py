"""How far the metrics agree with human labels: one script per family, run from the repository root
as ``python -m validation.<name>``; each writes its marked section of docs/validation.md (the learned
claim verifiers of training/: training/VALIDATION.md). Not part of the installed package."""

"""Speed benchmarks: each module is a script, run from the repository root as ``python -m bench.<name>``
(figures and commands in docs/benchmarks.md). Not part of the installed package."""

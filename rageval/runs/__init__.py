"""Runs: start, execute, resume and estimate a run; score answers brought from elsewhere; worker processes."""

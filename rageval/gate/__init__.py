"""The CI gate behind ``rageval check``: scores of a run or a scored file against thresholds and a
baseline, with JUnit XML and Markdown summaries (see :mod:`rageval.gate.check`). Only sound
numbers are read (:mod:`rageval.metrics.ranges`); files are streamed by :mod:`rageval.gate.read`."""
from rageval.gate.check import Check, GateResult, parse_thresholds, run_gate
from rageval.gate.scores import CLAIM_GATE_METRICS, ScoreSet, from_file, from_run, load
from rageval.gate.summary import junit_xml, markdown, text

__all__ = [
    "CLAIM_GATE_METRICS",
    "Check",
    "GateResult",
    "ScoreSet",
    "from_file",
    "from_run",
    "junit_xml",
    "load",
    "markdown",
    "parse_thresholds",
    "run_gate",
    "text",
]

"""Summaries of a CI gate for CI systems: JUnit XML (one test case per check), Markdown (a table for
a pull-request comment or ``$GITHUB_STEP_SUMMARY``) and plain text for a terminal or CI log.

Every text in them that came from data (metric names, file names, statuses, reasons) is made safe
for where it is read (:mod:`rageval.text.hygiene`): XML without the characters XML 1.0 forbids, so
the report always parses; Markdown cells with HTML, links and images escaped, so nothing is run or
fetched; terminal text without escape sequences. The values the gate rejected are listed in each,
the first :data:`LISTED` in text and Markdown (all of them in ``--json`` and JUnit, up to
:data:`rageval.metrics.ranges.MAX_LISTED`).
"""
from __future__ import annotations

from xml.etree import ElementTree as ET

from rageval.gate.check import GateResult
from rageval.metrics.ranges import MAX_LISTED
from rageval.text.hygiene import markdown_cell, terminal_safe, xml_text

LISTED = 20


def junit_xml(result: GateResult) -> str:
    """``<testsuites><testsuite name="rageval check" tests=N failures=F>`` with one ``<testcase>``
    per check; a failed check carries ``<failure message=...>`` with the reason; the rejected values
    are the suite's ``<system-err>``, one per line."""
    x = xml_text
    suites = ET.Element("testsuites", name="rageval")
    suite = ET.SubElement(suites, "testsuite", name="rageval check", tests=str(len(result.checks)),
                          failures=str(len(result.failed)), errors="0", skipped="0")
    props = ET.SubElement(suite, "properties")
    ET.SubElement(props, "property", name="target", value=x(result.target))
    if result.baseline:
        ET.SubElement(props, "property", name="baseline", value=x(result.baseline))
    ET.SubElement(props, "property", name="rejected", value=str(len(result.rejected)))
    for c in result.checks:
        case = ET.SubElement(suite, "testcase", classname=x(f"rageval.{c.metric}"), name=x(c.name))
        if c.passed:
            ET.SubElement(case, "system-out").text = x(c.message)
        else:
            failure = ET.SubElement(case, "failure", message=x(c.message), type="GateFailure")
            failure.text = x(c.message)
    if result.rejected:
        ET.SubElement(suite, "system-err").text = "\n".join(
            x(f"rejected: {r}") for r in result.rejected[:MAX_LISTED])
    ET.indent(suites)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(suites, encoding="unicode") + "\n"


def markdown(result: GateResult) -> str:
    """A heading with the verdict, then a table: check, result, why; then the rejected values."""
    c_ = markdown_cell
    head = "passed" if result.passed else f"failed ({len(result.failed)} of {len(result.checks)} checks)"
    lines = [f"### rageval check: {head}", "",
             f"Scores: {c_(result.target)}" + (f" · baseline: {c_(result.baseline)}" if result.baseline else ""),
             "", "| check | result | why |", "|---|---|---|"]
    lines += [f"| {c_(c.name)} | {'✅ pass' if c.passed else '❌ fail'} | {c_(c.message)} |" for c in result.checks]
    if result.rejected:
        lines += ["", f"{len(result.rejected)} value(s) rejected (counted as unscored):", "",
                  "| where | id | metric | why |", "|---|---|---|---|"]
        lines += [f"| {c_(r.where)} | {c_(r.id or '')} | {c_(r.metric or 'whole row')} | {c_(r.reason)} |"
                  for r in result.rejected[:LISTED]]
        if len(result.rejected) > LISTED:
            lines.append(f"\n… and {len(result.rejected) - LISTED} more (see `rageval check --json`)")
    return "\n".join(lines) + "\n"


def text(result: GateResult) -> str:
    """Plain lines for a terminal: the rejected values, one per check, then the verdict."""
    lines = [f"REJECTED {r}; counted as unscored" for r in result.rejected[:LISTED]]
    if len(result.rejected) > LISTED:
        lines.append(f"... and {len(result.rejected) - LISTED} more rejected value(s) (see --json)")
    lines += [f"{'PASS' if c.passed else 'FAIL'}  {c.name}: {c.message}" for c in result.checks]
    lines.append(f"gate {'passed' if result.passed else 'FAILED'}: {len(result.checks) - len(result.failed)} of "
                 f"{len(result.checks)} checks passed ({result.target}"
                 + (f" against {result.baseline})" if result.baseline else ")"))
    return terminal_safe("\n".join(lines))

"""Summaries of a CI gate for CI systems: JUnit XML (one test case per check) and Markdown (a
table for a pull-request comment or ``$GITHUB_STEP_SUMMARY``)."""
from __future__ import annotations

from xml.etree import ElementTree as ET

from rageval.gate.check import GateResult


def junit_xml(result: GateResult) -> str:
    """``<testsuites><testsuite name="rageval check" tests=N failures=F>`` with one ``<testcase>``
    per check; a failed check carries ``<failure message=...>`` with the reason."""
    suites = ET.Element("testsuites", name="rageval")
    suite = ET.SubElement(suites, "testsuite", name="rageval check", tests=str(len(result.checks)),
                          failures=str(len(result.failed)), errors="0", skipped="0")
    props = ET.SubElement(suite, "properties")
    ET.SubElement(props, "property", name="target", value=result.target)
    if result.baseline:
        ET.SubElement(props, "property", name="baseline", value=result.baseline)
    for c in result.checks:
        case = ET.SubElement(suite, "testcase", classname=f"rageval.{c.metric}", name=c.name)
        if c.passed:
            ET.SubElement(case, "system-out").text = c.message
        else:
            failure = ET.SubElement(case, "failure", message=c.message, type="GateFailure")
            failure.text = c.message
    ET.indent(suites)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(suites, encoding="unicode") + "\n"


def _cell(text: str) -> str:
    return " ".join(str(text).split()).replace("|", "\\|")


def markdown(result: GateResult) -> str:
    """A heading with the verdict, then a table: check, result, why."""
    head = "passed" if result.passed else f"failed ({len(result.failed)} of {len(result.checks)} checks)"
    lines = [f"### rageval check: {head}", "",
             f"Scores: {_cell(result.target)}" + (f" · baseline: {_cell(result.baseline)}" if result.baseline else ""),
             "", "| check | result | why |", "|---|---|---|"]
    lines += [f"| {_cell(c.name)} | {'✅ pass' if c.passed else '❌ fail'} | {_cell(c.message)} |" for c in result.checks]
    return "\n".join(lines) + "\n"


def text(result: GateResult) -> str:
    """Plain lines for a terminal: one per check, then the verdict."""
    lines = [f"{'PASS' if c.passed else 'FAIL'}  {c.name}: {c.message}" for c in result.checks]
    lines.append(f"gate {'passed' if result.passed else 'FAILED'}: {len(result.checks) - len(result.failed)} of "
                 f"{len(result.checks)} checks passed ({result.target}"
                 + (f" against {result.baseline})" if result.baseline else ")"))
    return "\n".join(lines)

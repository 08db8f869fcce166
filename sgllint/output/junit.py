"""``junit``: JUnit XML, one ``<testsuite>`` per file and one failing
``<testcase>`` per finding (``name`` = code and position, ``classname`` =
path), which CI test reporters (GitLab, Azure, Jenkins) display. Every
finding is listed; text from the tree goes through `visible`, which leaves
no character XML 1.0 forbids."""

from __future__ import annotations

from itertools import groupby
from typing import Sequence
from xml.etree import ElementTree as ET

from sgllint.model.diagnostic import Diagnostic
from sgllint.output.positions import one_based
from sgllint.output.text import visible


def render(diagnostics: Sequence[Diagnostic]) -> str:
    # ruff's shape: a clean run is one passing case, and `tests` counts the
    # test cases written (a clean run is tests="1", not "0")
    root = ET.Element("testsuites", name="sgllint", tests=str(len(diagnostics) or 1), failures=str(len(diagnostics)), errors="0")
    if not diagnostics:
        suite = ET.SubElement(root, "testsuite", name="sgllint", tests="1", failures="0", errors="0", skipped="0")
        ET.SubElement(suite, "testcase", name="No errors found", classname="sgllint")
    for raw_path, group in groupby(sorted(diagnostics, key=Diagnostic.sort_key), key=lambda d: d.path):
        items = list(group)
        path = visible(raw_path)
        suite = ET.SubElement(root, "testsuite", name=path, tests=str(len(items)), failures=str(len(items)), errors="0", skipped="0")
        for d in items:
            ln, col, _, _ = one_based(d.span)
            case = ET.SubElement(suite, "testcase", name=f"{d.code} {d.name} at {ln}:{col}", classname=path, file=path, line=str(ln))
            message = visible(d.message)
            failure = ET.SubElement(case, "failure", message=message, type=d.severity.value)
            body = f"{path}:{ln}:{col}: {d.code} {message} [{d.name}]"
            if d.help:
                body += f"\nhelp: {visible(d.help)}"
            failure.text = body
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"

"""Feedback that shows the result of the hidden tests, not their code.

nbgrader's feedback is the autograded notebook as HTML, so by default it shows each test cell
whole, hidden tests included, and a failing hidden assert's traceback quotes its line. This
preprocessor, run by ``nbgrader generate_feedback`` (the course's ``nbgrader_config.py`` adds it),
replaces each hidden region with one line, and each error output of a test cell with its message
alone (the checks' messages say what was expected in words, never the value).
"""

from __future__ import annotations

from typing import Any

from nbconvert.preprocessors import Preprocessor
from traitlets import Bool

BEGIN, END = "BEGIN HIDDEN TESTS", "END HIDDEN TESTS"  # matched anywhere in a line, as nbgrader does
HIDDEN_NOTE = "# (hidden tests ran here; their result is below)"


def hide_hidden_tests(source: str) -> str:
    """``source`` with every hidden-tests region replaced by one comment line.

    >>> print(hide_hidden_tests("check(x)\\n### BEGIN HIDDEN TESTS\\nassert x == 12\\n### END HIDDEN TESTS"))
    check(x)
    # (hidden tests ran here; their result is below)
    """
    out, hidden = [], False
    for line in source.split("\n"):
        if BEGIN in line:
            if not hidden:
                out.append(line[: len(line) - len(line.lstrip())] + HIDDEN_NOTE)
            hidden = True
        elif END in line:
            hidden = False
        elif not hidden:
            out.append(line)
    return "\n".join(out)


class HideHiddenTests(Preprocessor):
    """For test cells (nbgrader ``grade`` without ``solution``): hidden regions out of the source,
    tracebacks out of the errors (their message stays)."""

    enabled = Bool(True, help="nbconvert runs a preprocessor only when it is enabled").tag(config=True)

    def preprocess_cell(self, cell: Any, resources: dict, index: int) -> tuple[Any, dict]:
        meta = cell.get("metadata", {}).get("nbgrader", {})
        if cell.cell_type == "code" and meta.get("grade") and not meta.get("solution"):
            cell.source = hide_hidden_tests(cell.source)
            for output in cell.get("outputs", []):
                if output.get("output_type") == "error":
                    output["traceback"] = [f"{output.get('ename', 'Error')}: {output.get('evalue', '')}"]
        return cell, resources

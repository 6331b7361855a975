"""Feedback that shows the result of the hidden tests, not their code, and no markup of the student's.

nbgrader's feedback is the autograded notebook as HTML, so by default it shows each test cell
whole, hidden tests included, and a failing hidden assert's traceback quotes its line. This
preprocessor, run by ``nbgrader generate_feedback`` (the course's ``nbgrader_config.py`` adds it),
replaces each hidden region with one line, and each error output of a test cell with its message
alone (the checks' messages say what was expected in words, never the value).

A student's notebook is also shown to people: the autograded notebook to the grader (formgrader,
JupyterLab) and the feedback page to the student and whoever they send it to. Markup from the
student (an ``HTML`` display that runs a script, an SVG with an ``onload``, a Markdown cell with a
``<script>``, image metadata that nbconvert writes into an ``<img>`` tag) must not run there. So
``safe_outputs`` keeps of each output what is shown as text or as a plain PNG/JPEG picture, and
``safe_markdown`` escapes the HTML of Markdown and raw cells, as nbconvert's ``SanitizeHTML`` does;
both run when the notebook is graded (``judge.JudgeOutside``) and again here.
"""

from __future__ import annotations

import re
from typing import Any

from nbconvert.preprocessors import Preprocessor
from traitlets import Bool

BEGIN, END = "BEGIN HIDDEN TESTS", "END HIDDEN TESTS"  # matched anywhere in a line, as nbgrader does
HIDDEN_NOTE = "# (hidden tests ran here; their result is below)"
SHOWN_AS_IS = ("text/plain",)
PICTURES = ("image/png", "image/jpeg")
BASE64 = re.compile(r"[A-Za-z0-9+/=\s]*")


def safe_outputs(outputs: list) -> list:
    """``outputs`` with nothing that a notebook viewer or nbconvert would run or write as markup:
    of a display or result, its text and its PNG/JPEG picture (when it is plain base64), no metadata;
    a display that had only markup says so in text.

    >>> safe_outputs([{"output_type": "display_data", "metadata": {"image/png": {"width": "1 onerror=x"}},
    ...                "data": {"text/html": "<script>x()</script>", "image/png": "iVBO"}}])
    [{'output_type': 'display_data', 'metadata': {}, 'data': {'image/png': 'iVBO'}}]
    >>> safe_outputs([{"output_type": "display_data", "metadata": {}, "data": {"application/javascript": "x()"}}]
    ...              )[0]["data"]["text/plain"]
    '[an application/javascript output, not kept]'
    """
    kept = []
    for output in outputs:
        if output.get("output_type") not in ("display_data", "execute_result"):
            kept.append(output)
            continue
        data = output.get("data", {})
        safe = {k: v for k, v in data.items() if k in SHOWN_AS_IS and isinstance(v, str)}
        safe |= {k: v for k, v in data.items() if k in PICTURES and isinstance(v, str) and BASE64.fullmatch(v)}
        if not safe:
            safe = {"text/plain": f"[an {', '.join(sorted(data)) or 'empty'} output, not kept]"}
        output["data"], output["metadata"] = type(data)(safe), type(data)()
        kept.append(output)
    return kept


SAFE_SCHEMES = ("http", "https", "mailto", "attachment")
# a Markdown link or image target: [text](target ...), ![alt](<target>), and [id]: target definitions
TARGET = re.compile(r"(\]\(\s*<?)([^\s)>]*)|^(\s{0,3}\[[^\]]+\]:\s*<?)(\S+)", re.M)


def safe_target(target: str) -> str:
    """A link's ``target`` if a browser would not run it: relative, ``#``, or http(s), mailto,
    a cell attachment or an image's ``data:``; else ``#``. Read as the browser reads it (entities
    decoded, whitespace and control characters dropped), so ``jav&#x61;script:`` is caught too.

    >>> [safe_target(t) for t in ("https://pytorch.org", "#top", "a.png", "jav&#x61;script:x()", "java\tscript:x")]
    ['https://pytorch.org', '#top', 'a.png', '#', '#']
    """
    import html

    seen = re.sub(r"[\x00-\x20\x7f]", "", html.unescape(html.unescape(target))).lower().lstrip("<")
    scheme = re.match(r"([a-z][a-z0-9+.-]*):", seen)
    if scheme is None or scheme.group(1) in SAFE_SCHEMES or seen.startswith("data:image/"):
        return target
    return "#"


def safe_markdown(source: str) -> str:
    """A Markdown or raw cell's ``source`` with its HTML escaped but for nbconvert's safe tags, and
    every link or image target that a browser would run (``javascript:`` and the like) made ``#``.

    >>> safe_markdown("**fine** <script>alert(1)</script> <b>bold</b> [click](javascript:alert(1))")
    '**fine** &lt;script&gt;alert(1)&lt;/script&gt; <b>bold</b> [click](#))'
    """
    from nbconvert.preprocessors.sanitize import SanitizeHTML

    def fix(match: re.Match) -> str:
        if match.group(1) is not None:
            return match.group(1) + safe_target(match.group(2))
        return match.group(3) + safe_target(match.group(4))

    return TARGET.sub(fix, SanitizeHTML().sanitize_html_tags(source))


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
    tracebacks out of the errors (their message stays). For every cell: no markup (the module)."""

    enabled = Bool(True, help="nbconvert runs a preprocessor only when it is enabled").tag(config=True)

    def preprocess_cell(self, cell: Any, resources: dict, index: int) -> tuple[Any, dict]:
        if cell.cell_type in ("markdown", "raw"):
            cell.source = safe_markdown(cell.source)
        if cell.cell_type == "code":
            cell.outputs = safe_outputs(cell.get("outputs", []))
        meta = cell.get("metadata", {}).get("nbgrader", {})
        if cell.cell_type == "code" and meta.get("grade") and not meta.get("solution"):
            cell.source = hide_hidden_tests(cell.source)
            for output in cell.get("outputs", []):
                if output.get("output_type") == "error":
                    output["traceback"] = [f"{output.get('ename', 'Error')}: {output.get('evalue', '')}"]
        return cell, resources

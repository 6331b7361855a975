#!/usr/bin/env python3
"""Execute the lessons' text sources and save them as notebooks with their outputs.

Each lesson is a MyST Markdown file, ``notebooks/text/NN_name.md``, paired by jupytext with
``notebooks/NN_name.ipynb`` (the text twins live in ``text/``, so a learner's folder lists each
lesson once): edit the ``.md`` (in any editor, or in JupyterLab with jupytext, which keeps the
pair in sync), then run

    python3 notebooks/build.py            # every lesson, English and Chinese
    python3 notebooks/build.py 01 03      # some lessons, in both languages
    python3 notebooks/build.py zh/01 en   # lesson 01 in Chinese, every English lesson
    python3 notebooks/build.py --check    # exit 1 if a saved notebook is out of date with its text

The Chinese lessons are ``notebooks/zh/text/NN_name.md`` (saved as ``notebooks/zh/NN_name.ipynb``):
the same code as the English lesson of that number, the prose written for Chinese readers, and
``torch.set_language("zh")`` in the first cell.

Each lesson runs in a fresh python3 kernel from its notebook's directory (as nbval runs it) and is
saved with its outputs, each widget as its self-contained view and no widget state: a picture where
a notebook is not trusted (a fresh clone, GitHub, nbviewer), the working player where scripts run
(a trusted notebook, ``nbconvert --to html``); running the cell gives the live widget. Saving is
byte-stable: no cell ids, no timings, normalised metadata (what JupyterLab writes back on save,
with the kernel's own ``language_info``, so that opening a lesson does not mark it changed),
matplotlib's SVGs with fixed ids and no dates (see ``matplotlibrc`` here), tracebacks naming
``gradbook/...`` rather than this machine's path to it, so a rebuild with no change rewrites
nothing (a file is written only when its bytes differ). The cells marked ``# NBVAL_CHECK_OUTPUT``
are compared by ``pytest --nbval-lax``.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import re
import sys
from pathlib import Path

import jupytext
import nbformat
from nbclient import NotebookClient

HERE = Path(__file__).resolve().parent
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
INSTALLED = str(Path(importlib.util.find_spec("gradbook").origin).parent.parent) + os.sep  # where gradbook/ is
KERNEL_FILE = re.compile(r"[^\s\"']*ipykernel_\d+[/\\]\d+\.py")  # /tmp/ipykernel_<pid>/<hash>.py
METADATA = {
    "jupytext": {"formats": "ipynb,text//md:myst"},
    "kernelspec": {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"},
}


def lessons(selected: list[str] | None = None) -> list[Path]:
    """The lessons' text sources, English then Chinese, in order. ``selected`` picks some: a number
    (``"01"``, both languages), a language (``"en"``, ``"zh"``) or one lesson (``"zh/01"``)."""
    found = sorted((HERE / "text").glob("[0-9][0-9]_*.md")) + sorted((HERE / "zh" / "text").glob("[0-9][0-9]_*.md"))

    def names(p: Path) -> set[str]:
        language = "zh" if p.parent.parent.name == "zh" else "en"
        return {p.name[:2], language, f"{language}/{p.name[:2]}"}

    return [p for p in found if not selected or names(p) & set(selected)]


def label(source: Path) -> str:
    """How ``build.py`` names a lesson on its command line (``01``, ``zh/01``)."""
    return ("zh/" if source.parent.parent.name == "zh" else "") + source.name[:2]


def notebook_of(source: Path) -> Path:
    """The saved notebook of a text source: ``text/NN_name.md`` -> ``NN_name.ipynb``."""
    return source.parent.parent / source.with_suffix(".ipynb").name


KEPT_CELL_METADATA = ("tags", "jupyter")


def from_text(source: Path) -> nbformat.NotebookNode:
    """The notebook a text source describes, before it runs: cells and normalised metadata."""
    nb = jupytext.read(source)
    nb.metadata = nbformat.from_dict(METADATA)
    for cell in nb.cells:
        cell.pop("id", None)  # ids would change every build; nbformat 4.4 notebooks do without
        # tags, and "jupyter" (outputs_hidden: a predict-then-run cell opens with its output folded)
        cell.metadata = nbformat.from_dict({k: v for k, v in cell.metadata.items() if k in KEPT_CELL_METADATA})
    nb.nbformat, nb.nbformat_minor = 4, 4
    return nb


def _shape(nb: nbformat.NotebookNode) -> list[tuple]:
    return [(c.cell_type, c.source, {k: c.metadata.get(k) for k in KEPT_CELL_METADATA}) for c in nb.cells]


def stale(source: Path) -> str | None:
    """Why the saved notebook of ``source`` is out of date with it, or None when it is not."""
    saved = notebook_of(source)
    if not saved.exists():
        return "no saved notebook"
    notebook = nbformat.read(saved, as_version=4)
    ours, theirs = _shape(from_text(source)), _shape(notebook)
    if len(ours) != len(theirs):
        return f"{len(ours)} cells in the text, {len(theirs)} in the notebook"
    for i, (a, b) in enumerate(zip(ours, theirs)):
        if a != b:
            return f"cell {i} differs"
    if any(c.cell_type == "code" and c.get("execution_count") is None for c in notebook.cells):
        return "not executed"
    return None


def coalesced(outputs: list) -> list:
    """``outputs`` with each run of stream outputs to the same stream joined into one (the kernel
    flushes stdout when it likes: the same cell can arrive in one chunk or two).

    >>> [o["text"] for o in coalesced([nbformat.v4.new_output("stream", name="stdout", text=t) for t in "ab"])]
    ['ab']
    """
    joined: list = []
    for output in outputs:
        last = joined[-1] if joined else None
        if output.get("output_type") == "stream" and last is not None and last.get("output_type") == "stream" \
                and last.get("name") == output.get("name"):  # fmt: skip
            last["text"] += output["text"]
        else:
            joined.append(output)
    return joined


def build(source: Path) -> bool:
    """Execute one lesson and save it; True when the saved file changed."""
    nb = from_text(source)
    client = NotebookClient(
        nb,
        timeout=120,
        kernel_name="python3",
        resources={"metadata": {"path": str(notebook_of(source).parent)}},
        store_widget_state=False,
        record_timing=False,
    )
    client.execute()
    for cell in nb.cells:  # a saved widget view would show "model not found": keep the self-contained view
        cell.metadata.pop("execution", None)
        if "outputs" in cell:  # how a print's text arrives in chunks depends on timing: save it whole
            cell.outputs = coalesced(cell.outputs)
        for output in cell.get("outputs", []):
            if "text/html" in output.get("data", {}):
                output["data"].pop(WIDGET_VIEW, None)
            if output.get("output_type") == "stream":  # a warning names the kernel's temporary file
                output["text"] = KERNEL_FILE.sub("<cell>", output["text"])
            if output.get("output_type") == "error":  # frames in gradbook, as paths inside the package
                output["traceback"] = [line.replace(INSTALLED, "") for line in output["traceback"]]
    language_info = nb.metadata.get("language_info", {})  # as the kernel reported it
    nb.metadata = nbformat.from_dict(METADATA | {"language_info": language_info})
    text = nbformat.writes(nb) + "\n"
    path = notebook_of(source)
    if path.exists() and path.read_text(encoding="utf-8") == text:
        return False
    path.write_text(text, encoding="utf-8")
    return True


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("lessons", nargs="*", help="lessons: 01 (both languages), zh/01, en, zh (default: all)")
    parser.add_argument("--check", action="store_true", help="only check that every notebook is up to date")
    args = parser.parse_args(argv)
    if args.check:
        problems = [(p, why) for p in lessons(args.lessons) if (why := stale(p))]
        for p, why in problems:
            print(f"out of date: {notebook_of(p).name}: {why}; run python3 notebooks/build.py {label(p)}")
        return 1 if problems else 0
    for source in lessons(args.lessons):
        changed = build(source)
        print(("rewrote " if changed else "unchanged ") + str(notebook_of(source).relative_to(HERE.parent)))
    return 0


if __name__ == "__main__":
    sys.exit(main())

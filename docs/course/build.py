#!/usr/bin/env python3
"""Write the course's instructor notebooks from their text sources.

Each assignment is a MyST Markdown file, ``text/<assignment>/<name>.md``: prose, worked examples,
and the graded cells with their nbgrader metadata in each cell's header (``grade_id``, ``points``,
``solution``, ``locked``), solutions between ``### BEGIN SOLUTION`` and ``### END SOLUTION``,
hidden tests between ``### BEGIN HIDDEN TESTS`` and ``### END HIDDEN TESTS``. Edit the text, then

    python3 docs/course/build.py            # write source/<assignment>/<name>.ipynb (and zh/source/)
    python3 docs/course/build.py --check    # exit 1 if a notebook is out of date with its text
    cd docs/course && nbgrader generate_assignment "*" --force

The Chinese course is a course of its own, ``zh/`` (its own ``nbgrader_config.py``, gradebook and
exchange): ``zh/text/<assignment>/<name>.md`` is the Chinese twin of the English text, the same
code with the prose, the comments and the messages a student reads in Chinese, written to
``zh/source/``.

The notebooks under ``source/`` are what nbgrader reads; they are written only from the text (with
fixed cell ids and metadata, so a rebuild with no change rewrites nothing). Student versions are
never written by hand: ``nbgrader generate_assignment`` makes them. The texts live outside
``source/`` because nbgrader copies every file of an assignment's source folder to the students.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import jupytext
import nbformat

HERE = Path(__file__).resolve().parent
COURSES = (HERE, HERE / "zh")  # the English course, and the Chinese one
METADATA = {
    "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
    "language_info": {"name": "python"},
}


def texts() -> list[Path]:
    """The assignments' text sources of both courses, in order."""
    return [text for course in COURSES for text in sorted((course / "text").glob("*/*.md"))]


def target(text: Path) -> Path:
    """Where the instructor notebook of ``text`` goes: ``source/<assignment>/<name>.ipynb`` of
    the course whose ``text/`` holds it."""
    return text.parent.parent.parent / "source" / text.parent.name / text.with_suffix(".ipynb").name


def notebook(text: Path) -> str:
    """The instructor notebook of ``text``, as the bytes written to ``source/``."""
    nb = jupytext.read(text)
    nb.metadata = nbformat.from_dict(METADATA)
    for i, cell in enumerate(nb.cells):
        cell.id = f"{text.stem}-{i}"  # stable ids: the same text gives the same file
        cell.metadata = nbformat.from_dict({k: v for k, v in cell.metadata.items() if k in ("nbgrader", "tags")})
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
    nb.nbformat, nb.nbformat_minor = 4, 5
    nbformat.validate(nb)
    return nbformat.writes(nb) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="only check that every notebook is up to date")
    args = parser.parse_args(argv)
    stale = []
    for text in texts():
        path, wanted = target(text), notebook(text)
        if path.exists() and path.read_text(encoding="utf-8") == wanted:
            continue
        if args.check:
            stale.append(path)
            print(f"out of date: {path.relative_to(HERE)}; run python3 docs/course/build.py")
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(wanted, encoding="utf-8")
            print(f"rewrote {path.relative_to(HERE)}")
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main())

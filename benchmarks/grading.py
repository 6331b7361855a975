#!/usr/bin/env python3
"""Throughput of ``gradbook-grade autograde``: submissions graded per minute, with --jobs 1 and 2.

    python benchmarks/grading.py                 # 3 students x the 10 assignments, jobs 1 and 2
    python benchmarks/grading.py --students 6 --jobs 1 2 3

A copy of docs/course (in a temporary folder) gets the instructor's solutions, as honest students
would submit them, for every assignment; each setting grades the whole class once, every kernel in
its own bubblewrap sandbox, exactly as the README's command does. Settings are interleaved over
``--rounds`` rounds and the table shows the median. For comparison, the first column is plain
``nbgrader autograde`` of the same submissions without a sandbox (what gradbook-grade replaces).
BLAS runs on one thread in the kernels (the sandbox sets it).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
COURSE = ROOT / "docs" / "course"


def _solution(source: str) -> str:
    return "\n".join(
        line for line in source.split("\n") if line.strip() not in ("### BEGIN SOLUTION", "### END SOLUTION")
    )


def make_course(folder: Path, students: int) -> list[str]:
    import nbformat

    root = folder / "course"
    ignore = shutil.ignore_patterns("release", "submitted", "autograded", "feedback", "gradebook.db", "__pycache__")
    shutil.copytree(COURSE, root, ignore=ignore)
    subprocess.run([sys.executable, "-m", "nbgrader", "generate_assignment", "*", "--force"], cwd=root, check=True,
                   capture_output=True)  # fmt: skip
    assignments = sorted(p.name for p in (root / "source").iterdir() if p.is_dir())
    for assignment in assignments:
        (source_path,) = (root / "source" / assignment).glob("*.ipynb")
        source = nbformat.read(source_path, as_version=4)
        release = nbformat.read(root / "release" / assignment / source_path.name, as_version=4)
        answers = [c for c in source.cells if c.metadata.get("nbgrader", {}).get("solution")]
        cells = [c for c in release.cells if c.metadata.get("nbgrader", {}).get("solution")]
        for theirs, ours in zip(cells, answers):
            theirs.source = _solution(ours.source)
        for k in range(students):
            path = root / "submitted" / f"student{k:02d}" / assignment / source_path.name
            path.parent.mkdir(parents=True)
            nbformat.write(release, path)
    return assignments


def grade_all(root: Path, assignments: list[str], jobs: int | None) -> float:
    """Seconds to grade every submission once (jobs None: plain nbgrader, no sandbox)."""
    for leftover in ("autograded",):
        shutil.rmtree(root / leftover, ignore_errors=True)
    start = time.perf_counter()
    for assignment in assignments:
        if jobs is None:
            command = [sys.executable, "-m", "nbgrader", "autograde", assignment, "--create", "--force"]
        else:
            command = [sys.executable, "-m", "gradbook.grading.cli", "autograde", assignment, "--jobs", str(jobs),
                       "--", "--create", "--force"]  # fmt: skip
        done = subprocess.run(command, cwd=root, capture_output=True, text=True)
        if done.returncode != 0:
            raise SystemExit(f"{' '.join(command)} failed:\n{done.stdout}\n{done.stderr[-3000:]}")
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--students", type=int, default=3)
    parser.add_argument("--jobs", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--rounds", type=int, default=1)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="gradbook-bench-") as tmp:
        folder = Path(tmp)
        assignments = make_course(folder, args.students)
        root = folder / "course"
        submissions = args.students * len(assignments)
        settings: list[int | None] = [None, *args.jobs]
        times: dict[int | None, list[float]] = {s: [] for s in settings}
        for _ in range(args.rounds):
            for setting in settings:  # interleaved: a slow moment of the machine hits every setting
                times[setting].append(grade_all(root, assignments, setting))
    print(f"{submissions} submissions ({args.students} students x {len(assignments)} assignments), "
          f"{os.cpu_count()} cores, median of {args.rounds} round(s)")  # fmt: skip
    print(f"{'setting':<34} {'seconds':>8} {'per submission':>15} {'per minute':>11}")
    for setting in settings:
        seconds = statistics.median(times[setting])
        name = "nbgrader autograde (no sandbox)" if setting is None else f"gradbook-grade --jobs {setting}"
        print(f"{name:<34} {seconds:8.1f} {seconds / submissions:14.2f}s {60 * submissions / seconds:11.1f}")


if __name__ == "__main__":
    main()

"""``gradbook-grade``: nbgrader's autograde with each submission sandboxed and scanned first.

    gradbook-grade autograde ASSIGNMENT [--student ID] [--unsafe] [-- more nbgrader options]
    gradbook-grade scan ASSIGNMENT [--student ID]
    gradbook-grade report [ASSIGNMENT]

Run from the nbgrader course folder (the one with ``nbgrader_config.py``), or pass ``--course``.

``autograde`` first scans every submitted notebook of the assignment (``scan.py``) and writes the
findings to ``gradbook_tamper.json`` in the course folder. Then it runs ``nbgrader autograde``
with every submission's kernel inside a bubblewrap sandbox (``sandbox.py``): the Python
environment read-only, that submission's folder and nothing else of the course, no network.
Without a working ``bwrap`` it refuses, unless told ``--unsafe``. A flagged submission is not given
silent points: each of its grades is set to 0 and marked *needs manual grade*, and ``report`` lists
it with the lines that were flagged, for a person to look at in formgrader.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from .scan import Finding, scan_notebook

TAMPER_FILE = "gradbook_tamper.json"
KERNEL = "gradbook-sandbox"


def bwrap_problem() -> str | None:
    """Why the sandbox cannot run here, or None when it can."""
    exe = shutil.which("bwrap")
    if exe is None:
        return "bubblewrap is not installed (Debian/Ubuntu: apt-get install bubblewrap)"
    try:
        done = subprocess.run(
            [exe, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--unshare-all", "--die-with-parent"]
            + ["true"],
            capture_output=True,
            text=True,
            timeout=30,
        )
    except (OSError, subprocess.SubprocessError) as err:
        return f"bwrap could not start: {err}"
    if done.returncode != 0:
        return f"bwrap cannot create a sandbox here: {done.stderr.strip() or done.returncode}"
    return None


def _course(path: str | None) -> Path:
    root = Path(path or os.getcwd()).resolve()
    if not (root / "nbgrader_config.py").exists():
        raise SystemExit(
            f"gradbook-grade: {root} has no nbgrader_config.py; run it from the course folder or pass --course"
        )
    return root


def _read(path: Path):
    import nbformat

    return nbformat.read(path, as_version=4)


def scan_assignment(course: Path, assignment: str, student: str | None = None) -> dict[str, dict[str, list[str]]]:
    """``{student: {notebook: [finding, ...]}}`` for the assignment's submissions (flagged ones only)."""
    release = course / "release" / assignment
    flagged: dict[str, dict[str, list[str]]] = {}
    for name in _students(course, assignment, student):
        folder = course / "submitted" / name / assignment
        for path in sorted(folder.glob("*.ipynb")):
            released = release / path.name
            try:
                findings: list[Finding] = scan_notebook(_read(path), _read(released) if released.exists() else None)
            except Exception as err:  # a notebook that is not even valid JSON is flagged, not skipped
                findings = [Finding(-1, 0, path.name, f"cannot be read as a notebook ({type(err).__name__})")]
            if findings:
                flagged.setdefault(name, {})[path.name] = [str(f) for f in findings]
    return flagged


def _save_findings(course: Path, assignment: str, flagged: dict, students: list[str] | None) -> None:
    path = course / TAMPER_FILE
    data = json.loads(path.read_text()) if path.exists() else {}
    previous = data.get(assignment, {})
    for name in students if students is not None else list(previous):
        previous.pop(name, None)  # rescanned: the old findings go
    previous.update(flagged)
    data[assignment] = previous
    path.write_text(json.dumps(data, indent=1, sort_keys=True, ensure_ascii=False) + "\n")


def _kernel_spec(folder: Path) -> None:
    spec = folder / "kernels" / KERNEL
    spec.mkdir(parents=True)
    argv = [sys.executable, "-m", "gradbook.grading.sandbox", "{connection_file}"]
    spec_json = {"argv": argv, "display_name": "gradbook (sandboxed)", "language": "python"}
    (spec / "kernel.json").write_text(json.dumps(spec_json))


def _mark_flagged(course: Path, assignment: str, flagged: dict) -> None:
    """Flagged submissions: every grade 0 and needs manual grade, so no points come silently."""
    from nbgrader.api import Gradebook, MissingEntry

    db = _db_url(course)
    with Gradebook(db) as gb:
        for student in flagged:
            try:
                submission = gb.find_submission(assignment, student)
            except MissingEntry:
                continue
            for notebook in submission.notebooks:
                for grade in notebook.grades:
                    grade.manual_score = 0.0
                    grade.needs_manual_grade = True
            gb.db.commit()


def _db_url(course: Path) -> str:
    """The gradebook's URL as the course's nbgrader_config.py sets it (default: gradebook.db there)."""
    from traitlets.config.loader import PyFileConfigLoader

    try:
        config = PyFileConfigLoader("nbgrader_config.py", path=str(course)).load_config()
        url = config.CourseDirectory.get("db_url")
    except Exception:
        url = None
    return url if isinstance(url, str) and url else f"sqlite:///{course / 'gradebook.db'}"


def _students(course: Path, assignment: str, student: str | None) -> list[str]:
    if student:
        return [student]
    submitted = course / "submitted"
    return sorted(p.name for p in submitted.iterdir() if (p / assignment).is_dir()) if submitted.exists() else []


def autograde(course: Path, assignment: str, student: str | None, unsafe: bool, extra: list[str]) -> int:
    """Scan, then grade each student's submission in its own nbgrader run (a notebook nbgrader
    cannot grade does not stop the others); 1 if any could not be graded."""
    problem = bwrap_problem()
    if problem and not unsafe:
        print(f"gradbook-grade: refusing to grade without a sandbox: {problem}.", file=sys.stderr)
        print("  Pass --unsafe to grade anyway (student code then runs with your rights).", file=sys.stderr)
        return 2
    flagged = scan_assignment(course, assignment, student)
    _save_findings(course, assignment, flagged, [student] if student else None)
    for name, notebooks in flagged.items():
        for notebook, findings in notebooks.items():
            print(f"flagged: {name}/{assignment}/{notebook}: {len(findings)} finding(s); see gradbook-grade report")
    env = dict(os.environ)
    failed = []
    with tempfile.TemporaryDirectory(prefix="gradbook-grade-") as run:
        run_dir = Path(run)
        sandbox: list[str] = []
        if not problem:
            _kernel_spec(run_dir)
            (run_dir / "sockets").mkdir()
            env["JUPYTER_PATH"] = os.pathsep.join(p for p in (str(run_dir), env.get("JUPYTER_PATH")) if p)
            sandbox = [
                f"--ExecutePreprocessor.kernel_name={KERNEL}",
                "--KernelManager.transport=ipc",
                f"--KernelManager.ip={run_dir / 'sockets' / 'kernel'}",
            ]
        else:
            print(f"gradbook-grade: --unsafe: grading WITHOUT a sandbox ({problem})", file=sys.stderr)
        for name in _students(course, assignment, student):
            args = [sys.executable, "-m", "nbgrader", "autograde", assignment, "--student", name, *extra, *sandbox]
            done = subprocess.run(args, cwd=course, env=env, capture_output=True, text=True)
            sys.stderr.write(done.stderr)
            if done.returncode != 0:
                failed.append(name)
                print(f"not graded: {name}/{assignment}: nbgrader could not grade it (its log is above)")
    if flagged:
        _mark_flagged(course, assignment, flagged)
    return 1 if failed else 0


def report(course: Path, assignment: str | None) -> int:
    path = course / TAMPER_FILE
    data = json.loads(path.read_text()) if path.exists() else {}
    shown = 0
    for name in sorted(data) if assignment is None else [assignment]:
        for student, notebooks in sorted(data.get(name, {}).items()):
            for notebook, findings in sorted(notebooks.items()):
                shown += 1
                print(f"{name} / {student} / {notebook}: needs manual grade ({len(findings)} finding(s))")
                for finding in findings:
                    print(f"    {finding}")
    if not shown:
        print("no flagged submissions" + (f" for {assignment}" if assignment else ""))
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="gradbook-grade", description=__doc__.split("\n\n")[0])
    parser.add_argument("--course", help="the nbgrader course folder (default: the current folder)")
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser("autograde", help="scan, then nbgrader autograde with each kernel sandboxed")
    run.add_argument("assignment")
    run.add_argument("--student")
    run.add_argument("--unsafe", action="store_true", help="grade even where bubblewrap cannot run")
    scan = sub.add_parser("scan", help="only scan the submissions, and save the findings")
    scan.add_argument("assignment")
    scan.add_argument("--student")
    rep = sub.add_parser("report", help="the flagged submissions and why")
    rep.add_argument("assignment", nargs="?")
    argv = list(sys.argv[1:] if argv is None else argv)
    extra = argv[argv.index("--") + 1 :] if "--" in argv else []  # passed on to nbgrader autograde as they are
    args = parser.parse_args(argv[: argv.index("--")] if "--" in argv else argv)
    course = _course(args.course)
    if args.command == "autograde":
        return autograde(course, args.assignment, args.student, args.unsafe, extra)
    if args.command == "scan":
        flagged = scan_assignment(course, args.assignment, args.student)
        _save_findings(course, args.assignment, flagged, [args.student] if args.student else None)
        return report(course, args.assignment)
    return report(course, args.assignment)


if __name__ == "__main__":
    raise SystemExit(main())

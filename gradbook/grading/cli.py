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
import concurrent.futures
import json
import os
import queue
import re
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
    from .sandbox import problem

    return problem()


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


def scan_assignment(
    course: Path, assignment: str, student: str | None = None, release: Path | None = None
) -> dict[str, dict[str, list[str]]]:
    """``{student: {notebook: [finding, ...]}}`` for the assignment's submissions (flagged ones only)."""
    release = release or course / "release" / assignment
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


def _save_findings(
    course: Path, assignment: str, flagged: dict, students: list[str] | None, merge: bool = False
) -> None:
    path = course / TAMPER_FILE
    data = json.loads(path.read_text()) if path.exists() else {}
    previous = data.get(assignment, {})
    for name in students if students is not None else ([] if merge else list(previous)):
        previous.pop(name, None)  # rescanned: the old findings go
    previous.update(flagged)
    data[assignment] = previous
    path.write_text(json.dumps(data, indent=1, sort_keys=True, ensure_ascii=False) + "\n")


def _kernel_spec(folder: Path) -> None:
    spec = folder / "kernels" / KERNEL
    spec.mkdir(parents=True)
    argv = [sys.executable, "-m", "gradbook.grading.sandbox", "{connection_file}"]
    # interrupts go over the control channel: a signal to bwrap would not reach the kernel
    spec_json = {
        "argv": argv,
        "display_name": "gradbook (sandboxed)",
        "language": "python",
        "interrupt_mode": "message",
    }
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
    url = url if isinstance(url, str) and url else f"sqlite:///{course / 'gradebook.db'}"
    if url.startswith("sqlite:") and "?" not in url:
        url += "?timeout=60"  # parallel nbgrader runs (--jobs) wait for each other's writes
    return url


def _students(course: Path, assignment: str, student: str | None) -> list[str]:
    if student:
        return [student]
    submitted = course / "submitted"
    return sorted(p.name for p in submitted.iterdir() if (p / assignment).is_dir()) if submitted.exists() else []


MAX_NOTEBOOK_BYTES = 5 * 2**20
SKIPPED = {".ipynb_checkpoints"}  # Jupyter's own folder, which students submit without meaning to


def intake(course: Path, student: str, assignment: str, dest: Path) -> str | None:
    """Copy one submission into ``dest`` (the grader's own folder): regular files only, each the
    assignment's notebook (or nbgrader's ``timestamp.txt``), under the size cap, opened without
    following links. The reason it is refused, or None. Nothing in the submission is changed."""
    import stat

    wanted = {p.name for p in (course / "source" / assignment).glob("*.ipynb")} | {"timestamp.txt"}
    folder = course / "submitted" / student / assignment
    for path in (course / "submitted", course / "submitted" / student, folder):
        info = os.lstat(path) if os.path.lexists(path) else None
        if info is None or not stat.S_ISDIR(info.st_mode):
            return f"{path.relative_to(course)} is not a folder (a link or a file)"
    dest.mkdir(parents=True)
    with os.scandir(folder) as entries:
        names = sorted((e.name, e.stat(follow_symlinks=False)) for e in entries)
    for name, info in names:
        if name in SKIPPED and stat.S_ISDIR(info.st_mode):
            continue
        where = f"submitted/{student}/{assignment}/{_plain(name)}"
        if stat.S_ISLNK(info.st_mode):
            return f"{where} is a symbolic link"
        if not stat.S_ISREG(info.st_mode):
            return f"{where} is not a regular file"
        if name not in wanted:
            return f"{where} is not one of the assignment's notebooks"
        if info.st_nlink != 1:
            return f"{where} is a hard link ({info.st_nlink} names)"
        limit = 100 if name == "timestamp.txt" else MAX_NOTEBOOK_BYTES
        if info.st_size > limit:
            return f"{where} is {info.st_size} bytes, over the limit of {limit}"
        fd = os.open(folder / name, os.O_RDONLY | os.O_NOFOLLOW | getattr(os, "O_NONBLOCK", 0))
        try:
            again = os.fstat(fd)
            if (again.st_ino, again.st_dev) != (info.st_ino, info.st_dev) or not stat.S_ISREG(again.st_mode):
                return f"{where} changed while it was read"
            data = os.read(fd, limit + 1)
        finally:
            os.close(fd)
        if len(data) > limit:
            return f"{where} is over the limit of {limit} bytes"
        (dest / name).write_bytes(data)
    return None


def _plain(text: str) -> str:
    """``text`` with control characters escaped, for a terminal."""
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in str(text))


STAGE_CONFIG = """\
# written by gradbook-grade: the course's configuration, with this private folder as its root and
# nbgrader's execution step replaced by gradbook's (the judging runs outside the student's kernel),
# and its OverwriteCells by one that does not call every released test cell with hidden tests changed
load_subconfig({config!r})
from nbgrader.converters import Autograde
from nbgrader.preprocessors import Execute, OverwriteCells
from traitlets.utils.importstring import import_item
from gradbook.grading.judge import JudgeOutside, OverwriteReleasedCells
c = get_config()
c.CourseDirectory.root = {root!r}
c.CourseDirectory.db_url = {db!r}


def _swap(name, old, new):  # the course's list (or nbgrader's own), with one of nbgrader's steps replaced
    chosen = c.Autograde[name] if name in c.Autograde else Autograde.class_traits()[name].default()
    chosen = [import_item(p) if isinstance(p, str) else p for p in chosen]
    if old not in chosen and new not in chosen:
        raise ValueError(f"gradbook-grade replaces {{old.__name__}} in Autograde.{{name}}, which has none")
    return [new if p is old else p for p in chosen]


c.Autograde.sanitize_preprocessors = _swap("sanitize_preprocessors", OverwriteCells, OverwriteReleasedCells)
c.Autograde.autograde_preprocessors = _swap("autograde_preprocessors", Execute, JudgeOutside)
"""


def _place(stage: Path, course: Path, student: str, assignment: str) -> None:
    """Move nbgrader's output from the private folder into the course's ``autograded/``, never
    through a link that may be there."""
    made = stage / "autograded" / student / assignment
    target = course / "autograded" / student / assignment
    for path in (course / "autograded", course / "autograded" / student):
        if os.path.islink(path) or (os.path.lexists(path) and not path.is_dir()):
            os.unlink(path)
        path.mkdir(exist_ok=True)
    if os.path.islink(target) or (os.path.lexists(target) and not target.is_dir()):
        os.unlink(target)
    elif target.exists():
        shutil.rmtree(target)  # does not follow links inside
    if made.is_dir():
        shutil.copytree(made, target, symlinks=True)


def _refuse(course: Path, assignment: str, student: str, reason: str) -> None:
    """A submission that was not graded: in the gradebook every grade 0 and needs manual grade
    (when nbgrader knows the submission), and the reason in the report."""
    _save_findings(course, assignment, {student: {"(submission)": [f"not graded: {reason}"]}}, None, merge=True)
    _mark_flagged(course, assignment, {student: {}})


def autograde(
    course: Path,
    assignment: str,
    student: str | None,
    unsafe: bool,
    extra: list[str],
    total: int = 900,
    jobs: int = 1,
) -> int:
    """Copy each submission into a private folder, scan it, then grade it in its own nbgrader run
    (a notebook nbgrader cannot grade does not stop the others), ``jobs`` runs at a time, each in
    its own sandbox; 1 if any could not be graded."""
    problem = bwrap_problem()
    if problem and not unsafe:
        print(f"gradbook-grade: refusing to grade without a sandbox: {problem}.", file=sys.stderr)
        print("  Pass --unsafe to grade anyway (student code then runs with your rights).", file=sys.stderr)
        return 2
    students = _students(course, assignment, student)
    env = dict(os.environ)
    failed, flagged_all = [], {}
    with tempfile.TemporaryDirectory(prefix="gradbook-grade-") as run:
        run_dir = Path(run)
        os.chmod(run_dir, 0o700)
        if not problem:
            _kernel_spec(run_dir)
            env["JUPYTER_PATH"] = os.pathsep.join(p for p in (str(run_dir), env.get("JUPYTER_PATH")) if p)
        else:
            print(f"gradbook-grade: --unsafe: grading WITHOUT a sandbox ({problem})", file=sys.stderr)
        ready = []  # intake and scan, one at a time: only the grading runs in parallel
        for name in students:
            stage = run_dir / "stage" / name
            reason = intake(course, name, assignment, stage / "submitted" / name / assignment)
            if reason is not None:
                failed.append(name)
                print(f"not graded: {_plain(name)}/{assignment}: {reason}")
                _refuse(course, assignment, name, reason)
                continue
            (stage / "source").symlink_to(course / "source")
            config = STAGE_CONFIG.format(config=str(course / "nbgrader_config.py"), root=str(stage), db=_db_url(course))
            (stage / "nbgrader_config.py").write_text(config)
            flagged = scan_assignment(stage, assignment, name, release=course / "release" / assignment)
            _save_findings(course, assignment, flagged, [name])
            flagged_all.update(flagged)
            for notebook, findings in flagged.get(name, {}).items():
                print(
                    f"flagged: {_plain(name)}/{assignment}/{notebook}: {len(findings)} finding(s);"
                    " see gradbook-grade report"
                )
            ready.append((name, stage))
        slots: queue.Queue[int] = queue.Queue()
        for slot in range(max(1, jobs)):
            slots.put(slot)

        def grade(index: int, stage: Path) -> subprocess.CompletedProcess | None:
            """One nbgrader run, in a sandbox slot of its own (its user id) and its own sockets'
            folder, the only host folder its kernel can write: None when it ran out of time."""
            slot = slots.get()
            try:
                args = [sys.executable, "-m", "nbgrader", "autograde", assignment, "--student", stage.name, *extra]
                if not problem:
                    sockets = run_dir / "sockets" / str(index)
                    sockets.mkdir(parents=True)
                    args += [
                        f"--ExecutePreprocessor.kernel_name={KERNEL}",
                        "--KernelManager.transport=ipc",
                        f"--KernelManager.ip={sockets / 'kernel'}",
                    ]
                try:
                    return subprocess.run(
                        args,
                        cwd=stage,
                        env={**env, "GRADBOOK_SANDBOX_SLOT": str(slot)},
                        capture_output=True,
                        text=True,
                        timeout=total + 120,
                    )
                except subprocess.TimeoutExpired:
                    return None
            finally:
                slots.put(slot)

        with concurrent.futures.ThreadPoolExecutor(max(1, jobs)) as pool:
            running = {pool.submit(grade, i, stage): (name, stage) for i, (name, stage) in enumerate(ready)}
            for future in concurrent.futures.as_completed(running):  # what touches the course: here, in turn
                name, stage = running[future]
                done = future.result()
                if done is None:
                    failed.append(name)
                    print(f"not graded: {_plain(name)}/{assignment}: grading took longer than {total + 120} s")
                    _refuse(course, assignment, name, f"grading took longer than {total + 120} s")
                    continue
                sys.stderr.write(done.stderr[-20000:])
                _place(stage, course, name, assignment)
                if name in flagged_all:  # at once: a flagged submission never holds its scores for the run
                    _mark_flagged(course, assignment, {name: flagged_all[name]})
                if done.returncode != 0:
                    failed.append(name)
                    said = re.findall(r"^\[\w+ \| (?:ERROR|WARNING)\] (.+)$", done.stderr, re.M)[-2:]  # what, and why
                    why = "nbgrader could not grade it" + (f": {'; '.join(said)[:400]}" if said else "")
                    print(f"not graded: {_plain(name)}/{assignment}: {_plain(why)} (its log is above)")
                    _refuse(course, assignment, name, why)  # in the report, and needs manual grade
    if flagged_all:
        _mark_flagged(course, assignment, flagged_all)
    return 1 if failed else 0


def report(course: Path, assignment: str | None) -> int:
    path = course / TAMPER_FILE
    data = json.loads(path.read_text()) if path.exists() else {}
    shown = 0
    for name in sorted(data) if assignment is None else [assignment]:
        for student, notebooks in sorted(data.get(name, {}).items()):
            for notebook, findings in sorted(notebooks.items()):
                shown += 1
                print(_plain(f"{name} / {student} / {notebook}: needs manual grade ({len(findings)} finding(s))"))
                for finding in findings:
                    print(f"    {_plain(finding)}")
    if not shown:
        print("no flagged submissions" + (f" for {assignment}" if assignment else ""))
    return 0


def _jobs(text: str) -> int:
    if not text.isdigit() or not 1 <= int(text) <= 64:
        raise argparse.ArgumentTypeError(f"must be a whole number from 1 to 64, not {text!r}")
    return int(text)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="gradbook-grade", description=__doc__.split("\n\n")[0])
    parser.add_argument("--course", help="the nbgrader course folder (default: the current folder)")
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser("autograde", help="scan, then nbgrader autograde with each kernel sandboxed")
    run.add_argument("assignment")
    run.add_argument("--student")
    run.add_argument("--unsafe", action="store_true", help="grade even where bubblewrap cannot run")
    run.add_argument("--jobs", type=_jobs, default=1, metavar="N", help="grade N submissions at a time (default 1)")
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
        return autograde(course, args.assignment, args.student, args.unsafe, extra, jobs=args.jobs)
    if args.command == "scan":
        flagged = scan_assignment(course, args.assignment, args.student)
        _save_findings(course, args.assignment, flagged, [args.student] if args.student else None)
        return report(course, args.assignment)
    return report(course, args.assignment)


if __name__ == "__main__":
    raise SystemExit(main())

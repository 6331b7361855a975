"""Grading a class cannot be fooled: the attack suite, through the real nbgrader CLI and the sandbox.

A copy of the course in docs/course gets the honest solution, a blank notebook and one submission
per attack (each answers nothing honestly, so any point it gets is a point it stole). They are
graded with ``gradbook-grade autograde``: every submission's kernel runs in bubblewrap, after a
static scan. Every attack must end at 0 points, flagged or not; the honest student keeps full
marks and the same files whatever the attackers did; a wrong answer graded after them still
scores 0 (nobody rewrote the gradebook or the tests). The scan's own rules are tested first, on
snippets and on the course's real answers (which must not be flagged).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import gradbook
from gradbook.grading.judge import judge, split
from gradbook.grading.probe import encode
from gradbook.grading.scan import scan_notebook, scan_source

ROOT = Path(__file__).resolve().parent.parent
COURSE = ROOT / "docs" / "course"
NOTEBOOKS = {
    "01_accumulation": "accumulation",
    "02_vjp": "vjp",
    "03_retain_graph": "retain_graph",
    "04_reading_the_graph": "reading_the_graph",
    "15_memory": "memory",  # its last answer is an explanation, graded by a person
}
MANUAL = {"15_memory": 1.0}  # the points a person grades

# ---------------------------------------------------------------- the scan, on its own
FLAGGED = {
    "import os": "imports os",
    "import sys\nsys.modules['numpy'] = None": "imports sys",
    "import numpy as np\nnp.allclose = lambda *a, **k: True": "attribute of the imported np",
    "import gradbook as torch\ntorch.autograd.gradcheck = lambda *a, **k: True": "attribute of the imported torch",
    "import gradbook as torch\nT = torch.Tensor\nT.backward = print": "the imported T",
    "abs = lambda v: 0": "the builtin abs",
    "def set(*a): return {'a', 'd'}": "the builtin set",
    "import builtins\nbuiltins.abs = lambda v: 0": "imports builtins",
    "from gradbook.exercises import check_vjp\ncheck_vjp = print": "the check check_vjp",
    "import gradbook.exercises as ex\nex.check_vjp = print": "attribute of the imported ex",
    "exec(open('/course/source/a.ipynb').read())": "calls exec()",
    "eval('1')": "calls eval()",
    "x = __import__('os')": "calls __import__()",
    "import ctypes": "imports ctypes",
    "import gc\ngc.get_objects()": "imports gc",
    "import inspect": "imports inspect",
    "from pathlib import Path": "imports from pathlib",
    "import sqlite3": "imports sqlite3",
    "type(out.grad_fn).__name__ = 'ExpBackward0'": "binds __name__",
    "C = type(out.grad_fn)\nC.__name__ = 'ExpBackward0'": "binds __name__",
    "f.__globals__['np']": "uses __globals__",
    "().__class__.__bases__[0].__subclasses__()": "uses __subclasses__",
    "get_ipython().input_transformers_cleanup.append(lambda lines: [])": "calls get_ipython()",
    "!cat /etc/passwd": "shell command or an IPython magic",
    "%load_ext autoreload": "shell command or an IPython magic",
    "globals()['check_vjp'] = print": "calls globals()",
    "setattr(np, 'allclose', print)": "calls setattr()",
    "x = getattr(np, 'all' + 'close')": "calls getattr()",
    "del np.allclose": "deletes",
    "def f():\n    global three_calls\n    three_calls = 12": "declares global",
    "def (:": "not valid Python",
    "from gradbook.exercises.lesson01 import _descend": "imports the private name _descend",
    "from gradbook.exercises import lesson05\nlesson05._hidden_functions()": "private name _hidden_functions",
    "import gradbook as torch\ntorch.exercises.lesson07._descent()": "private name _descent",
    "import gradbook.exercises.lesson01 as L\nL._hidden_problem()": "private name _hidden_problem",
    # the independent tester's back doors (tests/attacks/REPORT.md): an allowed module's own modules
    "import numpy as np\nnp._core.records.os.system('id')": "private name _core of the imported np",
    "import numpy as np\nnp.ctypeslib.ctypes.CDLL(None)": "reaches the module ctypes",
    "import gradbook as torch\ntorch._typing.sys.modules['x'] = 1": "private name _typing of the imported torch",
    "import numpy as np\nm = np.random\nm.os.getcwd()": "reaches the module os",
}


@pytest.mark.parametrize("code", list(FLAGGED), ids=range(len(FLAGGED)))
def test_the_scan_flags_each_trick(code):
    reasons = [f.reason for f in scan_source(code, imported={"np", "torch"})]
    assert any(FLAGGED[code] in r for r in reasons), reasons


def _solution(source: str) -> str:
    """An instructor cell as an honest student would have written it: without nbgrader's markers."""
    return "\n".join(
        line for line in source.split("\n") if line.strip() not in ("### BEGIN SOLUTION", "### END SOLUTION")
    )


def _answer_cells(nb):
    return [c for c in nb.cells if c.metadata.get("nbgrader", {}).get("solution")]


@pytest.mark.parametrize("source", sorted(COURSE.glob("**/source/*/*.ipynb")), ids=lambda p: str(p.relative_to(COURSE)))
def test_the_scan_passes_every_real_answer_of_both_courses(source):
    """No honest answer of any assignment, English or Chinese, is flagged (a false alarm zeroes it)."""
    import copy

    import nbformat

    student = nbformat.read(source, as_version=4)
    release = copy.deepcopy(student)
    for cell in _answer_cells(student):
        cell.source = _solution(cell.source)
    assert scan_notebook(student, release) == []


def test_the_scan_passes_the_real_answers_and_flags_edited_cells(tmp_path):
    import copy

    import nbformat

    for assignment, name in NOTEBOOKS.items():
        source = nbformat.read(COURSE / "source" / assignment / f"{name}.ipynb", as_version=4)
        student = copy.deepcopy(source)  # the release stands in: same cells, same metadata
        for cell in _answer_cells(student):
            cell.source = _solution(cell.source)
        release = copy.deepcopy(student)
        assert scan_notebook(student, release) == [], assignment
        tests = [
            c
            for c in student.cells
            if c.metadata.get("nbgrader", {}).get("grade") and not c.metadata["nbgrader"].get("solution")
        ]
        tests[0].metadata["nbgrader"]["points"] = 100
        tests[-2].source += "\nprint('edited')"  # (15_memory has two test cells: the last one goes)
        del student.cells[student.cells.index(tests[-1])]
        reasons = [f.reason for f in scan_notebook(student, release)]
        assert "edits nbgrader's cell metadata" in reasons and "edits a locked or test cell" in reasons
        assert "removes a graded cell of the release" in reasons


# ---------------------------------------------------------------- the attack suite, end to end
ATTACKS = {  # student: (assignment, {answer grade_id: code}); every other answer stays a stub
    "read_source": ("01_accumulation", {"three_calls_answer": (
        "import json\nnb = json.load(open('{course}/source/01_accumulation/accumulation.ipynb'))\n"
        "exec(''.join(nb['cells'][3]['source']))"
    )}),
    "write_gradebook": ("01_accumulation", {"three_calls_answer": (
        "import sqlite3\nconnection = sqlite3.connect('{course}/gradebook.db')\n"
        "connection.execute('update grade set manual_score = 100')\nconnection.commit()\nthree_calls = 4.0"
    )}),
    "touch_others": ("01_accumulation", {"three_calls_answer": (
        "import glob\nfor path in glob.glob('{course}/*/honest/*/*.ipynb'):\n    open(path, 'w').write('{{}}')\n"
        "three_calls = 4.0"
    )}),
    "patch_checks": ("01_accumulation", {"three_calls_answer": (
        "import builtins\nimport gradbook.exercises as ex\nfor name in dir(ex):\n"
        "    if name.startswith('check_'):\n        setattr(ex, name, lambda *a: None)\n"
        "builtins.abs = lambda v: 0\nthree_calls = 4.0\nafter_zeroing = 0.0"
    )}),
    "patch_numpy": ("02_vjp", {"vjp_answer": (
        "import numpy as np\nnp.allclose = lambda *a, **k: True\nnp.isclose = lambda *a, **k: True\n"
        "abs = lambda v: 0\nvjp = [0.0, 0.0, 0.0]"
    )}),
    "fake_modules": ("01_accumulation", {"three_calls_answer": (
        "import sys, types\nfake = types.ModuleType('gradbook.exercises')\n"
        "fake.__getattr__ = lambda name: (lambda *a: None)\nsys.modules['gradbook.exercises'] = fake\n"
        "import builtins\nbuiltins.float = lambda v: 12.0\nthree_calls = 4.0"
    )}),
    "input_transformer": ("01_accumulation", {"three_calls_answer": (
        "get_ipython().input_transformers_cleanup.append(lambda lines: ['pass\\n'])\nthree_calls = 4.0"
    )}),
    "edit_metadata": ("01_accumulation", {}),  # a test cell turned into an answer cell, below
    "only_apply": ("02_vjp", {"backward_rule_answer": (
        "class XExpNegX(torch.autograd.Function):\n    @classmethod\n    def apply(cls, x):\n"
        "        return x * (-x).exp()"
    )}),
    "seed_two": ("03_retain_graph", {
        "backward_twice_answer": "def backward_twice(y):\n    y.backward(torch.tensor(2.0))",
    }),
    "zero_the_data": ("01_accumulation", {
        "training_step_answer": "def step(w, x, y, lr):\n    x.zero_()\n    y.zero_()",
    }),
    "renamed_cos": ("04_reading_the_graph", {"graph_chain_answer": (
        "def build(x):\n    out = x.cos()\n    type(out.grad_fn).__name__ = 'ExpBackward0'\n    return (out * 2).sum()"
    )}),
    # empty answers: allclose broadcasts a (0, n) tensor against anything, so it "equals" every answer
    # (end to end here; every judge of the course on empty values: test_no_judge_passes_an_empty_answer)
    "empty_step": ("01_accumulation", {"training_step_answer": (
        "def step(w, x, y, lr):\n    with torch.no_grad():\n        w.data = torch.zeros(0, 2)"
    )}),
    "empty_vjp": ("02_vjp", {
        "vjp_answer": "vjp = torch.zeros(0, 3)", "jacobian_answer": "jacobian = torch.zeros(0, 3, 2)",
        "backward_rule_answer": (
            "class XExpNegX(torch.autograd.Function):\n    @staticmethod\n    def forward(ctx, x):\n"
            "        return torch.zeros(0, *x.shape, dtype=x.dtype)\n    @staticmethod\n"
            "    def backward(ctx, grad_output):\n        return None"
        ),
    }),
    "empty_saved": ("04_reading_the_graph", {"saved_answer": "saved = torch.zeros(0, 2)"}),
    "lying_answer": ("02_vjp", {"vjp_answer": (
        "class Anything(list):\n    def __eq__(self, other):\n        return True\n    def __repr__(self):\n"
        "        raise RuntimeError('no')\nvjp = Anything([0.0, 0.0, 0.0])"
    )}),
}  # fmt: skip


SECRET = "hub-token-4f1c9e"
LIMITS = """\
import os, threading, time
n = 0
try:
    for _ in range(300):
        threading.Thread(target=time.sleep, args=(20,), daemon=True).start()
        n += 1
except RuntimeError:
    pass
print('THREADS', n)
try:
    block = bytearray(4 * 2**30)
    print('MEMORY got 4 GiB')
except MemoryError:
    print('MEMORY refused')
try:
    with open('/tmp/big', 'wb') as file:
        for _ in range(200):
            file.write(b'x' * 2**20)
    print('FILE wrote 200 MiB')
except OSError:
    print('FILE stopped at', os.path.getsize('/tmp/big') // 2**20, 'MiB')
print('UID', os.getuid())
three_calls = 4.0
"""
MARKUP = (  # an honest answer that also shows markup, which must not reach a grader's or student's page
    "class Shown:\n"
    "    def _repr_html_(self):\n        return '<img src=x onerror=\"document.title=1\"><script>MARKUP()</script>'\n"
    "    def _repr_svg_(self):\n        return '<svg onload=\"MARKUP()\"></svg>'\n"
    "    def _repr_javascript_(self):\n        return 'MARKUP()'\n"
    "three_calls = 12.0\nShown()"
)
SWALLOWS_INTERRUPT = (  # the right answer, then a loop the timeout's interrupt cannot end
    "after_zeroing = 27.0\nwhile True:\n    try:\n        while True:\n            pass\n"
    "    except KeyboardInterrupt:\n        pass"
)
LEAK_ENV = "import os\nprint(dict(os.environ))\nprint(open('/proc/self/environ').read())\nthree_calls = 4.0"


def _fifo(path, root, outside):
    os.mkfifo(path)


def _numpy_beside(path, root, outside):  # a wrong answer, and a numpy that says yes to everything
    shutil.copy(root / "release" / "01_accumulation" / "accumulation.ipynb", path)
    (path.parent / "numpy").mkdir()
    (path.parent / "numpy" / "__init__.py").write_text("allclose = isclose = lambda *a, **k: True\n")


def _hard_link(path, root, outside):
    os.link(root / "release" / "01_accumulation" / "accumulation.ipynb", path)


REFUSED = {  # student: how their notebook is made; each is refused before anything reads it
    "link_gradebook": lambda path, root, outside: path.symlink_to("../../../gradebook.db"),
    "link_honest": lambda path, root, outside: path.symlink_to(
        root / "submitted/honest/01_accumulation/accumulation.ipynb"
    ),
    "link_outside": lambda path, root, outside: path.symlink_to(outside),
    "fifo": _fifo,
    "numpy_beside": _numpy_beside,
    "hard_link": _hard_link,
}


def _hash(folder: Path) -> dict[str, str]:
    return {
        str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def _private_jupyter_env(folder: Path) -> dict[str, str]:
    """This process's environment with home, Jupyter's and IPython's folders inside ``folder``, so
    that nbgrader and the kernels read and write nothing of the user's."""
    env = dict(os.environ)
    for name in ("HOME", "JUPYTER_CONFIG_DIR", "JUPYTER_DATA_DIR", "JUPYTER_RUNTIME_DIR", "IPYTHONDIR"):
        env[name] = str(folder / name.lower())
        os.makedirs(env[name], exist_ok=True)
    env.pop("JUPYTER_PATH", None)
    return env


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    nbformat = pytest.importorskip("nbformat")
    pytest.importorskip("nbgrader")
    from gradbook.grading.cli import bwrap_problem

    if bwrap_problem():
        pytest.skip(f"no sandbox here: {bwrap_problem()}")
    tmp = tmp_path_factory.mktemp("grading")
    root = tmp / "course"
    shutil.copytree(
        COURSE,
        root,
        ignore=shutil.ignore_patterns("release", "submitted", "autograded", "feedback", "gradebook.db", "__pycache__"),
    )
    env = _private_jupyter_env(tmp)
    env["JUPYTERHUB_API_TOKEN"] = SECRET  # the grader's own secret: no kernel may see it

    def run(*args, tool="nbgrader", may_fail=()):
        command = (
            [sys.executable, "-m", "nbgrader"] if tool == "nbgrader" else [sys.executable, "-m", "gradbook.grading.cli"]
        )
        done = subprocess.run([*command, *args], cwd=root, env=env, capture_output=True, text=True, timeout=600)
        not_graded = set(re.findall(r"^not graded: (\w+)/", done.stdout, re.M))
        assert done.returncode == (1 if not_graded else 0) and not_graded <= set(may_fail), (
            f"{' '.join(args)}:\n{done.stdout}\n{done.stderr}"
        )
        return done.stdout

    run("generate_assignment", "*", "--force")

    def submit(student, assignment, answers=None, edit=None):
        release = nbformat.read(root / "release" / assignment / f"{NOTEBOOKS[assignment]}.ipynb", as_version=4)
        source = nbformat.read(root / "source" / assignment / f"{NOTEBOOKS[assignment]}.ipynb", as_version=4)
        for theirs, ours in zip(_answer_cells(release), _answer_cells(source)):
            grade_id = theirs.metadata["nbgrader"]["grade_id"]
            if answers == "honest":
                theirs.source = _solution(ours.source)
            elif answers and grade_id in answers:
                theirs.source = answers[grade_id].replace("{course}", str(root))
        if edit:
            edit(release)
        path = root / "submitted" / student / assignment / f"{NOTEBOOKS[assignment]}.ipynb"
        path.parent.mkdir(parents=True, exist_ok=True)
        nbformat.write(release, path)

    def as_answer_cell(nb):  # the first test cell claims to be an ungraded answer cell
        test = next(c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade"))
        test.metadata["nbgrader"].update(grade=False, solution=True, locked=False)
        test.source = "three_calls = 12.0"

    for assignment in NOTEBOOKS:
        submit("honest", assignment, "honest")
    for assignment in NOTEBOOKS:
        run("autograde", assignment, "--student", "honest", "--", "--create", "--force", tool="gradbook")
    honest_before = (
        _scores(root, "honest"),
        _hash(root / "submitted" / "honest"),
        _hash(root / "autograded" / "honest"),
    )
    for student, (assignment, answers) in ATTACKS.items():
        submit(student, assignment, answers, as_answer_cell if student == "edit_metadata" else None)
    for assignment in NOTEBOOKS:
        submit("blank", assignment)
    outside = tmp / "private.txt"  # a file of the grader's, outside the course
    outside.write_text("private")
    outside.chmod(0o600)
    for student, make in REFUSED.items():
        folder = root / "submitted" / student / "01_accumulation"
        folder.mkdir(parents=True)
        make(folder / "accumulation.ipynb", root, outside)
    submit("loop_once", "01_accumulation", "honest")  # honest, but the first answer never ends
    loop = root / "submitted" / "loop_once" / "01_accumulation" / "accumulation.ipynb"
    nb = nbformat.read(loop, as_version=4)
    _answer_cells(nb)[0].source = "while True:\n    pass"
    nbformat.write(nb, loop)
    submit("swallows_interrupt", "01_accumulation", "honest")  # honest, but the second answer never ends
    path = root / "submitted" / "swallows_interrupt" / "01_accumulation" / "accumulation.ipynb"
    nb = nbformat.read(path, as_version=4)
    _answer_cells(nb)[1].source = SWALLOWS_INTERRUPT
    nbformat.write(nb, path)
    submit("markup", "01_accumulation", "honest")
    path = root / "submitted" / "markup" / "01_accumulation" / "accumulation.ipynb"
    nb = nbformat.read(path, as_version=4)
    _answer_cells(nb)[0].source = MARKUP
    nb.cells.insert(1, nbformat.v4.new_markdown_cell("a note <script>MARKUP()</script> <svg onload=MARKUP()>"))
    links = "[your grades](javascript:MARKUP()) ![i](jav&#x61;script:MARKUP())"
    nb.cells.insert(2, nbformat.v4.new_markdown_cell(links))
    nbformat.write(nb, path)
    def duplicate_a_test(nb):  # nbgrader itself refuses it ("exists multiple times")
        test = next(c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade"))
        nb.cells.insert(nb.cells.index(test), nbformat.from_dict(json.loads(json.dumps(test))))

    submit("dup_cell", "01_accumulation", "honest", duplicate_a_test)
    submit("leak_env", "01_accumulation", {"three_calls_answer": LEAK_ENV})
    submit("limits", "01_accumulation", {"three_calls_answer": LIMITS})
    may_fail = {"edit_metadata", "dup_cell", *REFUSED}
    for assignment in NOTEBOOKS:  # every attacker and the blank one (nbgrader itself refuses one)
        run("autograde", assignment, "--jobs", "2", "--", "--create", "--force", tool="gradbook", may_fail=may_fail)
    for assignment in NOTEBOOKS:  # graded after the attackers: a wrong answer still gets nothing
        submit(
            "wrong_after",
            assignment,
            {"three_calls_answer": "three_calls = 4.0", "vjp_answer": "vjp = [1.0, 2.0, 3.0]"},
        )
        run("autograde", assignment, "--student", "wrong_after", "--", "--create", "--force", tool="gradbook")
    report = run("report", tool="gradbook")
    return root, honest_before, report, outside


def _scores(root: Path, student: str) -> dict[str, tuple[float, float, bool]]:
    from nbgrader.api import Gradebook, MissingEntry

    out = {}
    with Gradebook(f"sqlite:///{root / 'gradebook.db'}") as gb:
        for assignment in NOTEBOOKS:
            try:
                sub = gb.find_submission(assignment, student)
            except MissingEntry:
                continue
            out[assignment] = (sub.score, sub.max_score, bool(sub.needs_manual_grade))
    return out


def test_the_honest_solution_gets_full_marks_and_is_not_flagged(graded):
    root, _, report, _ = graded
    scores = _scores(root, "honest")
    expected = {a: (4.0 - MANUAL.get(a, 0), 4.0, a in MANUAL) for a in NOTEBOOKS}  # the explanation waits
    assert scores == expected, scores
    assert "/ honest /" not in report


def test_a_blank_submission_gets_zero_and_is_not_flagged(graded):
    root, _, report, _ = graded
    scores = _scores(root, "blank")
    assert set(scores) == set(NOTEBOOKS) and all(s == 0 and not flagged for s, _, flagged in scores.values()), scores
    assert "/ blank /" not in report


def test_the_scan_finds_nothing_in_any_released_notebook(graded):
    """Starter code never trips the scan (08's answer cell says Value.__mul__ = mul)."""
    import nbformat

    root = graded[0]
    for assignment, name in NOTEBOOKS.items():
        release = nbformat.read(root / "release" / assignment / f"{name}.ipynb", as_version=4)
        assert scan_notebook(release, release) == [], assignment


def test_the_scan_flags_starter_code_used_elsewhere():
    import nbformat

    cell = nbformat.v4.new_code_cell("x = 1\nabs = print", metadata={"nbgrader": {
        "grade": False, "solution": True, "locked": False, "grade_id": "a", "points": 0}})  # fmt: skip
    release = nbformat.v4.new_notebook(cells=[cell])
    student = nbformat.v4.new_notebook(
        cells=[nbformat.v4.new_code_cell("abs = print\nsum = len", metadata=cell.metadata)]
    )
    assert [f.line for f in scan_notebook(release, release)] == []
    assert [f.reason for f in scan_notebook(student, release)] == ["binds the builtin sum"]


@pytest.mark.parametrize("student", list(ATTACKS))
def test_every_attack_ends_at_zero(graded, student):
    root, _, report, _ = graded
    assignment = ATTACKS[student][0]
    score, max_score, flagged = _scores(root, student)[assignment]
    assert max_score == 4.0 and score == 0.0, (student, score, flagged)


def test_code_tricks_are_flagged_for_a_person(graded):
    _, _, report, _ = graded
    behaviour_only = {"only_apply", "seed_two", "zero_the_data", "lying_answer"}  # wrong, not tampering
    behaviour_only |= {student for student in ATTACKS if student.startswith("empty_")}
    for student in ATTACKS:
        assert (f"/ {student} /" in report) == (student not in behaviour_only), (student, report)
    assert "needs manual grade" in report


def test_attackers_leave_the_other_students_untouched(graded):
    root, (scores, submitted, autograded), _, _ = graded
    # the honest student was graded again with the attackers (one run grades everyone): same scores,
    # and the submitted files the attackers tried to overwrite are byte for byte the same
    assert _scores(root, "honest") == scores
    assert _hash(root / "submitted" / "honest") == submitted and set(_hash(root / "autograded" / "honest")) == set(
        autograded
    )
    assert all(score == 0 for score, _, _ in _scores(root, "wrong_after").values())
    assert not json.loads((root / "gradbook_tamper.json").read_text()).get("01_accumulation", {}).get("wrong_after")


def test_the_sandbox_hid_the_course_and_the_network(graded):
    import nbformat

    root, _, _, _ = graded
    nb = nbformat.read(root / "autograded" / "read_source" / "01_accumulation" / "accumulation.ipynb", as_version=4)
    outputs = json.dumps([c.get("outputs", []) for c in nb.cells])
    assert "FileNotFoundError" in outputs and "BEGIN SOLUTION" not in outputs


def _feedback_html(root: Path, student: str) -> str:
    """nbgrader generate_feedback for one student's 01_accumulation, as a teacher runs it: the page."""
    env = {
        **os.environ,
        "HOME": str(root.parent / "home"),
        "JUPYTER_RUNTIME_DIR": str(root.parent / "jupyter_runtime_dir"),
    }
    command = ["generate_feedback", "01_accumulation", "--student", student, "--force"]
    subprocess.run([sys.executable, "-m", "nbgrader", *command], cwd=root, check=True, capture_output=True, env=env)
    return (root / "feedback" / student / "01_accumulation" / "accumulation.html").read_text()


def test_feedback_shows_results_not_hidden_tests(graded):
    root, _, _, _ = graded
    html = _feedback_html(root, "wrong_after")
    assert "hidden tests ran here" in html and "AssertionError: a hidden test failed" in html
    assert "three_calls = 4.0" in html  # what the visible part printed of the answer
    assert not re.search(r"20\.25|BEGIN HIDDEN|probe\[", html)  # neither the expected value nor the judge


def test_without_bubblewrap_it_refuses_unless_told_unsafe(tmp_path):
    (tmp_path / "nbgrader_config.py").write_text("c = get_config()\n")
    env = {**os.environ, "PATH": str(tmp_path)}  # no bwrap on PATH
    done = subprocess.run(
        [sys.executable, "-m", "gradbook.grading.cli", "autograde", "01_accumulation"],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 2
    assert "refusing to grade without a sandbox: bubblewrap is not installed" in done.stderr
    assert "--unsafe" in done.stderr and not (tmp_path / "autograded").exists()


def test_a_sandbox_that_cannot_start_a_kernel_says_why_in_one_line(tmp_path):
    """The pre-check runs the real sandbox command (mounts, user, limits) with Python in it: a
    Python the sandbox cannot reach is one line, before any submission is read."""
    from gradbook.grading.cli import bwrap_problem

    if bwrap_problem():
        pytest.skip(f"no sandbox here: {bwrap_problem()}")
    code = "import sys; sys.executable = sys.argv[1]\nfrom gradbook.grading.sandbox import problem\nprint(problem())"
    done = subprocess.run([sys.executable, "-c", code, str(tmp_path / "nowhere" / "python3")],
                          capture_output=True, text=True, timeout=120)  # fmt: skip
    why = f"bwrap: execvp {tmp_path}/nowhere/python3: No such file or directory"
    assert done.stdout.strip() == f"a kernel cannot start in the sandbox here: {why}", done
    assert not list(tmp_path.iterdir())


@pytest.mark.parametrize("student", list(REFUSED))
def test_special_files_are_refused_and_touch_nothing(graded, student):
    root, (scores, _, _), report, outside = graded
    assert f"01_accumulation / {student} / (submission): needs manual grade" in report, report
    assert _scores(root, student).get("01_accumulation", (0.0,))[0] == 0.0
    assert _scores(root, "honest") == scores  # the gradebook itself was not overwritten
    assert outside.read_text() == "private" and outside.stat().st_mode & 0o777 == 0o600
    assert not (root / "autograded" / student).exists()


def test_a_cell_that_never_ends_costs_only_its_own_points(graded):
    root, _, _, _ = graded
    assert _scores(root, "loop_once")["01_accumulation"][:2] == (3.0, 4.0)


def test_a_submission_nbgrader_refuses_is_in_the_report(graded):
    root, _, report, _ = graded
    assert "01_accumulation / dup_cell / (submission): needs manual grade" in report, report
    assert "multiple times" in report
    assert _scores(root, "dup_cell").get("01_accumulation", (0.0,))[0] == 0.0


def test_a_cell_that_ignores_the_interrupt_costs_only_its_own_points(graded):
    root, _, _, _ = graded  # Q2 (1 point) never ends; the kernel is restarted and Q1 and Q3 still count
    assert _scores(root, "swallows_interrupt")["01_accumulation"][:2] == (3.0, 4.0)


def test_no_markup_of_a_student_reaches_the_grader_or_the_feedback(graded):
    nbformat = pytest.importorskip("nbformat")
    root, _, _, _ = graded
    autograded = root / "autograded" / "markup" / "01_accumulation" / "accumulation.ipynb"
    nb = nbformat.read(autograded, as_version=4)
    shown = json.dumps([c.get("outputs", []) if c.cell_type == "code" else c.source for c in nb.cells])
    assert "__main__.Shown" in shown  # the text/plain of the display is kept
    html = _feedback_html(root, "markup")
    for text in (shown, html):
        assert "a note" in text and "MARKUP()" in text  # shown, as text
        assert not re.search(r"<script>MARKUP|<svg onload|<img src=x onerror|MARKUP\(\)\s*</script>", text)
    assert "your grades" in html and not re.search(r'(?:href|src)="[^"#]*script', html)
    assert '"application/javascript"' not in shown and '"text/html"' not in shown and '"image/svg+xml"' not in shown


def test_the_kernel_sees_none_of_the_graders_environment(graded):
    root, _, _, _ = graded
    text = (root / "autograded" / "leak_env" / "01_accumulation" / "accumulation.ipynb").read_text()
    assert "PYTHONSAFEPATH" in text and SECRET not in text  # it printed its environment: the allow-list


def test_the_kernel_hits_its_limits(graded):
    """Threads and processes (counted per user: a root grader runs the kernel as another user),
    memory and file size stop where sandbox.py says; the notebook is still graded."""
    from gradbook.grading import sandbox

    root = graded[0]
    text = (root / "autograded" / "limits" / "01_accumulation" / "accumulation.ipynb").read_text()
    threads = int(re.search(r"THREADS (\d+)", text).group(1))
    assert 0 < threads < sandbox.PROCESSES, threads
    assert "MEMORY refused" in text
    stopped = int(re.search(r"FILE stopped at (\d+) MiB", text).group(1))
    assert stopped == sandbox.FILE_BYTES // 2**20
    uid = int(re.search(r"UID (\d+)", text).group(1))
    assert uid != 0 and (os.geteuid() != 0 or uid >= sandbox.KERNEL_UID)
    assert _scores(root, "limits")["01_accumulation"] == (0.0, 4.0, True)


def test_report_escapes_control_characters(tmp_path):
    from gradbook.grading.cli import TAMPER_FILE, report

    (tmp_path / TAMPER_FILE).write_text(json.dumps({"a": {"s\x1b[2J": {"n.ipynb": ["line \x1b[8m hidden"]}}}))
    import contextlib
    import io

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        report(tmp_path, None)
    assert "\x1b" not in out.getvalue() and "\\x1b[8m" in out.getvalue()


@pytest.mark.parametrize(
    "form",
    ["### BEGIN HIDDEN TESTS", "#BEGIN HIDDEN TESTS", "  # BEGIN HIDDEN TESTS ##", "x = 1  # BEGIN HIDDEN TESTS"],
)
def test_feedback_hides_every_delimiter_form_nbgrader_accepts(form):
    from gradbook.grading.feedback import hide_hidden_tests

    shown = hide_hidden_tests(f"check(a)\n{form}\nassert a == 12\n# END HIDDEN TESTS\nafter()")
    assert "12" not in shown and shown.endswith("after()") and "hidden tests ran here" in shown


LINKS = [  # Markdown that nbconvert renders as a link or image (the second attack, tests/attacks/REPORT2.md)
    "[a](javascript:alert(1))", "[b](jav&#x61;script:alert(2))", "![i](javascript:x)", "<javascript:alert(3)>",
    "[r][1]\n\n[1]: javascript:alert(4)", "[c](<javascript:alert(5)>)", "[d]( JaVaScRiPt:alert(6))",
    "[e](vbscript:x)", "[g](&#106;avascript:alert(8))", "[h](javascript&colon;alert(9))",
    "[k]: <javascript:x> 'y'\n\n[k]", "[t](data:text/html,<script>x()</script>)",
]  # fmt: skip


@pytest.mark.parametrize("markdown", LINKS, ids=range(len(LINKS)))
def test_no_markdown_link_or_image_runs_script(markdown):
    from nbconvert.filters.markdown_mistune import markdown2html_mistune

    from gradbook.grading.feedback import safe_markdown

    html = markdown2html_mistune(safe_markdown(markdown))
    targets = re.findall(r'(?:href|src)="([^"]*)"', html)
    assert all(t == "#" or t.startswith("%3C") for t in targets), (markdown, html)
    kept = markdown2html_mistune(safe_markdown("[ok](https://pytorch.org) ![p](data:image/png;base64,AAAA) [t](#x)"))
    assert re.findall(r'(?:href|src)="([^"]*)"', kept) == ["https://pytorch.org", "data:image/png;base64,AAAA", "#x"]


def _judges():
    nbformat = pytest.importorskip("nbformat")
    for path in sorted(COURSE.glob("source/*/*.ipynb")):  # all ten assignments
        nb = nbformat.read(path, as_version=4)
        for cell in nb.cells:
            if cell.metadata.get("nbgrader", {}).get("grade") and cell.cell_type == "code":
                _, _, judge_source = split(cell.source)
                if judge_source:
                    yield pytest.param(judge_source, id=cell.metadata["nbgrader"]["grade_id"])


OWN_PROGRAMS = sorted(p.name for p in COURSE.glob("source/*"))  # every assignment: no lesson solves its questions


@pytest.mark.parametrize("assignment", OWN_PROGRAMS)
def test_a_graded_question_has_no_visible_check_that_knows_its_answer(assignment):
    nbformat = pytest.importorskip("nbformat")
    (path,) = COURSE.glob(f"source/{assignment}/*.ipynb")
    lessons = [nbformat.read(p, as_version=4) for p in sorted((ROOT / "notebooks").glob("*.ipynb"))]
    lesson_text = "\n".join(cell.source for nb in lessons for cell in nb.cells)
    for cell in nbformat.read(path, as_version=4).cells:
        meta = cell.metadata.get("nbgrader", {})
        if meta.get("grade") and cell.cell_type == "code":
            visible = split(cell.source)[0]
            assert "check_" not in visible, visible  # no lesson check (gradbook.exercises' helpers are fine)
        if cell.cell_type == "markdown" and "```python" in cell.source:  # a question's program
            program = cell.source.split("```python\n")[1].split("```")[0]
            assert program.strip() not in lesson_text, program  # not a program a lesson shows or runs


EMPTY = [np.zeros(0), np.zeros((0, 3)), np.zeros((0, 3, 2)), gradbook.zeros(0, 2), gradbook.zeros(0, 3, 1), [], ""]


@pytest.mark.parametrize("judge_source", list(_judges()))
def test_no_judge_passes_an_empty_answer(judge_source):
    keys = set(re.findall(r'probe\["(\w+)"\]', judge_source))
    for empty in EMPTY:  # every value the judge reads is empty (allclose would broadcast it against anything)
        values = encode(dict.fromkeys(keys, empty))
        assert judge(judge_source, {"ok": True, "values": values}) is not None, (empty, judge_source)


def test_the_judge_reads_only_plain_data():
    from gradbook.grading.judge import judge, read_probe, split
    from gradbook.grading.probe import MARK

    visible, probe, judge_source = split("check(a)\n### BEGIN HIDDEN TESTS\nprobe = {'a': a}\n### JUDGE\n"
                                         "assert probe['a'] == 12\n### END HIDDEN TESTS")  # fmt: skip
    assert (visible, probe) == ("check(a)", "probe = {'a': a}")
    ok = {"ok": True, "values": {"dict": {"a": 12}}}
    assert judge(judge_source, ok) is None
    assert judge(judge_source, {"ok": True, "values": {"dict": {"a": 11}}})[0] == "AssertionError"
    pickled = {"ok": True, "values": {"dict": {"a": {"__reduce__": "os.system"}}}}
    assert "could not be read" in judge(judge_source, pickled)[1]
    assert judge(None, ok)[0] == "UngradedTestError"  # no judge part: never points by default
    line = {"output_type": "stream", "name": "stdout", "text": "noise\n" + MARK + json.dumps(ok) + "\n"}
    assert read_probe([line]) == ok
    assert read_probe([{"output_type": "stream", "name": "stdout", "text": "12"}])["ok"] is False


def test_an_honest_submission_grades_without_nbgraders_checksum_warning(graded):
    """nbgrader's own OverwriteCells calls every released test cell with hidden tests "changed"
    (jupyter/nbgrader#1961); gradebook-grade's says so only of a cell the student did change."""
    root = graded[0]
    env = _private_jupyter_env(root.parent)

    def grade(student, assignment):
        command = ["autograde", assignment, "--student", student, "--", "--create", "--force"]
        done = subprocess.run([sys.executable, "-m", "gradbook.grading.cli", *command],
                              cwd=root, env=env, capture_output=True, text=True, timeout=600)  # fmt: skip
        assert done.returncode == 0, done
        return done.stderr

    for assignment, name in NOTEBOOKS.items():
        (root / "submitted" / "honest_again" / assignment).mkdir(parents=True)
        shutil.copy(root / "submitted" / "honest" / assignment / f"{name}.ipynb",
                    root / "submitted" / "honest_again" / assignment)  # fmt: skip
        log = grade("honest_again", assignment)
        assert "has changed" not in log, log
    assert _scores(root, "honest_again") == {a: (4.0 - MANUAL.get(a, 0), 4.0, a in MANUAL) for a in NOTEBOOKS}

    import nbformat

    nb = nbformat.read(root / "submitted" / "honest" / "01_accumulation" / "accumulation.ipynb", as_version=4)
    test = next(c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") == "after_zeroing_tests")
    test.source += "\nprint('edited')"
    (root / "submitted" / "honest_edited" / "01_accumulation").mkdir(parents=True)
    nbformat.write(nb, root / "submitted" / "honest_edited" / "01_accumulation" / "accumulation.ipynb")
    log = grade("honest_edited", "01_accumulation")
    assert log.count("has changed") == 1 and "'checksum' for cell after_zeroing_tests has changed" in log, log


def test_the_chinese_course_grades_honest_work_in_the_sandbox(tmp_path):
    """docs/course/zh through gradbook-grade: scanned, sandboxed, judged outside; the honest answers
    get the English course's marks (a person still grades the explanation)."""
    nbformat = pytest.importorskip("nbformat")
    pytest.importorskip("nbgrader")
    from gradbook.grading.cli import bwrap_problem

    if bwrap_problem():
        pytest.skip(f"no sandbox here: {bwrap_problem()}")
    shutil.copytree(COURSE, tmp_path / "course", ignore=shutil.ignore_patterns(
        "release", "submitted", "autograded", "feedback", "gradebook.db", "__pycache__"))  # fmt: skip
    root = tmp_path / "course" / "zh"  # its config reads the English one beside it
    env = _private_jupyter_env(tmp_path)

    def run(*args, tool="nbgrader"):
        command = [sys.executable, "-m", "nbgrader" if tool == "nbgrader" else "gradbook.grading.cli"]
        done = subprocess.run([*command, *args], cwd=root, env=env, capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, f"{' '.join(args)}:\n{done.stdout}\n{done.stderr}"
        return done.stdout

    run("generate_assignment", "*", "--force")
    for assignment, name in NOTEBOOKS.items():
        release = nbformat.read(root / "release" / assignment / f"{name}.ipynb", as_version=4)
        source = nbformat.read(root / "source" / assignment / f"{name}.ipynb", as_version=4)
        assert 'torch.set_language("zh")' in release.cells[[c.cell_type for c in release.cells].index("code")].source
        for theirs, ours in zip(_answer_cells(release), _answer_cells(source)):
            theirs.source = _solution(ours.source)
        path = root / "submitted" / "honest" / assignment / f"{name}.ipynb"
        path.parent.mkdir(parents=True)
        nbformat.write(release, path)
        run("autograde", assignment, "--", "--create", "--force", tool="gradbook")
    assert _scores(root, "honest") == {a: (4.0 - MANUAL.get(a, 0), 4.0, a in MANUAL) for a in NOTEBOOKS}
    assert run("report", tool="gradbook").strip() == "no flagged submissions"


# Wrong answers that an independent reviewer found passing, each with the grade id of its answer
# cell and of the test cell that must refuse it (the notebook's other answers stay the instructor's).
WRONG_ANSWERS = {
    "08 Value.__mul__ that forgets out.grad": (
        "08_micrograd",
        "mul_rule_answer",
        "mul_rule_tests",
        lambda source: source.replace("self.grad += other.data * out.grad", "self.grad += other.data").replace(
            "other.grad += self.data * out.grad", "other.grad += self.data"
        ),
    ),
    "09 unbroadcast with sum_to_size": (
        "09_broadcasting",
        "unbroadcast_answer",
        "unbroadcast_tests",
        lambda source: "def unbroadcast(grad, shape):\n    return grad.sum_to_size(shape)\n",
    ),
    "13 clipped_step without zero_grad": (
        "13_accumulation",
        "clipped_answer",
        "clipped_tests",
        lambda source: source.replace("    optimizer.zero_grad()\n", ""),
    ),
}


def _graded_in_process(path: Path, answers: dict) -> dict[str, tuple | None]:
    """Run an instructor notebook in this process with some answer cells replaced: every cell in
    order, each test cell's probe after its visible part, then its judge on the encoded values.
    {test grade id: judge's verdict (None: passed)}."""
    import nbformat

    namespace: dict = {"__name__": "__main__"}
    verdicts = {}
    for cell in nbformat.read(path, as_version=4).cells:
        meta = cell.metadata.get("nbgrader", {})
        if cell.cell_type != "code":
            continue
        source = answers.get(meta.get("grade_id"), lambda s: s)(cell.source)
        visible, probe, judge_source = split(source)
        exec(compile(_solution(visible), str(path), "exec"), namespace)
        if probe is not None:
            try:
                exec(compile(probe, "<probe>", "exec"), namespace)
                result = {"ok": True, "values": encode(namespace["probe"])}
            except Exception as err:  # noqa: BLE001  (the answer's error is the verdict)
                result = {"ok": False, "error": f"{type(err).__name__}: {err}"}
            verdicts[meta["grade_id"]] = judge(judge_source, result)
    return verdicts


@pytest.mark.parametrize("name", list(WRONG_ANSWERS))
@pytest.mark.parametrize("language", ["", "zh/"])
def test_a_wrong_answer_a_reviewer_found_is_refused(name, language):
    assignment, answer_id, test_id, wrong = WRONG_ANSWERS[name]
    (path,) = COURSE.glob(f"{language}source/{assignment}/*.ipynb")
    assert _graded_in_process(path, {})[test_id] is None, "the instructor's answer passes"
    assert _graded_in_process(path, {answer_id: wrong})[test_id] is not None, "the wrong answer is refused"

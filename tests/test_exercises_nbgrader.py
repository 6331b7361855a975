"""The nbgrader round trip of docs/course, with the real nbgrader CLI on a copy of the course.

Generate every assignment, autograde three submissions of each (the instructor's solutions, the
untouched student version, and a partly solved one), read the scores from nbgrader's gradebook,
and generate feedback; for the English course and for the Chinese one (docs/course/zh/).
Everything runs in a temporary directory, with Jupyter's and IPython's config, data and runtime
directories there too, so nothing reads or writes the user's home.
"""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

pytest.importorskip("nbgrader")
pytest.importorskip("ipykernel")

from nbgrader.api import Gradebook  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
COURSE = ROOT / "docs" / "course"
COURSES = {"en": COURSE, "zh": COURSE / "zh"}  # the Chinese course: the same assignments, in Chinese
# every assignment the course's text sources define: {assignment: notebook name}
ASSIGNMENTS = {p.parent.name: p.stem for p in sorted((COURSE / "text").glob("*/*.md"))}
GENERATED = ("release", "submitted", "autograded", "feedback", "exchange", "gradebook.db")
# the partly solved submission answers the first and the last question of each assignment
PARTIAL_POINTS = {
    "01_accumulation": 1 + 2,
    "02_vjp": 1 + 2,
    "03_retain_graph": 1 + 1,
    "04_reading_the_graph": 1 + 1,
    "05_higher_order": 1 + 1,
    "06_no_grad_detach_inplace": 1 + 1,
    "07_training_loop": 1 + 2,
    "08_micrograd": 2 + 1,
    "09_broadcasting": 1 + 2,
    "10_custom_function": 2 + 1,
    "11_foundations": 1 + 1,
    "12_forward_mode": 1 + 1,
    "13_accumulation": 1 + 1,
    "14_vectorized": 1 + 1,
    "15_memory": 1 + 0,  # the last answer is an explanation: a person grades it
    "16_stability": 1 + 1,
    "17_own_engine": 1 + 1,
}


def solution_cells(nb):
    return [cell for cell in nb.cells if cell.metadata.get("nbgrader", {}).get("solution")]


def partly_solved(source, release):
    """The student version with the instructor's answers to the first and last questions only."""
    nb = nbformat.from_dict(json.loads(json.dumps(release)))
    theirs, ours = solution_cells(nb), solution_cells(source)
    for i in (0, len(ours) - 1):
        theirs[i].source = ours[i].source
    return nb


@pytest.fixture(scope="module", params=list(COURSES))
def course(request, tmp_path_factory):
    """The course after generate, three submissions per assignment, autograde and feedback."""
    tmp = tmp_path_factory.mktemp("nbgrader")
    # the whole of docs/course: the Chinese course's config reads the English one beside it
    ignore = shutil.ignore_patterns(*GENERATED, "__pycache__", ".ipynb_checkpoints")
    shutil.copytree(COURSE, tmp / "course", ignore=ignore)
    root = tmp / "course" / COURSES[request.param].relative_to(COURSE)
    env = dict(os.environ)
    for name in ("HOME", "JUPYTER_CONFIG_DIR", "JUPYTER_DATA_DIR", "JUPYTER_RUNTIME_DIR", "IPYTHONDIR"):
        env[name] = str(tmp / name.lower())
        os.makedirs(env[name])
    env.pop("JUPYTER_PATH", None)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH")) if p)

    def nbgrader(*args):
        done = subprocess.run(
            [sys.executable, "-m", "nbgrader", *args], cwd=root, env=env, capture_output=True, text=True, timeout=300
        )
        assert done.returncode == 0, f"nbgrader {' '.join(args)} failed:\n{done.stdout}\n{done.stderr}"
        return done

    nbgrader("generate_assignment", "*", "--force")  # "*": every assignment in one run
    for assignment, name in ASSIGNMENTS.items():
        source = nbformat.read(root / "source" / assignment / f"{name}.ipynb", as_version=4)
        release = nbformat.read(root / "release" / assignment / f"{name}.ipynb", as_version=4)
        for student, nb in (("solved", source), ("untouched", release), ("partial", partly_solved(source, release))):
            path = root / "submitted" / student / assignment / f"{name}.ipynb"
            path.parent.mkdir(parents=True)
            nbformat.write(nb, path)
    nbgrader("autograde", "*", "--create", "--force")
    nbgrader("generate_feedback", "*", "--force")
    return root


def scores(root, student):
    with Gradebook(f"sqlite:///{root / 'gradebook.db'}") as gb:
        found = {a: gb.find_submission(a, student) for a in ASSIGNMENTS}
        return {a: (sub.score, sub.max_score) for a, sub in found.items()}


def test_the_course_is_kept_as_text_and_its_notebooks_are_up_to_date():
    done = subprocess.run([sys.executable, str(COURSE / "build.py"), "--check"], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    for course in COURSES.values():
        notebooks = {p.parent.name: p.stem for p in (course / "source").glob("*/*.ipynb")}
        assert notebooks == ASSIGNMENTS, "every instructor notebook has its text source, and the other way round"
        assert not list((course / "source").glob("*/*.md")), "nbgrader would copy a text source, solutions and all"


def test_the_chinese_course_is_a_course_of_its_own():
    """nbgrader reads docs/course/zh/nbgrader_config.py: its own course id, gradebook and exchange."""
    from traitlets.config.loader import PyFileConfigLoader

    config = PyFileConfigLoader("nbgrader_config.py", path=str(COURSES["zh"])).load_config()
    assert config.CourseDirectory.course_id == "gradbook-autograd-zh"
    assert config.CourseDirectory.root == str(COURSES["zh"])
    assert config.CourseDirectory.db_url == f"sqlite:///{COURSES['zh'] / 'gradebook.db'}"
    assert config.Exchange.root == str(COURSES["zh"] / "exchange")
    assert config.ExecutePreprocessor.timeout == 60  # and the English course's settings


def test_the_course_has_one_assignment_of_four_or_more_points_per_lesson():
    lessons = sorted(p.name[:2] for p in (ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
    assert sorted(a[:2] for a in ASSIGNMENTS) == lessons
    for assignment, name in ASSIGNMENTS.items():
        nb = nbformat.read(COURSE / "source" / assignment / f"{name}.ipynb", as_version=4)
        graded = [c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade")]
        assert sum(c.metadata["nbgrader"]["points"] for c in graded) >= 4, assignment
        for cell in graded:  # a test cell has hidden tests; a written answer is graded by a person
            if cell.cell_type == "code":
                assert "### BEGIN HIDDEN TESTS" in cell.source, assignment
            else:
                assert cell.cell_type == "markdown" and cell.metadata["nbgrader"]["solution"], assignment
        assert solution_cells(nb), assignment


def manual_points(assignment):
    """The points of the answers a person grades (an explanation in a Markdown cell)."""
    nb = nbformat.read(COURSE / "source" / assignment / f"{ASSIGNMENTS[assignment]}.ipynb", as_version=4)
    return sum(
        c.metadata["nbgrader"]["points"]
        for c in nb.cells
        if c.cell_type == "markdown" and c.metadata.get("nbgrader", {}).get("grade")
    )


def test_some_assignment_asks_for_an_explanation_graded_by_a_person():
    assert any(manual_points(a) for a in ASSIGNMENTS)


def test_the_lessons_checks_run_the_programs_their_lessons_show_and_no_assignment_asks():
    from gradbook.exercises.lesson01 import ZEROING_PROGRAM
    from gradbook.exercises.lesson04 import LEAVES_PROGRAM
    from gradbook.exercises.lesson05 import SECOND_DERIVATIVE_PROGRAM
    from gradbook.exercises.lesson06 import DETACH_PROGRAM
    from gradbook.exercises.lesson07 import NO_ZERO_GRAD_PROGRAM
    from gradbook.exercises.lesson11 import DERIVE_PROGRAM
    from gradbook.exercises.lesson12 import JVP_PROGRAM, PASSES_PROGRAM
    from gradbook.exercises.lesson13 import NO_DIVISION_PROGRAM
    from gradbook.exercises.lesson14 import SOFTMAX_CE_PROGRAM
    from gradbook.exercises.lesson15 import SAVED_PROGRAM
    from gradbook.exercises.lesson16 import KINK_PROGRAM
    from gradbook.exercises.lesson17 import LOOP_PROGRAM

    for program, lesson, assignment in [
        (ZEROING_PROGRAM, "01_backward_and_accumulation", "01_accumulation"),
        (LEAVES_PROGRAM, "04_reading_the_graph", "04_reading_the_graph"),
        (SECOND_DERIVATIVE_PROGRAM, "05_higher_order_gradients", "05_higher_order"),
        (DETACH_PROGRAM, "06_no_grad_detach_inplace", "06_no_grad_detach_inplace"),
        (NO_ZERO_GRAD_PROGRAM, "07_training_loop", "07_training_loop"),
        (DERIVE_PROGRAM, "11_foundations", "11_foundations"),
        (JVP_PROGRAM, "12_forward_mode_and_cost", "12_forward_mode"),
        (PASSES_PROGRAM, "12_forward_mode_and_cost", "12_forward_mode"),
        (NO_DIVISION_PROGRAM, "13_accumulation_on_purpose", "13_accumulation"),
        (SOFTMAX_CE_PROGRAM, "14_vectorized_backward", "14_vectorized"),
        (SAVED_PROGRAM, "15_memory", "15_memory"),
        (KINK_PROGRAM, "16_numerical_stability", "16_stability"),
        (LOOP_PROGRAM, "17_own_engine", "17_own_engine"),
    ]:
        for language in ("text", "zh/text"):  # the self-check's program is the one its lesson shows
            assert f"```python\n{program}```" in (ROOT / "notebooks" / language / f"{lesson}.md").read_text(), lesson
        # a graded assignment asks another program (its answer is not in the lesson, nor in a check)
        assert program not in (COURSE / "text" / assignment / f"{ASSIGNMENTS[assignment]}.md").read_text(), assignment


def test_student_versions_have_no_solutions_and_no_hidden_tests(course):
    for assignment, name in ASSIGNMENTS.items():
        source = nbformat.read(course / "source" / assignment / f"{name}.ipynb", as_version=4)
        text = (course / "release" / assignment / f"{name}.ipynb").read_text()
        for marker in ("BEGIN SOLUTION", "END SOLUTION", "BEGIN HIDDEN TESTS", "END HIDDEN TESTS"):
            assert marker not in text, (assignment, marker)
        release = nbformat.read(course / "release" / assignment / f"{name}.ipynb", as_version=4)
        stubs = "\n".join(cell.source for cell in solution_cells(release))
        for cell in solution_cells(source):
            inside = cell.source.split("### BEGIN SOLUTION")[1:]
            for region in inside:
                for line in region.split("### END SOLUTION")[0].strip().splitlines():
                    assert line.strip() not in stubs, (assignment, line)
        regions = sum(cell.source.count("### BEGIN SOLUTION") for cell in solution_cells(source))
        assert stubs.count("raise NotImplementedError()") == regions, assignment


def test_instructor_solutions_get_full_marks(course):
    """Full marks for every answer the tests grade; a written explanation waits for a person."""
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb:
        for assignment in ASSIGNMENTS:
            sub = gb.find_submission(assignment, "solved")
            assert sub.max_score == 4, assignment
            assert sub.score == sub.max_score - manual_points(assignment), assignment
            assert bool(sub.needs_manual_grade) == bool(manual_points(assignment)), assignment


def test_a_person_grades_the_explanations_and_the_score_is_complete(course):
    explained = [a for a in ASSIGNMENTS if manual_points(a)]
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb:
        for assignment in explained:
            sub = gb.find_submission(assignment, "solved")
            waiting = [g for nb in sub.notebooks for g in nb.grades if g.needs_manual_grade]
            assert waiting and all(g.auto_score is None for g in waiting), assignment
            for grade in waiting:  # what formgrader's grade API does when a person gives the points
                grade.manual_score = grade.max_score
                grade.needs_manual_grade = False
            gb.db.commit()
        for assignment in explained:
            sub = gb.find_submission(assignment, "solved")
            assert sub.score == 4 and not sub.needs_manual_grade, assignment


def test_the_student_version_asks_for_the_explanation_and_shows_no_model_answer(course):
    for assignment in (a for a in ASSIGNMENTS if manual_points(a)):
        name = ASSIGNMENTS[assignment]
        source = nbformat.read(course / "source" / assignment / f"{name}.ipynb", as_version=4)
        release = nbformat.read(course / "release" / assignment / f"{name}.ipynb", as_version=4)
        for ours, theirs in zip(solution_cells(source), solution_cells(release)):
            if ours.cell_type == "markdown":
                assert theirs.source == "YOUR ANSWER HERE", assignment
                released = (course / "release" / assignment / f"{name}.ipynb").read_text()
                assert ours.source.splitlines()[0] not in released, assignment


def test_untouched_student_version_gets_zero_without_crashing(course):
    for assignment, (score, _) in scores(course, "untouched").items():
        assert score == 0, assignment
        assert (course / "autograded" / "untouched" / assignment / f"{ASSIGNMENTS[assignment]}.ipynb").exists()


def test_partly_solved_version_gets_the_points_of_its_answers(course):
    assert {a: score for a, (score, _) in scores(course, "partial").items()} == PARTIAL_POINTS


def test_feedback_html_for_every_submission(course):
    for student in ("solved", "untouched", "partial"):
        for assignment, name in ASSIGNMENTS.items():
            html = course / "feedback" / student / assignment / f"{name}.html"
            assert html.exists(), html
            assert "gradbook" in html.read_text(), html

"""`python -m gradbook lessons DIR`: the wheel ships the lessons, and the command copies them out."""

import subprocess
import sys
import zipfile

from conftest import ROOT

LESSONS = sorted(p.relative_to(ROOT / "notebooks") for p in (ROOT / "notebooks").rglob("[0-9][0-9]_*.ipynb"))


def run(*args, **kwargs):
    return subprocess.run([sys.executable, "-m", "gradbook", *args], capture_output=True, text=True, **kwargs)


def test_the_wheel_ships_every_lesson_in_both_languages(tmp_path):
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", str(ROOT), "-w", str(tmp_path)],
        check=True,
        capture_output=True,
    )
    (wheel,) = tmp_path.glob("gradbook-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    assert len(LESSONS) == 20
    for lesson in LESSONS:
        for suffix in (".ipynb", ".md"):
            assert f"gradbook/lessons/{lesson.with_suffix(suffix).as_posix()}" in names, lesson
    assert {"gradbook/lessons/matplotlibrc", "gradbook/lessons/zh/matplotlibrc"} <= names


def test_the_command_copies_the_lessons_and_keeps_what_is_there(tmp_path):
    target = tmp_path / "my lessons"
    done = run("lessons", str(target))
    assert done.returncode == 0, done.stderr
    for lesson in LESSONS:
        assert (target / lesson).read_bytes() == (ROOT / "notebooks" / lesson).read_bytes()
    assert (target / "zh" / "matplotlibrc").read_text() == (ROOT / "notebooks" / "matplotlibrc").read_text()
    (target / LESSONS[0]).write_text("my notes")
    again = run("lessons", str(target))
    assert again.returncode == 1 and "already exists" in again.stderr and "--force" in again.stderr
    assert (target / LESSONS[0]).read_text() == "my notes", "nothing is overwritten without --force"
    assert run("lessons", str(target), "--force").returncode == 0
    assert (target / LESSONS[0]).read_bytes() == (ROOT / "notebooks" / LESSONS[0]).read_bytes()


def test_the_command_says_what_it_wants():
    done = run()
    assert done.returncode == 2 and "lessons" in done.stderr

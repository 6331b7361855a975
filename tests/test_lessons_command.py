"""`python -m gradbook lessons DIR`: the wheel ships the lessons, and the command copies them out."""

import re
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
    assert len(LESSONS) == 34
    for lesson in LESSONS:
        assert f"gradbook/lessons/{lesson.as_posix()}" in names, lesson
    # one entry per lesson in a learner's folder: the text twins (notebooks/text/) stay in the repository
    assert not [n for n in names if re.fullmatch(r"gradbook/lessons/(zh/)?\d\d_\w+\.md", n)]
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


def _one_line_refusal(done, *words):
    assert done.returncode == 1 and done.stdout == "", done
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr, done.stderr
    assert all(w in done.stderr for w in words), done.stderr


def test_it_never_writes_through_a_link(tmp_path):
    outside = tmp_path / "outside.txt"
    outside.write_text("private")
    target = tmp_path / "lessons"
    target.mkdir()
    dangling = target / LESSONS[0]
    dangling.symlink_to(tmp_path / "nowhere.ipynb")
    _one_line_refusal(run("lessons", str(target)), str(dangling), "symbolic link")
    _one_line_refusal(run("lessons", str(target), "--force"), str(dangling), "symbolic link")
    assert not (tmp_path / "nowhere.ipynb").exists() and dangling.is_symlink()
    dangling.unlink()
    dangling.symlink_to(outside)
    _one_line_refusal(run("lessons", str(target), "--force"), "symbolic link")
    assert outside.read_text() == "private"
    assert sorted(p.name for p in target.iterdir()) == [LESSONS[0].name], "nothing else was written"

    linked_dir = tmp_path / "linked"
    linked_dir.symlink_to(tmp_path / "elsewhere")
    _one_line_refusal(run("lessons", str(linked_dir)), str(linked_dir), "symbolic link")
    assert not (tmp_path / "elsewhere").exists()

    zh = tmp_path / "with_zh"
    zh.mkdir()
    (tmp_path / "zh_elsewhere").mkdir()
    (zh / "zh").symlink_to(tmp_path / "zh_elsewhere")
    _one_line_refusal(run("lessons", str(zh)), str(zh / "zh"), "symbolic link")
    assert list((tmp_path / "zh_elsewhere").iterdir()) == [] and list(zh.iterdir()) == [zh / "zh"]

    a_file = tmp_path / "a_file"
    a_file.write_text("x")
    _one_line_refusal(run("lessons", str(a_file)), str(a_file), "not a folder")


def test_a_failed_copy_changes_nothing(tmp_path):
    """All or nothing, on a real full disk: a tmpfs too small for the lessons (inside bubblewrap)."""
    import shutil

    import pytest

    if shutil.which("bwrap") is None:
        pytest.skip("bubblewrap is not installed")
    size = sum(p.stat().st_size for p in (ROOT / "notebooks").rglob("*") if p.is_file())
    script = (
        f"{sys.executable} -m gradbook lessons /t/new; echo rc=$?; ls -A /t;"
        "mkdir /t/mine; echo notes > /t/mine/keep.txt;"
        f"{sys.executable} -m gradbook lessons /t/mine; echo rc=$?; ls -A /t/mine"
    )
    small = ["bwrap", "--dev-bind", "/", "/", "--size", str(size // 2), "--tmpfs", "/t", "sh", "-c", script]
    done = subprocess.run(small, capture_output=True, text=True, timeout=120)
    if done.returncode != 0 and "bwrap" in done.stderr:
        pytest.skip(f"bwrap cannot run here: {done.stderr.strip()}")
    assert done.stdout.split() == ["rc=1", "rc=1", "keep.txt"], done.stdout  # /t stayed empty, then mine/ too
    assert done.stderr.count("No space left on device; nothing was changed") == 2, done.stderr
    # room for one copy, not for a second one beside it: --force fails and puts every old file back
    script = (
        f"{sys.executable} -m gradbook lessons /t/x > /dev/null; echo notes > /t/x/{LESSONS[0]};"
        f"{sys.executable} -m gradbook lessons /t/x --force; echo rc=$?; cat /t/x/{LESSONS[0]};"
        "find /t/x -type f | wc -l"
    )
    roomy = ["bwrap", "--dev-bind", "/", "/", "--size", str(size * 3 // 2), "--tmpfs", "/t", "sh", "-c", script]
    done = subprocess.run(roomy, capture_output=True, text=True, timeout=120)
    files = len(LESSONS) + 2  # each lesson's notebook, and matplotlibrc in both languages
    assert done.stdout.split()[:2] == ["rc=1", "notes"], (done.stdout, done.stderr)
    assert int(done.stdout.split()[2]) == files, (done.stdout, files)


def test_the_command_works_beside_a_folder_named_gradbook(tmp_path):
    (tmp_path / "gradbook").mkdir()  # a clone, seen from the folder it was cloned into
    done = run("lessons", "mine", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "mine" / LESSONS[0]).read_bytes() == (ROOT / "notebooks" / LESSONS[0]).read_bytes()

"""The lesson notebooks: all collected by the test run (nbval runs them), saved executed with
self-contained widget views (pictures, and players where scripts run) so that GitHub, nbviewer,
an untrusted clone and an HTML export show them, every checked output equal to what PyTorch prints,
and each English lesson's Chinese twin (notebooks/zh/) running the same code."""

import json
import math
import os
import re
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from conftest import ROOT

import gradbook as torch

NOTEBOOKS = ROOT / "notebooks"
ENGLISH = sorted(NOTEBOOKS.glob("*.ipynb"))
CHINESE = sorted((NOTEBOOKS / "zh").glob("*.ipynb"))
LESSONS = ENGLISH + CHINESE
CHECK = "# NBVAL_CHECK_OUTPUT"
WIDGET_STATE = "application/vnd.jupyter.widget-state+json"
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"


def text_of(notebook: Path) -> Path:
    """A lesson's text source: ``NN_name.ipynb`` is built from ``text/NN_name.md``."""
    return notebook.parent / "text" / notebook.with_suffix(".md").name


def read(path: Path) -> nbformat.NotebookNode:
    return nbformat.read(path, as_version=4)


def checked_cells(nb: nbformat.NotebookNode) -> list[nbformat.NotebookNode]:
    return [cell for cell in nb.cells if cell.cell_type == "code" and cell.source.startswith(CHECK)]


def stdout(cell: nbformat.NotebookNode) -> str:
    return "".join(out.text for out in cell.outputs if out.output_type == "stream" and out.name == "stdout")


def test_there_are_seventeen_numbered_lessons_each_with_its_chinese_twin():
    assert [p.name[:3] for p in ENGLISH] == [f"{n:02d}_" for n in range(1, 18)]
    assert [p.name for p in CHINESE] == [p.name for p in ENGLISH]


def _code(path: Path) -> list[tuple[str, list[str]]]:
    """The code cells of a lesson's text source with comments and the language line removed."""
    import jupytext

    cells = []
    for cell in jupytext.read(text_of(path)).cells:
        if cell.cell_type != "code":
            continue
        lines = [re.sub(r"\s+#(?! NBVAL).*$|^#(?! NBVAL).*$", "", line).rstrip() for line in cell.source.splitlines()]
        lines = [line for line in lines if line and line != 'torch.set_language("zh")']
        cells.append(("\n".join(lines), sorted(cell.metadata.get("tags", []))))
    return cells


@pytest.mark.parametrize("path", ENGLISH, ids=lambda p: p.stem)
def test_the_chinese_twin_runs_the_same_code(path):
    twin = NOTEBOOKS / "zh" / path.name
    assert _code(twin) == _code(path)
    assert 'torch.set_language("zh")' in text_of(twin).read_text()


def test_every_lesson_is_collected_by_the_test_run_and_the_nbgrader_course_is_not():
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q"], capture_output=True, text=True, cwd=ROOT
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    collected = {line.split("::")[0] for line in result.stdout.splitlines() if ".ipynb::" in line}
    assert collected == {str(p.relative_to(ROOT)) for p in LESSONS}


@pytest.mark.parametrize("path", LESSONS, ids=lambda p: p.stem)
def test_lesson_is_saved_executed_with_self_contained_widget_views(path):
    """No widget state and no widget views (they would show "model not found" without a kernel):
    each widget is saved as a picture plus the script that plays it where scripts run."""
    nb = read(path)
    assert nb.metadata.kernelspec.name == "python3"
    assert WIDGET_STATE not in nb.metadata.get("widgets", {}), "rebuild with python3 notebooks/build.py"
    outputs = [out for cell in nb.cells if cell.cell_type == "code" for out in cell.outputs]
    assert not [out for out in outputs if WIDGET_VIEW in out.get("data", {})]
    views = [out["data"]["text/html"] for out in outputs if "gradbook-" in out.get("data", {}).get("text/html", "")]
    assert views, "every lesson shows a widget"
    for view in views:
        assert "<svg" not in view and "data:image/svg+xml;base64," in view  # pictures, in any notebook
    code = [cell for cell in nb.cells if cell.cell_type == "code"]
    assert [cell.execution_count for cell in code] == list(range(1, len(code) + 1))
    for cell in code:
        errors = [out for out in cell.outputs if out.output_type == "error"]
        assert bool(errors) == ("raises-exception" in cell.metadata.get("tags", [])), cell.source
    assert checked_cells(nb), "a lesson compares some printed output"
    for cell in checked_cells(nb):
        assert "object at 0x" not in stdout(cell), "memory addresses change every run"


# JupyterLab's output column at 1024×768, a projector (measured in Debian's chromium): every saved
# picture fits it, a drawing shrunk to no less than 3/4 of its size (gradbook.viz.draw.MIN_SCALE),
# a plot not shrunk at all (the browser test checks the same in JupyterLab)
PROJECTOR_COLUMN = 592


def _saved_pictures(nb):
    """(cell index, kind, width in CSS px) of each picture among the saved outputs."""
    import base64
    import struct

    for index, cell in enumerate(nb.cells):
        for out in cell.get("outputs", []):
            data = out.get("data", {})
            for encoded in re.findall(r'src="data:image/svg\+xml;base64,([^"]+)"', data.get("text/html", "")):
                svg = base64.b64decode(encoded).decode()
                size = re.search(r'<svg\b[^>]*?\swidth="([\d.]+)(pt|px)?"', svg)
                yield index, "drawing", float(size[1]) * (4 / 3 if size[2] == "pt" else 1)
            if "image/png" in data:
                png = base64.b64decode(data["image/png"])
                yield index, "plot", struct.unpack(">I", png[16:20])[0]


# the columns of code JupyterLab's editor shows in that column without scrolling sideways (13 px
# monospace, measured by an independent run at 1024×768: 106 characters took 838 px); a Chinese
# character takes two
EDITOR_COLUMNS = 74


@pytest.mark.parametrize("path", LESSONS, ids=lambda p: str(p.relative_to(NOTEBOOKS)))
def test_every_line_of_code_fits_a_projectors_editor(path):
    import unicodedata

    def columns(line):
        return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in line)

    wide = [
        (index, line)
        for index, cell in enumerate(read(path).cells)
        if cell.cell_type == "code"
        for line in cell.source.splitlines()
        if columns(line) > EDITOR_COLUMNS
    ]
    assert not wide, f"lines wider than {EDITOR_COLUMNS} columns: {wide}"


@pytest.mark.parametrize("path", LESSONS, ids=lambda p: str(p.relative_to(NOTEBOOKS)))
def test_every_saved_picture_fits_a_projectors_column(path):
    from gradbook.viz.draw import MIN_SCALE

    pictures = list(_saved_pictures(read(path)))
    assert pictures, "every lesson has pictures"
    for index, kind, width in pictures:
        most = PROJECTOR_COLUMN / MIN_SCALE if kind == "drawing" else PROJECTOR_COLUMN
        assert width <= most, f"cell {index}: a {width:.0f} px {kind} does not fit {PROJECTOR_COLUMN} px"


@pytest.mark.parametrize("language", ["en", "zh"])
def test_error_cells_show_torchs_messages(language):
    """torch's error texts stay English in both languages: they are what torch prints."""
    errors = {}
    for path in ENGLISH if language == "en" else CHINESE:
        for cell in read(path).cells:
            for out in cell.get("outputs", []):
                if out.output_type == "error" and out.ename != "NotAttemptedError":
                    errors.setdefault(path.name[:2], []).append(out.evalue)
    assert errors["02"] == ["grad can be implicitly created only for scalar outputs"]
    assert all(e.startswith("Trying to backward through the graph a second time") for e in errors["03"])
    assert errors["06"] == ["a leaf Variable that requires grad is being used in an in-place operation."]
    assert errors["09"] == ["size {[2]} is not expandable to size {[2, 3, 4]}."]
    assert errors["10"][0].startswith("Jacobian mismatch for output 0 with respect to input 0,")


def test_lesson_01_has_the_seed_example_verbatim():
    seed = (ROOT / "tests" / "seed" / "ex1.py").read_text().splitlines()
    body = "\n".join(seed[seed.index("import torch") + 1 :]).strip()
    cells = checked_cells(read(LESSONS[0]))
    assert cells[0].source == f"{CHECK}\n{body}"


RUN_WITH_TORCH = """
import contextlib, io, json, re, sys
swap = lambda m: {"import gradbook as torch": "import torch"}.get(m[0], "from torch import")
printed, scope = [], {}
for source, checked in json.load(sys.stdin):
    buffer = io.StringIO()
    try:
        with contextlib.redirect_stdout(buffer):
            exec(re.sub(r"import gradbook as torch|from gradbook import", swap, source), scope)
    except Exception:  # gradbook's own helpers (draw, set_language, checks) are not torch's
        if checked:
            raise
    printed.append(buffer.getvalue() if checked else None)
print(json.dumps([p for p in printed if p is not None]))
"""


@pytest.mark.oracle
@pytest.mark.parametrize("path", ENGLISH, ids=lambda p: p.stem)
def test_checked_outputs_are_what_torch_prints(path):
    """Every cell marked NBVAL_CHECK_OUTPUT prints, under real PyTorch, what the saved lesson shows:
    the whole lesson runs with `import torch` in place of gradbook (its other cells may fail there)."""
    pytest.importorskip("torch")
    code = [cell for cell in read(path).cells if cell.cell_type == "code"]
    result = subprocess.run(
        [sys.executable, "-c", RUN_WITH_TORCH],
        input=json.dumps([(cell.source, cell.source.startswith(CHECK)) for cell in code]),
        capture_output=True,
        text=True,
        cwd=NOTEBOOKS,
        env={**os.environ, "MPLBACKEND": "agg"},
    )
    assert result.returncode == 0, result.stderr[-3000:]
    assert json.loads(result.stdout.splitlines()[-1]) == [stdout(cell) for cell in checked_cells(read(path))]


def _builder():
    import importlib.util

    spec = importlib.util.spec_from_file_location("build", NOTEBOOKS / "build.py")
    builder = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(builder)
    return builder


def test_every_lesson_is_text_and_its_notebook_is_up_to_date():
    """The .md is the lesson; the .ipynb is what `python3 notebooks/build.py` made of it."""
    pytest.importorskip("jupytext")
    builder = _builder()
    sources = builder.lessons()
    assert [builder.notebook_of(p) for p in sources] == LESSONS
    assert sources == [text_of(p) for p in LESSONS]
    assert {p.name: builder.stale(p) for p in sources} == {p.name: None for p in sources}


def test_the_freshness_check_sees_an_edit(tmp_path):
    pytest.importorskip("jupytext")
    builder = _builder()
    (tmp_path / "text").mkdir()
    source = tmp_path / "text" / "01_lesson.md"
    source.write_text(text_of(LESSONS[0]).read_text().replace("## The seed example", "## An edit"))
    (tmp_path / "01_lesson.ipynb").write_bytes(LESSONS[0].read_bytes())
    assert builder.stale(source) is not None and "differs" in builder.stale(source)


def test_lessons_show_the_programs_the_checks_run():
    """The programs a check recomputes are the ones the lesson prints, word for word."""
    from gradbook.exercises.lesson01 import ZEROING_PROGRAM
    from gradbook.exercises.lesson04 import LEAVES_PROGRAM

    assert ZEROING_PROGRAM in text_of(LESSONS[0]).read_text()
    from gradbook.exercises.lesson09 import BIAS_PROGRAM

    assert LEAVES_PROGRAM in text_of(LESSONS[3]).read_text()
    assert BIAS_PROGRAM in text_of(LESSONS[8]).read_text()


def test_self_checks_start_unanswered_with_the_worked_answer_folded_after_them():
    """A saved lesson gives no answer away: each self-check says "not attempted" (in one line, no
    traceback into gradbook), and its worked answer waits in a closed <details> block right after."""
    counts = {}
    for path in LESSONS:
        cells = read(path).cells
        for i, cell in enumerate(cells):
            if cell.cell_type != "code" or "check_" not in cell.source or "import" in cell.source.split("\n")[-1]:
                continue
            if not any(re.match(r"\s*check_\w+\(", line) for line in cell.source.splitlines()):  # a call
                continue
            errors = [out for out in cell.outputs if out.output_type == "error"]
            assert [e.ename for e in errors] == ["NotAttemptedError"], (path.name, cell.source)
            said = "尚未作答" if path.parent.name == "zh" else "not attempted"
            assert len(errors[0].traceback) == 1 and said in errors[0].traceback[0], (path.name, errors[0].traceback)
            assert "✓" not in json.dumps(cell.outputs)
            follow = cells[i + 1]
            assert follow.cell_type == "markdown" and follow.source.startswith("<details>"), (path.name, i)
            key = ("zh/" if path.parent.name == "zh" else "") + path.name[:2]
            counts[key] = counts.get(key, 0) + 1
    english = {k: v for k, v in counts.items() if not k.startswith("zh")}
    assert set(english) == {p.name[:2] for p in ENGLISH}, "every lesson has a self-check"
    assert {k[3:]: v for k, v in counts.items() if k.startswith("zh")} == english


@pytest.mark.parametrize("path", LESSONS, ids=lambda p: p.stem)
def test_saved_outputs_name_no_path_of_the_machine_that_built_them(path):
    """Tracebacks name gradbook's files inside the package, warnings name <cell>: the same bytes
    whoever builds, and nothing of the builder's disk in what students open."""
    text = path.read_text()
    for machine in (str(ROOT), "/tmp/", "ipykernel_", "site-packages"):
        assert machine not in text, machine


BINDER = "https://mybinder.org/v2/gh/gradbook/gradbook/HEAD?urlpath=lab/tree/notebooks/"
GITHUB = "https://github.com/gradbook/gradbook/blob/main/"  # the README's links work on the package page too


@pytest.mark.parametrize("readme", ["README.md", "README.zh.md"])
def test_the_readme_lesson_tables_list_every_lesson_in_both_languages_with_binder_links(readme):
    rows = [line for line in (ROOT / readme).read_text().splitlines() if re.match(r"\| \d\d \|", line)]
    assert [row[2:4] for row in rows] == [p.name[:2] for p in ENGLISH]
    for row, path in zip(rows, ENGLISH):
        assert f"({GITHUB}notebooks/{path.name})" in row and f"({GITHUB}notebooks/zh/{path.name})" in row, row
        assert f"({BINDER}zh/{path.name})" in row, row
        if readme == "README.md":
            assert f"({BINDER}{path.name})" in row, row


@pytest.mark.parametrize("readme", ["README.md", "README.zh.md"])
def test_the_readme_links_are_absolute_and_name_files_that_exist(readme):
    """PyPI shows the README without the repository around it: a relative link would be broken."""
    links = re.findall(r"\]\(([^)\s]+)\)", (ROOT / readme).read_text())
    assert links and not [link for link in links if not link.startswith(("https://", "#"))]
    for link in links:
        for base in (GITHUB, "https://raw.githubusercontent.com/gradbook/gradbook/main/"):
            if link.startswith(base):
                assert (ROOT / link[len(base) :]).exists(), link


def test_chinese_prose_has_no_line_break_between_two_characters():
    """A newline inside a Chinese paragraph renders as a space between two characters."""
    cjk = "\u3000-\u303f\u3400-\u9fff\uff00-\uffef"
    for path in sorted((ROOT / "notebooks" / "zh" / "text").glob("*.md")):
        prose = re.sub(r"```.*?```", "", path.read_text(), flags=re.S)
        found = re.findall(f"[{cjk}]\n[{cjk}]", prose)
        assert not found, (path.name, found[:3])


def test_every_lesson_writes_its_math_in_one_notation():
    """Plain Unicode (x³, f'', dy/dx, ·) in every lesson, both languages: no LaTeX between $ signs,
    which renders as math in JupyterLab and as dollar signs elsewhere."""
    for path in sorted((ROOT / "notebooks").glob("**/text/*.md")):
        prose = re.sub(r"```.*?```|`[^`\n]*`", "", path.read_text(), flags=re.S)
        found = re.findall(r"\$[^$\n]+\$", prose)
        assert not found, (path.relative_to(ROOT), found[:3])


@pytest.mark.parametrize("lesson", ["notebooks/text/10_custom_function.md", "notebooks/zh/text/10_custom_function.md"])
def test_lesson_10s_worked_logcosh_passes_its_check_far_out_too(lesson, capsys):
    """The worked answer the lesson folds under its LogCosh check is run against that check, which
    also tries x = ±1000 (the stability lesson just before: a plain x.cosh().log() gives inf)."""
    from gradbook.exercises import check_logcosh_rule

    text = (ROOT / lesson).read_text()
    after = text[text.index("check_logcosh_rule(LogCosh)") :]
    code = re.search(r"<details>.*?```python\n(.*?)```", after, re.S)[1]
    namespace = {"torch": torch}
    exec(compile(code, lesson, "exec"), namespace)
    check_logcosh_rule(namespace["LogCosh"])
    assert "✓" in capsys.readouterr().out
    y = namespace["LogCosh"].apply(torch.tensor([1000.0, -3.0], dtype=torch.float64, requires_grad=True))
    assert y.tolist() == pytest.approx([1000 - math.log(2), math.log(math.cosh(3.0))])


ANSI = re.compile(r"\x1b\[[0-9;]*m")
FRAME = re.compile(r"^File (gradbook/\S+?):(\d+), in ")
CONTEXT = re.compile(r"^(?:-*> )?\s*(\d+)(?: (.*))?$")  # a blank source line shows its number alone


@pytest.mark.parametrize("path", LESSONS, ids=lambda p: str(p.relative_to(NOTEBOOKS)))
def test_saved_tracebacks_show_gradbooks_code_as_it_is(path):
    """A saved error names gradbook's lines with their code: each shown line is the file's line
    now (an engine change that moves them makes the saved traceback stale: rebuild the lesson)."""
    for cell in read(path).cells:
        for out in cell.get("outputs", []):
            if out.output_type != "error":
                continue
            for frame in out.traceback:
                head, *lines = ANSI.sub("", frame).split("\n")
                found = FRAME.match(head)
                if not found:
                    continue
                source = (ROOT / found.group(1)).read_text().splitlines()
                for line in filter(None, lines):
                    if line.strip() == "(...)":  # IPython leaves out the middle of a long context
                        continue
                    number, code = CONTEXT.match(line).groups()
                    now, shown = source[int(number) - 1].strip(), (code or "").strip()
                    comment = now[len(shown) :].lstrip()  # IPython may leave a trailing comment out
                    assert now.startswith(shown) and (now == shown or comment.startswith("#")), (
                        found.group(1),
                        number,
                        code,
                    )

"""The Chinese nbgrader course (docs/course/zh/) is the English one in Chinese: each assignment has
its twin, with the same questions, points, answers, probes and judges. Only what a student reads
differs: the prose, the comments, and the messages in strings (which must then be Chinese), and
the first code cell adds ``torch.set_language("zh")`` so that gradbook's own messages are Chinese.

The nbgrader round trip of both courses is in test_exercises_nbgrader.py.
"""

import ast
import re
from pathlib import Path

import jupytext
import pytest

ROOT = Path(__file__).resolve().parent.parent
COURSE = ROOT / "docs" / "course"
ENGLISH = sorted((COURSE / "text").glob("*/*.md"))
CJK = re.compile(r"[\u3000-\u303f\u3400-\u9fff\uff00-\uffef]")
LANGUAGE = 'torch.set_language("zh")'
MARKER = re.compile(r"^\s*(### .*)$", re.M)  # nbgrader's ### BEGIN/END SOLUTION, HIDDEN TESTS, and ### JUDGE


def twin(english: Path) -> Path:
    return COURSE / "zh" / english.relative_to(COURSE)


def _same(en, zh) -> bool:
    """Whether two syntax trees are the same program, a string differing only where the Chinese
    one is a message in Chinese (an f-string: the same expressions in the same order)."""
    if type(en) is not type(zh):
        return False
    if isinstance(en, ast.Constant) and isinstance(en.value, str) and isinstance(zh.value, str):
        return en.value == zh.value or bool(CJK.search(zh.value))
    if isinstance(en, ast.JoinedStr) and any(isinstance(v, ast.Constant) and CJK.search(v.value) for v in zh.values):
        pieces = [[v for v in s.values if isinstance(v, ast.FormattedValue)] for s in (en, zh)]
        return _same(*pieces)
    if isinstance(en, ast.AST):
        return all(_same(getattr(en, f, None), getattr(zh, f, None)) for f in en._fields)
    if isinstance(en, list):
        return len(en) == len(zh) and all(_same(a, b) for a, b in zip(en, zh))
    return en == zh


def _graded_shape(path: Path) -> list:
    """Every code cell and every cell nbgrader knows of: its type, nbgrader metadata and tags."""
    return [
        (cell.cell_type, cell.metadata.get("nbgrader"), sorted(cell.metadata.get("tags", [])))
        for cell in jupytext.read(path).cells
        if cell.cell_type == "code" or "nbgrader" in cell.metadata
    ]


def test_every_assignment_has_its_chinese_twin_and_no_other():
    chinese = sorted((COURSE / "zh" / "text").glob("*/*.md"))
    assert [twin(p) for p in ENGLISH] == chinese
    assert (COURSE / "zh" / "nbgrader_config.py").exists()


@pytest.mark.parametrize("english", ENGLISH, ids=lambda p: p.parent.name)
def test_the_chinese_twin_asks_the_same_questions_with_the_same_code(english):
    chinese = twin(english)
    assert _graded_shape(chinese) == _graded_shape(english), "the same cells, points and grade ids"
    en_cells = [c.source for c in jupytext.read(english).cells if c.cell_type == "code"]
    zh_cells = [c.source for c in jupytext.read(chinese).cells if c.cell_type == "code"]
    # the one line the twin adds: gradbook's own messages in Chinese, as in the Chinese lessons
    assert [LANGUAGE in c.splitlines() for c in zh_cells].index(True) == 0, f"{LANGUAGE} in the first code cell"
    zh_cells = ["\n".join(line for line in c.splitlines() if line != LANGUAGE) for c in zh_cells]
    for i, (en, zh) in enumerate(zip(en_cells, zh_cells)):
        assert MARKER.findall(zh) == MARKER.findall(en), f"code cell {i}: nbgrader's markers"
        assert _same(ast.parse(en), ast.parse(zh)), f"code cell {i} is not the English code:\n{zh}"


def test_the_comparison_sees_a_changed_program():
    """The twin test is not blind: a changed number, name or key fails it; a Chinese message passes."""
    en = 'assert close(probe["w"], [0.49]), "w is wrong"\nprint(f"w = {w}")'
    assert _same(ast.parse(en), ast.parse('assert close(probe["w"], [0.49]), "w 不对"\nprint(f"w 为 {w}")'))
    for changed in (
        'assert close(probe["w"], [0.5]), "w 不对"\nprint(f"w = {w}")',
        'assert close(probe["v"], [0.49]), "w 不对"\nprint(f"w = {w}")',
        'assert close(probe["w"], [0.49]), "w is bad"\nprint(f"w = {w}")',
        'assert close(probe["w"], [0.49]), "w 不对"\nprint(f"w 为 {v}")',
    ):
        assert not _same(ast.parse(en), ast.parse(changed)), changed


@pytest.mark.parametrize("english", ENGLISH, ids=lambda p: p.parent.name)
def test_the_chinese_twin_is_written_in_chinese(english):
    """Every paragraph a student reads is Chinese, one line per paragraph (a line break between two
    Chinese characters shows as a space), with the math in plain Unicode as in the lessons."""
    for cell in jupytext.read(twin(english)).cells:
        if cell.cell_type != "markdown":
            continue
        prose = re.sub(r"```.*?```", "", cell.source, flags=re.S)
        assert CJK.search(prose), f"a markdown cell with no Chinese:\n{cell.source}"
        found = re.findall(f"{CJK.pattern}\n{CJK.pattern}", prose)
        assert not found, found[:3]
        assert not re.findall(r"\$[^$\n]+\$", re.sub(r"`[^`\n]*`", "", prose)), "LaTeX between $ signs"

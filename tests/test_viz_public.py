"""gradbook.viz and gradbook.widgets read the graph only through torch's public names, so they work
on gradbook's graphs and on PyTorch's alike. This scans their source for anything else."""

import ast
import re
from pathlib import Path

import pytest
from conftest import ROOT

# torch's own graph API that starts with "_": torch spells these with an underscore too
TORCH_NAMES = re.compile(r"^(_sequence_nr|_saved_\w+|_raw_saved_\w+)$")
PYTHON_NAMES = re.compile(r"^(_getframe|_repr_\w+_|__\w+__)$")  # sys._getframe, IPython's display protocol
SOURCES = sorted([*(ROOT / "gradbook" / "viz").glob("*.py"), *(ROOT / "gradbook" / "widgets").glob("*.py")])


def private_uses(path: Path) -> list[str]:
    """``obj._name`` on anything but the module's own objects (``self``, ``cls``), ``getattr(obj,
    "_name")``, and imports of private engine modules or names."""
    tree = ast.parse(path.read_text())
    found = []

    def allowed(name: str) -> bool:
        return not name.startswith("_") or bool(TORCH_NAMES.match(name) or PYTHON_NAMES.match(name))

    for node in ast.walk(tree):
        where = f"{path.name}:{getattr(node, 'lineno', 0)}"
        if isinstance(node, ast.Attribute) and not allowed(node.attr):
            owner = node.value
            if not (isinstance(owner, ast.Name) and owner.id in ("self", "cls")):
                found.append(f"{where}: .{node.attr}")
        elif isinstance(node, ast.Call) and getattr(node.func, "id", None) in ("getattr", "hasattr", "setattr"):
            if len(node.args) > 1 and isinstance(node.args[1], ast.Constant) and not allowed(str(node.args[1].value)):
                found.append(f"{where}: {node.func.id}(..., {node.args[1].value!r})")
        elif isinstance(node, ast.ImportFrom) and node.level > 0:
            parts = (node.module or "").split(".")
            inside = node.level == 1  # viz's or widgets' own modules: private ones are theirs
            if not inside and any(p.startswith("_") for p in parts):
                found.append(f"{where}: from {'.' * node.level}{node.module} import ...")
            if not inside:
                found += [f"{where}: import {a.name}" for a in node.names if not allowed(a.name)]
    return found


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_viz_and_widgets_use_no_private_name_of_the_engine(path):
    assert private_uses(path) == []


def test_the_scan_finds_private_reads(tmp_path):
    sample = tmp_path / "sample.py"
    sample.write_text(
        "from .._messages import FREED_ERROR\nfrom ..autograd.engine import _creation\n"
        "def f(node, t):\n"
        "    return node._seq, t._array, getattr(node, '_freed'), node._sequence_nr(), node._saved_self\n"
    )
    found = sorted(line.split(": ", 1)[1] for line in private_uses(sample))
    expected = ["from .._messages import ...", "import _creation", "._seq", "._array", "getattr(..., '_freed')"]
    assert found == sorted(expected)


def test_viz_never_imports_torch_at_import_time():
    import subprocess
    import sys

    code = "import sys, gradbook, gradbook.viz, gradbook.widgets; print('torch' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    assert done.stdout.strip() == "False"

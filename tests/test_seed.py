"""The seed lesson: its three scripts, unedited, print what torch prints."""

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

SEED = Path(__file__).parent / "seed"
SHARED = Path(__file__).resolve().parents[2] / "shared" / "seed"


def reference_ex1() -> str:
    """The reference output of ex1.py under torch, as written in the seed's README."""
    readme = (SHARED / "README.md") if (SHARED / "README.md").exists() else None
    if readme is None:
        pytest.skip("shared/seed/README.md is not beside this checkout")
    text = readme.read_text()
    block = text.split("Reference output of ex1.py under torch:")[1]
    lines = re.findall(r"^    (\S.*)$", block.split("\n\n", 2)[1], flags=re.M)
    return "\n".join(lines) + "\n"


def test_seed_scripts_are_the_shared_ones_unedited():
    if not SHARED.exists():
        pytest.skip("shared/seed is not beside this checkout")
    for name in ("ex1.py", "ex2_error.py", "ex2_fix.py"):
        assert (SEED / name).read_bytes() == (SHARED / name).read_bytes()


def test_seed_example_1_accumulates_4_8_12_14(run_as_torch):
    out = run_as_torch(SEED / "ex1.py")
    assert out.returncode == 0, out.stderr
    assert out.stdout == reference_ex1()
    grads = re.findall(r"^tensor\((\d+)\.\)$", out.stdout, flags=re.M)
    assert grads == ["4", "8", "12", "14", "14"]


def test_seed_example_2_non_scalar_backward_raises_torchs_error(run_as_torch):
    out = run_as_torch(SEED / "ex2_error.py")
    assert out.returncode == 1
    assert out.stdout == "tensor([ 4.,  9., 16.], grad_fn=<MulBackward0>)\n"
    assert out.stderr.strip().splitlines()[-1] == (
        "RuntimeError: grad can be implicitly created only for scalar outputs"
    )


def test_seed_example_2_fix_with_ones_like(run_as_torch):
    out = run_as_torch(SEED / "ex2_fix.py")
    assert out.returncode == 0, out.stderr
    assert out.stdout == "tensor([ 4.,  9., 16.], grad_fn=<MulBackward0>)\ntensor([4., 6., 8.])\n"


@pytest.mark.oracle
@pytest.mark.parametrize("name", ["ex1.py", "ex2_error.py", "ex2_fix.py"])
def test_seed_scripts_print_exactly_what_torch_prints(name, run_as_torch, tmp_path):
    pytest.importorskip("torch")
    copy = tmp_path / "real" / name
    copy.parent.mkdir()
    shutil.copy(SEED / name, copy)
    real = subprocess.run([sys.executable, str(copy)], capture_output=True, text=True, cwd=copy.parent)
    ours = run_as_torch(SEED / name)
    assert ours.stdout == real.stdout
    assert ours.returncode == real.returncode
    last = lambda s: s.strip().splitlines()[-1] if s.strip() else ""  # noqa: E731
    assert last(ours.stderr) == last(real.stderr)

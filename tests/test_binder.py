"""Binder: repo2docker's conventions, and a simulated Binder build (docker is not available here).

The simulated build does what repo2docker would: a fresh virtual environment, exactly
``binder/requirements.txt``, then ``binder/postBuild`` run from a copy of the repository, then every
lesson notebook executed in a kernel of that environment.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
BINDER = ROOT / "binder"
LESSONS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
CHINESE = sorted((ROOT / "notebooks" / "zh").glob("[0-9][0-9]_*.ipynb"))


def requirement_names(lines: list[str]) -> set[str]:
    names = set()
    for line in lines:
        line = line.split("#", 1)[0].strip()
        if line:
            names.add(re.split(r"[<>=!~;\[ ]", line, maxsplit=1)[0].lower())
    return names


def runtime_dependencies() -> list[str]:
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        tomllib = pytest.importorskip("tomli")
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]


def test_binder_files_follow_repo2docker():
    # tests/binder_base_py311.txt is the base environment of exactly this Python
    assert (BINDER / "runtime.txt").read_text().strip() == "python-3.11"
    assert "graphviz" in (BINDER / "apt.txt").read_text().split()
    post_build = BINDER / "postBuild"
    assert os.access(post_build, os.X_OK)
    assert "pip install --no-deps ." in post_build.read_text()
    pinned = [
        line for line in (BINDER / "requirements.txt").read_text().splitlines() if line and not line.startswith("#")
    ]
    assert all("==" in line for line in pinned), "Binder builds should be reproducible: pin every package"
    # with binder/ present repo2docker ignores the root config, so every runtime dependency must be here
    assert requirement_names(runtime_dependencies()) <= requirement_names(pinned)
    base = requirement_names((Path(__file__).with_name("binder_base_py311.txt")).read_text().splitlines())
    assert "jupyterlab" in base and "jupyterlab" not in requirement_names(pinned), "the base image's lab is kept"


class FreshEnvironment:
    """A copy of the repository and a new virtual environment with its own HOME and Jupyter dirs:
    a machine that has only Python (and, with ``system_dot=False``, no Graphviz on PATH)."""

    def __init__(self, tmp_path: Path, system_dot: bool = True) -> None:
        self.repo = tmp_path / "repo"
        listing = ["git", "ls-files", "-co", "--exclude-standard"]
        files = subprocess.run(listing, cwd=ROOT, capture_output=True, text=True)
        if files.returncode == 0:
            for name in files.stdout.splitlines():
                if (ROOT / name).is_file():
                    (self.repo / name).parent.mkdir(parents=True, exist_ok=True)
                    shutil.copy2(ROOT / name, self.repo / name)
        else:  # not a git checkout: copy the tree
            shutil.copytree(ROOT, self.repo, ignore=shutil.ignore_patterns(".git", "__pycache__", "*.egg-info"))
        venv = tmp_path / "venv"
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        home = tmp_path / "home"
        home.mkdir()
        path = [str(venv / "bin")]
        if system_dot:
            path.append(os.environ.get("PATH", ""))
        else:  # only what the steps need: bash and git, never dot
            tools = tmp_path / "tools"
            tools.mkdir()
            for tool in ("bash", "git"):
                found = shutil.which(tool)
                if found:
                    (tools / tool).symlink_to(found)
            path.append(str(tools))
        self.env = {
            "PATH": os.pathsep.join(path),
            "HOME": str(home),
            "JUPYTER_CONFIG_DIR": str(home / "config"),
            "JUPYTER_DATA_DIR": str(home / "data"),
            "JUPYTER_RUNTIME_DIR": str(home / "runtime"),
            "JUPYTER_PLATFORM_DIRS": "1",
            "IPYTHONDIR": str(home / "ipython"),
            "MPLBACKEND": "Agg",
            "LANG": "C.UTF-8",
        }
        for key in ("PIP_CONFIG_FILE", "PIP_INDEX_URL", "PIP_EXTRA_INDEX_URL", "PIP_FIND_LINKS", "XDG_CONFIG_DIRS"):
            if key in os.environ:
                self.env[key] = os.environ[key]
        self.python = str(venv / "bin" / "python")
        self.prefix = str(venv)

    def run(self, *cmd: str, cwd: Path | None = None) -> str:
        done = subprocess.run(cmd, cwd=cwd or self.repo, env=self.env, capture_output=True, text=True, timeout=900)
        assert done.returncode == 0, f"{' '.join(cmd)} failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
        return done.stdout

    def run_notebooks(self, notebooks: list[Path]) -> None:
        """Execute notebooks in a kernel of this environment; only cells tagged raises-exception may fail."""
        # the kernel must be this environment's Python, not one registered system-wide
        self.run(self.python, "-m", "ipykernel", "install", "--user", "--name", "python3")
        script = """
import sys, nbformat
from nbclient import NotebookClient
for path in sys.argv[1:]:
    nb = nbformat.read(path, as_version=4)
    folder = path.rsplit("/", 1)[0]  # the lesson's own directory, as Jupyter runs it
    NotebookClient(nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": folder}}).execute()
    errors = [o for c in nb.cells if c.cell_type == "code" and "raises-exception" not in c.metadata.get("tags", [])
              for o in c.get("outputs", []) if o.output_type == "error"]
    assert not errors, (path, errors)
    print("ran", path)
"""
        self.run(self.python, "-c", script, *[p.relative_to(ROOT).as_posix() for p in notebooks])


@pytest.mark.binder
def test_simulated_binder_build_runs_every_lesson(tmp_path):
    assert LESSONS, "no lesson notebooks in notebooks/"
    fresh = FreshEnvironment(tmp_path)
    base = Path(__file__).with_name("binder_base_py311.txt")  # what the base image already has
    fresh.run(fresh.python, "-m", "pip", "install", "-q", "-r", str(base))
    fresh.run(fresh.python, "-m", "pip", "install", "-q", "-r", "binder/requirements.txt")
    fresh.run(fresh.python, "-m", "pip", "check")  # no conflict with the base image's packages
    fresh.run("bash", "binder/postBuild")
    check = "import sys, gradbook, gradbook.widgets; assert gradbook.__file__.startswith(sys.prefix), gradbook.__file__"
    fresh.run(fresh.python, "-c", check, cwd=tmp_path)  # installed, not imported from the checkout
    fresh.run_notebooks(LESSONS + CHINESE)


@pytest.mark.binder
def test_fresh_install_renders_without_system_dot_and_runs_lesson_01(tmp_path):
    """README's quick-start install on a machine with only Python: no Graphviz on PATH."""
    fresh = FreshEnvironment(tmp_path, system_dot=False)
    fresh.run(fresh.python, "-m", "pip", "install", "-q", "-e", ".[lab]")
    render = (
        "import shutil, gradbook as torch; from gradbook.viz import render;"
        "assert shutil.which('dot') is None;"
        "x = torch.tensor(2.0, requires_grad=True);"
        "svg = render(torch.draw(x * x));"
        "assert svg.startswith('<svg') and 'MulBackward0' in svg; print('rendered')"
    )
    assert "rendered" in fresh.run(fresh.python, "-c", render, cwd=tmp_path)
    fresh.run_notebooks([p for p in LESSONS if p.name.startswith("01_")])

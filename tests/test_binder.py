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
    assert (BINDER / "runtime.txt").read_text().strip() in {f"python-3.{m}" for m in range(10, 14)}
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


@pytest.mark.binder
def test_simulated_binder_build_runs_every_lesson(tmp_path):
    if not LESSONS:
        pytest.fail("no lesson notebooks in notebooks/")
    repo = tmp_path / "repo"
    files = subprocess.run(["git", "ls-files", "-co", "--exclude-standard"], cwd=ROOT, capture_output=True, text=True)
    for name in files.stdout.splitlines() if files.returncode == 0 else []:
        if (ROOT / name).is_file():
            (repo / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, repo / name)
    if files.returncode != 0:  # not a git checkout: copy the tree
        shutil.copytree(ROOT, repo, ignore=shutil.ignore_patterns(".git", "__pycache__", "*.egg-info"))
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    home = tmp_path / "home"
    home.mkdir()
    env = {
        "PATH": f"{venv / 'bin'}{os.pathsep}{os.environ.get('PATH', '')}",
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
            env[key] = os.environ[key]
    python = str(venv / "bin" / "python")

    def run(*cmd: str, cwd: Path = repo) -> None:
        done = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=900)
        assert done.returncode == 0, f"{' '.join(cmd)} failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"

    run(python, "-m", "pip", "install", "-q", "-r", "binder/requirements.txt")
    run("bash", "binder/postBuild")
    check = (
        "import sys, gradbook, gradbook.widgets;"
        "assert gradbook.__file__.startswith(sys.prefix), gradbook.__file__"  # installed, not the checkout
    )
    run(python, "-c", check, cwd=tmp_path)
    # the notebooks' kernel must be this environment's Python, not one registered system-wide
    run(python, "-m", "ipykernel", "install", "--user", "--name", "python3")
    script = """
import sys, nbformat
from nbclient import NotebookClient
for path in sys.argv[1:]:
    nb = nbformat.read(path, as_version=4)
    NotebookClient(nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": "notebooks"}}).execute()
    errors = [o for c in nb.cells if c.cell_type == "code" and "raises-exception" not in c.metadata.get("tags", [])
              for o in c.get("outputs", []) if o.output_type == "error"]
    assert not errors, (path, errors)
    print("ran", path)
"""
    run(python, "-c", script, *[str(Path("notebooks") / p.name) for p in LESSONS])

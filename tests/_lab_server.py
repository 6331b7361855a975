"""One JupyterLab server for the browser tests (test_widgets_browser, test_first_hour_browser).

``lab_home(home)`` makes a private Jupyter home (config, data, runtime and IPython folders, no news
popup, nbgrader's lab extensions off) and returns the environment that points there; ``serving``
starts JupyterLab on a folder with it, waits for it, and stops it and its kernels (its own process
group) in all cases, or when a watchdog fires after ``deadline`` seconds.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def lab_home(home: Path, render_all: bool = False) -> dict[str, str]:
    """The environment of a JupyterLab whose every folder is under ``home``. ``render_all``: every
    cell in the page (JupyterLab otherwise renders cells out of view lazily)."""
    for d in ("config", "data", "runtime", "ipython"):
        (home / d).mkdir(parents=True, exist_ok=True)
    settings = home / "config" / "lab" / "user-settings" / "@jupyterlab"
    (settings / "apputils-extension").mkdir(parents=True, exist_ok=True)
    (settings / "apputils-extension" / "notification.jupyterlab-settings").write_text('{"fetchNews": "false"}')
    if render_all:
        (settings / "notebook-extension").mkdir(parents=True, exist_ok=True)
        (settings / "notebook-extension" / "tracker.jupyterlab-settings").write_text('{"windowingMode": "none"}')
    # nbgrader (a test dependency) adds lab extensions the lessons do not need: keep the page lean
    (home / "config" / "labconfig").mkdir(exist_ok=True)
    (home / "config" / "labconfig" / "page_config.json").write_text(
        json.dumps({"disabledExtensions": {"@jupyter/nbgrader": True}})
    )
    return dict(
        os.environ,
        HOME=str(home),
        JUPYTER_CONFIG_DIR=str(home / "config"),
        JUPYTER_DATA_DIR=str(home / "data"),
        JUPYTER_RUNTIME_DIR=str(home / "runtime"),
        IPYTHONDIR=str(home / "ipython"),
        JUPYTER_PLATFORM_DIRS="1",
        JUPYTERLAB_SETTINGS_DIR=str(home / "config" / "lab" / "user-settings"),
        JUPYTERLAB_WORKSPACES_DIR=str(home / "config" / "lab" / "workspaces"),
        PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
    )


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def serving(work: Path, env: dict[str, str], log_path: Path, deadline: float) -> Iterator[tuple[str, threading.Timer]]:
    """JupyterLab on ``work``: yields its URL and the watchdog (alive while within ``deadline``)."""
    port = _free_port()
    log = open(log_path, "wb")
    server = subprocess.Popen(
        [sys.executable, "-m", "jupyterlab", "--no-browser", "--ip=127.0.0.1", f"--port={port}",
         "--ServerApp.port_retries=0", "--ServerApp.token=", "--ServerApp.password=",
         "--ServerApp.disable_check_xsrf=True", f"--ServerApp.root_dir={work}", "--LabApp.expose_app_in_browser=True",
         "--JupyterNotebookApp.expose_app_in_browser=True",
         "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
         *(["--allow-root"] if hasattr(os, "getuid") and os.getuid() == 0 else [])],
        cwd=work, env=env, stdout=log, stderr=subprocess.STDOUT,
        start_new_session=True,  # its own process group: stopping it stops its kernels too
    )  # fmt: skip

    def stop() -> None:
        if server.poll() is None:
            try:
                os.killpg(server.pid, signal.SIGTERM)
                server.wait(10)
            except (ProcessLookupError, subprocess.TimeoutExpired):
                with contextlib.suppress(OSError):
                    os.killpg(server.pid, signal.SIGKILL)
                server.wait(5)

    watchdog = threading.Timer(deadline, stop)
    watchdog.daemon = True
    watchdog.start()
    try:
        url = f"http://127.0.0.1:{port}"
        start = time.monotonic()
        while True:
            if server.poll() is not None:
                pytest.fail(f"jupyterlab exited: {log_path.read_text()[-2000:]}")
            with contextlib.suppress(OSError):
                with urllib.request.urlopen(f"{url}/api/status", timeout=2) as response:
                    if response.status == 200:
                        break
            if time.monotonic() - start > 90:
                pytest.fail(f"jupyterlab did not start in 90 s: {log_path.read_text()[-2000:]}")
            time.sleep(0.3)
        yield url, watchdog
    finally:
        watchdog.cancel()
        stop()
        log.close()

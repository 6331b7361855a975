"""Start one grading kernel inside a bubblewrap sandbox (Debian's ``bwrap``).

``gradbook-grade autograde`` registers a kernel spec whose command is this module. nbgrader (through
nbclient) starts it in the folder of the one notebook it grades, with a connection file that uses
IPC sockets (``transport = "ipc"``), and this module replaces itself with::

    bwrap  <the Python environment, read-only>  <that notebook's folder, writable>
           <the sockets' folder>  --unshare-all (no network, no other processes)
           python -m ipykernel_launcher -f <connection file>

Nothing else of the machine is in the sandbox: not the course (its ``gradebook.db``, ``source/``,
``release/``, the other submissions), not the home folder, not ``/tmp``. So a submission can
neither read the hidden tests from disk nor touch another student's grade, and it has no network.
"""

from __future__ import annotations

import json
import os
import site
import sys
import sysconfig
from pathlib import Path

SYSTEM = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc")
LIB = "/run/gradbook-sandbox/lib"  # where gradbook itself is mounted inside, on PYTHONPATH


def python_dirs() -> list[str]:
    """The folders this Python needs to run: its prefixes and the site-packages it imports from."""
    found = [sys.base_prefix, sys.prefix, sys.base_exec_prefix, sys.exec_prefix]
    for name in ("stdlib", "platstdlib", "purelib", "platlib"):
        found.append(sysconfig.get_path(name))
    user = site.getusersitepackages() if site.ENABLE_USER_SITE else None
    if user:
        found.append(user)
    real = sorted({str(Path(p).resolve()) for p in found if p and Path(p).exists()})
    return [p for p in real if not any(p != q and p.startswith(q + os.sep) for q in real)]  # outermost only


def command(connection_file: str, workdir: str, python: str = sys.executable) -> list[str]:
    """The bwrap command line that runs one kernel for the notebook in ``workdir``."""
    import gradbook

    package = str(Path(gradbook.__file__).resolve().parent)
    connection_file = str(Path(connection_file).resolve())
    with open(connection_file, encoding="utf-8") as file:
        info = json.load(file)
    if info.get("transport") != "ipc" or not os.path.isabs(info.get("ip", "")):
        raise SystemExit(
            "the sandboxed kernel talks over IPC sockets in a folder it is given: start it with "
            "--KernelManager.transport=ipc --KernelManager.ip=/an/absolute/folder/kernel (gradbook-grade does)"
        )
    sockets = os.path.dirname(info["ip"])
    args = ["bwrap", "--die-with-parent", "--new-session", "--unshare-all", "--cap-drop", "ALL"]
    for path in SYSTEM:
        if Path(path).is_symlink():
            args += ["--symlink", os.readlink(path), path]
        elif Path(path).exists():
            args += ["--ro-bind", path, path]
    for path in python_dirs():
        if not any(path == s or path.startswith(s + os.sep) for s in SYSTEM):
            args += ["--ro-bind", path, path]
    args += ["--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp", "--tmpfs", "/run"]
    args += ["--ro-bind", package, f"{LIB}/gradbook"]
    args += ["--ro-bind", connection_file, connection_file, "--bind", sockets, sockets]
    args += ["--bind", workdir, workdir, "--chdir", workdir]
    home = "/tmp/home"
    args += ["--dir", home, "--setenv", "HOME", home, "--setenv", "PYTHONPATH", LIB]
    args += ["--setenv", "IPYTHONDIR", f"{home}/.ipython", "--setenv", "MPLCONFIGDIR", f"{home}/.matplotlib"]
    args += ["--setenv", "JUPYTER_RUNTIME_DIR", sockets, "--unsetenv", "JUPYTER_PATH"]
    # in its own PID namespace the kernel's parent is bwrap's init (pid 1): without this, ipykernel
    # would take that for a dead parent and quit; --die-with-parent stops it when nbgrader does
    args += ["--unsetenv", "JPY_PARENT_PID"]
    args += [python, "-m", "ipykernel_launcher", "-f", connection_file]
    return args


def main(argv: list[str] | None = None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 1:
        raise SystemExit("usage: python -m gradbook.grading.sandbox CONNECTION_FILE")
    os.execvp("bwrap", command(argv[0], os.getcwd()))


if __name__ == "__main__":
    main()

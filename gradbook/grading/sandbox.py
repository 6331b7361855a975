"""Start one grading kernel inside a bubblewrap sandbox (Debian's ``bwrap``).

``gradbook-grade autograde`` registers a kernel spec whose command is this module. nbgrader (through
nbclient) starts it with a connection file that uses IPC sockets (``transport = "ipc"``), and this
module sets its limits (memory, file size, processes) and replaces itself with::

    bwrap  --clearenv <an allow-list of variables>  <a size-capped /tmp in memory, its folder>
           <the Python environment, read-only>  <the sockets' folder>
           --unshare-all (no network, no other processes)
           python -m ipykernel_launcher -f <connection file>

Nothing else of the machine is in the sandbox: not the course (its ``gradebook.db``, ``source/``,
``release/``, the submissions, not even the notebook being graded: the kernel gets its cells from
nbgrader), not the home folder, not the host's ``/tmp``, none of the grader's environment. So a
submission can neither read the hidden tests' judges from disk nor touch another student's grade,
and it has no network.
"""

from __future__ import annotations

import json
import os
import resource
import site
import sys
import sysconfig
from pathlib import Path

SYSTEM = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc")
LIB = "/run/gradbook-sandbox/lib"  # where gradbook itself is mounted inside, on PYTHONPATH
TMP_BYTES = 256 * 2**20  # the scratch /tmp, in memory
MEMORY_BYTES = 3 * 2**30  # address space of the kernel and what it starts
FILE_BYTES = 64 * 2**20  # the largest file it can write (the sockets' folder is on disk)
PROCESSES = 64  # processes and threads, counted per user id
KERNEL_UID = 2_147_480_000  # a grader that is root runs each kernel as this user id (+ its slot)


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


def command(
    connection_file: str, uid: int | None = None, python: str = sys.executable, run: list[str] | None = None
) -> list[str]:
    """The bwrap command line that runs one kernel; with ``uid`` (a grader that is root), the
    kernel runs as that user, which owns nothing of the machine but the sockets' folder."""
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
    args = ["bwrap", "--die-with-parent", "--new-session", "--clearenv"]
    if uid is None:  # a grader that is not root: a user namespace, no capabilities
        args += ["--unshare-all", "--cap-drop", "ALL"]
    else:  # root: no user namespace, so that the kernel can become a user the process limit holds for
        args += ["--unshare-ipc", "--unshare-pid", "--unshare-net", "--unshare-uts", "--unshare-cgroup-try"]
        args += ["--cap-drop", "ALL", "--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID"]
    # the scratch file systems first, so that a Python environment or a socket folder that lives
    # under /tmp is mounted over them, not hidden by them
    args += ["--proc", "/proc", "--dev", "/dev", "--size", str(TMP_BYTES), "--perms", "1777", "--tmpfs", "/tmp"]
    args += ["--tmpfs", "/run"]
    for path in SYSTEM:
        if Path(path).is_symlink():
            args += ["--symlink", os.readlink(path), path]
        elif Path(path).exists():
            args += ["--ro-bind", path, path]
    binds = [("--ro-bind", p, p) for p in python_dirs() if not any(p == s or p.startswith(s + os.sep) for s in SYSTEM)]
    binds += [("--ro-bind", package, f"{LIB}/gradbook"), ("--ro-bind", connection_file, connection_file)]
    binds += [("--bind", sockets, sockets)]
    made: set[str] = set()
    for kind, source, target in binds:
        # the folders above each mount, readable by the kernel's user (bwrap would make them 0700)
        for parent in reversed(Path(target).parents):
            name = str(parent)
            mounted = name in ("/", "/tmp", "/run") or any(name == s or name.startswith(s + os.sep) for s in SYSTEM)
            if name not in made and not mounted:
                made.add(name)
                args += ["--perms", "0755", "--dir", name]
        args += [kind, source, target]
    # the kernel's folder is the scratch /tmp (size-capped, in memory): nothing of the submission
    # or the course, so nothing there can shadow an installed module, and nothing is read back
    home = "/tmp/home"
    args += ["--perms", "0777", "--dir", home, "--perms", "0777", "--dir", f"{home}/work", "--chdir", f"{home}/work"]
    for name, value in environment(home, sockets).items():
        args += ["--setenv", name, value]
    kernel = [python, *(run or ["-m", "ipykernel_launcher", "-f", connection_file])]
    if uid is not None:  # drop to that user (all capabilities go with it), then start the kernel
        become = "import os,sys;os.setgroups([]);os.setgid({0});os.setuid({0});os.execv(sys.argv[1],sys.argv[1:])"
        kernel = [python, "-S", "-c", become.format(uid), *kernel]
    return args + kernel


def environment(home: str, sockets: str) -> dict[str, str]:
    """The kernel's whole environment: an allow-list, nothing else of the grader's."""
    env = {
        "PATH": "/usr/local/bin:/usr/bin:/bin",
        "HOME": home,
        "LANG": "C.UTF-8",
        "PYTHONPATH": LIB,
        "PYTHONNOUSERSITE": "1",
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTHONSAFEPATH": "1",  # Python 3.11+: the working folder is not put on sys.path
        "IPYTHONDIR": f"{home}/.ipython",
        "MPLCONFIGDIR": f"{home}/.matplotlib",
        "MPLBACKEND": "Agg",
        "JUPYTER_RUNTIME_DIR": sockets,
        "JUPYTER_PLATFORM_DIRS": "1",
        "OPENBLAS_NUM_THREADS": "1",
        "OMP_NUM_THREADS": "1",
    }
    for name in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE"):  # needed on some processors (old OpenBLAS)
        if name in os.environ:
            env[name] = os.environ[name]
    return env


def limit() -> None:
    """This process's limits, which the kernel inherits: memory, file size, processes."""
    for name, value in (("RLIMIT_AS", MEMORY_BYTES), ("RLIMIT_FSIZE", FILE_BYTES), ("RLIMIT_NPROC", PROCESSES)):
        kind = getattr(resource, name)
        soft, hard = resource.getrlimit(kind)
        value = value if hard == resource.RLIM_INFINITY else min(value, hard)
        resource.setrlimit(kind, (value, value))


SELF_TEST = (
    "import os, ipykernel.kernelapp, numpy, gradbook, gradbook.grading.probe;"
    "open(os.path.join(os.environ['JUPYTER_RUNTIME_DIR'], 'ok'), 'w').write(str(os.getuid()))"
)


def problem() -> str | None:
    """Why a kernel could not start in the sandbox here (one line), or None: the real command
    (mounts, user, limits) runs Python, imports what a kernel imports, and writes its sockets' folder."""
    import subprocess
    import tempfile

    with tempfile.TemporaryDirectory(prefix="gradbook-sandbox-check-") as tmp:
        sockets = Path(tmp) / "sockets"
        sockets.mkdir()
        connection = Path(tmp) / "kernel.json"
        connection.write_text(json.dumps({"transport": "ipc", "ip": str(sockets / "kernel")}))
        uid = _kernel_uid(str(connection), 0)
        args = command(str(connection), uid, run=["-c", SELF_TEST])
        try:
            done = subprocess.run(args, capture_output=True, text=True, timeout=120, preexec_fn=limit)
        except (OSError, subprocess.SubprocessError) as err:
            return f"bwrap could not start: {err}"
        lines = [line for line in (done.stderr or "").strip().splitlines() if line.strip()]
        if done.returncode != 0 or not (sockets / "ok").exists():
            why = lines[-1] if lines else f"exit status {done.returncode}"
            return f"a kernel cannot start in the sandbox here: {why}"
    return None


def _kernel_uid(connection_file: str, slot: int) -> int | None:
    """The kernel's user id for a grader that is root (None otherwise), which then owns the
    connection file and the sockets' folder: the only host paths the kernel may write."""
    if os.geteuid() != 0:
        return None
    uid = KERNEL_UID + slot
    with open(connection_file, encoding="utf-8") as file:
        sockets = os.path.dirname(json.load(file).get("ip", ""))
    for path in (connection_file, sockets):
        if os.path.isabs(path) and os.path.exists(path):
            os.chown(path, uid, uid)
    return uid


def main(argv: list[str] | None = None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 1:
        raise SystemExit("usage: python -m gradbook.grading.sandbox CONNECTION_FILE")
    # root is exempt from the process limit: its kernels run as a user id of their own
    uid = _kernel_uid(argv[0], int(os.environ.get("GRADBOOK_SANDBOX_SLOT", "0")))
    args = command(argv[0], uid)
    limit()
    os.execvp("bwrap", args)


if __name__ == "__main__":
    main()

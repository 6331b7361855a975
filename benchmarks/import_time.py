"""How long ``import gradbook`` takes in a fresh interpreter, next to ``import numpy`` (its floor:
gradbook imports NumPy) and ``import torch`` when it is installed.

    python benchmarks/import_time.py [--runs 15]

Each run is a new ``python -c`` process, the three interleaved, so a busy machine slows all
columns alike; the table shows medians. The target (300 ms on an idle machine, for gradbook
itself) is reported, never enforced: tests/test_tensor.py counts which modules the import loads.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _timing import header, row  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
TARGET = 0.300  # seconds, on an idle machine


def import_seconds(module: str) -> float:
    code = f"import time; t = time.perf_counter(); import {module}; print(time.perf_counter() - t)"
    env = dict(os.environ, PYTHONPATH=str(ROOT), OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env)
    return float(done.stdout)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()
    modules = ["numpy", "gradbook"] + (["torch"] if importlib.util.find_spec("torch") else [])
    times: dict[str, list[float]] = {m: [] for m in modules}
    for _ in range(args.runs):
        for module in modules:
            times[module].append(import_seconds(module))
    print(f"import time in a fresh process, {args.runs} interleaved runs, load {os.getloadavg()[0]:.2f}")
    header()
    for module in modules:
        row(f"import {module}", times[module], TARGET if module == "gradbook" else None)


if __name__ == "__main__":
    main()

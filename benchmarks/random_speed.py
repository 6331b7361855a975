#!/usr/bin/env python3
"""The speed of gradbook's torch-identical random numbers, beside NumPy's own and torch's.

Each row draws the same amount three ways, interleaved (gradbook, NumPy, torch, gradbook, ...) so
that a busy machine slows all three alike, with BLAS and torch pinned to one thread; the table
prints medians in milliseconds and gradbook's time over NumPy's. The target:
``randn(1024, 784)`` within 2× of NumPy's ``standard_normal`` of the same size.

    python benchmarks/random_speed.py           # about 20 s
    python benchmarks/random_speed.py --runs 5

NumPy's column is its fastest way to the same kind of numbers (``default_rng``; float64 unless
the row says float32); its numbers are NumPy's, not torch's.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(var, "1")
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

import gradbook  # noqa: E402

try:
    import torch

    torch.set_num_threads(1)
except ImportError:
    torch = None

rng = np.random.default_rng(0)
N = (1024, 784)

# label: (gradbook, NumPy, torch); torch's entry takes its module
ROWS = {
    "randn(1024, 784)": (
        lambda: gradbook.randn(*N),
        lambda: rng.standard_normal(N),
        lambda T: T.randn(*N),
    ),
    "randn(1024, 784) vs NumPy float32": (
        lambda: gradbook.randn(*N),
        lambda: rng.standard_normal(N, dtype=np.float32),
        lambda T: T.randn(*N),
    ),
    "randn(1024, 784, float64)": (
        lambda: gradbook.randn(*N, dtype=gradbook.float64),
        lambda: rng.standard_normal(N),
        lambda T: T.randn(*N, dtype=T.float64),
    ),
    "rand(1024, 784)": (lambda: gradbook.rand(*N), lambda: rng.random(N, dtype=np.float32), lambda T: T.rand(*N)),
    "randn(15) (the per-value path)": (
        lambda: gradbook.randn(15),
        lambda: rng.standard_normal(15),
        lambda T: T.randn(15),
    ),
    "randint(0, 10, (1024, 784))": (
        lambda: gradbook.randint(0, 10, N),
        lambda: rng.integers(0, 10, N),
        lambda T: T.randint(0, 10, N),
    ),
    "randperm(60000)": (lambda: gradbook.randperm(60000), lambda: rng.permutation(60000), lambda T: T.randperm(60000)),
    "nn.Linear(784, 512)": (
        lambda: gradbook.nn.Linear(784, 512),
        lambda: rng.uniform(-0.036, 0.036, (512, 784)),
        lambda T: T.nn.Linear(784, 512),
    ),
}


def medians(fns: list, runs: int) -> list[float]:
    """Median seconds per call of each of ``fns``, called in turn ``runs`` times."""
    times: list[list[float]] = [[] for _ in fns]
    for fn in fns:
        fn()  # warm up
    for _ in range(runs):
        for fn, ts in zip(fns, times):
            start = time.perf_counter()
            fn()
            ts.append(time.perf_counter() - start)
    return [statistics.median(ts) for ts in times]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=21)
    args = parser.parse_args()
    print(f"| {'what':34s} | {'gradbook':>9s} | {'NumPy':>9s} | {'torch':>9s} | {'gradbook/NumPy':>14s} |")
    print(f"|{'-' * 36}|{'-' * 10}:|{'-' * 10}:|{'-' * 10}:|{'-' * 15}:|")
    for label, (ours, numpy_fn, torch_fn) in ROWS.items():
        fns = [ours, numpy_fn] + ([lambda f=torch_fn: f(torch)] if torch is not None else [])
        meds = [m * 1e3 for m in medians(fns, args.runs)]
        t = f"{meds[2]:9.2f}" if torch is not None else f"{'n/a':>9s}"
        print(f"| {label:34s} | {meds[0]:9.2f} | {meds[1]:9.2f} | {t} | {meds[0] / meds[1]:13.2f}× |")
    print("\nmilliseconds, medians; target: randn(1024, 784) within 2× of NumPy's standard_normal (first row)")


if __name__ == "__main__":
    main()

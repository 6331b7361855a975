#!/usr/bin/env python3
"""Memory: the large MLP step's peak beside hand-written NumPy's, and backward through long chains.

    python benchmarks/memory.py            # about 30 s
    python benchmarks/memory.py --quick    # chains up to 25,000 ops

Two tables, each measured in this process:

- **the large step** (batch 1024, 784 → 512 → 512 → 10, the net of ``mlp_step.py``): the peak of
  memory allocated during one step (forward, backward, SGD update) above what was allocated before
  it, as ``tracemalloc`` counts it (NumPy reports every array's buffer to it), for gradbook and for
  the hand-written NumPy step; median of 5 steps each, after a warm-up step. The issue's target:
  gradbook's peak ≤ 1.1 × NumPy's. torch allocates outside Python's view, so it has no column.
- **a chain of n ops** (``x = x * 1.0001 + 0.0`` repeated on a (64,) tensor, then ``backward()``):
  the backward's time per op and its memory peak per op, for 25,000, 50,000 and 100,000 ops: both
  should stay flat as n grows (linear in n; the engine walks the graph without recursion).
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = "1"

import argparse  # noqa: E402
import gc  # noqa: E402
import statistics  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
import tracemalloc  # noqa: E402
from collections.abc import Callable  # noqa: E402
from pathlib import Path  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # benchmark this checkout
sys.path.insert(0, str(Path(__file__).resolve().parent))

from mlp_step import SIZES, make_numpy_step, make_step  # noqa: E402  (it puts this checkout first)

import gradbook  # noqa: E402


def step_peak(step: Callable[[], object], runs: int = 5) -> float:
    """Median over ``runs`` steps of the bytes allocated at the step's peak above its start."""
    step()  # warm-up: lazy initialisation, the first .grad buffers
    peaks = []
    for _ in range(runs):
        gc.collect()
        tracemalloc.start()
        before, _ = tracemalloc.get_traced_memory()
        step()
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        peaks.append(peak - before)
    return statistics.median(peaks)


def chain(n: int) -> gradbook.Tensor:
    """``sum()`` of a chain of ``2n`` recorded ops on a (64,) tensor."""
    y = gradbook.randn(64, requires_grad=True)
    for _ in range(n):
        y = y * 1.0001 + 0.0
    return y.sum()


def chain_backward(n: int) -> tuple[float, float]:
    """Seconds (untraced, median of 3) and peak bytes (traced, on a second chain) of ``backward()`` through a
    chain of ``2n`` recorded ops: tracemalloc slows every allocation, so it does not run while timed."""
    times = []
    for _ in range(3):  # the median of 3: one slow stretch of a shared machine is not the engine
        loss = chain(n)
        gc.collect()
        start = time.perf_counter()
        loss.backward()
        times.append(time.perf_counter() - start)
    seconds = statistics.median(times)
    loss = chain(n)
    gc.collect()
    tracemalloc.start()
    before, _ = tracemalloc.get_traced_memory()
    loss.backward()
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return seconds, peak - before


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true")
    quick = parser.parse_args().quick

    batch, sizes = SIZES["large"]
    ours = step_peak(make_step(gradbook, sizes, batch)[0])
    floor = step_peak(make_numpy_step(sizes, batch)[0])
    print(f"large MLP step (batch {batch}, {' → '.join(map(str, sizes))}), peak allocated during one step:")
    print()
    print("| hand-written NumPy | gradbook | gradbook / NumPy | target |")
    print("|---:|---:|---:|:---|")
    print(f"| {floor / 2**20:.1f} MiB | {ours / 2**20:.1f} MiB | {ours / floor:.2f}× | ≤ 1.1× |")
    print()
    print("backward() through a chain of n ops (`y = y * 1.0001 + 0.0`, (64,) float32):")
    print()
    print("| ops | backward | per op | peak allocated | per op |")
    print("|---:|---:|---:|---:|---:|")
    for n in (12_500, 25_000) if quick else (12_500, 25_000, 50_000):
        seconds, peak = chain_backward(n)
        ops = 2 * n
        per_op = f"{seconds / ops * 1e6:.1f} µs | {peak / 2**20:.1f} MiB | {peak / ops:.0f} B"
        print(f"| {ops:,} | {seconds:.2f} s | {per_op} |")


if __name__ == "__main__":
    main()

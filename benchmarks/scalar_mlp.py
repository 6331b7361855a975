#!/usr/bin/env python3
"""Time a micrograd-style workload: an MLP built from scalars (0-d tensors), one op per multiply-add.

The net (2 → 16 → 16 → 1, relu, squared error over 20 samples, SGD) is written once over a
"scalar library": gradbook's 0-d tensors, torch's 0-d tensors (when installed) and micrograd's
``Value`` (when installed: ``pip install micrograd``). Every step records about 1,500 scalar ops, so
this measures the per-op cost of the engine and the garbage collector, not NumPy. The libraries start
from the same weights and must agree on the first loss (to 1e-4; float32 tensors vs micrograd's
float64). Samples alternate between the libraries; the table prints medians and the ratios the issue
asks about (gradbook / micrograd, gradbook / torch).

    python benchmarks/scalar_mlp.py             # about 30 s
    python benchmarks/scalar_mlp.py --samples 5
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = "1"

import argparse  # noqa: E402
import random  # noqa: E402
import statistics  # noqa: E402
import sys  # noqa: E402
from collections.abc import Callable  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from _timing import interleaved  # noqa: E402

import gradbook  # noqa: E402

try:
    import torch

    torch.set_num_threads(1)
except ImportError:
    torch = None
try:
    from micrograd.engine import Value
except ImportError:
    Value = None

SIZES, SAMPLES, LR = (2, 16, 16, 1), 20, 0.05


def make_data() -> tuple[list[list[float]], list[float], list[float]]:
    rng = random.Random(0)
    xs = [[rng.uniform(-1, 1) for _ in range(SIZES[0])] for _ in range(SAMPLES)]
    ys = [1.0 if x[0] * x[1] > 0 else -1.0 for x in xs]
    weights = [rng.uniform(-1, 1) for _ in range(sum((a + 1) * b for a, b in zip(SIZES[:-1], SIZES[1:])))]
    return xs, ys, weights


def make_step(kind: str) -> Callable[[], float]:
    """One SGD step of the scalar MLP with gradbook or torch 0-d tensors, or micrograd Values."""
    xs, ys, init = make_data()
    if kind == "micrograd":
        params = [Value(w) for w in init]
    else:
        lib = gradbook if kind == "gradbook" else torch
        params = [lib.tensor(w, requires_grad=True) for w in init]

    def forward(x: list[float]) -> Any:
        it = iter(params)
        acts: list[Any] = list(x)
        for layer, (fan_in, fan_out) in enumerate(zip(SIZES[:-1], SIZES[1:])):
            out = []
            for _ in range(fan_out):
                total = next(it)  # the bias, then w·x one multiply-add at a time
                for k in range(fan_in):
                    total = total + next(it) * acts[k]
                out.append(total.relu() if layer < len(SIZES) - 2 else total)
            acts = out
        return acts[0]

    def step() -> float:
        loss = 0.0
        for x, y in zip(xs, ys):
            d = forward(x) - y
            loss = loss + d * d
        loss = loss * (1.0 / SAMPLES)
        if kind == "micrograd":
            for p in params:
                p.grad = 0.0
            loss.backward()
            for p in params:
                p.data -= LR * p.grad
            return loss.data
        loss.backward()
        with (gradbook if kind == "gradbook" else torch).no_grad():
            for p in params:
                p -= LR * p.grad
                p.grad = None
        return float(loss.item())

    return step


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--samples", type=int, default=15)
    samples = parser.parse_args().samples
    names = ["gradbook"] + (["torch"] if torch is not None else []) + (["micrograd"] if Value is not None else [])
    steps = {name: make_step(name) for name in names}
    first = {name: steps[name]() for name in names}
    if any(abs(first[name] - first["gradbook"]) > 1e-4 * max(1.0, abs(first["gradbook"])) for name in names):
        sys.exit(f"ERROR: the first step's losses differ: {first}")
    times = interleaved(steps, samples)
    med = {name: statistics.median(t) for name, t in times.items()}
    print(f"scalar MLP {' → '.join(map(str, SIZES))}, {SAMPLES} samples per step, {samples} steps timed per library")
    print()
    print("| library | median step | min | gradbook / this |")
    print("|---|---:|---:|---:|")
    for name in names:
        ratio = "" if name == "gradbook" else f"{med['gradbook'] / med[name]:.2f}×"
        print(f"| {name} | {med[name] * 1e3:.1f} ms | {min(times[name]) * 1e3:.1f} ms | {ratio} |")
    for name, hint in (("torch", "pip install torch==2.13.0"), ("micrograd", "pip install micrograd")):
        if name not in names:
            print(f"\n({name} is not installed: {hint} for the comparison)")


if __name__ == "__main__":
    main()

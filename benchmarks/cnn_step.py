#!/usr/bin/env python3
"""Time one training step of an MNIST-size CNN with gradbook and with torch (when installed).

The net is written once, in ``make_step(lib)``, and run with ``lib = gradbook`` and ``lib = torch``:

    x (64, 1, 28, 28) → Conv2d(1, 8, 3) → relu → max_pool2d(2) → Conv2d(8, 16, 3) → relu → max_pool2d(2)
      → flatten → Linear(400, 10) → cross_entropy → backward → SGD (w -= lr·w.grad)

Both start from the same weights and data; one step of each must give the same loss (to 1e-5) before
anything is timed. Samples alternate between the libraries; BLAS and torch run on one thread; the table
prints medians and gradbook's time over torch's (the issue's target: ≤ 1.5×).

    python benchmarks/cnn_step.py            # about 30 s
    python benchmarks/cnn_step.py --samples 5
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = "1"

import argparse  # noqa: E402
import statistics  # noqa: E402
import sys  # noqa: E402
from collections.abc import Callable  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402

import numpy as np  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from _timing import interleaved  # noqa: E402

import gradbook  # noqa: E402

try:
    import torch

    torch.set_num_threads(1)
except ImportError:
    torch = None

BATCH, LR = 64, 0.01


def make_data() -> tuple[np.ndarray, np.ndarray, list[np.ndarray]]:
    """Seeded images, labels and initial weights (conv1 w, b, conv2 w, b, linear w, b)."""
    rng = np.random.default_rng(0)
    x = rng.standard_normal((BATCH, 1, 28, 28), dtype=np.float32)
    labels = rng.integers(0, 10, BATCH)
    shapes = [((8, 1, 3, 3), 9), ((8,), 9), ((16, 8, 3, 3), 72), ((16,), 72), ((10, 400), 400), ((10,), 400)]
    params = [rng.uniform(-1, 1, shape).astype(np.float32) / np.float32(np.sqrt(fan_in)) for shape, fan_in in shapes]
    return x, labels, params


def make_step(lib: Any) -> Callable[[], Any]:
    """One training step with ``lib``; returns the loss (before the update)."""
    x_np, labels_np, init = make_data()
    x, labels = lib.tensor(x_np), lib.tensor(labels_np)
    params = [lib.tensor(a, requires_grad=True) for a in init]
    c1w, c1b, c2w, c2b, fw, fb = params
    F = lib.nn.functional

    def step() -> Any:
        h = F.max_pool2d(F.relu(F.conv2d(x, c1w, c1b)), 2)
        h = F.max_pool2d(F.relu(F.conv2d(h, c2w, c2b)), 2)
        loss = F.cross_entropy(F.linear(h.flatten(1), fw, fb), labels)
        loss.backward()
        with lib.no_grad():
            for w in params:
                w -= LR * w.grad
                w.grad = None
        return loss

    return step


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--samples", type=int, default=15)
    samples = parser.parse_args().samples
    names = ["gradbook"] + (["torch"] if torch is not None else [])
    steps = {name: make_step(gradbook if name == "gradbook" else torch) for name in names}
    losses = {name: float(steps[name]().item()) for name in names}  # one step each, then compare
    if torch is not None and not np.isclose(losses["gradbook"], losses["torch"], rtol=1e-5):
        sys.exit(f"ERROR: the first step's losses differ: {losses}")
    times = interleaved(steps, samples)
    med = {name: statistics.median(t) for name, t in times.items()}
    print(f"numpy {np.__version__}" + (f", torch {torch.__version__}" if torch else " (torch not installed)"))
    print(f"CNN step, batch {BATCH}, 1×28×28 → conv 8 → pool → conv 16 → pool → linear 10, {samples} samples")
    print()
    print("| library | median step | min | gradbook / torch |")
    print("|---|---:|---:|---:|")
    for name in names:
        ratio = f"{med['gradbook'] / med['torch']:.2f}×" if "torch" in med and name == "gradbook" else ""
        print(f"| {name} | {med[name] * 1e3:.1f} ms | {min(times[name]) * 1e3:.1f} ms | {ratio} |")
    if torch is None:
        print("\n(torch is not installed: pip install torch==2.13.0 for the comparison)")


if __name__ == "__main__":
    main()

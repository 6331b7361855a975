#!/usr/bin/env python3
"""How often gradbook's float32 elementwise functions and reductions give torch's bits.

For each function, 10⁶ random float32 inputs (from a range where the function is used) are
computed three ways: torch's CPU kernel (the reference), NumPy's float32 kernel, and NumPy in
float64 rounded once to float32 (what gradbook does where this is the better choice). The table
prints the share of results bit-identical to torch's, and the time per 10⁶ elements of each way.

    python benchmarks/float32_numerics.py           # about 20 s
    python benchmarks/float32_numerics.py --n 100000

gradbook's choice per function is in gradbook/ops/pointwise.py: ``floating`` (NumPy's float32) or
``rounded`` (float64, rounded once). torch's x86 wheels compute exp, log, sin, cos, tanh, sqrt, log2
and log10 with Intel MKL's vector math (VML, closed source and chosen per CPU), so no open
computation gives all of their bits; the table measures how close each choice comes.

The second table compares reductions through gradbook's own API (``gradbook.tensor(a).sum()``) with
torch's: sums and means in torch's order (gradbook/_cascade.py), softmax, log_softmax and
cross-entropy as torch's kernels compute them (gradbook/_softmax.py), and the matrix product, which
both libraries hand to a BLAS (torch: MKL; gradbook: NumPy's OpenBLAS) whose order of additions
differs.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

import gradbook  # noqa: E402

try:
    import torch

    torch.set_num_threads(1)
except ImportError:
    sys.exit("this comparison needs torch (pip install torch==2.13.0)")

# name: (NumPy function, torch function, input range)
FUNCTIONS = {
    "exp": (np.exp, torch.exp, (-10, 10)),
    "log": (np.log, torch.log, (1e-3, 1e3)),
    "sqrt": (np.sqrt, torch.sqrt, (0, 1e3)),
    "tanh": (np.tanh, torch.tanh, (-5, 5)),
    "sigmoid": (lambda a: 1 / (1 + np.exp(-a)), torch.sigmoid, (-10, 10)),
    "sin": (np.sin, torch.sin, (-10, 10)),
    "cos": (np.cos, torch.cos, (-10, 10)),
    "log1p": (np.log1p, torch.log1p, (-0.9, 10)),
    "expm1": (np.expm1, torch.expm1, (-5, 5)),
    "exp2": (np.exp2, torch.exp2, (-10, 10)),
    "log2": (np.log2, torch.log2, (1e-3, 1e3)),
    "log10": (np.log10, torch.log10, (1e-3, 1e3)),
}


def gradbook_choice(name: str) -> str:
    """Which way gradbook computes ``name`` in float32, read from its op's forward."""
    op = {
        "exp": gradbook.ops.ExpBackward0,
        "log": gradbook.ops.LogBackward0,
        "sqrt": gradbook.ops.SqrtBackward0,
        "tanh": gradbook.ops.TanhBackward0,
        "sigmoid": gradbook.ops.SigmoidBackward0,
        "sin": gradbook.ops.SinBackward0,
        "cos": gradbook.ops.CosBackward0,
        "log1p": gradbook.ops.Log1PBackward0,
        "expm1": gradbook.ops.Expm1Backward0,
        "exp2": gradbook.ops.Exp2Backward0,
        "log2": gradbook.ops.Log2Backward0,
        "log10": gradbook.ops.Log10Backward0,
    }[name]
    return "float64, rounded" if getattr(op.forward, "rounded", False) else "float32"


def timed(fn, a, runs: int = 5) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn(a)
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1e3 * (1e6 / a.size)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, default=1_000_000)
    n = parser.parse_args().n
    rng = np.random.default_rng(0)
    print(f"numpy {np.__version__}, torch {torch.__version__}, {n:,} float32 inputs per function, one thread")
    print()
    columns = ["function", "NumPy float32 = torch", "float64 rounded = torch", "ms per 10⁶: float32"]
    print("| " + " | ".join([*columns, "float64 rounded", "torch", "gradbook uses"]) + " |")
    print("|---|---:|---:|---:|---:|---:|---|")
    for name, (fn, tfn, (low, high)) in FUNCTIONS.items():
        a = rng.uniform(low, high, n).astype(np.float32)
        ref = tfn(torch.from_numpy(a)).numpy()
        with np.errstate(all="ignore"):
            f32 = fn(a)
            f64 = fn(a.astype(np.float64)).astype(np.float32)
            same32 = np.mean(f32.view(np.int32) == ref.view(np.int32))
            same64 = np.mean(f64.view(np.int32) == ref.view(np.int32))
            t32 = timed(fn, a)
            t64 = timed(lambda x, fn=fn: fn(x.astype(np.float64)).astype(np.float32), a)
        tt = timed(lambda x, tfn=tfn: tfn(torch.from_numpy(x)), a)
        print(f"| {name} | {same32:.1%} | {same64:.1%} | {t32:.1f} | {t64:.1f} | {tt:.1f} | {gradbook_choice(name)} |")
    reductions(rng)


def cross_entropy_and_grad(T, a):
    """The loss of (32, C) logits against the labels 0, 1, 2, ... (mod C), then the logits' gradient."""
    logits = a.reshape(32, -1).detach().requires_grad_(True)
    labels = T.arange(32) % logits.shape[1]
    loss = T.nn.functional.cross_entropy(logits, labels)
    loss.backward()
    return T.cat([loss.detach().reshape(1), logits.grad.reshape(-1)])


def reductions(rng: np.random.Generator, count: int = 2000) -> None:
    """Bit-identical share of reduction results, gradbook vs torch (one thread), and the time per call."""

    def classes() -> int:
        return 32 * int(rng.integers(2, 101))

    cases = {
        "sum of a vector (1-30000 elements)": (lambda T, a: a.sum(), lambda: rng.integers(1, 30000)),
        "mean of a vector (1-30000)": (lambda T, a: a.mean(), lambda: rng.integers(1, 30000)),
        "mse_loss of a batch (8-4096)": (
            lambda T, a: T.nn.functional.mse_loss(a, a * 0.5),
            lambda: rng.integers(8, 4096),
        ),
        "row sums, (64, n) along dim 1": (lambda T, a: a.reshape(64, -1).sum(1), lambda: 64 * rng.integers(1, 400)),
        "softmax, (32, C) along dim 1 (C 2-100)": (lambda T, a: a.reshape(32, -1).softmax(1), classes),
        "log_softmax, (32, C) along dim 1": (lambda T, a: a.reshape(32, -1).log_softmax(1), classes),
        "softmax, (C, 32) along dim 0": (lambda T, a: a.reshape(-1, 32).softmax(0), classes),
        "cross_entropy of (32, C) and its gradient": (cross_entropy_and_grad, classes),
        "matrix product (n × n) @ (n × n)": (lambda T, a: a @ a.T, lambda: rng.integers(2, 60) ** 2),
    }
    print()
    print(f"{count} inputs per reduction, float32, standard normal")
    print()
    print("| reduction | gradbook = torch (all elements of the result) | µs per call: gradbook | torch |")
    print("|---|---:|---:|---:|")
    for name, (fn, size) in cases.items():
        same, times_g, times_t = 0, [], []
        for _ in range(count if "matrix" not in name else count // 10):
            n = int(size())
            a = rng.standard_normal(n).astype(np.float32)
            if "matrix" in name:
                k = int(round(n**0.5))
                a = a[: k * k].reshape(k, k)
            g, t = gradbook.tensor(a), torch.from_numpy(a)
            start = time.perf_counter()
            out_g = fn(gradbook, g)
            times_g.append(time.perf_counter() - start)
            start = time.perf_counter()
            out_t = fn(torch, t)
            times_t.append(time.perf_counter() - start)
            same += bool(np.array_equal(out_g.numpy().view(np.int32), out_t.numpy().view(np.int32)))
        total = count if "matrix" not in name else count // 10
        tg, tt = statistics.median(times_g) * 1e6, statistics.median(times_t) * 1e6
        print(f"| {name} | {same / total:.1%} | {tg:.1f} | {tt:.1f} |")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Time one training step of a 3-layer MLP: hand-written NumPy (the floor), gradbook, torch.

The net is written once, in ``make_step(lib, sizes, batch)``, and run with ``lib = gradbook`` and
``lib = torch``; ``make_numpy_step`` is the same net with a hand-written backward pass.

    x → Linear → relu → Linear → tanh → Linear → mse_loss(·, y) → backward → SGD (w -= lr·w.grad)

Run ``python benchmarks/mlp_step.py`` (about 1-2 minutes), ``--quick`` for a smoke run,
``--sizes small,medium`` for some sizes only, ``--profile small`` for a cProfile of gradbook.
See benchmarks/README.md.
"""

from __future__ import annotations

import os

# Pin every BLAS / OpenMP pool to one thread BEFORE numpy (or torch) is imported: the pools read
# these variables once, when they load. OPENBLAS_CORETYPE / OPENBLAS_L2_SIZE are left as they are.
for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = "1"

import argparse  # noqa: E402
import gc  # noqa: E402
import statistics  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from collections.abc import Callable  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402

import numpy as np  # noqa: E402

# benchmark the gradbook of this checkout, whatever is installed
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
import gradbook  # noqa: E402

try:
    import torch

    torch.set_num_threads(1)
    try:
        torch.set_num_interop_threads(1)
    except RuntimeError:
        pass
except ImportError:
    torch = None

# name: (batch, layer widths)
SIZES: dict[str, tuple[int, tuple[int, ...]]] = {
    "small": (32, (2, 16, 16, 1)),
    "medium": (256, (64, 256, 256, 10)),
    "large": (1024, (784, 512, 512, 10)),
}
# name: (steps timed per sample, samples per library); --quick uses the second table.
# Chosen for ~1-2 minutes in all on a 2-core machine (see the README for the measured times).
PLAN_FULL = {"small": (50, 800), "medium": (10, 400), "large": (1, 400)}
PLAN_QUICK = {"small": (50, 30), "medium": (5, 30), "large": (1, 15)}
WARMUP_SECONDS = 0.3  # per library and size, before timing
LR = 0.01
SEED = 0


# ---------------------------------------------------------------- the net, written once


def make_data(sizes: tuple[int, ...], batch: int, seed: int = SEED) -> tuple[np.ndarray, np.ndarray, list[np.ndarray]]:
    """Seeded float32 data and initial weights: x, y, [w1, b1, w2, b2, w3, b3] (w is (in, out))."""
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((batch, sizes[0]), dtype=np.float32)
    y = (0.5 * rng.standard_normal((batch, sizes[-1]), dtype=np.float32)).astype(np.float32)
    params = []
    for fan_in, fan_out in zip(sizes[:-1], sizes[1:]):
        bound = np.float32(1 / np.sqrt(fan_in))  # torch's nn.Linear initialisation range
        params.append(rng.uniform(-bound, bound, (fan_in, fan_out)).astype(np.float32))
        params.append(rng.uniform(-bound, bound, (fan_out,)).astype(np.float32))
    return x, y, params


def make_step(lib: Any, sizes: tuple[int, ...], batch: int, lr: float = LR) -> tuple[Callable[[], Any], list]:
    """One training step of the MLP with ``lib`` (gradbook or torch): returns (step, params).

    ``step()`` runs forward, backward and the SGD update and returns the loss (before the update).
    """
    x_np, y_np, init = make_data(sizes, batch)
    x, y = lib.tensor(x_np), lib.tensor(y_np)
    params = [lib.tensor(a, requires_grad=True) for a in init]
    w1, b1, w2, b2, w3, b3 = params
    mse_loss = lib.nn.functional.mse_loss

    def step() -> Any:
        h = lib.relu(x @ w1 + b1)
        h = lib.tanh(h @ w2 + b2)
        out = h @ w3 + b3
        loss = mse_loss(out, y)
        loss.backward()
        with lib.no_grad():
            for w in params:
                w -= lr * w.grad
                w.grad = None
        return loss

    return step, params


def make_numpy_step(sizes: tuple[int, ...], batch: int, lr: float = LR) -> tuple[Callable[[], Any], list]:
    """The same step in plain NumPy, backward written by hand: the floor an engine can approach.

    Written as a careful NumPy user would: in-place elementwise work where it is natural, a fresh
    array per matrix product, no gradient for x (it is data), in-place SGD update.
    """
    x, y, params = make_data(sizes, batch)
    w1, b1, w2, b2, w3, b3 = params
    lr32 = np.float32(lr)

    def step() -> Any:
        # forward
        h1 = x @ w1
        h1 += b1
        np.maximum(h1, 0, out=h1)  # relu
        h2 = h1 @ w2
        h2 += b2
        np.tanh(h2, out=h2)
        out = h2 @ w3
        out += b3
        d = out - y
        loss = np.mean(d * d, dtype=np.float32)
        # backward: d(loss)/d(out) = 2(out - y)/N
        d *= np.float32(2.0 / d.size)
        gw3, gb3 = h2.T @ d, d.sum(0)
        d2 = d @ w3.T
        d2 *= 1 - h2 * h2  # tanh' = 1 - tanh²
        gw2, gb2 = h1.T @ d2, d2.sum(0)
        d1 = d2 @ w2.T
        d1 *= h1 > 0  # relu' = [out > 0]
        gw1, gb1 = x.T @ d1, d1.sum(0)
        # SGD, in place
        for w, g in zip(params, (gw1, gb1, gw2, gb2, gw3, gb3)):
            g *= lr32
            w -= g
        return loss

    return step, params


def to_numpy(t: Any) -> np.ndarray:
    return t if isinstance(t, np.ndarray) else t.detach().numpy()


# ---------------------------------------------------------------- check, then time


def libraries() -> list[str]:
    return ["numpy", "gradbook"] + (["torch"] if torch is not None else [])


def build(name: str, sizes: tuple[int, ...], batch: int) -> tuple[Callable[[], Any], list]:
    if name == "numpy":
        return make_numpy_step(sizes, batch)
    return make_step(gradbook if name == "gradbook" else torch, sizes, batch)


def verify(size: str) -> None:
    """One step with each library from the same start: the loss and updated weights must agree."""
    batch, sizes = SIZES[size]
    _, _, init = make_data(sizes, batch)
    results = {}
    for name in libraries():
        step, params = build(name, sizes, batch)
        loss = step()
        loss = float(loss.detach() if hasattr(loss, "detach") else loss)
        results[name] = (loss, [to_numpy(p).copy() for p in params])
    ref_loss, ref_params = results["numpy"]
    names = ["w1", "b1", "w2", "b2", "w3", "b3"]
    problems = []
    for name, (loss, params) in results.items():
        if name == "numpy":
            continue
        if not np.allclose(loss, ref_loss, rtol=1e-5, atol=1e-6):
            problems.append(f"{name}: loss {loss!r} != numpy's {ref_loss!r}")
        for pname, p, ref, p0 in zip(names, params, ref_params, init):
            if p.shape != ref.shape or p.dtype != np.float32:
                problems.append(f"{name}: {pname} has shape {p.shape} dtype {p.dtype}, expected {ref.shape} float32")
                continue
            if not np.allclose(p, ref, rtol=1e-5, atol=1e-6):
                err = np.max(np.abs(p - ref))
                problems.append(f"{name}: updated {pname} differs from numpy's (max abs diff {err:.3g})")
                continue
            # the update itself (lr·grad), small next to the weights: to 1e-3 of its size, plus the
            # float32 rounding of the stored weights (one ulp)
            step_p, step_ref = p.astype(np.float64) - p0, ref.astype(np.float64) - p0
            scale = np.max(np.abs(step_ref))
            ulp = 2 * np.finfo(np.float32).eps * np.maximum(np.abs(p0), np.abs(ref))
            if not np.all(np.abs(step_p - step_ref) <= 1e-3 * (scale + np.abs(step_ref)) + ulp + 1e-12):
                err = np.max(np.abs(step_p - step_ref)) / max(scale, 1e-30)
                problems.append(f"{name}: the SGD update of {pname} differs from numpy's ({err:.3g} of its size)")
    if problems:
        print(f"ERROR: the libraries disagree after one step on size {size!r}:", file=sys.stderr)
        for p in problems:
            print("  " + p, file=sys.stderr)
        sys.exit(1)


def _minor_faults() -> int:
    """Minor page faults of this process so far (0 where getrusage is unavailable)."""
    try:
        import resource

        return resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    except (ImportError, OSError):
        return 0


def time_size(size: str, steps: int, samples: int) -> tuple[dict[str, list[float]], dict[str, float]]:
    """Per-step times (seconds) of each library: ``samples`` samples of ``steps`` steps each,
    taken round-robin (rotating the order every round) so that machine noise hits all alike.
    Also returns each library's minor page faults per step (memory the allocator got afresh)."""
    batch, sizes = SIZES[size]
    names = libraries()
    fns = {name: build(name, sizes, batch)[0] for name in names}
    for name in names:  # warm up: caches, allocator, lazy initialisation
        end = time.perf_counter() + WARMUP_SECONDS
        while time.perf_counter() < end:
            fns[name]()
    gc.collect()
    times: dict[str, list[float]] = {name: [] for name in names}
    faults = dict.fromkeys(names, 0)
    perf = time.perf_counter
    for r in range(samples):
        for name in names[r % len(names) :] + names[: r % len(names)]:
            fn = fns[name]
            f0 = _minor_faults()
            t0 = perf()
            for _ in range(steps):
                fn()
            t1 = perf()
            faults[name] += _minor_faults() - f0
            times[name].append((t1 - t0) / steps)
    return times, {name: n / (samples * steps) for name, n in faults.items()}


# ---------------------------------------------------------------- report


def fmt(seconds: float | None) -> str:
    if seconds is None:
        return "n/a"
    if seconds < 1e-3:
        return f"{seconds * 1e6:.1f} µs"
    return f"{seconds * 1e3:.2f} ms"


def target(size: str, med: dict[str, float]) -> tuple[str, str]:
    """The row's target and PASS/MISS."""
    if size == "small":
        if "torch" not in med:
            return "gradbook ≤ torch", "n/a (no torch)"
        return "gradbook ≤ torch", "PASS" if med["gradbook"] <= med["torch"] else "MISS"
    return "gradbook ≤ 1.10 × numpy", "PASS" if med["gradbook"] <= 1.10 * med["numpy"] else "MISS"


def print_table(
    results: dict[str, dict[str, list[float]]],
    plan: dict[str, tuple[int, int]],
    other: dict[str, float | None],
    faults: dict[str, dict[str, float]],
) -> None:
    header = ["size", "numpy floor", "gradbook", "torch", "gradbook/numpy", "gradbook/torch", "target", "result"]
    rows, spread = [], []
    for size, times in results.items():
        med = {name: statistics.median(ts) for name, ts in times.items()}
        t = med.get("torch")
        goal, verdict = target(size, med)
        rows.append(
            [
                size,
                fmt(med["numpy"]),
                fmt(med["gradbook"]),
                fmt(t),
                f"{med['gradbook'] / med['numpy']:.2f}x",
                f"{med['gradbook'] / t:.2f}x" if t else "n/a",
                goal,
                verdict,
            ]
        )
        iqr = []
        for name, ts in times.items():
            q = statistics.quantiles(ts, n=4) if len(ts) > 1 else [ts[0]] * 3
            iqr.append(f"{name} {100 * (q[2] - q[0]) / med[name]:.1f}%")
        paired = []  # ratio within each round: robust to noise that drifts over the run
        for ref in ("numpy", "torch"):
            if ref in times:
                r = [g / o for g, o in zip(times["gradbook"], times[ref])]
                q = statistics.quantiles(r, n=4) if len(r) > 1 else [r[0]] * 3
                paired.append(f"gradbook/{ref} {q[1]:.2f}x [{q[0]:.2f}-{q[2]:.2f}]")
        steps, samples = plan[size]
        load = "n/a" if other.get(size) is None else f"{other[size]:.2f}"
        spread.append(
            f"  {size}: {samples} samples x {steps} step(s) per library; other processes' CPU use: "
            f"{load} cores; IQR/median: " + ", ".join(iqr)
        )
        spread.append("    per-round paired ratios, median [IQR]: " + ", ".join(paired))
        spread.append("    minor page faults per step: " + ", ".join(f"{n} {f:.0f}" for n, f in faults[size].items()))
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header))]
    line = lambda r: "| " + " | ".join(str(c).ljust(w) for c, w in zip(r, widths)) + " |"  # noqa: E731
    print(line(header))
    print("|" + "|".join("-" * (w + 2) for w in widths) + "|")
    for r in rows:
        print(line(r))
    print()
    print("Medians of per-step time (forward + backward + SGD update), lower is better.")
    print("Targets: small: gradbook ≤ torch; medium and large: gradbook ≤ 1.10 × numpy floor.")
    print("Spread (the ratio columns are ratios of the medians; the paired ratios below compare the libraries")
    print("within each round, so a slow stretch of the machine hits both sides of a ratio):")
    for s in spread:
        print(s)


def print_config() -> None:
    tv = f"{torch.__version__} (threads={torch.get_num_threads()})" if torch is not None else "not installed"
    print(f"python {sys.version.split()[0]}, numpy {np.__version__}, gradbook {gradbook.__version__}, torch {tv}")
    try:
        blas = np.show_config(mode="dicts")["Build Dependencies"]["blas"]
        cfg = " ".join(str(blas.get("openblas configuration", "")).split())
        print(f"numpy BLAS: {blas.get('name')} {blas.get('version')} {cfg}".rstrip())
    except Exception:  # noqa: BLE001  (older numpy: no dict mode)
        pass
    env = ["OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE"]
    print("env: " + ", ".join(f"{v}={os.environ.get(v, '(unset)')}" for v in env))
    print(f"cpus: {os.cpu_count()}")


def _machine_busy() -> float | None:
    """CPU seconds used so far by the whole machine (Linux /proc/stat), or None."""
    try:
        with open("/proc/stat") as f:
            fields = [int(v) for v in f.readline().split()[1:9]]
    except (OSError, ValueError):
        return None
    user, nice, system, _idle, _iowait, irq, softirq, steal = fields
    return (user + nice + system + irq + softirq + steal) / os.sysconf("SC_CLK_TCK")


class OtherLoad:
    """Measures how many cores *other* processes kept busy while the block ran."""

    def __enter__(self) -> OtherLoad:
        self.m0, self.p0, self.t0 = _machine_busy(), time.process_time(), time.perf_counter()
        return self

    def __exit__(self, *exc: object) -> None:
        m1, p1, t1 = _machine_busy(), time.process_time(), time.perf_counter()
        if self.m0 is None or m1 is None:
            self.cores = None
        else:
            self.cores = max(0.0, (m1 - self.m0 - (p1 - self.p0)) / (t1 - self.t0))


# ---------------------------------------------------------------- profiling (--profile)


def profile(size: str, seconds: float = 1.0) -> None:
    """cProfile of gradbook steps (top 15 by tottime), and the share of a step spent in GEMMs."""
    import cProfile
    import pstats

    batch, sizes = SIZES[size]
    step, _ = make_step(gradbook, sizes, batch)
    np_step, _ = make_numpy_step(sizes, batch)
    for _ in range(3):
        step(), np_step()

    def median_step(fn: Callable[[], Any], n: int, k: int) -> float:
        ts = []
        for _ in range(n):
            t0 = time.perf_counter()
            for _ in range(k):
                fn()
            ts.append((time.perf_counter() - t0) / k)
        return statistics.median(ts)

    k = 50 if size == "small" else 1
    t_gb = median_step(step, 15, k)
    steps = max(20, int(seconds / t_gb))
    prof = cProfile.Profile()
    prof.enable()
    for _ in range(steps):
        step()
    prof.disable()
    print(f"cProfile of {steps} gradbook steps, size {size} (unprofiled step: {fmt(t_gb)}):")
    stats = pstats.Stats(prof)
    stats.sort_stats("tottime").print_stats(15)

    # The eight matrix products of one step (no gradient for x), timed alone, same shapes/layouts.
    x, y, (w1, b1, w2, b2, w3, b3) = make_data(sizes, batch)
    h1, h2 = np.maximum(x @ w1, 0), np.tanh(np.maximum(x @ w1, 0) @ w2)
    d3 = (h2 @ w3) - y
    d2, d1 = d3 @ w3.T, (d3 @ w3.T) @ w2.T

    def gemms() -> None:
        x @ w1, h1 @ w2, h2 @ w3  # forward
        h2.T @ d3, d3 @ w3.T, h1.T @ d2, d2 @ w2.T, x.T @ d1  # backward

    t_gemm = median_step(gemms, 15, k)
    t_np = median_step(np_step, 15, k)
    t_gb = median_step(step, 15, k)
    print(f"size {size}: gradbook step {fmt(t_gb)}, numpy floor step {fmt(t_np)}, the 8 GEMMs alone {fmt(t_gemm)}")
    print(
        f"  outside GEMMs: gradbook {fmt(t_gb - t_gemm)} ({100 * (t_gb - t_gemm) / t_gb:.0f}% of its step), "
        f"numpy floor {fmt(t_np - t_gemm)} ({100 * (t_np - t_gemm) / t_np:.0f}%)"
    )


# ---------------------------------------------------------------- main


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="a few samples only (~10 s), for a smoke run")
    ap.add_argument("--sizes", default="small,medium,large", help="comma-separated subset of: " + ",".join(SIZES))
    ap.add_argument("--profile", metavar="SIZE", help="instead of the benchmark: cProfile gradbook on SIZE")
    args = ap.parse_args()

    print_config()
    if args.profile:
        if args.profile not in SIZES:
            ap.error(f"unknown size {args.profile!r}")
        verify(args.profile)
        profile(args.profile)
        return
    sizes = [s.strip() for s in args.sizes.split(",") if s.strip()]
    unknown = [s for s in sizes if s not in SIZES]
    if unknown:
        ap.error(f"unknown size(s) {unknown}; choose from {list(SIZES)}")
    plan = PLAN_QUICK if args.quick else PLAN_FULL

    for size in sizes:  # all checks first: a wrong result makes timings meaningless
        verify(size)
    print(f"check: after one step, loss and updated weights agree ({', '.join(libraries())}) on {', '.join(sizes)}")
    print()

    t0 = time.perf_counter()
    results, other, faults = {}, {}, {}
    for size in sizes:
        steps, samples = plan[size]
        with OtherLoad() as load:
            results[size], faults[size] = time_size(size, steps, samples)
        other[size] = load.cores
    print_table(results, plan, other, faults)
    print(f"(timed in {time.perf_counter() - t0:.0f} s)")
    busy = [(size, load) for size, load in other.items() if load is not None and load > 0.5]
    if busy:
        print(
            "warning: other processes kept CPU busy during the timing ("
            + ", ".join(f"{size}: {load:.2f} cores" for size, load in busy)
            + "); absolute times may be inflated, trust the paired ratios more, or rerun on a quiet machine"
        )


if __name__ == "__main__":
    main()

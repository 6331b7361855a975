"""What the viz and widget benchmarks share: timing a call, and printing one table row."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable


def timed(fn: Callable[[], object], runs: int, setup: Callable[[], object] | None = None) -> list[float]:
    """Seconds per call of ``fn`` over ``runs`` calls (``setup`` runs before each, untimed)."""
    times = []
    for _ in range(runs):
        if setup is not None:
            setup()
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return times


def interleaved(steps: dict[str, Callable[[], object]], samples: int) -> dict[str, list[float]]:
    """Seconds per call of each of ``steps``: ``samples`` rounds, one call of each per round, the order
    rotated every round, so that a slow stretch of the machine hits all of them alike."""
    names = list(steps)
    times: dict[str, list[float]] = {name: [] for name in names}
    for r in range(samples):
        for name in names[r % len(names) :] + names[: r % len(names)]:
            start = time.perf_counter()
            steps[name]()
            times[name].append(time.perf_counter() - start)
    return times


def row(label: str, times: list[float], target: float | None = None) -> None:
    """``| label | median | min | max | target | PASS/MISS |`` in milliseconds."""
    med = statistics.median(times)
    verdict = "" if target is None else ("PASS" if med <= target else "MISS")
    goal = "" if target is None else f"≤ {target * 1e3:g} ms"
    low, high = min(times) * 1e3, max(times) * 1e3
    print(f"| {label:30s} | {med * 1e3:9.2f} ms | {low:8.2f} | {high:8.2f} | {goal:10s} | {verdict:6s} |")


def header() -> None:
    """The table head that ``row`` lines go under."""
    print(f"| {'what':30s} | {'median':>12s} | {'min':>8s} | {'max':>8s} | {'target':10s} | {'result':6s} |")
    print(f"|{'-' * 32}|{'-' * 13}:|{'-' * 9}:|{'-' * 9}:|{'-' * 12}|{'-' * 8}|")

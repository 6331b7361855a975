#!/usr/bin/env python3
"""Time every check of gradbook.exercises, with a right answer and with a wrong one.

    python benchmarks/exercises.py            # 20 runs per check, about 2 s
    python benchmarks/exercises.py --runs 5

The target is ≤ 100 ms per check, so that a student's cell answers at once. The table shows the
median and the maximum over the runs (the first run included: it is what a student waits for);
the script exits with status 1 when a maximum is over the target.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # benchmark the gradbook of this checkout
sys.path.insert(0, str(ROOT / "tests"))

import numpy as np  # noqa: E402
from test_exercises import RIGHT  # noqa: E402  (the right answers live with the tests, not in gradbook)

TARGET_MS = 100.0


def wrong_answer(answer):
    """An attempted but wrong answer of the same kind: it goes through every step of the check."""
    if isinstance(answer, set):
        return {"b"}
    if callable(answer):
        return lambda *args: None
    return np.zeros_like(np.asarray(answer, dtype=float))


def time_check(check, answer, runs: int) -> list[float]:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        with contextlib.redirect_stdout(io.StringIO()):
            try:
                check(answer)
            except AssertionError:
                pass
        times.append((time.perf_counter() - start) * 1000)
    return times


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20)
    args = parser.parse_args()
    worst = 0.0
    print(f"{'check':32} {'right: median':>14} {'max':>8} {'wrong: median':>14} {'max':>8}")
    for check, answer in RIGHT.items():
        ok, ko = time_check(check, answer, args.runs), time_check(check, wrong_answer(answer), args.runs)
        worst = max(worst, *ok, *ko)
        print(
            f"{check.__name__:32} {statistics.median(ok):11.2f} ms {max(ok):5.2f} ms "
            f"{statistics.median(ko):11.2f} ms {max(ko):5.2f} ms"
        )
    print(f"slowest single check: {worst:.2f} ms (target ≤ {TARGET_MS:.0f} ms)")
    return 0 if worst <= TARGET_MS else 1


if __name__ == "__main__":
    sys.exit(main())

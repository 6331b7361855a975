"""The kernel's side of grading: run one hidden test's probe, print its values as plain data.

A hidden test in the course is two parts (``judge.split``): the *probe*, which runs in the
student's sandboxed kernel after all their cells and puts what it measured into a dict called
``probe`` (numbers, tensors, arrays, strings, lists), and the *judge*, which runs in the grader
and compares. This module is the probe's runner. It prints one line, ``MARK`` and then JSON;
the grader reads that line and nothing else, through ``decode`` (strict, size-capped, never
pickle). Everything here runs next to the student's code, so nothing here is trusted: a
student who changes it only changes the values reported for their own answers.
"""

from __future__ import annotations

import json
import math
import numbers
from typing import Any

MARK = "\x1egradbook-probe:"
MAX_BYTES = 1_000_000  # one probe's JSON
MAX_ITEMS = 100_000  # numbers and strings in one probe
MAX_DEPTH = 8
MAX_TEXT = 2_000


class ProbeError(ValueError):
    """What the kernel reported is not plain data within the limits."""


def encode(value: Any, depth: int = 0) -> Any:
    """``value`` as JSON-able plain data: tensors and arrays as ``{"tensor"|"array": ...}``."""
    import numpy as np

    if depth > MAX_DEPTH:
        raise ProbeError("nested too deeply")
    if value is None or isinstance(value, (bool, str)):
        return value if not isinstance(value, str) else value[:MAX_TEXT]
    if isinstance(value, np.ndarray) or type(value).__name__ == "Tensor":
        kind = "array" if isinstance(value, np.ndarray) else "tensor"
        data = value if kind == "array" else value.detach().numpy()
        data = np.asarray(data)
        if data.size > MAX_ITEMS:
            raise ProbeError(f"an array of {data.size} numbers is over the limit of {MAX_ITEMS}")
        out = {kind: _numbers(data), "shape": list(data.shape), "dtype": str(data.dtype)}
        if kind == "tensor":
            out["requires_grad"] = bool(value.requires_grad)
        return out
    if isinstance(value, (list, tuple)):
        return [encode(v, depth + 1) for v in value]
    if isinstance(value, dict):
        return {"dict": {str(k)[:MAX_TEXT]: encode(v, depth + 1) for k, v in value.items()}}
    if isinstance(value, (set, frozenset)):
        return {"set": sorted((encode(v, depth + 1) for v in value), key=repr)}
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, numbers.Number) or hasattr(value, "__float__"):
        return _number(float(value))
    raise ProbeError(f"a {type(value).__name__} is not a number, tensor, array, string or list")


def _number(x: float) -> Any:
    return x if math.isfinite(x) else {"float": repr(x)}  # nan, inf, -inf


def _numbers(data: Any) -> Any:
    import numpy as np

    if data.dtype == bool:
        return data.tolist()
    if np.issubdtype(data.dtype, np.integer):
        return data.astype(np.int64).tolist()
    flat = [_number(float(x)) for x in data.astype(np.float64).ravel()]
    return flat


def run(source: str, namespace: dict) -> None:
    """Run one probe's ``source`` in the student's namespace and print its result line."""
    namespace["probe"] = {}
    try:
        exec(compile(source, "<hidden test>", "exec"), namespace)
        result = {"ok": True, "values": encode(namespace["probe"])}
    except BaseException as err:  # the student's code raised: that is their answer's result
        result = {"ok": False, "error": f"{type(err).__name__}: {err}"[:MAX_TEXT]}
    text = json.dumps(result, allow_nan=False)
    if len(text) > MAX_BYTES:
        text = json.dumps({"ok": False, "error": f"the answer's values are over {MAX_BYTES} bytes"})
    print(MARK + text, flush=True)

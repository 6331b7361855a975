"""PyTorch-compatible tensor printing, in pure NumPy.

This is a port of ``torch/_tensor_str.py`` (PyTorch 2.x) restricted to dense
CPU tensors of real dtypes.  The goal is byte-for-byte identical output, so
the code deliberately keeps torch's structure and quirks (for example the
off-by-two line length in ``_add_suffixes`` and the ``[-0:]`` slice in
``_summarized_data``) instead of "fixing" them.  The only intended
difference is that dtype suffixes read ``gradbook.<name>`` instead of
``torch.<name>``.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from typing import Any

import numpy as np

__all__ = ["format_tensor", "get_printoptions", "set_printoptions"]

_FLOAT_DTYPES = ("float32", "float64", "float16")
_DTYPES = (*_FLOAT_DTYPES, "int64", "int32", "int16", "int8", "uint8", "bool")
# torch omits the dtype suffix for the default float dtype, int64 and bool.
_NAMES = {np.dtype(name): name for name in _DTYPES}  # NumPy's dtype.name is a Python property, 3.5 µs
_DEFAULT_FLOAT = ["float32"]  # set by gradbook.set_default_dtype


@dataclasses.dataclass
class _PrintOptions:
    precision: int = 4
    threshold: float = 1000
    edgeitems: int = 3
    linewidth: int = 80
    sci_mode: bool | None = None


_OPTS = _PrintOptions()
_PROFILES = {
    "default": {"precision": 4, "threshold": 1000, "edgeitems": 3, "linewidth": 80},
    "short": {"precision": 2, "threshold": 1000, "edgeitems": 2, "linewidth": 80},
    "full": {"precision": 4, "threshold": math.inf, "edgeitems": 3, "linewidth": 80},
}


def set_printoptions(
    precision: int | None = None,
    threshold: float | None = None,
    edgeitems: int | None = None,
    linewidth: int | None = None,
    profile: str | None = None,
    sci_mode: bool | None = None,
) -> None:
    """Set printing options; same semantics as ``torch.set_printoptions``.

    ``profile`` is one of ``"default"``, ``"short"`` or ``"full"`` and is
    applied first, so explicit arguments override it.  As in torch,
    ``sci_mode`` is always assigned, so omitting it resets it to automatic.

    >>> import numpy as np
    >>> set_printoptions(precision=2)
    >>> format_tensor(np.array([1.12345], dtype=np.float32), "float32")
    'tensor([1.12])'
    >>> set_printoptions(profile="default")
    """
    # torch silently ignores unknown profile names; so do we.
    for name, value in _PROFILES.get(profile, {}).items():
        setattr(_OPTS, name, value)
    if precision is not None:
        _OPTS.precision = precision
    if threshold is not None:
        _OPTS.threshold = threshold
    if edgeitems is not None:
        _OPTS.edgeitems = edgeitems
    if linewidth is not None:
        _OPTS.linewidth = linewidth
    _OPTS.sci_mode = sci_mode


def get_printoptions() -> dict[str, Any]:
    """Return the current options as a dict usable as ``set_printoptions(**d)``.

    >>> get_printoptions()["precision"]
    4
    """
    return dataclasses.asdict(_OPTS)


class _Formatter:
    """Decides a common width/notation for all printed elements (torch's _Formatter)."""

    def __init__(self, array: np.ndarray, floating: bool) -> None:
        self.floating = floating
        self.int_mode = True
        self.sci_mode = False
        self.max_width = 1
        flat = array.reshape(-1)

        if not floating:
            for value in flat.tolist():
                self.max_width = max(self.max_width, len(f"{value}"))
            return

        # tolist() yields exact Python floats, matching torch's Tensor.__format__ via item(); a
        # printed tensor has at most a few thousand values, so plain Python beats NumPy's calls.
        vals = [v for v in flat.tolist() if v != 0 and math.isfinite(v)]
        if not vals:
            # Only zeros/nan/inf: torch keeps int_mode and never enables sci_mode.
            return

        # Ratios are taken in float64, as torch does, so float16 cannot overflow;
        # Python floats make 1e300 / 1e-300 give inf quietly, like torch.
        vmin, vmax = min(map(abs, vals)), max(map(abs, vals))
        self.int_mode = all(v == math.ceil(v) for v in vals)
        if _OPTS.sci_mode is None:
            self.sci_mode = bool(vmax / vmin > 1000.0 or vmax > 1.0e8 or vmin < 1.0e-4)
        else:
            self.sci_mode = _OPTS.sci_mode

        p = _OPTS.precision
        if self.sci_mode:
            widths = (len(f"{v:.{p}e}") for v in vals)
        elif self.int_mode:
            # +1 for the trailing "." that marks an integral float.
            widths = (len(f"{v:.0f}") + 1 for v in vals)
        else:
            widths = (len(f"{v:.{p}f}") for v in vals)
        self.max_width = max(self.max_width, *widths)

    def format(self, value: Any) -> str:
        p = _OPTS.precision
        if not self.floating:
            ret = f"{value}"
        elif self.sci_mode:
            ret = f"{value:{self.max_width}.{p}e}"
        elif self.int_mode:
            ret = f"{value:.0f}"
            if not (math.isinf(value) or math.isnan(value)):
                ret += "."
        else:
            ret = f"{value:.{p}f}"
        return (self.max_width - len(ret)) * " " + ret


def _summarized_data(a: np.ndarray) -> np.ndarray:
    """Keep only the edge items of every dimension (what will actually be shown)."""
    e = _OPTS.edgeitems
    if a.ndim == 0:
        return a
    if a.ndim == 1:
        # With e == 0 torch's a[-0:] is the whole array; numpy slices the same way.
        return np.concatenate((a[:e], a[-e:])) if a.shape[0] > 2 * e else a
    if not e:
        return np.empty([0] * a.ndim, dtype=a.dtype)
    if a.shape[0] > 2 * e:
        rows = [a[i] for i in range(e)] + [a[i] for i in range(len(a) - e, len(a))]
    else:
        rows = list(a)
    return np.stack([_summarized_data(r) for r in rows])


def _vector_str(a: np.ndarray, indent: int, summarize: bool, fmt: _Formatter) -> str:
    e = _OPTS.edgeitems
    # element width plus ", " between elements
    per_line = max(1, math.floor((_OPTS.linewidth - indent) / (fmt.max_width + 2)))
    if summarize and not e:
        data = ["..."]
    elif summarize and a.shape[0] > 2 * e:
        data = [fmt.format(v) for v in a[:e].tolist()] + [" ..."] + [fmt.format(v) for v in a[-e:].tolist()]
    else:
        data = [fmt.format(v) for v in a.tolist()]
    lines = [", ".join(data[i : i + per_line]) for i in range(0, len(data), per_line)]
    return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"


def _tensor_str(a: np.ndarray, indent: int, summarize: bool, fmt: _Formatter) -> str:
    if a.ndim == 0:
        return fmt.format(a.item())
    if a.ndim == 1:
        return _vector_str(a, indent, summarize, fmt)
    e = _OPTS.edgeitems
    if summarize and a.shape[0] > 2 * e:
        idx = list(range(e)) + [None] + list(range(len(a) - e, len(a)))
    else:
        idx = list(range(a.shape[0]))
    slices = ["..." if i is None else _tensor_str(a[i], indent + 1, summarize, fmt) for i in idx]
    # Deeper tensors separate their blocks with more blank lines, like torch.
    return "[" + ("," + "\n" * (a.ndim - 1) + " " * (indent + 1)).join(slices) + "]"


def _add_suffixes(tensor_str: str, suffixes: Sequence[tuple[str, int]], indent: int) -> str:
    """Append ``(text, width)`` suffixes; ``width`` is the length torch would measure."""
    parts = [tensor_str]
    # torch's formula: over-counts by 2 when there is no newline; kept for fidelity.
    last_line_len = len(tensor_str) - tensor_str.rfind("\n") + 1
    for text, width in suffixes:
        if last_line_len + width + 2 > _OPTS.linewidth:
            parts.append(",\n" + " " * indent + text)
            last_line_len = indent + width
        else:
            parts.append(", " + text)
            last_line_len += width + 2
    parts.append(")")
    return "".join(parts)


def _plain(suffix: str) -> tuple[str, int]:
    return suffix, len(suffix)


def format_tensor(array: np.ndarray, dtype_name: str | np.dtype, extra: Sequence[str] = ()) -> str:
    """Return exactly what torch prints for a CPU tensor holding ``array``.

    ``dtype_name`` is one of float32, float64, float16, int64, int32, int16,
    int8, uint8 or bool (or that NumPy dtype); ``array`` is cast to it.  Non-default dtypes get a
    ``dtype=gradbook.<name>`` suffix.  ``extra`` holds already formatted
    suffixes (e.g. ``"grad_fn=<MulBackward0>"``) appended after it, in order.

    >>> import numpy as np
    >>> format_tensor(np.array([4.0, 9.0, 16.0], dtype=np.float32), "float32")
    'tensor([ 4.,  9., 16.])'
    >>> print(format_tensor(np.eye(2), "float64", ["requires_grad=True"]))
    tensor([[1., 0.],
            [0., 1.]], dtype=gradbook.float64, requires_grad=True)
    """
    dtype_name = _NAMES.get(dtype_name) or getattr(dtype_name, "name", dtype_name)  # a dtype: its name
    if dtype_name not in _DTYPES:
        raise ValueError(
            f"format_tensor() got dtype_name={dtype_name!r}, which gradbook cannot "
            f"print; use one of: {', '.join(_DTYPES)}"
        )
    a = np.asarray(array, dtype=dtype_name)
    prefix = "tensor("
    indent = len(prefix)
    suffixes: list[tuple[str, int]] = []
    # Line breaks are decided with torch's "dtype=torch.<name>" length so the
    # layout stays identical to torch's; only the printed module name differs.
    dtype_suffix = (f"dtype=gradbook.{dtype_name}", len(f"dtype=torch.{dtype_name}"))

    if a.size == 0:
        # torch shows the shape unless it is (0,), and the dtype unless it is
        # the default float dtype (an empty int64 tensor is ambiguous otherwise).
        if a.ndim != 1:
            suffixes.append(_plain(f"size={tuple(a.shape)}"))
        if dtype_name != _DEFAULT_FLOAT[0]:
            suffixes.append(dtype_suffix)
        body = "[]"
    else:
        if not _OPTS.edgeitems:
            suffixes.append(_plain(f"size={tuple(a.shape)}"))
        if dtype_name not in (_DEFAULT_FLOAT[0], "int64", "bool"):
            suffixes.append(dtype_suffix)
        summarize = a.size > _OPTS.threshold
        fmt = _Formatter(_summarized_data(a) if summarize else a, dtype_name in _FLOAT_DTYPES)
        body = _tensor_str(a, indent, summarize, fmt)

    return _add_suffixes(prefix + body, [*suffixes, *map(_plain, extra)], indent)

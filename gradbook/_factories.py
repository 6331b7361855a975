"""Making tensors: ``tensor()`` and the factories (ones, zeros, arange, randn, ...), and the random
generators: ``Generator``, the default one that ``manual_seed`` seeds, and ``generator=``."""

from __future__ import annotations

import builtins
import functools
import math
import os
from typing import Any

import numpy as np

from . import _device, _distributions, _fma, _random
from ._dtypes import (
    Size,
    default_float,
    float16,
    float32,
    float64,
    from_numpy_dtype,
    get_default_dtype,
    int64,
    promote_types,
    restore_numpy,
    scalar_name,
    silence_numpy,
)
from ._dtypes import bool as bool_
from ._dtypes import to_dtype as _to_dtype
from ._messages import type_of
from .tensor import Tensor


def tensor(data: Any, dtype: Any = None, device: Any = None, requires_grad: builtins.bool = False) -> Tensor:
    """Make a leaf tensor from a number, a (nested) list, a NumPy array or a tensor (copied).

    Python floats become the default float dtype (float32), ints int64, bools bool; NumPy arrays and
    scalars keep their dtype; with ``dtype`` the values are converted once, straight from Python's
    (so ``tensor(0.1, dtype=float64)`` is exactly 0.1).

    >>> import gradbook as torch
    >>> torch.tensor([2, 3, 4], dtype=torch.float, requires_grad=True)
    tensor([2., 3., 4.], requires_grad=True)
    """
    want = None if dtype is None else _to_dtype(dtype, "tensor").numpy
    _device.check(device)
    if isinstance(data, Tensor):
        array = data._array.astype(want) if want is not None else data._array.copy()
    elif isinstance(data, (np.ndarray, np.generic)):
        array = np.array(data, dtype=want if want is not None else from_numpy_dtype(data.dtype).numpy)
    else:
        values, kinds = _python_values(data)
        if want is None:
            want = functools.reduce(promote_types, kinds) if kinds else default_float()
        quiet = silence_numpy()  # tensor(1e40) is inf, silently, as in torch
        try:
            array = np.array(values, dtype=want)
        finally:
            restore_numpy(quiet)
    return _new_leaf(array, requires_grad)


def _python_values(data: Any) -> tuple[Any, set[np.dtype]]:
    """``data`` as nested lists of Python numbers, and the dtype each kind of number asks for
    (torch: a Python float is the default float dtype, a NumPy scalar or 0-d tensor keeps its dtype),
    with torch's errors for ragged lists and for values a tensor cannot hold."""
    kinds: set[np.dtype] = set()
    values = _values(data, kinds)
    _check_lengths(values, 0)
    return values, kinds


def _values(x: Any, kinds: set[np.dtype]) -> Any:
    if isinstance(x, (list, tuple)):
        return [_values(v, kinds) for v in x]
    if isinstance(x, Tensor):
        if x._array.size != 1:
            raise ValueError("only one element tensors can be converted to Python scalars")
        kinds.add(x._array.dtype)
        return x._array.item()
    if isinstance(x, np.generic):
        kinds.add(from_numpy_dtype(x.dtype).numpy)
        return x.item()
    if isinstance(x, (builtins.bool, builtins.int, builtins.float)):
        kind = (
            builtins.bool
            if isinstance(x, builtins.bool)
            else builtins.int
            if isinstance(x, builtins.int)
            else builtins.float
        )
        if kind is builtins.int and not -(2**63) <= x < 2**63:
            raise ValueError("Overflow when unpacking long long")
        kinds.add(
            np.dtype(np.bool_)
            if kind is builtins.bool
            else np.dtype(np.int64)
            if kind is builtins.int
            else default_float()
        )
        return x
    if isinstance(x, complex):
        raise TypeError("gradbook has no complex tensors: use real and imaginary parts as two float tensors")
    if x is None:
        raise RuntimeError("Could not infer dtype of NoneType")
    raise TypeError(f"new(): invalid data type '{type(x).__name__}'")


def _check_lengths(values: Any, dim: builtins.int) -> None:
    """torch's errors for nested lists that are not a box."""
    if not isinstance(values, list) or not values:
        return
    first = values[0]
    for v in values[1:]:
        if isinstance(first, list) != isinstance(v, list):
            if isinstance(first, list):
                raise TypeError("not a sequence")
            raise TypeError(f"'{type(v).__name__}' object cannot be interpreted as an integer")
        if isinstance(first, list) and len(v) != len(first):
            raise ValueError(f"expected sequence of length {len(first)} at dim {dim + 1} (got {len(v)})")
    for v in values:
        _check_lengths(v, dim + 1)


def _new_leaf(array: np.ndarray, requires_grad: builtins.bool) -> Tensor:
    """A leaf made by a factory: torch words the integer error differently than requires_grad_()."""
    t = Tensor._make(array)
    if requires_grad:
        if array.dtype.kind != "f":
            raise RuntimeError("Only Tensors of floating point and complex dtype can require gradients")
        t.requires_grad = True
    return t


def as_tensor(data: Any, dtype: Any = None, device: Any = None) -> Tensor:
    """Like ``tensor``, but returns a tensor unchanged (or converted) instead of copying it."""
    _device.check(device)
    if isinstance(data, Tensor):
        return data if dtype is None else data.to(dtype)
    return tensor(data, dtype)


def from_numpy(array: np.ndarray) -> Tensor:
    """A tensor sharing memory with a NumPy array."""
    return Tensor._make(array)


def _is_int(v: Any) -> builtins.bool:
    return isinstance(v, (builtins.int, np.integer)) and not isinstance(v, (builtins.bool, np.bool_))


def _shape(size: tuple, caller: str, keyword: Any = None) -> tuple[builtins.int, ...]:
    """A factory's ``*size`` (or ``size=``) as a shape, with torch's errors for what is not one."""
    if keyword is not None:
        if size:
            raise TypeError(f"{caller}() received an invalid combination of arguments: size given twice")
        size = (keyword,)
    if len(size) == 1 and not _is_int(size[0]):
        one = size[0]
        if not isinstance(one, (tuple, list, Size)):
            raise TypeError(f"{caller}(): argument 'size' (position 1) must be tuple of ints, not {type(one).__name__}")
        bad = next((i for i, v in enumerate(one) if not _is_int(v)), None)
        if bad is not None and isinstance(one, list):
            raise TypeError(
                f"{caller}(): argument 'size' (position 1) must be tuple of ints, but found element of type "
                f"{type(one[bad]).__name__} at pos {bad}"
            )
        size = tuple(one)
    bad = next((i for i, v in enumerate(size) if not _is_int(v)), None)
    if bad is not None:
        raise TypeError(
            f"{caller}(): argument 'size' failed to unpack the object at pos {bad + 1} with error "
            f'"type must be tuple of ints,but got {type(size[bad]).__name__}"'
        )
    shape = tuple(builtins.int(v) for v in size)
    if any(v < 0 for v in shape):
        if caller == "zeros":
            raise RuntimeError("zeros: Dimension size must be non-negative.")
        raise RuntimeError(f"Trying to create tensor with negative dimension {min(shape)}: {list(shape)}")
    return shape


def _leaf(
    array: np.ndarray, dtype: Any, requires_grad: builtins.bool, caller: str = "tensor", device: Any = None
) -> Tensor:
    """A factory's result: in ``dtype`` (the default float dtype if None), on the CPU."""
    d = _to_dtype(dtype, caller) if dtype is not None else get_default_dtype()
    _device.check(device)
    return _new_leaf(array.astype(d.numpy, copy=False), requires_grad)


def ones(*size: Any, dtype: Any = None, device: Any = None, requires_grad: builtins.bool = False, **kw: Any) -> Tensor:
    """A tensor of ones with the given shape (float32 unless ``dtype`` says otherwise)."""
    return _leaf(np.ones(_shape(size, "ones", *_size_kw(kw, "ones"))), dtype, requires_grad, "ones", device)


def zeros(*size: Any, dtype: Any = None, device: Any = None, requires_grad: builtins.bool = False, **kw: Any) -> Tensor:
    """A tensor of zeros with the given shape."""
    return _leaf(np.zeros(_shape(size, "zeros", *_size_kw(kw, "zeros"))), dtype, requires_grad, "zeros", device)


def _size_kw(kw: dict, caller: str) -> tuple:
    """``size=`` given by keyword (``randn(size=(2, 3))``), and torch's error for any other keyword."""
    unknown = [k for k in kw if k != "size"]
    if unknown:
        raise TypeError(f"{caller}() got an unexpected keyword argument '{unknown[0]}'")
    return (kw["size"],) if "size" in kw else ()


empty = zeros


def full(
    size: Any, fill_value: Any, dtype: Any = None, device: Any = None, requires_grad: builtins.bool = False
) -> Tensor:
    """A tensor filled with ``fill_value``; its dtype follows the value (int64, float32, bool)."""
    if not isinstance(size, (tuple, list, Size)):
        raise TypeError(f"full(): argument 'size' (position 1) must be tuple of ints, not {type(size).__name__}")
    if dtype is None and isinstance(fill_value, (builtins.bool, builtins.int)):
        dtype = bool_ if isinstance(fill_value, builtins.bool) else int64
    return _leaf(np.full(_shape((size,), "full"), fill_value), dtype, requires_grad, "full", device)


def _like(t: Tensor, dtype: Any) -> Any:
    return dtype if dtype is not None else t.dtype


def ones_like(t: Tensor, dtype: Any = None, device: Any = None, requires_grad: builtins.bool = False) -> Tensor:
    """Ones with the shape and dtype of ``t``: the usual ``gradient=`` for a non-scalar backward."""
    return _leaf(np.ones(t._array.shape), _like(t, dtype), requires_grad, "ones_like", device)


def zeros_like(t: Tensor, dtype: Any = None, device: Any = None, requires_grad: builtins.bool = False) -> Tensor:
    """Zeros with the shape and dtype of ``t``."""
    return _leaf(np.zeros(t._array.shape), _like(t, dtype), requires_grad, "zeros_like", device)


def full_like(
    t: Tensor, fill_value: Any, dtype: Any = None, device: Any = None, requires_grad: builtins.bool = False
) -> Tensor:
    return _leaf(np.full(t._array.shape, fill_value), _like(t, dtype), requires_grad, "full_like", device)


def arange(
    start: Any,
    end: Any = None,
    step: Any = 1,
    dtype: Any = None,
    device: Any = None,
    requires_grad: builtins.bool = False,
) -> Tensor:
    """Values from ``start`` up to (not including) ``end``; int64 if all arguments are integers."""
    if end is None:
        start, end = 0, start
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if (end - start) * step < 0:
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")
    if dtype is None:
        ints = all(isinstance(v, builtins.int) for v in (start, end, step))
        dtype = int64 if ints else get_default_dtype()
    d = _to_dtype(dtype, "arange")
    if d.numpy not in (np.float32, np.float64) or not all(np.isfinite([start, end, step])):
        return _leaf(np.arange(start, end, step), d, requires_grad, "arange", device)
    n = math.ceil((float(end) - float(start)) / float(step))
    return _leaf(_arange_values(float(start), float(step), n, d.numpy.type), d, requires_grad, "arange", device)


def _arange_values(start: float, step: float, n: builtins.int, kind: type) -> np.ndarray:
    """torch's CPU arange, bit for bit: ``start + step * i`` as a float64 fused multiply-add, then
    rounded to ``kind``; but inside each block of 2 × 32 bytes that torch's vector loop fills, one
    base per 32 bytes and ``base + k * step`` from it. Above 32768 elements torch splits the range
    among its threads (OMP_NUM_THREADS, else one per CPU), each starting its own blocks."""
    width = 32 // np.dtype(kind).itemsize  # values in one 32-byte vector
    threads = builtins.int(os.environ.get("OMP_NUM_THREADS") or os.cpu_count() or 1)
    tasks = min(threads, -(-n // 32768)) if n > 32768 else 1
    chunk = -(-n // tasks) if n else 1
    out = np.empty(n, kind)
    for begin in range(0, n, chunk):
        end = min(n, begin + chunk)
        split = end - (end - begin) % (2 * width)  # the vector loop's blocks end here; the rest one by one
        i = np.arange(begin, split)
        first = begin + (i - begin) // width * width  # the index each vector starts at
        base = _fma.fma(step, first, start, np.float64).astype(kind).astype(np.float64)
        out[begin:split] = _fma.fma(i - first, step, base, np.float64).astype(kind)
        out[split:end] = _fma.fma(step, np.arange(split, end), start, np.float64).astype(kind)
    return out


def linspace(
    start: Any,
    end: Any,
    steps: builtins.int,
    dtype: Any = None,
    device: Any = None,
    requires_grad: builtins.bool = False,
) -> Tensor:
    """``steps`` evenly spaced values from ``start`` to ``end`` inclusive, computed as torch's CPU
    kernel does: the first half as ``start + step * i``, the second as ``end - step * (steps - 1 - i)``,
    each one fused multiply-add in the result's dtype (so the last bits are torch's, not NumPy's)."""
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    d = _to_dtype(dtype, "linspace") if dtype is not None else get_default_dtype()
    floating = d.numpy in (np.float32, np.float64)
    kind = d.numpy.type if floating else np.float64  # integers: start and end as integers, a float64 step
    first, last = (kind(start), kind(end)) if floating else (kind(builtins.int(start)), kind(builtins.int(end)))
    if steps < 2 or not (np.isfinite(first) and np.isfinite(last)):
        return _leaf(np.linspace(first, last, steps), d, requires_grad, "linspace", device)
    step = (last - first) / kind(steps - 1)  # in the result's dtype, as torch
    half = steps // 2
    values = np.concatenate(
        [_fma.fma(step, np.arange(half), first, kind), _fma.fma(-step, np.arange(steps - half - 1, -1, -1), last, kind)]
    )
    return _leaf(values, d, requires_grad, "linspace", device)


def eye(
    n: builtins.int,
    m: builtins.int | None = None,
    dtype: Any = None,
    device: Any = None,
    requires_grad: builtins.bool = False,
) -> Tensor:
    """The identity matrix (n × m)."""
    if not _is_int(n):
        raise TypeError(f"eye(): argument 'n' (position 1) must be int, not {type(n).__name__}")
    for name, v in (("n", n), ("m", m)):
        if v is not None and v < 0:
            raise RuntimeError(f"{name} must be greater or equal to 0, got {v}")
    return _leaf(np.eye(n, m), dtype, requires_grad, "eye", device)


def rand(
    *size: Any,
    generator: Any = None,
    dtype: Any = None,
    device: Any = None,
    requires_grad: builtins.bool = False,
    **kw: Any,
) -> Tensor:
    """Uniform random numbers in [0, 1) (seed with ``manual_seed``)."""
    shape = _shape(size, "rand", *_size_kw(kw, "rand"))
    gen = generator_of(generator, "rand", *size)
    d = _float_dtype(dtype, "check_uniform_bounds", "rand")
    draws = _distributions.uniform(gen, math.prod(shape), d.numpy).reshape(shape)
    return _leaf(draws, d, requires_grad, "rand", device)


def randn(
    *size: Any,
    generator: Any = None,
    dtype: Any = None,
    device: Any = None,
    requires_grad: builtins.bool = False,
    **kw: Any,
) -> Tensor:
    """Standard normal random numbers (seed with ``manual_seed``)."""
    shape = _shape(size, "randn", *_size_kw(kw, "randn"))
    gen = generator_of(generator, "randn", *size)
    d = _float_dtype(dtype, "normal_kernel_cpu", "randn")
    draws = _distributions.normal(gen, math.prod(shape), d.numpy).reshape(shape)
    return _leaf(draws, d, requires_grad, "randn", device)


def rand_like(t: Tensor, dtype: Any = None, device: Any = None, requires_grad: builtins.bool = False) -> Tensor:
    return rand(t._array.shape, dtype=_like(t, dtype), device=device, requires_grad=requires_grad)


def randn_like(t: Tensor, dtype: Any = None, device: Any = None, requires_grad: builtins.bool = False) -> Tensor:
    return randn(t._array.shape, dtype=_like(t, dtype), device=device, requires_grad=requires_grad)


def _float_dtype(dtype: Any, kernel: str, caller: str) -> Any:
    """A random factory's dtype (the default float dtype if None); torch's error for one that
    is not a float."""
    d = _to_dtype(dtype, caller) if dtype is not None else get_default_dtype()
    if not d.is_floating_point:
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{d.scalar_name}'")
    return d


def randint(
    low: Any = None,
    high: Any = None,
    size: Any = None,
    *,
    generator: Any = None,
    dtype: Any = None,
    device: Any = None,
    requires_grad: builtins.bool = False,
) -> Tensor:
    """Random integers in [low, high): ``randint(high, size)``, ``randint(low, high, size)`` or with keywords
    (``randint(high=10, size=(3,))``)."""
    given_low = size is not None and low is not None
    if low is None:
        if high is None or size is None:
            given = ", ".join(f"{k}={type_of(v)}" for k, v in (("high", high), ("size", size)) if v is not None)
            raise TypeError(
                f"randint() received an invalid combination of arguments - got ({given}, ), but expected one of:"
            )
        low = 0
    elif size is None:
        low, high, size = 0, low, high
    for name, position, v in (("low", 1, low), ("high", 2 if given_low else 1, high)):
        if not _is_int(v):
            raise TypeError(f"randint(): argument '{name}' (position {position}) must be int, not {type(v).__name__}")
    if low >= high:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}")
    gen = generator_of(generator, "randint", *([low, high] if given_low else [high]), size)
    shape = _shape((size,), "randint")
    d = _to_dtype(dtype, "randint") if dtype is not None else int64
    draws = _distributions.integers(gen, math.prod(shape), d.numpy, low, high).reshape(shape)
    return _leaf(draws, d, requires_grad, "randint", device)


def randint_like(t: Tensor, low: builtins.int, high: Any = None, dtype: Any = None, device: Any = None) -> Tensor:
    """Random integers in [low, high) with the shape (and dtype) of ``t``."""
    low, high = (0, low) if high is None else (low, high)
    return randint(low, high, t._array.shape, dtype=_like(t, dtype), device=device)


def randperm(n: builtins.int, generator: Any = None, dtype: Any = None, device: Any = None) -> Tensor:
    """A random permutation of 0 .. n-1 (torch's shuffle: the same seed, the same order)."""
    _shape((n,), "randperm")
    dtype = dtype or int64
    for kind, most, text, name in (
        (float16, 2**11 + 1, "2049", "Half"),
        (float32, 2**24 + 1, "2^24+1", "Float"),
        (float64, 2**53 + 1, "2^53+1", "Double"),
    ):
        if dtype == kind and n > most:  # past it, the type does not hold every value exactly
            raise RuntimeError(f"n cannot be greater than {text} for {name} type.")
    if dtype == bool_:
        raise NotImplementedError("\"randperm\" not implemented for 'Bool'")
    draws = _distributions.permutation(generator_of(generator, "randperm", n), n)
    return _leaf(draws, dtype, False, "randperm", device)


_NORMAL_OVERLOADS = (
    " * (Tensor mean, Tensor std, *, torch.Generator generator = None, Tensor out = None)\n"
    " * (Tensor mean, float std = 1, *, torch.Generator generator = None, Tensor out = None)\n"
    " * (float mean, Tensor std, *, torch.Generator generator = None, Tensor out = None)\n"
    " * (float mean, float std, tuple of ints size, *, torch.Generator generator = None, Tensor out = None, "
    "torch.dtype dtype = None, torch.layout layout = None, torch.device device = None, bool pin_memory = False, "
    "bool requires_grad = False)\n"
)


_NO_STD = object()  # normal(1.0, size=(2,)): std left out, which torch refuses with a number mean


def normal(
    mean: Any,
    std: Any = None,
    size: Any = None,
    *,
    generator: Any = None,
    dtype: Any = None,
    device: Any = None,
    requires_grad: builtins.bool = False,
) -> Tensor:
    """Normal random numbers: ``normal(mean, std)`` with tensors (their broadcast shape), or numbers
    and ``size`` (then ``dtype``, ``device`` and ``requires_grad`` as for any factory). As torch, a
    tensor mean or std takes standard normal draws ``z`` and computes ``z * std + mean`` in the
    tensor's dtype (``normal(mean, 2.0)``: draws with std 2, plus mean)."""
    if std is None and not isinstance(mean, Tensor):  # only a tensor mean may leave std out, as torch's overloads
        if size is None:
            raise TypeError(f"normal(): argument 'mean' (position 1) must be Tensor, not {type_of(mean)}")
        std = _NO_STD
    std = 1.0 if std is None else std
    tensors = [v for v in (mean, std) if isinstance(v, Tensor)]
    factory = {"dtype": dtype, "device": device, "requires_grad": requires_grad or None}
    no_size = size is None or not isinstance(size, (tuple, list, Size))  # (an int is not a size here)
    if (not tensors and no_size) or (tensors and (size is not None or any(factory.values()))) or std is _NO_STD:
        given = [type_of(v) for v in (mean, std, size)[: 3 if size is not None else 2] if v is not _NO_STD]
        given += [f"{k}={'torch.dtype' if k == 'dtype' else type_of(v)}" for k, v in factory.items() if v is not None]
        if generator is not None:
            given.append(f"generator={type_of(generator)}")
        got = ", ".join(given)
        raise TypeError(
            f"normal() received an invalid combination of arguments - got ({got}), but expected one of:\n"
            + _NORMAL_OVERLOADS
        )
    for t in tensors:
        if t._array.dtype.kind != "f":
            raise NotImplementedError(f"\"normal_kernel_cpu\" not implemented for '{scalar_name(t._array.dtype)}'")
    s = _as_float64(std)
    if not np.all(s >= 0):  # (nan too)
        if isinstance(std, Tensor):
            raise RuntimeError("normal expects all elements of std >= 0.0")
        raise RuntimeError(f"normal expects std >= 0.0, but found std {float(std):g}")
    if tensors:
        from . import _arguments  # (the argument rules import the factories: at call time, no module cycle)
    if len(tensors) == 2:
        _arguments.broadcast_check(mean._array.shape, std._array.shape)
    gen = generator_of(generator, "normal", mean, std)
    if not tensors:
        shape = _shape((size,), "normal")
        d = _float_dtype(dtype, "normal_kernel_cpu", "normal")
        draws = _distributions.normal(gen, math.prod(shape), d.numpy, mean, std).reshape(shape)
        return _leaf(draws, d, requires_grad, "normal", device)
    d = tensors[0]._array.dtype
    shape = np.broadcast_shapes(*(t._array.shape for t in tensors))
    if isinstance(std, Tensor):
        z = _distributions.normal(gen, math.prod(shape), d).reshape(shape) * std._array
    else:
        z = _distributions.normal(gen, math.prod(shape), d, 0.0, float(std)).reshape(shape)
    out = (z + (mean._array if isinstance(mean, Tensor) else d.type(mean))).astype(d, copy=False)
    if any(t.requires_grad for t in tensors):  # a node with torch's zero gradients (NormalBackward1/2/3)
        return _arguments.normal_node(mean, std, out)
    return _leaf(out, from_numpy_dtype(d), False, "normal")


def _as_float64(v: Any) -> np.ndarray:
    return v._array.astype(np.float64) if isinstance(v, Tensor) else np.asarray(v, dtype=np.float64)


def bernoulli(input: Tensor, p: Any = None, generator: Any = None) -> Tensor:  # noqa: A002
    """1 with probability ``input`` (or ``p``), else 0, elementwise; the dtype of ``input``."""
    prob = input._array if p is None else float(p)
    if np.any((np.asarray(prob) < 0) | (np.asarray(prob) > 1)):
        raise RuntimeError(
            "Expected p_in >= 0 && p_in <= 1 to be true, but got false.  (Could this error message be improved?  "
            "If so, please report an enhancement request to PyTorch.)"
        )
    gen = generator_of(generator, "bernoulli")
    draws = _distributions.bernoulli(gen, prob, input._array.size).reshape(input._array.shape)
    return _leaf(draws, input.dtype, False, "bernoulli")


def multinomial(
    input: Tensor,  # noqa: A002
    num_samples: builtins.int,
    replacement: builtins.bool = False,
    generator: Any = None,
) -> Tensor:
    """``num_samples`` category indices drawn with the weights in ``input`` (each row of a matrix)."""
    w = input._array.astype(np.float64)
    if np.any(w < 0) or not np.all(np.isfinite(w)):
        raise RuntimeError("probability tensor contains either `inf`, `nan` or element < 0")
    rows = w.reshape(-1, w.shape[-1])
    if np.any(rows.sum(axis=1) == 0):
        raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
    if not replacement and num_samples > rows.shape[1]:
        raise RuntimeError("cannot sample n_sample > prob_dist.size(-1) samples without replacement")
    gen = generator_of(generator, "multinomial")
    p = input._array.reshape(-1, w.shape[-1])
    if replacement and num_samples > 1:
        picks = [_distributions.pick_with_replacement(gen, row, num_samples) for row in p]
    else:  # torch's Gumbel trick: the largest p / q, q exponential (weight-0 categories come last)
        q = _distributions.exponential(gen, p.size).astype(p.dtype).reshape(p.shape)
        with np.errstate(divide="ignore", invalid="ignore"):
            keys = p / q
        picks = np.argsort(-keys, axis=1, kind="stable")[:, :num_samples]
    return Tensor._make(np.array(picks, dtype=np.int64).reshape(w.shape[:-1] + (num_samples,)))


# ------------------------------------------------ the generators


class Generator(_random.MT19937):
    """A source of random numbers: ``Generator().manual_seed(0)`` makes its draws repeatable.

    >>> import gradbook as torch
    >>> g = torch.Generator().manual_seed(42)
    >>> torch.randint(0, 10, (4,), generator=g)
    tensor([2, 7, 6, 4])
    """

    __module__ = "gradbook._C"  # prints as torch's <torch._C.Generator object at ...>

    def get_state(self) -> Any:
        """The generator's state: torch's 5056 bytes (``CPUGeneratorImplState``), as an int64 tensor
        of byte values (gradbook has no uint8): ``torch.ByteTensor(g.get_state().tolist())`` is the
        state torch would give, and ``set_state`` takes either back."""
        return tensor(np.frombuffer(self._state_bytes(), dtype=np.uint8).astype(np.int64))


default_generator = Generator()
default_generator.seed()  # as torch: each process starts somewhere new


def manual_seed(seed: Any) -> Generator:
    """Seed gradbook's random numbers (rand, randn, nn.Linear's initial weights, DataLoader's
    shuffling); returns the default Generator. The numbers are torch's for the same seed.

    >>> import gradbook as torch
    >>> _ = torch.manual_seed(0)
    >>> torch.randn(3)
    tensor([ 1.5410, -0.2934, -2.1788])
    """
    return default_generator.manual_seed(seed)


def seed() -> builtins.int:
    return default_generator.seed()


def initial_seed() -> builtins.int:
    return default_generator.initial_seed()


def get_rng_state() -> Any:
    """The default generator's state (``default_generator.get_state()``)."""
    return default_generator.get_state()


def set_rng_state(new_state: Any) -> None:
    """Restore the default generator's state from ``get_rng_state()``."""
    default_generator.set_state(new_state)


def generator_of(generator: Any, caller: str, *args: Any) -> Generator:
    """The Generator to draw from: ``generator``, or the default one; torch's error for anything
    else (``args``: the call's other arguments, which a function's message lists)."""
    if generator is None:
        return default_generator
    if not isinstance(generator, _random.MT19937):
        got = type(generator).__name__
        if caller.endswith("_"):  # a method: uniform_(), normal_()
            raise TypeError(f"{caller}(): argument 'generator' must be gradbook.Generator, not {got}")
        given = [type(a).__name__ for a in args] + [f"generator={got}"]
        raise TypeError(
            f"{caller}() received an invalid combination of arguments - got ({', '.join(given)}), but expected one of:"
        )
    return generator

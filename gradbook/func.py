"""gradbook.func: torch.func's function transforms (``grad``, ``vjp``, ``jvp``, ``jacrev``, ``jacfwd``,
``hessian``, ``vmap``, ``functional_call``), built on gradbook's autograd.

>>> import gradbook as torch
>>> from gradbook.func import grad, hessian, vmap
>>> f = lambda x: (x ** 3).sum()
>>> grad(f)(torch.tensor([1.0, 2.0]))           # 3x²
tensor([ 3., 12.])
>>> hessian(f)(torch.tensor([1.0, 2.0]))        # diag(6x)
tensor([[ 6.,  0.],
        [ 0., 12.]])
>>> vmap(grad(f))(torch.tensor([[1.0], [2.0]]))  # one gradient per row
tensor([[ 3.],
        [12.]])

A transform takes a function and returns one: ``grad(f)(x)`` runs ``f`` on a copy of ``x`` that
requires grad and returns ``autograd.grad`` of the result, recorded, so transforms compose
(``grad(grad(f))``, ``jacfwd(jacrev(f))``). ``jvp`` and ``jacfwd`` run forward mode
(``autograd.forward_ad``). What a transform returns keeps a graph only when it reaches tensors
that required grad before the call (as torch's do).

torch runs ``vmap`` with batching rules, one call on the whole batch; gradbook calls the function
once per sample and stacks the results: the same values (as long as ``f`` does not depend on the
batch as a whole), one Python call per sample, and ``.item()`` inside ``f`` is not refused as in torch.
"""

from __future__ import annotations

import contextlib
import functools
import weakref
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from . import _random
from ._functions import stack
from .autograd import forward_ad
from .autograd.engine import grad as autograd_grad
from .autograd.grad_mode import enable_grad
from .ops.rules import zeros_like
from .tensor import Tensor

__all__ = ["functional_call", "grad", "grad_and_value", "hessian", "jacfwd", "jacrev", "jvp", "vjp", "vmap"]


# ------------------------------------------------------------- pytrees: tuples, lists and dicts of tensors


def _flatten(tree: Any) -> tuple[list, Any]:
    """The leaves of nested tuples, lists and dicts (in torch's order: a dict's keys as inserted), and
    the structure to rebuild it with."""
    if isinstance(tree, (tuple, list)):
        parts = [_flatten(x) for x in tree]
        return [leaf for leaves, _ in parts for leaf in leaves], (type(tree), [spec for _, spec in parts])
    if isinstance(tree, dict):
        parts = [_flatten(x) for x in tree.values()]
        return [leaf for leaves, _ in parts for leaf in leaves], (dict, list(tree), [spec for _, spec in parts])
    return [tree], None


def _unflatten(leaves: list, spec: Any) -> Any:
    it = iter(leaves)

    def build(spec: Any) -> Any:
        if spec is None:
            return next(it)
        if spec[0] is dict:
            return {key: build(s) for key, s in zip(spec[1], spec[2])}
        return spec[0](build(s) for s in spec[1])

    return build(spec)


def _pprint(spec: Any) -> str:
    """A structure as torch's ``treespec_pprint`` shows it: ``(*,)``, ``[*, *]``, ``{'a': *}``."""
    if spec is None:
        return "*"
    if spec[0] is dict:
        return "{" + ", ".join(f"{k!r}: {_pprint(s)}" for k, s in zip(spec[1], spec[2])) + "}"
    inner = ", ".join(_pprint(s) for s in spec[1])
    if spec[0] is list:
        return f"[{inner}]"
    return f"({inner},)" if len(spec[1]) == 1 else f"({inner})"


def _describe(spec: Any, indent: int = 0) -> str:
    """A structure as torch prints its ``TreeSpec``."""
    if spec is None:
        return "*"
    kind, context, children = (dict, spec[1], spec[2]) if spec[0] is dict else (spec[0], None, spec[1])
    indent += 2
    inner = ",".join(
        ("" if i == 0 else "\n" + " " * indent) + _describe(child, indent) for i, child in enumerate(children)
    )
    return f"TreeSpec({kind.__name__}, {context}, [{inner}])"


# ------------------------------------------------------------- what every transform does


def _argnums(argnums: Any, n: int) -> tuple[int, ...]:
    """The positions to differentiate by, checked as torch checks them."""
    nums = argnums if isinstance(argnums, tuple) else (argnums,)
    if not isinstance(argnums, (int, tuple)):
        raise RuntimeError(f"argnums must be int or Tuple[int, ...], got: {type(argnums)}")
    if not nums:
        raise RuntimeError("argnums must be non-empty")
    for num in nums:
        if not isinstance(num, int):
            raise RuntimeError(f"argnum must be int, got: {type(num)}")
        if not -n <= num < n:
            raise RuntimeError(f"Got argnum={num}, but only {n} positional inputs")
    nums = tuple(num % n for num in nums)
    if len(set(nums)) != len(nums):
        raise RuntimeError(f"argnums elements must be unique, got {nums}")
    return nums


_made: dict[int, tuple[weakref.ref, int]] = {}  # the leaves transforms made: id → (the leaf, weakly; depth)
_depth = 0  # how many transforms are running, one inside the other


@contextlib.contextmanager
def _transform() -> Iterator[int]:
    """One level deeper for the call of a transform; yields its depth."""
    global _depth
    _depth += 1
    try:
        yield _depth
    finally:
        _depth -= 1


def _lift(t: Any, depth: int) -> Tensor:
    """A tensor the transform differentiates by: ``t`` itself in the graph if it requires grad
    (so that outer transforms see through), else a new leaf (marked as made at ``depth``) with
    t's tangent (forward mode around it: ``jacfwd(jacrev(f))``)."""
    if not isinstance(t, Tensor):
        raise ValueError(f"Thing passed to transform API must be Tensor, got {type(t)}")
    if t.requires_grad:
        return t.view_as(t)
    leaf = t.detach().requires_grad_()
    key = id(leaf)
    _made[key] = (
        weakref.ref(leaf, lambda ref: _made.pop(key, None) if _made.get(key, (ref,))[0] is ref else None),
        depth,
    )
    forward_ad._set_tangent(leaf, forward_ad.tangent_of(t))
    return leaf


def _inside(leaf: Tensor, depth: int) -> bool:
    """Whether a leaf was made by this transform or one it called (not by an outer one, nor by the user)."""
    entry = _made.get(id(leaf))
    return entry is not None and entry[0]() is leaf and entry[1] >= depth


def _reaches_outside(t: Tensor, depth: int) -> bool:
    """Whether t's graph reaches a tensor requiring grad from outside the transform at ``depth``."""
    if not t.requires_grad:
        return False
    if t.grad_fn is None:
        return not _inside(t, depth)
    seen, todo = set(), [t.grad_fn]
    while todo:
        node = todo.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        variable = getattr(node, "variable", None)  # an AccumulateGrad: a leaf
        if variable is not None:
            if not _inside(variable, depth):
                return True
            continue
        todo.extend(fn for fn, _ in node.next_functions)
    return False


def _release(tree: Any, depth: int) -> Any:
    """What the transform returns: its tensors without the graph the transform built (they keep
    it where it reaches tensors from outside), with their tangents (forward mode around it)."""

    def release(t: Any) -> Any:
        if not isinstance(t, Tensor) or _reaches_outside(t, depth):
            return t
        out = t.detach()
        forward_ad._set_tangent(out, forward_ad.tangent_of(t))
        return out

    leaves, spec = _flatten(tree)
    return _unflatten([release(t) for t in leaves], spec)


def _grads(outputs: list, inputs: list, cotangents: list | None = None) -> list:
    """autograd.grad, recorded, with zeros where an input is not used (torch.func's convention)."""
    pairs = [(o, c) for o, c in zip(outputs, cotangents or [None] * len(outputs)) if o.requires_grad]
    if not pairs:
        return [zeros_like(x) for x in inputs]
    seeds = None if cotangents is None else [c for _, c in pairs]
    found = autograd_grad([o for o, _ in pairs], inputs, seeds, retain_graph=True, create_graph=True, allow_unused=True)
    return [g if g is not None else zeros_like(x) for g, x in zip(found, inputs)]


def _split_aux(output: Any, has_aux: bool, api: str) -> tuple[Any, Any]:
    if not has_aux:
        return output, None
    if not (isinstance(output, tuple) and len(output) == 2):
        raise RuntimeError(f"{api}: output of function f should be a tuple: (output, aux) if has_aux is True")
    for leaf in _flatten(output[1])[0]:
        if not isinstance(leaf, Tensor):
            raise RuntimeError(f"Expected tensors, got unsupported type {type(leaf)}")
    return output


def _check_outputs(outs: list, api: str) -> None:
    """What reverse mode differentiates: tensors, of a floating dtype."""
    for o in outs:
        if not isinstance(o, Tensor):
            raise RuntimeError(f"{api}: expected f(*primals) to return only tensors, got unsupported type {type(o)}")
        if not o.is_floating_point():
            raise RuntimeError(
                "vjp(f, ...): All outputs of f must be floating-point or complex Tensors, got Tensor with dtype "
                f"{o.dtype}"
            )


# ------------------------------------------------------------- reverse mode


def grad_and_value(func: Callable, argnums: int | tuple[int, ...] = 0, has_aux: bool = False) -> Callable:
    """``grad_and_value(f)(*args)``: ``(grad(f)(*args), f(*args))``."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        with _transform() as depth:
            return _grad_and_value(func, argnums, has_aux, depth, list(args), kwargs)

    return wrapper


def _grad_and_value(func: Callable, argnums: Any, has_aux: bool, depth: int, args: list, kwargs: dict) -> Any:
    nums, specs = _argnums(argnums, len(args)), []
    for i in nums:
        leaves, spec = _flatten(args[i])
        args[i] = _unflatten([_lift(t, depth) for t in leaves], spec)
        specs.append(spec)
    with enable_grad():
        output, aux = _split_aux(func(*args, **kwargs), has_aux, "grad_and_value(f)(*args)")
        if not isinstance(output, Tensor):
            raise RuntimeError(f"grad_and_value(f)(*args): Expected f(*args) to return a Tensor, got {type(output)}")
        if output.dim() != 0:
            raise RuntimeError(
                "grad_and_value(f)(*args): Expected f(*args) to return a scalar Tensor, got tensor with "
                f"{output.dim()} dims. Maybe you wanted to use the vjp or jacrev APIs instead?"
            )
        inputs = [_flatten(args[i])[0] for i in nums]
        found = iter(_grads([output], [x for leaves in inputs for x in leaves]))
    grads = tuple(_unflatten([next(found) for _ in leaves], spec) for leaves, spec in zip(inputs, specs))
    grads = _release(grads if isinstance(argnums, tuple) else grads[0], depth)
    value = _release(output, depth)
    return (grads, (value, _release(aux, depth))) if has_aux else (grads, value)


def grad(func: Callable, argnums: int | tuple[int, ...] = 0, has_aux: bool = False) -> Callable:
    """``grad(f)(*args)``: the gradient of the scalar ``f(*args)`` by ``args[argnums]`` (same shapes);
    with ``has_aux``, ``f`` returns ``(output, aux)`` and so does this ``(gradient, aux)``."""
    value_and_grad = grad_and_value(func, argnums, has_aux)

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        grads, value = value_and_grad(*args, **kwargs)
        return (grads, value[1]) if has_aux else grads

    return wrapper


def vjp(func: Callable, *primals: Any, has_aux: bool = False) -> tuple:
    """``(f(*primals), vjp_fn)``; ``vjp_fn(v)`` is ``vᵀJ`` for each primal (a tuple), any number of times."""
    with _transform() as depth:
        leaves, spec = _flatten(primals)
        lifted = [_lift(t, depth) for t in leaves]
        with enable_grad():
            output, aux = _split_aux(func(*_unflatten(lifted, spec)), has_aux, "vjp(f, *primals)")
        outs, out_spec = _flatten(output)
        _check_outputs(outs, "vjp(f, *primals)")

        def vjp_fn(cotangents: Any, retain_graph: bool = True, create_graph: bool | None = None) -> tuple:
            cots, cot_spec = _flatten(cotangents)
            if cot_spec != out_spec:
                raise RuntimeError(
                    "Expected pytree structure of cotangents to be the same as pytree structure of outputs to the "
                    f"function. cotangents: {_pprint(cot_spec)}, primal output: {_pprint(out_spec)}"
                )
            with enable_grad():
                found = _grads(outs, lifted, cots)
            return _release(_unflatten(found, spec), depth)

        result = (_release(output, depth), vjp_fn)
        return (*result, _release(aux, depth)) if has_aux else result


def _basis(t: Tensor) -> list[Tensor]:
    """The one-hot tensors of t's shape and dtype, one per element, in order."""
    eye = np.eye(t._array.size, dtype=t._array.dtype)
    return [Tensor._make(row.reshape(t._array.shape)) for row in eye]


def _table(rows: list, outs: list, ins: list, out_spec: Any, nums: tuple, in_specs: list, argnums: Any) -> Any:
    """Jacobian blocks ``rows[o][i]`` (each of shape out.shape + in.shape) in the structure torch gives:
    per output (as f returned them), per argnum (a tuple if argnums is), per input leaf."""

    def per_output(o: int) -> Any:
        blocks = iter(rows[o])
        per_arg = tuple(_unflatten([next(blocks) for _ in _flatten(ins_i)[0]], s) for ins_i, s in zip(ins, in_specs))
        return per_arg if isinstance(argnums, tuple) else per_arg[0]

    return _unflatten([per_output(o) for o in range(len(outs))], out_spec)


def jacrev(
    func: Callable, argnums: int | tuple[int, ...] = 0, *, has_aux: bool = False, chunk_size: Any = None
) -> Callable:
    """``jacrev(f)(*args)``: the Jacobian of ``f`` by ``args[argnums]``, one backward pass per output
    element (its rows); shape ``out.shape + input.shape``."""
    if chunk_size is not None and chunk_size <= 0:
        raise ValueError("jacrev: `chunk_size` should be greater than 0.")

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        with _transform() as depth:
            return _jacrev(func, argnums, has_aux, depth, list(args), kwargs)

    return wrapper


def _jacrev(func: Callable, argnums: Any, has_aux: bool, depth: int, args: list, kwargs: dict) -> Any:
    nums = _argnums(argnums, len(args))
    for i in nums:
        leaves, spec = _flatten(args[i])
        args[i] = _unflatten([_lift(t, depth) for t in leaves], spec)
    with enable_grad():
        output, aux = _split_aux(func(*args, **kwargs), has_aux, "vjp(f, *primals)")
        outs, out_spec = _flatten(output)
        _check_outputs(outs, "vjp(f, *primals)")
        inputs = [x for i in nums for x in _flatten(args[i])[0]]
        rows = []
        for o in outs:
            per_element = [_grads([o], inputs, [e]) for e in _basis(o)]
            rows.append(
                [
                    stack([g[k] for g in per_element]).reshape(*o.shape, *x.shape)
                    if per_element
                    else Tensor._make(np.zeros((*o.shape, *x.shape), o._array.dtype))
                    for k, x in enumerate(inputs)
                ]
            )
    in_specs = [_flatten(args[i])[1] for i in nums]
    jac = _table(rows, outs, [args[i] for i in nums], out_spec, nums, in_specs, argnums)
    return (_release(jac, depth), _release(aux, depth)) if has_aux else _release(jac, depth)


# ------------------------------------------------------------- forward mode


def jvp(func: Callable, primals: Any, tangents: Any, *, strict: bool = False, has_aux: bool = False) -> tuple:
    """``(f(*primals), J·tangents)``: the derivative of ``f`` at ``primals`` in the direction ``tangents``,
    in one forward pass (``autograd.forward_ad``)."""
    api = "jvp(f, primals, tangents)"
    if not isinstance(primals, tuple):
        raise RuntimeError(f"{api}: Expected primals to be a tuple. E.g. it should be valid to call f(*primals).")
    ps, spec = _flatten(primals)
    ts, t_spec = _flatten(tangents)
    if spec != t_spec:
        raise RuntimeError(
            f"{api}: Expected primals and tangents to have the same python structure. For example, if primals is "
            f"a tuple of 3 tensors, tangents also must be. Got primals with structure {_describe(spec)} and "
            f"tangents with structure {_describe(t_spec)}"
        )
    if not ps:
        raise RuntimeError(f"{api}: Expected primals to contain at least one Tensor.")
    for p, t in zip(ps, ts):
        for name, x in (("primals", p), ("tangents", t)):
            if not isinstance(x, Tensor):
                raise RuntimeError(f"{api}: Expected {name} to only contain Tensors, got {type(x)}")
    if forward_ad._level is not None:
        raise NotImplementedError("gradbook: forward mode inside forward mode (jvp or jacfwd nested) is not supported")
    with _transform() as depth, forward_ad.dual_level():
        forward_ad._transforms = True  # (reset when the level closes)
        duals = [forward_ad.make_dual(p, t) for p, t in zip(ps, ts)]
        output, aux = _split_aux(func(*_unflatten(duals, spec)), has_aux, api)
        outs, out_spec = _flatten(output)
        primal_out, tangent_out = [], []
        for o in outs:
            if not isinstance(o, Tensor):
                raise RuntimeError(
                    f"{api}: expected f(*primals) to return only tensors, got unsupported type {type(o)}"
                )
            unpacked = forward_ad.unpack_dual(o)
            primal_out.append(unpacked.primal)
            tangent_out.append(unpacked.tangent if unpacked.tangent is not None else zeros_like(o))
        result = _release((_unflatten(primal_out, out_spec), _unflatten(tangent_out, out_spec), aux), depth)
    return result if has_aux else result[:2]


def jacfwd(
    func: Callable, argnums: int | tuple[int, ...] = 0, has_aux: bool = False, *, randomness: str = "error"
) -> Callable:
    """``jacfwd(f)(*args)``: the Jacobian of ``f`` by ``args[argnums]``, one forward pass per input
    element (its columns); shape ``out.shape + input.shape``."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        nums = _argnums(argnums, len(args))
        specs = [_flatten(args[i]) for i in nums]
        inputs = [x for leaves, _ in specs for x in leaves]
        for x in inputs:
            if not isinstance(x, Tensor):
                raise ValueError(f"Thing passed to transform API must be Tensor, got {type(x)}")

        def f(*flat: Tensor) -> Any:
            call, it = list(args), iter(flat)
            for i, (leaves, spec) in zip(nums, specs):
                call[i] = _unflatten([next(it) for _ in leaves], spec)
            return func(*call, **kwargs)

        columns: list[list[tuple]] = []  # per input leaf: per element, (outputs, tangents)
        aux = None
        with _samples(randomness) as each:  # torch runs the columns under vmap, with its randomness
            for k, x in enumerate(inputs):
                columns.append([])
                for e in _basis(x):
                    each()
                    tangents = tuple(e if j == k else zeros_like(y) for j, y in enumerate(inputs))
                    result = jvp(f, tuple(inputs), tangents, has_aux=has_aux)
                    aux = result[2] if has_aux else aux
                    columns[-1].append(result[:2])
        if not any(columns):  # no input elements: f once, for the outputs' shapes
            output = _split_aux(f(*inputs), has_aux, "jacfwd(f, ...)(*args)")
            aux = output[1]
            outs, out_spec = _flatten(output[0])
        else:
            first = next(c for c in columns if c)[0]
            outs, out_spec = _flatten(first[0])
        rows = []
        for o_index, o in enumerate(outs):
            blocks = []
            for x, cols in zip(inputs, columns):
                if cols:
                    tangent_cols = [_flatten(t)[0][o_index] for _, t in cols]
                    blocks.append(stack(tangent_cols, dim=-1).reshape(*o.shape, *x.shape))
                else:
                    blocks.append(Tensor._make(np.zeros((*o.shape, *x.shape), o._array.dtype)))
            rows.append(blocks)
        jac = _table(rows, outs, [args[i] for i in nums], out_spec, nums, [s for _, s in specs], argnums)
        return (jac, aux) if has_aux else jac

    return wrapper


def hessian(func: Callable, argnums: int | tuple[int, ...] = 0) -> Callable:
    """``hessian(f)(*args)``: the matrix of second derivatives of the scalar ``f``, as torch computes it:
    ``jacfwd(jacrev(f))`` (forward mode over reverse mode)."""
    return jacfwd(jacrev(func, argnums), argnums)


# ------------------------------------------------------------- vmap


def _name(func: Callable) -> str:
    return getattr(func, "__name__", repr(func))


def _broadcast(dims: Any, spec: Any) -> list | None:
    """``in_dims`` spread over the leaves of the inputs (an int or None stands for a whole subtree)."""
    if not isinstance(dims, (tuple, list, dict)):  # one dim for the whole subtree (checked by the caller)
        return [dims] * len(_unflatten_count(spec))
    if spec is None:
        return None
    if spec[0] is dict:
        if not isinstance(dims, dict) or list(dims) != spec[1]:
            return None
        parts = [_broadcast(d, s) for d, s in zip(dims.values(), spec[2])]
    else:
        if type(dims) is not spec[0] or len(dims) != len(spec[1]):  # a list is not a tuple, as in torch
            return None
        parts = [_broadcast(d, s) for d, s in zip(dims, spec[1])]
    return None if any(p is None for p in parts) else [d for p in parts for d in p]


def _unflatten_count(spec: Any) -> list:
    if spec is None:
        return [None]
    children = spec[2] if spec[0] is dict else spec[1]
    return [leaf for s in children for leaf in _unflatten_count(s)]


def _random_refused(*args: Any, **kwargs: Any) -> Any:
    raise RuntimeError(
        "vmap: called random operation while in randomness error mode. Please either use the 'same' or "
        "'different' randomness flags on vmap or perform the randomness operation out of vmap"
    )


def vmap(
    func: Callable, in_dims: Any = 0, out_dims: Any = 0, randomness: str = "error", *, chunk_size: Any = None
) -> Callable:
    """``vmap(f)(xs)``: ``f`` applied to each slice of ``xs`` along ``in_dims``, the results stacked along
    ``out_dims`` (``in_dims=None`` for an argument shared by every call)."""
    if randomness not in ("error", "different", "same"):
        raise RuntimeError(f"Only allowed values for randomness are 'error', 'different', or 'same'. Got {randomness}")
    if chunk_size is not None and (not isinstance(chunk_size, int) or chunk_size <= 0):
        raise ValueError(f"vmap: chunk_size should be None or greater than 0. (got {chunk_size})")

    @functools.wraps(func)
    def wrapped(*args: Any, **kwargs: Any) -> Any:
        name = _name(func)
        if not isinstance(in_dims, (int, tuple)):
            raise ValueError(
                f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): expected `in_dims` to be int or a (potentially "
                f"nested) tuple matching the structure of inputs, got: {type(in_dims)}."
            )
        if not args:
            raise ValueError(
                f"vmap({name})(<inputs>): got no inputs. Maybe you forgot to add inputs, or you are trying to vmap "
                "over a function with no inputs. The latter is unsupported."
            )
        leaves, spec = _flatten(args)
        dims = _broadcast(in_dims, spec)
        if dims is None:
            raise ValueError(
                f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): in_dims is not compatible with the structure of "
                f"`inputs`. in_dims has structure {_describe(_flatten(in_dims)[1])} but inputs has structure "
                f"{_describe(spec)}."
            )
        for k, (arg, d) in enumerate(zip(leaves, dims)):
            if d is not None and not isinstance(d, int):
                raise ValueError(
                    f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): Got in_dim={d} for an input but in_dim must "
                    "be either an integer dimension or None."
                )
            if isinstance(d, int) and not isinstance(arg, Tensor):
                raise ValueError(
                    f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): Got in_dim={d} for an input but the input is "
                    f"of type {type(arg)}. We cannot vmap over non-Tensor arguments, please use None as the "
                    "respective in_dim"
                )
            if d is not None and not -arg.dim() <= d < arg.dim():
                raise ValueError(
                    f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): Got in_dim={d} for some input, but that input "
                    f"is a Tensor of dimensionality {arg.dim()} so expected in_dim to satisfy "
                    f"-{arg.dim()} <= in_dim < {arg.dim()}."
                )
            if d is not None:
                dims[k] = d % arg.dim()
        sizes = [arg.shape[d] for arg, d in zip(leaves, dims) if d is not None]
        if not sizes:
            raise ValueError("vmap: Expected at least one Tensor to vmap over")
        if any(size != sizes[0] for size in sizes):
            raise ValueError(
                f"vmap: Expected all tensors to have the same size in the mapped dimension, got sizes {sizes} for "
                "the mapped dimension"
            )
        results = []
        with _samples(randomness) as each:
            for b in range(sizes[0]):
                each()
                sliced = [arg[(slice(None),) * d + (b,)] if d is not None else arg for arg, d in zip(leaves, dims)]
                results.append(func(*_unflatten(sliced, spec), **kwargs))
            if not results:  # an empty batch: f once on zeros of a sample's shape, for the results' shapes
                each()
                zeros = [
                    Tensor._make(np.zeros(np.delete(arg.shape, d), arg._array.dtype)) if d is not None else arg
                    for arg, d in zip(leaves, dims)
                ]
                return _stack_results([func(*_unflatten(zeros, spec), **kwargs)], out_dims, name, empty=True)
        return _stack_results(results, out_dims, name)

    return wrapped


@contextlib.contextmanager
def _samples(randomness: str) -> Iterator[Callable[[], None]]:
    """Around the calls of f, one per sample (vmap, jacfwd): ``"error"`` refuses a random op inside, as torch;
    ``"same"`` gives every call the same random numbers; ``"different"`` draws anew for each."""
    saved, state = (_random.MT19937.random, _random.MT19937.random64), [None]

    def each() -> None:
        if randomness == "same":
            state[0] = _generators_state(state[0])

    try:
        if randomness == "error":
            _random.MT19937.random = _random.MT19937.random64 = _random_refused
        yield each
    finally:
        _random.MT19937.random, _random.MT19937.random64 = saved


def _generators_state(state: Any) -> Any:
    """The default generator's state the first time; after that, the generator is put back to it."""
    from ._factories import default_generator

    if state is None:
        return default_generator.get_state()
    default_generator.set_state(state)
    return state


def _stack_results(results: list, out_dims: Any, name: str, empty: bool = False) -> Any:
    outs, out_spec = _flatten(results[0])
    if out_spec is None and isinstance(out_dims, tuple) and len(out_dims) == 1:  # one output: (d,) is d
        out_dims = out_dims[0]
    dims = _broadcast(out_dims, out_spec)
    if dims is None:
        raise ValueError(
            f"vmap({name}, ..., out_dims={out_dims})(<inputs>): out_dims is not compatible with the structure of "
            f"`outputs`. out_dims has structure {_describe(_flatten(out_dims)[1])} but outputs has structure "
            f"{_describe(out_spec)}."
        )
    for d in dims:
        if d is not None and not isinstance(d, int):
            raise ValueError(
                f"vmap({name}, ..., out_dims={out_dims}): `out_dims` must be an int, None or a python collection of "
                "ints representing where in the outputs the vmapped dimension should appear."
            )
    per_sample = [_flatten(r)[0] for r in results]
    stacked = []
    for k, (first, d) in enumerate(zip(outs, dims)):
        if d is None:
            if any(not _same(first, sample[k]) for sample in per_sample):
                raise ValueError(f"vmap({name}, ...): `{name}` can not return a BatchedTensor when out_dim is None")
            stacked.append(first)
            continue
        if not isinstance(first, Tensor):
            raise ValueError(
                f"vmap({name}, ...): `{name}` must only return Tensors, got type {type(first)}. Did you mean to set "
                "out_dims= to None for output?"
            )
        if empty:
            shape = list(first.shape)
            shape.insert(d % (first.dim() + 1), 0)
            stacked.append(Tensor._make(np.zeros(shape, first._array.dtype)))
        else:
            stacked.append(stack([sample[k] for sample in per_sample], dim=d))
    return _unflatten(stacked, out_spec)


def _same(a: Any, b: Any) -> bool:
    """Whether an output is the same in every call (not batched): the same object, or equal values."""
    if a is b or not isinstance(a, Tensor):
        return a is b or a == b
    return isinstance(b, Tensor) and a.shape == b.shape and bool(np.array_equal(a._array, b._array))


# ------------------------------------------------------------- functional_call


def functional_call(
    module: Any,
    parameter_and_buffer_dicts: Any,
    args: Any = None,
    kwargs: dict | None = None,
    *,
    tie_weights: bool = True,
    strict: bool = False,
) -> Any:
    """``module(*args, **kwargs)`` with its parameters and buffers replaced by the tensors given by name
    (``{"0.weight": w, ...}``) for this one call (``vmap(grad(loss))`` over a model's parameters)."""
    if isinstance(parameter_and_buffer_dicts, dict):
        given = dict(parameter_and_buffer_dicts)
    elif isinstance(parameter_and_buffer_dicts, (list, tuple)):
        if not all(isinstance(d, dict) for d in parameter_and_buffer_dicts):
            raise ValueError("Expected all elements of parameter_and_buffer_dicts to be dictionaries")
        given = {}
        for d in parameter_and_buffer_dicts:
            twice = [k for k in d if k in given]
            if twice:
                raise ValueError(f"{twice} appeared in multiple dictionaries; behavior of functional call is ambiguous")
            given.update(d)
    else:
        raise ValueError(
            "Expected parameter_and_buffer_dicts to be a dict, or a list/tuple of dicts, but got "
            f"{type(parameter_and_buffer_dicts)}"
        )
    names = [n for n, _ in module.named_parameters()] + [n for n, _ in module.named_buffers()]
    if strict:
        missing = sorted(n for n in names if n not in given)
        unexpected = sorted(k for k in given if k not in names)
        problems = []
        if unexpected:
            problems.append("Unexpected key(s): " + ", ".join(f"'{k}'" for k in unexpected) + ".")
        if missing:
            problems.append("Missing key(s): " + ", ".join(f"'{k}'" for k in missing) + ".")
        if problems:
            raise RuntimeError(f"Error(s) in reparametrizing for {module._get_name()}:\n\t" + "\n\t".join(problems))
    if tie_weights:  # names of one tensor (a shared weight) take the value given for any of them
        tied: dict[int, list[str]] = {}
        for name, t in [
            *module.named_parameters(remove_duplicate=False),
            *module.named_buffers(remove_duplicate=False),
        ]:
            tied.setdefault(id(t), []).append(name)
        for names in tied.values():
            values = {k: given[k] for k in names if k in given}
            if len({id(v) for v in values.values()}) > 1:
                raise ValueError(
                    f"functional_call got multiple values for keys {sorted(values)}, which are tied. Consider using "
                    "tie_weights=False"
                )
            if values:
                value = next(iter(values.values()))
                given.update({k: value for k in names})
    swapped = []
    try:
        for key, value in given.items():
            owner_name, _, leaf = key.rpartition(".")
            owner = module.get_submodule(owner_name) if owner_name else module
            for store in (owner._parameters, owner._buffers):
                if leaf in store:
                    swapped.append((store, leaf, store[leaf]))
                    store[leaf] = value
                    break
        args = args if isinstance(args, tuple) else (args,) if args is not None else ()
        return module(*args, **(kwargs or {}))
    finally:
        for store, leaf, old in reversed(swapped):
            store[leaf] = old

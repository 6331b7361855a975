"""User-written differentiable functions, with torch's ``torch.autograd.Function`` API.

>>> import gradbook as torch
>>> class Square(torch.autograd.Function):
...     @staticmethod
...     def forward(ctx, x):
...         ctx.save_for_backward(x)
...         return x * x
...     @staticmethod
...     def backward(ctx, grad_output):
...         (x,) = ctx.saved_tensors
...         return 2 * x * grad_output        # d(x²)/dx = 2x
>>> x = torch.tensor(3.0, requires_grad=True)
>>> y = Square.apply(x)
>>> y
tensor(9., grad_fn=<SquareBackward>)
>>> y.backward()
>>> x.grad
tensor(6.)

PyTorch 2's style works too: ``forward(x)`` without ``ctx``, and a separate
``setup_context(ctx, inputs, output)`` that saves what backward needs.
"""

from __future__ import annotations

import functools
import inspect
import weakref
from collections.abc import Callable
from typing import Any

import numpy as np

from .._messages import FREED_ERROR
from ..ops import ToCopyBackward0, unbroadcast
from ..tensor import Tensor
from .grad_mode import _State, check_saving, no_grad
from .graph import Node, OutputPlace, SeveralOutputs, creation_order


class Function:
    """The base of a user-written differentiable function, as ``torch.autograd.Function``.

    Define ``forward(ctx, *args)`` and ``backward(ctx, *grad_outputs)`` as static methods (or
    ``forward(*args)`` plus ``setup_context(ctx, inputs, output)``) and call
    ``YourFunction.apply(*args)``. Built-in ops are not ``Function`` instances (as in torch).
    """

    _backward_cls: type[BackwardCFunction]  # the class of its grad_fn, e.g. SquareBackward

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)  # torch makes the node class when the Function is defined
        name = f"{cls.__name__}Backward"
        cls._backward_cls = type(name, (BackwardCFunction,), {"_forward_cls": cls, "__module__": __name__})

    @staticmethod
    def forward(*args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError("You must implement the forward function for custom autograd.Function.")

    @staticmethod
    def setup_context(ctx: Any, inputs: tuple[Any, ...], output: Any) -> Any:
        raise NotImplementedError("setup_context is not implemented.")

    @staticmethod
    def backward(ctx: Any, *grad_outputs: Any) -> Any:
        raise NotImplementedError(
            "You must implement either the backward or vjp method for your custom autograd.Function to use it "
            "with backward mode AD."
        )

    @classmethod
    def apply(cls, *args: Any, **kwargs: Any) -> Any:
        """Run ``forward`` without recording, then record one node whose backward is yours."""
        return apply_custom(cls, args, kwargs)


class BackwardCFunction(SeveralOutputs, Node):
    """The grad_fn of a user-written function: it is also the ``ctx`` its methods receive."""

    _forward_cls: Any = None
    saves = ("saved_tensors",)  # what save_for_backward kept; freed after backward
    _materialize = True  # set_materialize_grads: zeros, not None, for outputs that got no gradient
    _outputs: tuple = (1, (0,), {})  # how many outputs forward returned, the differentiable ones'
    # places, and each tensor output's shape and dtype (its zero gradient, if it gets none)

    def __init__(self) -> None:
        self._saved: tuple | None = ()
        self._versions: tuple = ()
        self._non_differentiable: set[int] = set()
        self.needs_input_grad: tuple[bool, ...] = ()
        self._places: dict[int, OutputPlace] = {}  # for several outputs: each one's hooks

    def __repr__(self) -> str:
        return object.__repr__(self)  # <gradbook.autograd.function.SquareBackward object at 0x...>, as torch

    _dirty: set[int] = set()  # ids of the inputs forward changed in place (mark_dirty)
    _saved_outputs: dict[int, int] = {}  # id of a saved tensor that forward returned: its output number
    _packed: tuple | None = None  # under saved_tensors_hooks: what pack returned, per saved tensor

    def save_for_backward(self, *tensors: Any) -> None:
        """Keep tensors for backward; read them back as ``ctx.saved_tensors``."""
        self._saved = tensors
        for t in tensors:
            if t is not None:
                check_saving(t)
        self._versions = tuple((t, t._version) for t in tensors if t is not None)

    @property
    def saved_tensors(self) -> tuple:
        """What save_for_backward kept: the inputs themselves, and an output as the tensor the
        caller got (with this node as its grad_fn); under saved_tensors_hooks, what unpack gives."""
        if self._saved is None:
            raise RuntimeError(FREED_ERROR)
        if self.stale():
            raise self.version_error()
        if self._packed is not None:
            return tuple(None if p is None else self._unpack(*p) for p in self._packed)
        return tuple(
            self._output(t, self._saved_outputs[id(t)]) if id(t) in self._saved_outputs else t for t in self._saved
        )

    def stale(self) -> tuple | None:
        for t, version in self._versions:
            if t._version != version:  # torch names the op that made it: for an output, this one
                k = self._saved_outputs.get(id(t))
                return (t, version, t.grad_fn, t._output_nr or 0) if k is None else (t, version, self, k)
        return None

    def _output(self, inner: Tensor, k: int) -> Tensor:
        """Output k as the caller got it: forward's tensor, with this node as its grad_fn."""
        t = Tensor._make(inner._array, self)
        t._output_nr, t._version_counter = k or None, inner._version_counter
        return t

    def _settle_saved(self, inner: list, outputs: list, positions: tuple) -> None:
        """After forward: the saved tensors that are outputs are tracked through the outputs the
        caller got (they share the memory, so the version too), and, under saved_tensors_hooks,
        every saved tensor is packed (an output as the caller sees it)."""
        for k in positions:
            if inner[k]._version_counter is None:
                inner[k]._version_counter = [0]
            outputs[k]._version_counter = inner[k]._version_counter
        returned = {id(inner[k]): k for k in positions}
        self._saved_outputs = {id(t): returned[id(t)] for t in self._saved if id(t) in returned}
        if not _State.saved_hooks:
            return
        pack, unpack = _State.saved_hooks[-1]
        self._packed = tuple(None if t is None else self._pack(t, outputs, pack, unpack) for t in self._saved)
        self._versions = ()  # the hooks own the values now

    def _pack(self, t: Tensor, outputs: list, pack: Callable, unpack: Callable) -> tuple:
        k = self._saved_outputs.get(id(t))
        if k is not None:
            return pack(outputs[k]), unpack, k, None, None
        leaf = t._grad_accumulator() if t.grad_fn is None and t.requires_grad else None
        return pack(t), unpack, None, t, leaf

    def _unpack(self, packed: Any, unpack: Callable, k: int | None, original: Tensor | None, leaf: Any) -> Tensor:
        """``unpack(packed)``, in the saved tensor's place in the graph (as torch rebuilds it)."""
        u = unpack(packed)
        if not isinstance(u, Tensor):
            raise TypeError(
                f"Output of saved tensor unpack_hook expected to be a Tensor but got result of type {type(u).__name__}"
            )
        if k is not None:
            return self._output(u, k)
        t = Tensor._make(u._array, original.grad_fn)
        t.requires_grad, t._output_nr = original.requires_grad, original._output_nr
        if leaf is not None:  # a leaf input: its gradient still goes to the same leaf
            t._accumulator = weakref.ref(leaf)
        return t

    def mark_non_differentiable(self, *tensors: Tensor) -> None:
        """These outputs get no gradient (``requires_grad=False``); backward receives zeros for
        them (None after ``set_materialize_grads(False)``)."""
        self._non_differentiable.update(id(t) for t in tensors)

    def mark_dirty(self, *tensors: Tensor) -> None:
        """forward changed these inputs in place and returns them: they become its outputs
        (the same tensors, now with this node as grad_fn), as an in-place op's result does."""
        self._dirty = {id(t) for t in tensors}

    def set_materialize_grads(self, value: bool) -> None:
        """With False, backward receives None (instead of zeros) for outputs that got no gradient."""
        self._materialize = bool(value)

    def run_rules(self, grad: Any, needed: set | None, on_arrays: bool) -> tuple[list, list[bool]]:
        count, _, metas = self._outputs
        upstream: list = list(grad) if self._several_outputs else [grad] + [None] * (count - 1)  # by output
        for i, g in enumerate(upstream):
            if g is not None and on_arrays:
                upstream[i] = Tensor._make(g)
            elif g is None and self._materialize and i in metas:  # no gradient reached it (or it
                upstream[i] = Tensor._make(np.zeros(*metas[i]))  # is marked non-differentiable)
        out = self._check(self._forward_cls.backward(self, *upstream), needed)
        if on_arrays:
            out = [None if g is None else g._array for g in out]
        return out, [False] * len(out)  # the user's tensors may be held elsewhere: never kept as .grad

    def _check(self, grads: Any, needed: set | None) -> list:
        """backward's result, checked as torch checks it: one gradient per input of forward (or
        more, if the extra ones are None), None for the inputs that are not tensors; each
        gradient summed back to its input's shape (if that broadcasts to it) and dtype."""
        grads = grads if isinstance(grads, tuple) else (grads,)
        expected = len(self._arg_is_tensor)
        if len(grads) > expected and all(g is None for g in grads[expected:]):
            grads = grads[:expected]
        if len(grads) != expected:
            raise RuntimeError(
                f"function {self.name()} returned an incorrect number of gradients "
                f"(expected {expected}, got {len(grads)})"
            )
        out = []
        for position, (g, is_tensor) in enumerate(zip(grads, self._arg_is_tensor)):
            if not is_tensor:
                if g is not None:
                    raise RuntimeError(
                        f"function {self.name()} returned a gradient different than None at position "
                        f"{position + 1}, but the corresponding forward input was not a Variable"
                    )
            elif g is not None and not isinstance(g, Tensor):
                raise RuntimeError(f"expected Variable or None (got {type(g).__name__})")
            else:
                out.append(g)
        for i, (g, (fn, _), (shape, dtype)) in enumerate(zip(out, self.next_functions, self._input_metadata)):
            if g is None or fn is None or (needed is not None and fn not in needed):
                out[i] = None
                continue
            if g.shape != shape:
                if not _broadcasts_to(shape, g.shape):
                    raise RuntimeError(
                        f"Function {self.name()} returned an invalid gradient at index {i} - got {list(g.shape)} "
                        f"but expected shape compatible with {list(shape)}"
                    )
                g = unbroadcast(g, shape)
            out[i] = g if g._array.dtype == dtype else ToCopyBackward0.apply(g, dtype)
        return out

    def release(self) -> None:
        if self._saved:
            self._freed = True  # a second backward through it refuses
        self._saved = self._packed = None  # and ctx.saved_tensors raises, even if nothing was saved


def _broadcasts_to(shape: tuple[int, ...], target: tuple[int, ...]) -> bool:
    """Whether ``shape`` can be expanded to ``target`` (then a gradient of ``target``'s shape sums back)."""
    return len(shape) <= len(target) and all(s in (t, 1) for s, t in zip(reversed(shape), reversed(target)))


def apply_custom(cls: Any, args: tuple, kwargs: dict) -> Any:
    """Run a user-written ``forward`` without recording, then record one node for it."""
    uses_setup_context = cls.setup_context is not Function.setup_context
    if uses_setup_context or kwargs:  # keyword arguments count as inputs, in the signature's order
        bound = inspect.signature(cls.forward).bind(*(() if uses_setup_context else (None,)), *args, **kwargs)
        if uses_setup_context:
            bound.apply_defaults()  # setup_context sees every input, defaults too, as in torch
        args, kwargs = bound.args[0 if uses_setup_context else 1 :], bound.kwargs
    ctx = cls._backward_cls()
    ctx.needs_input_grad = tuple(isinstance(a, Tensor) and a.requires_grad for a in args)
    with no_grad():
        if uses_setup_context:
            out = cls.forward(*args, **kwargs)
            cls.setup_context(ctx, args, out)
        else:
            out = cls.forward(ctx, *args, **kwargs)
    tensors = [a for a in args if isinstance(a, Tensor)]
    if not (_State.enabled and any(t.requires_grad for t in tensors)):
        return out
    outputs = list(out) if isinstance(out, tuple) else [out]
    metas = {i: (o._array.shape, o._array.dtype) for i, o in enumerate(outputs) if isinstance(o, Tensor)}
    positions = tuple(i for i in metas if id(outputs[i]) not in ctx._non_differentiable)
    if not positions:  # nothing to differentiate: returned as it is, as in torch
        return out
    ctx._outputs, ctx._several_outputs = (len(outputs), positions, metas), positions != (0,)  # edges (ctx, k)
    ctx._seq = next(creation_order)
    ctx._arg_is_tensor = tuple(isinstance(a, Tensor) for a in args)
    ctx.next_functions = tuple(
        ((t.grad_fn or t._grad_accumulator()), t._output_nr or 0) if t.requires_grad else (None, 0) for t in tensors
    )
    ctx._input_metadata = [(t._array.shape, t._array.dtype) for t in tensors]
    inner = list(outputs)
    for i in positions:  # each differentiable output: a new tensor, output i of ctx
        if id(outputs[i]) in ctx._dirty:  # an input changed in place: it is the output itself
            _take_dirty(outputs[i], ctx, i)
            continue
        outputs[i] = Tensor._make(outputs[i]._array, ctx)
        outputs[i]._output_nr = i or None
    ctx._settle_saved(inner, outputs, positions)
    return tuple(outputs) if isinstance(out, tuple) else outputs[0]


def _take_dirty(t: Tensor, ctx: BackwardCFunction, k: int) -> None:
    """An input that forward changed in place (``ctx.mark_dirty``) becomes output k of ctx, as
    an in-place op's result does: its version moves on and ctx is its grad_fn."""
    if t.grad_fn is None and t.requires_grad:
        raise RuntimeError("a leaf Variable that requires grad has been used in an in-place operation.")
    t._version += 1
    t.grad_fn, t.requires_grad, t._output_nr = ctx, True, k or None
    ctx._versions = tuple((s, s._version) if s is t else (s, v) for s, v in ctx._versions)  # saved: as it is now


# ---------------------------------------------------------------- once_differentiable


class Error(Node):
    """The grad_fn once_differentiable gives a gradient computed with create_graph: running it
    (a second derivative) raises, as torch's ``DelayedError`` node does."""

    def __init__(self, message: str, variable: Tensor) -> None:
        self.message = message
        self._seq = next(creation_order)
        self.next_functions = ((variable._grad_accumulator(), 0),)

    def name(self) -> str:
        return "torch::autograd::Error"

    def run_rules(self, grad: Any, needed: set | None, on_arrays: bool) -> tuple[list, list[bool]]:
        raise RuntimeError(self.message)


def once_differentiable(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Decorate a ``backward`` that is written in a way autograd cannot differentiate: it runs
    without recording, and differentiating its result again raises an error.

    >>> import gradbook as torch
    >>> from gradbook.autograd.function import once_differentiable
    >>> class Cube(torch.autograd.Function):
    ...     @staticmethod
    ...     def forward(ctx, x):
    ...         ctx.save_for_backward(x)
    ...         return x**3
    ...     @staticmethod
    ...     @once_differentiable
    ...     def backward(ctx, g):
    ...         (x,) = ctx.saved_tensors
    ...         return 3 * x**2 * g
    >>> x = torch.tensor(2.0, requires_grad=True)
    >>> Cube.apply(x).backward()
    >>> x.grad
    tensor(12.)
    """

    @functools.wraps(fn)
    def wrapper(ctx: Any, *args: Any) -> Any:
        with no_grad():
            outputs = fn(ctx, *args)
        if not _State.enabled or not any(isinstance(a, Tensor) and a.requires_grad for a in args):
            return outputs
        message = "trying to differentiate twice a function that was marked with @once_differentiable"
        results = []
        for v in outputs if isinstance(outputs, tuple) else (outputs,):
            if isinstance(v, Tensor):
                leaf = v.detach().requires_grad_(True)  # torch's stand-in input, a leaf of its own
                v = Tensor._make(leaf._array, Error(message, leaf))
            results.append(v)
        return tuple(results) if isinstance(outputs, tuple) else results[0]

    return wrapper

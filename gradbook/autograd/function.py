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
"""

from __future__ import annotations

from typing import Any

from .._messages import FREED_ERROR
from ..tensor import Tensor
from .engine import Node, creation_order
from .grad_mode import _State, no_grad


class Function:
    """The base of a user-written differentiable function, as ``torch.autograd.Function``.

    Define ``forward(ctx, *args)`` and ``backward(ctx, *grad_outputs)`` as static methods and call
    ``YourFunction.apply(*args)``. Built-in ops are not ``Function`` instances (as in torch).
    """

    @staticmethod
    def forward(ctx: Any, *args: Any) -> Any:
        raise NotImplementedError("You must implement the forward function for custom autograd.Function.")

    @staticmethod
    def backward(ctx: Any, *grad_outputs: Any) -> Any:
        raise NotImplementedError(
            "You must implement either the backward or vjp method for your custom autograd.Function to use it "
            "with backward mode AD."
        )

    @classmethod
    def apply(cls, *args: Any) -> Any:
        """Run ``forward`` without recording, then record one node whose backward is yours."""
        return apply_custom(cls, *args)


class BackwardCFunction(Node):
    """The grad_fn of a user-written function: it is also the ``ctx`` its methods receive."""

    _function: Any = None
    saves = ("saved_tensors",)  # what save_for_backward kept; freed after backward

    def __init__(self) -> None:
        self._saved: tuple | None = ()
        self._versions: tuple = ()
        self.needs_input_grad: tuple[bool, ...] = ()

    def save_for_backward(self, *tensors: Any) -> None:
        """Keep tensors for backward; read them back as ``ctx.saved_tensors``."""
        self._saved = tensors
        self._versions = tuple((t, t._version) for t in tensors if t is not None)

    @property
    def saved_tensors(self) -> tuple:
        if self._saved is None:
            raise RuntimeError(FREED_ERROR)
        if self.stale():
            raise self.version_error()
        return self._saved

    def mark_non_differentiable(self, *tensors: Any) -> None:
        pass

    def set_materialize_grads(self, value: bool) -> None:
        pass

    _outputs = (1, 0)  # how many outputs forward returned, and which one is the tensor

    def run_rules(self, grad: Any, needed: set | None, fast: bool) -> tuple[list, list[bool]]:
        count, position = self._outputs
        upstream = [None] * count  # no gradient for the outputs that are not tensors
        upstream[position] = Tensor._make(grad) if fast else grad
        grads = self._function.backward(self, *upstream)
        grads = grads if isinstance(grads, tuple) else (grads,)
        if len(grads) != len(self._arg_is_tensor):
            raise RuntimeError(
                f"function {self.name()} returned an incorrect number of gradients "
                f"(expected {len(self._arg_is_tensor)}, got {len(grads)})"
            )
        out = []
        for g, is_tensor in zip(grads, self._arg_is_tensor):
            if is_tensor:
                out.append(g)
        for i, (g, (fn, _), (shape, dtype)) in enumerate(zip(out, self.next_functions, self._meta)):
            if g is None or fn is None or (needed is not None and fn not in needed):
                out[i] = None
            elif not isinstance(g, Tensor) or g.shape != shape:
                got = list(g.shape) if isinstance(g, Tensor) else type(g).__name__
                raise RuntimeError(
                    f"Function {self.name()} returned an invalid gradient at index {i} - got {got} but "
                    f"expected shape compatible with {list(shape)}"
                )
            elif g._array.dtype != dtype:
                out[i] = g.to(dtype)
        if fast:
            out = [None if g is None else g._array for g in out]
        return out, [False] * len(out)  # the user's tensors may be held elsewhere: never kept as .grad

    def release(self) -> None:
        if self._saved:
            self._saved = None
            self._freed = True


def apply_custom(cls: Any, *args: Any) -> Any:
    """Run a user-written ``forward`` without recording, then record one node for it."""
    node_cls = cls.__dict__.get("_node_class")
    if node_cls is None:
        node_cls = type(f"{cls.__name__}Backward", (BackwardCFunction,), {"_function": cls})
        cls._node_class = node_cls
    ctx = node_cls()
    tensors = [a for a in args if isinstance(a, Tensor)]
    ctx.needs_input_grad = tuple(isinstance(a, Tensor) and a.requires_grad for a in args)
    with no_grad():
        out = cls.forward(ctx, *args)
    if not (_State.enabled and any(t.requires_grad for t in tensors)):
        return out
    outputs = out if isinstance(out, tuple) else (out,)
    positions = [i for i, o in enumerate(outputs) if isinstance(o, Tensor)]
    if not positions:  # nothing to differentiate: returned as it is, as in torch
        return out
    if len(positions) > 1:
        raise NotImplementedError(
            f"{cls.__name__}.forward returned {len(positions)} tensors: gradbook records one tensor output per "
            "autograd.Function; return the others from a second Function"
        )
    ctx._outputs = (len(outputs), positions[0])
    ctx._seq = next(creation_order)
    ctx._arg_is_tensor = tuple(isinstance(a, Tensor) for a in args)
    ctx.next_functions = tuple(
        ((t.grad_fn or t._grad_accumulator()), 0) if t.requires_grad else (None, 0) for t in tensors
    )
    ctx._meta = [(t._array.shape, t._array.dtype) for t in tensors]
    result = Tensor._make(outputs[positions[0]]._array, ctx)
    if not isinstance(out, tuple):
        return result
    return (*outputs[: positions[0]], result, *outputs[positions[0] + 1 :])

"""``gradbook.autograd.graph``, as ``torch.autograd.graph``: the graph's nodes and the protocol the
engine runs them by, and ``saved_tensors_hooks``.

A recorded op's result holds a ``grad_fn``: a :class:`Node` whose ``next_functions`` point to the
nodes of its inputs. A leaf that requires grad is reached through its :class:`AccumulateGrad`
node, which adds into ``leaf.grad``. The engine (``engine.py``) calls each node's ``run_rules``
and, without ``retain_graph``, its ``release``: the op table (``ops.py``) and custom Functions
(``function.py``) define them.
"""

from __future__ import annotations

import itertools
import weakref
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from .._messages import version_error
from .grad_mode import _State

if TYPE_CHECKING:
    from ..tensor import Tensor

__all__ = ["AccumulateGrad", "Node", "RemovableHandle", "saved_tensors_hooks"]

creation_order = itertools.count()  # every node's number: the engine runs newer nodes first


class Node:
    """A backward function in the graph, as torch's ``grad_fn`` objects.

    ``next_functions`` is a tuple of ``(node, 0)`` pairs, one per input of the op: the input's
    ``grad_fn``, its ``AccumulateGrad`` if it is a leaf that requires grad, or ``None``.
    """

    next_functions: tuple[tuple[Node | None, int], ...] = ()
    saves: tuple[str, ...] = ()  # what backward needs; freed by a backward without retain_graph
    _seq: int  # creation order
    _freed = False
    _tensor_pre_hooks: dict[int, Callable] | None = None  # tensor.register_hook on the op's output
    _pre_hooks: dict[int, Callable] | None = None  # node.register_prehook
    _post_hooks: dict[int, Callable] | None = None  # node.register_hook
    _retains: weakref.ref | None = None  # the output tensor, once it called retain_grad()
    _hooked = False  # set by any of the four above: one test per node when none is
    _versions: tuple | list = ()  # (saved input, its version then)
    _kept_at: tuple = ()  # an op's: the version of each input it kept, in the order of its _inputs_kept
    _result_version: list | None = None  # the output's version counter, for a node that saved it
    _result_saved_at = 0  # the output's version when saved (after its write, for an in-place op's: relu_)
    _several_outputs = False  # True for a custom Function's node with several outputs: edges (node, k)

    def name(self) -> str:
        """The torch class name, e.g. ``'MulBackward0'``."""
        return type(self).__name__

    def _sequence_nr(self) -> int:
        return self._seq

    def __repr__(self) -> str:
        return f"<{type(self).__name__} object at {id(self):#x}>"

    def register_prehook(self, fn: Callable[[tuple], tuple | None]) -> RemovableHandle:
        """Call ``fn(grad_outputs)`` before this node runs; a returned tuple replaces the gradients."""
        self._pre_hooks, self._hooked = self._pre_hooks or {}, True
        return RemovableHandle(self._pre_hooks, fn)

    def register_hook(self, fn: Callable[[tuple, tuple], tuple | None]) -> RemovableHandle:
        """Call ``fn(grad_inputs, grad_outputs)`` after this node ran; a returned tuple replaces
        ``grad_inputs``, what it sends along ``next_functions``."""
        self._post_hooks, self._hooked = self._post_hooks or {}, True
        return RemovableHandle(self._post_hooks, fn)

    def stale(self) -> tuple[Tensor, int, Node | None, int] | None:
        """A saved tensor changed in place since it was saved: it, its version then, and the node torch's
        error names (the input's grad_fn now; for the saved output, this node) with its output's number."""
        attrs, kept = self.__dict__, zip(getattr(self, "_inputs_kept", ()), self._kept_at)  # an op's kept inputs
        for t, version in [(attrs[name], v) for (name, _, _), v in kept] + list(self._versions):
            if t is not None and t._version != version:
                return t, version, t.grad_fn, t._output_nr or 0
        if self._result_version is not None and self._result_version[0] != self._result_saved_at:
            return self.result, self._result_saved_at, self, 0  # the output (Op.result: the saved array as a tensor)
        return None

    def version_error(self) -> RuntimeError:
        return version_error(*self.stale())

    # ------------------------------------------------ what the engine calls (the node protocol)

    def run_rules(self, grad: Any, needed: set | None, on_arrays: bool) -> tuple[list, list[bool]]:
        """Apply the chain rule: from ``grad``, the gradient of this node's output, the gradient
        for each input (one per ``next_functions`` entry, None where none is needed), and whether
        each is a new array nothing else holds (so it may become a ``.grad`` without a copy).
        ``needed``: with ``inputs=``, the nodes on a path to them. ``on_arrays``: the values are NumPy
        arrays; else Tensors, and the rules record a graph of their own (``create_graph``)."""
        raise NotImplementedError(f"{self.name()} defines no backward")

    def release(self) -> None:
        """Free what was saved for backward (a backward without ``retain_graph``)."""
        self._freed = True


class AccumulateGrad(Node):
    """The node of a leaf that requires grad: it adds the incoming gradient into ``leaf.grad``."""

    def __init__(self, variable: Tensor) -> None:
        self.variable = variable
        self._seq = next(creation_order)
        if variable._hooks is not None:  # the leaf's own hooks (x.register_hook): one dict
            self._tensor_pre_hooks, self._hooked = variable._hooks, True

    def name(self) -> str:
        return "torch::autograd::AccumulateGrad"

    def _sequence_nr(self) -> int:
        return 2**64 - 1  # torch's UINT64_MAX: a leaf accumulates as soon as its gradient is ready


class LeafHooks(dict):
    """A leaf's hooks: its tensor hooks (``register_hook``, the dict's values) and, in ``post``, its
    post-accumulate-grad hooks (``register_post_accumulate_grad_hook``)."""

    def __init__(self) -> None:
        super().__init__()
        self.post: dict[int, Callable] = {}


class RemovableHandle:
    """Returned by ``register_hook``; ``handle.remove()`` takes the hook off again."""

    _ids = itertools.count()

    def __init__(self, hooks: dict[int, Callable], fn: Callable) -> None:
        self.id = next(self._ids)
        self._hooks = hooks
        hooks[self.id] = fn

    def remove(self) -> None:
        self._hooks.pop(self.id, None)


class saved_tensors_hooks:  # noqa: N801  (torch's name)
    """``with saved_tensors_hooks(pack, unpack):`` the ops recorded inside keep ``pack(t)`` of each
    tensor they save for backward, and backward (or ``grad_fn._saved_<name>``) reads
    ``unpack(packed)``: a lesson can watch what autograd saves, or keep it elsewhere."""

    def __init__(self, pack_hook: Callable[[Any], Any], unpack_hook: Callable[[Any], Any]) -> None:
        self.hooks = (pack_hook, unpack_hook)

    def __enter__(self) -> saved_tensors_hooks:
        _State.saved_hooks.append(self.hooks)
        return self

    def __exit__(self, *exc: object) -> None:
        _State.saved_hooks.pop()


class OutputPlace:
    """The hooks and retain_grad of one output of a node with several outputs (a tensor's hooks
    belong to the tensor: here, to its output number), run by the engine when its gradient is ready."""

    _tensor_pre_hooks: dict | None = None
    _retains: Any = None
    _hooked = False


class SeveralOutputs:
    """For a node with several outputs (``split``, a custom Function's): edges ``(node, k)`` reach
    it, the engine gives it one gradient per output, and each output's hooks have their place."""

    _places: dict[int, OutputPlace] = {}  # read-only here: output() gives each node its own

    def output(self, k: int) -> OutputPlace:
        """Where the hooks of output k live."""
        if "_places" not in self.__dict__:
            self._places = {}
        return self._places.setdefault(k, OutputPlace())

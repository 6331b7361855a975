"""The autograd graph and the engine that runs backward over it.

A result of a recorded op holds a ``grad_fn``: a node that knows its inputs' nodes
(``next_functions``) and the local derivative rules of its op. ``backward()`` walks those nodes
from the output back to the leaves, in the same order as torch's engine, multiplying each
upstream gradient by the local derivatives (vector-Jacobian products) and summing where paths
meet. Leaves are reached through ``AccumulateGrad`` nodes, which add into ``leaf.grad``.
"""

from __future__ import annotations

import heapq
import itertools
import re
import weakref
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from .grad_mode import _State

if TYPE_CHECKING:
    from .._tensor import Tensor

FREED_ERROR = (
    "Trying to backward through the graph a second time (or directly access saved tensors after "
    "they have already been freed). Saved intermediate values of the graph are freed when you call "
    ".backward() or autograd.grad(). Specify retain_graph=True if you need to backward through the "
    "graph a second time or if you need to access saved tensors after calling backward."
)

# Set by gradbook.viz while it records a backward pass. None costs one comparison per node.
# The engine calls it, in execution order, as
#   _observer("enter", node, grad)           node is about to run; grad is its upstream gradient
#   _observer("exit", node, grad, outs)      it ran: outs[i] went along next_functions[i] (or None);
#                                            for AccumulateGrad, outs == [] and .grad is updated
#   _observer("sum", node, old, new, total)  fan-in: a second contribution was added to node's input
#   _observer("error", node, error)          the pass is refused before anything runs: node is the
#                                            one torch would have failed at (also error.node)
# Tensors passed along may be used by later steps: an observer copies what it keeps.
_observer: Callable[..., None] | None = None

_creation_order = itertools.count()


class RemovableHandle:
    """Returned by ``register_hook``; ``handle.remove()`` takes the hook off again."""

    _ids = itertools.count()

    def __init__(self, hooks: dict[int, Callable]) -> None:
        self.id = next(self._ids)
        self._hooks = hooks

    def remove(self) -> None:
        self._hooks.pop(self.id, None)


def _add_hook(hooks: dict[int, Callable], fn: Callable) -> RemovableHandle:
    handle = RemovableHandle(hooks)
    hooks[handle.id] = fn
    return handle


class Node:
    """A backward function in the graph, as torch's ``grad_fn`` objects.

    ``next_functions`` is a tuple of ``(node, 0)`` pairs, one per input of the op: the input's
    own ``grad_fn``, its ``AccumulateGrad`` if it is a leaf that requires grad, or ``None`` for
    a constant. ``_seq`` is a creation-order number, used to order the backward pass and to
    draw graphs deterministically.
    """

    next_functions: tuple[tuple[Node | None, int], ...] = ()
    _seq: int
    saves: ClassVar[tuple[str, ...]] = ()  # what backward needs, freed without retain_graph
    _pre_hooks: dict[int, Callable] | None = None  # tensor hooks of the op's output
    _freed = False  # saved tensors released by a backward without retain_graph
    _versions: tuple | list = ()  # (saved input, its version and its grad_fn when saved)
    _result_ref: Any = None  # a weak reference to the output, for a node that saved it (version 0)
    _retains: weakref.ref | None = None  # the output tensor, when it called retain_grad()

    def name(self) -> str:
        """The torch class name, e.g. ``'MulBackward0'``."""
        return type(self).__name__

    def _sequence_nr(self) -> int:
        return self._seq

    # torch runs the ready node with the highest sequence number first: the heap key, set at creation
    _priority: int

    def __repr__(self) -> str:
        return f"<{type(self).__name__} object at {id(self):#x}>"

    def _tensor_pre_hooks(self) -> dict[int, Callable]:
        if self._pre_hooks is None:
            self._pre_hooks = {}
        return self._pre_hooks

    def _stale(self) -> tuple[Tensor, int, Node | None] | None:
        """A saved tensor changed in place since it was saved: it, and its version and grad_fn then."""
        for t, version, creator in self._versions:
            if t._version != version:
                return t, version, creator
        out = self._result_ref() if self._result_ref is not None else None
        if out is not None and out._version != 0:
            return out, 0, self
        return None

    def _check_saved_versions(self) -> None:
        stale = self._stale()
        if stale is not None:
            _version_error(*stale)


class AccumulateGrad(Node):
    """The node at a leaf that requires grad: it adds the incoming gradient into ``.grad``."""

    def __init__(self, variable: Tensor) -> None:
        self.variable = variable
        self._seq = next(_creation_order)
        self._priority = self._seq - 2**64  # before every op node; among leaves, in creation order

    def name(self) -> str:
        return "torch::autograd::AccumulateGrad"

    def _sequence_nr(self) -> int:
        return 2**64 - 1  # torch's UINT64_MAX: accumulate as soon as a leaf's gradient is ready


class Function(Node):
    """One differentiable op: ``forward`` on NumPy arrays, one ``vjps`` rule per input.

    Subclasses are named after torch's ``grad_fn`` class for the same call, and declare:

    - ``inputs``: torch's names for the tensor arguments, in order;
    - ``forward(*arrays, **params)``: the NumPy computation;
    - ``saves``: the inputs, array params or ``"result"`` backward needs; backward without
      ``retain_graph`` frees them;
    - ``vjps``: for each input, ``rule(node, grad, *saved) -> grad_input``, the vector-Jacobian
      product ``grad · ∂out/∂input``. ``saved`` are the saved inputs and result, in the order of
      ``saves``; params are read from ``node``. A rule is written once, in operators and the
      helpers at the top of ``_ops.py``, and runs on NumPy arrays for a plain backward and on
      Tensors for ``create_graph=True`` (so that it can itself be differentiated).

    Gradients are summed back to each input's shape by ``unbroadcast`` and cast to its dtype.

    A subclass that defines torch's ``forward(ctx, ...)`` and ``backward(ctx, grad)`` static
    methods instead is a user-written function, run by ``autograd/function.py`` as in torch.
    """

    inputs: ClassVar[tuple[str, ...]] = ("self",)
    saves: ClassVar[tuple[str, ...]] = ()
    vjps: ClassVar[tuple[Callable[[Any, Tensor], Tensor], ...]] = ()
    forward: ClassVar[Callable[..., Any]]
    _saved_inputs: ClassVar[tuple[tuple[str, int], ...]] = ()
    _rule_args: ClassVar[tuple[str, ...]] = ()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls._saved_inputs = tuple((name, cls.inputs.index(name)) for name in cls.saves if name in cls.inputs)
        # the rules receive these saved values as arguments, after (node, grad)
        cls._rule_args = tuple(name for name in cls.saves if name in cls.inputs or name == "result")
        if "backward" in cls.__dict__:
            from .function import apply_custom

            cls.apply = classmethod(apply_custom)  # type: ignore[assignment]

    @classmethod
    def apply(cls, *tensors: Tensor, **params: Any) -> Tensor:
        if len(tensors) == 1:
            out = cls.forward(tensors[0]._array, **params)
        else:
            out = cls.forward(*[t._array for t in tensors], **params)
        if type(out) is not np.ndarray:
            out = np.asarray(out)  # NumPy returns scalars for 0-d results
        if _State.enabled:
            for t in tensors:
                if t.requires_grad:
                    node = cls._record(tensors, params, out)
                    result = Tensor._make(out, node)
                    if node._result_ref is not None:  # it saved its output: watch it for in-place changes
                        node._result_ref = weakref.ref(result)
                    return result
        return Tensor._make(out)

    @classmethod
    def _record(cls, tensors: tuple[Tensor, ...], params: dict, out: np.ndarray) -> Function:
        node = cls.__new__(cls)
        d = node.__dict__
        if params:
            d.update(params)
        d["_seq"] = seq = next(_creation_order)
        d["_priority"] = -seq
        edges = []
        for t in tensors:
            if t.requires_grad:
                fn = t.grad_fn
                edges.append((fn if fn is not None else t._grad_accumulator(), 0))
            else:
                edges.append((None, 0))
        d["next_functions"] = tuple(edges)
        d["_meta"] = [(t._array.shape, t._array.dtype) for t in tensors]
        if cls._saved_inputs:
            for name, i in cls._saved_inputs:
                d[name] = tensors[i]
            d["_versions"] = [(tensors[i], tensors[i]._version, tensors[i].grad_fn) for _, i in cls._saved_inputs]
        if "result" in cls.saves:
            d["_result"] = out
            d["_result_ref"] = True  # apply() puts a weak reference to the output tensor here
        return node

    @property
    def result(self) -> Tensor:
        """The saved output, as a tensor whose grad_fn is this node (so it can be differentiated)."""
        return Tensor._make(self._result, self)

    def __getattr__(self, name: str) -> Any:
        # reached only for names not set: torch's _saved_<name> spelling, or a freed saved tensor
        d = self.__dict__
        key = name[7:] if name.startswith("_saved_") else name
        if key != name:
            if key == "result" and "_result" in d:
                self._check_saved_versions()
                return self.result
            if key in d:
                self._check_saved_versions()
                return d[key]
        if key in type(self).saves:
            raise RuntimeError(FREED_ERROR)
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def _run(self, grad: Any, needed: set | None, fast: bool) -> tuple[list, list[bool]]:
        """Apply the rules: the gradient for each input, and whether it is a new array of its own.

        ``fast`` (no create_graph): values are NumPy arrays, and so are the saved values the rules
        receive. Otherwise they are Tensors, and the rules record a graph of their own.
        """
        d = self.__dict__
        if fast:
            args = [d["_result"] if name == "result" else d[name]._array for name in self._rule_args]
        else:
            args = [self.result if name == "result" else d[name] for name in self._rule_args]
        ids = (id(grad), *map(id, args))  # a rule returning one of these did not make a new array
        grads: list = []
        owned: list[bool] = []
        for rule, (fn, _), (shape, dtype) in zip(self.vjps, self.next_functions, self._meta):
            if fn is None or (needed is not None and fn not in needed):
                grads.append(None)
                owned.append(False)
                continue
            g = rule(self, grad, *args)
            a = g if fast else g._array
            if a.shape != shape:
                g = unbroadcast(g, shape)
                a = g if fast else g._array
            if a.dtype is not dtype and a.dtype != dtype:
                g = g.astype(dtype) if fast else g.to(dtype)
                a = g if fast else g._array
            grads.append(g)
            owned.append(fast and a.base is None and id(g) not in ids)
        return grads, owned

    def _release(self) -> None:
        if self.saves:
            d = self.__dict__
            for name in self.saves:
                d.pop("_result" if name == "result" else name, None)
            d["_freed"] = True


def _version_error(t: Tensor, version: int, creator: Node | None) -> None:
    """torch's error for a saved tensor changed in place; ``creator`` made it (None for a leaf)."""
    kind = {"float32": "Float", "float64": "Double", "int64": "Long", "bool": "Bool"}
    what = f"[gradbook.{kind.get(t._array.dtype.name, '')}Tensor [{', '.join(map(str, t.shape))}]]"
    if creator is not None:  # torch names the op without "Backward0": "output 0 of Exp"
        what += f", which is output 0 of {re.sub(r'Backward[0-9]*$', '', creator.name())},"
    raise RuntimeError(
        "one of the variables needed for gradient computation has been modified by an "
        f"inplace operation: {what} is at version {t._version}; expected version {version} "
        "instead. Hint: the saved value changed after it was used; compute on a copy "
        "(.clone()) or make the change after backward()."
    )


def unbroadcast(grad: Any, shape: tuple[int, ...]) -> Any:
    """Sum ``grad`` back to ``shape``: the adjoint of broadcasting ``shape`` up to ``grad.shape``.

    A broadcast input was used once per position it was copied to, so its gradient is the sum
    over those positions: over the leading dimensions it lacked, and over its size-1 dimensions.
    ``grad`` is a NumPy array or a Tensor.

    >>> import gradbook as torch
    >>> unbroadcast(torch.ones(2, 3), (3,))
    tensor([2., 2., 2.])
    """
    if isinstance(grad, Tensor):
        lead = grad._array.ndim - len(shape)
        if lead:
            grad = grad.sum(dim=tuple(range(lead)) if lead > 1 else 0)
        if grad._array.shape != shape:
            ones = tuple(i for i, n in enumerate(shape) if n == 1 and grad._array.shape[i] != 1)
            grad = grad.sum(dim=ones, keepdim=True)
        return grad
    lead = grad.ndim - len(shape)
    if grad.shape[lead:] == shape:  # only new leading dimensions (a bias): one reduction
        return np.add.reduce(grad, axis=tuple(range(lead)))
    dims = tuple(range(lead)) + tuple(i + lead for i, n in enumerate(shape) if n == 1 and grad.shape[i + lead] != 1)
    return grad.sum(axis=dims, keepdims=True).reshape(shape)


def _accumulate(t: Tensor, grad: Any, create_graph: bool, owned: bool = False) -> None:
    """Add ``grad`` into ``t.grad`` the way torch's AccumulateGrad does.

    Without create_graph, ``grad`` is an array: kept as it is if nothing else uses it (``owned``),
    else copied; later ones are added in place, so an old reference to ``.grad`` sees the sum.
    """
    if create_graph:
        t._grad = grad if t._grad is None else t._grad + grad
    elif t._grad is None:
        t._grad = Tensor._make(grad if owned else grad.copy())
    else:
        t._grad._array += grad
        t._grad._version += 1


def run_backward(
    roots: list[Tensor],
    grads: list[Tensor],
    keep_graph: bool,
    create_graph: bool,
    inputs: list[Tensor] | None = None,
    accumulate: bool = True,
) -> list[Tensor | None]:
    """Run the backward pass from ``roots`` seeded with ``grads``, iteratively.

    With ``inputs``, only the nodes on a path to them run, and their gradients are returned
    (``accumulate=False``, for ``autograd.grad``) or accumulated into their ``.grad``.
    Everything that can fail is checked before any ``.grad`` changes.
    """
    root_nodes = [t.grad_fn or t._grad_accumulator() for t in roots]

    # 1. discover the graph and count each node's incoming edges
    deps, _, broken = _discover(root_nodes)

    # 2. with inputs=, keep only the nodes that lead to one of them
    targets: dict[Node, int] = {}
    needed: set[Node] | None = None
    if inputs is not None:
        for i, t in enumerate(inputs):
            targets.setdefault(t.grad_fn or t._grad_accumulator(), i)
        needed = _leading_to(deps, root_nodes, targets)

    # 3. fail now rather than halfway: freed graphs and modified saved tensors. The error names
    # the node torch would have failed at: the first one, in execution order, that cannot run.
    if broken:
        failing = [n for n in broken if _cannot_run(n, needed)]
        if failing:
            first = min(failing, key=_schedule(root_nodes, deps, needed).index)
            try:
                _cannot_run(first, needed, raise_error=True)
            except RuntimeError as error:
                error.node = first  # type: ignore[attr-defined]
                if _observer is not None:
                    _observer("error", first, error)
                raise

    # 4. run: ready nodes in torch's order, summing gradients where paths meet. Without
    # create_graph the values are NumPy arrays; hooks and observers still see Tensors.
    fast = not create_graph
    captured: list = [None] * (len(inputs) if inputs is not None else 0)
    buffers: dict[Node, Any] = {}
    owned: set[Node] = set()  # nodes whose buffered gradient is an array nothing else holds
    for node, g in zip(root_nodes, grads):
        g = g._array if fast else g
        buffers[node] = buffers[node] + g if node in buffers else g
    ready = [(n._priority, n) for n in dict.fromkeys(root_nodes) if n not in deps]
    heapq.heapify(ready)
    grad_mode, _State.enabled = _State.enabled, create_graph  # rules record only for create_graph
    try:
        with np.errstate(all="ignore"):  # torch gives inf and nan silently
            while ready:
                node = heapq.heappop(ready)[-1]
                grad = buffers.pop(node)
                own = node in owned
                if _observer is not None:
                    own = False
                    _observer("enter", node, _tensor(grad))
                if node._pre_hooks:
                    own = False  # a hook may keep the tensor it was given
                    for hook in list(node._pre_hooks.values()):
                        r = hook(_tensor(grad))
                        if r is not None:
                            grad = r._array if fast else r
                if node._retains is not None:
                    retained = node._retains()
                    if retained is not None:
                        _accumulate(retained, grad, create_graph)
                if targets and node in targets:
                    captured[targets[node]] = grad
                if type(node) is AccumulateGrad:
                    if accumulate and (inputs is None or node in targets):
                        _accumulate(node.variable, grad, create_graph, own)
                    if _observer is not None:
                        _observer("exit", node, _tensor(grad), [])
                    continue
                outs, outs_owned = node._run(grad, needed, fast)
                if not keep_graph and node.saves:
                    node._release()
                if _observer is not None:
                    _observer("exit", node, _tensor(grad), [_tensor(g) for g in outs])
                for (fn, _), g, g_owned in zip(node.next_functions, outs, outs_owned):
                    if g is None:
                        continue
                    if fn in buffers:
                        old = buffers[fn]
                        buffers[fn] = old + g  # a new array: the sum is owned
                        if fast:
                            owned.add(fn)
                        if _observer is not None:
                            _observer("sum", fn, _tensor(old), _tensor(g), _tensor(buffers[fn]))
                    else:
                        buffers[fn] = g
                        if g_owned:
                            owned.add(fn)
                    deps[fn] -= 1
                    if deps[fn] == 0:
                        heapq.heappush(ready, (fn._priority, fn))
    finally:
        _State.enabled = grad_mode

    return [_tensor(c) for c in captured]


def _tensor(value: Any) -> Any:
    """A gradient value as a Tensor (it is an array during a backward without create_graph)."""
    return value if value is None or isinstance(value, Tensor) else Tensor._make(value)


def _cannot_run(node: Node, needed: set | None, raise_error: bool = False) -> bool:
    """Whether ``node`` would fail when run: freed, or a saved tensor changed in place since."""
    if needed is not None and not any(fn in needed for fn, _ in node.next_functions):
        return False  # not on the way to an input, or a target whose own rule will not run
    try:
        if node._freed:
            raise RuntimeError(FREED_ERROR)
        node._check_saved_versions()
    except RuntimeError:
        if raise_error:
            raise
        return True
    return False


def _schedule(root_nodes: list[Node], deps: dict[Node, int], needed: set | None) -> list[Node]:
    """The order the engine runs the nodes in, without running them (for naming a failing node)."""
    deps = dict(deps)
    ready = [(n._priority, n) for n in dict.fromkeys(root_nodes) if n not in deps]
    heapq.heapify(ready)
    order = []
    while ready:
        node = heapq.heappop(ready)[-1]
        order.append(node)
        if isinstance(node, AccumulateGrad) or (needed is not None and node not in needed):
            continue
        for fn, _ in node.next_functions:
            if fn is not None and (needed is None or fn in needed):
                deps[fn] -= 1
                if deps[fn] == 0:
                    heapq.heappush(ready, (fn._priority, fn))
    return order


def _discover(root_nodes: list[Node]) -> tuple[dict[Node, int], list[Node], list[Node]]:
    """Every node reachable from the roots (iteratively), how many edges enter each, and the
    nodes that could not run now (freed, or a saved tensor changed in place since)."""
    deps: dict[Node, int] = {}
    order = list(dict.fromkeys(root_nodes))
    stack = order.copy()
    roots = set(order)
    broken: list[Node] = []
    while stack:
        node = stack.pop()
        if node._freed or ((node._versions or node._result_ref is not None) and node._stale()):
            broken.append(node)
        for fn, _ in node.next_functions:
            if fn is not None:
                if fn in deps:
                    deps[fn] += 1
                else:
                    deps[fn] = 1
                    if fn not in roots:
                        order.append(fn)
                        stack.append(fn)
    return deps, order, broken


def reachable(root_nodes: list[Node]) -> set[Node]:
    """The nodes a backward pass from ``root_nodes`` can reach."""
    return set(_discover(root_nodes)[1])


def _leading_to(deps: dict[Node, int], roots: list[Node], targets: dict) -> set:
    """The nodes from which a target can be reached (the targets included)."""
    indeg = dict(deps)
    topo: list[Node] = []
    ready = [n for n in dict.fromkeys(roots) if n not in indeg]
    while ready:
        node = ready.pop()
        topo.append(node)
        for fn, _ in node.next_functions:
            if fn is not None:
                indeg[fn] -= 1
                if indeg[fn] == 0:
                    ready.append(fn)
    needed: set[Node] = set()
    for node in reversed(topo):
        if node in targets or any(fn in needed for fn, _ in node.next_functions if fn is not None):
            needed.add(node)
    return needed


from .._tensor import Tensor  # noqa: E402  (the Tensor class needs this module first)

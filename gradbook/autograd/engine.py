"""The graph's nodes, and the engine that runs ``backward()`` over them.

A recorded op's result holds a ``grad_fn``: a :class:`Node` whose ``next_functions`` point to
the nodes of its inputs. A leaf that requires grad is reached through its
:class:`AccumulateGrad` node, which adds into ``leaf.grad``. ``backward`` runs in five steps:

1. discover every node reachable from the roots, counting the edges into each leaf;
2. prune, for ``inputs=``: keep only the nodes that lead to one of the inputs;
3. order them as torch's engine runs them;
4. check that every node can run (nothing freed, no saved tensor changed in place), so that
   a refused backward changes nothing;
5. run them in that order: each node gets the sum of what its consumers sent it, applies its
   op's rules (``ops.py``) and sends one gradient along each of its ``next_functions``.
"""

from __future__ import annotations

import itertools
import operator
import sys
import warnings
import weakref
from collections.abc import Callable
from typing import Any

from .._dtypes import restore_numpy, silence_numpy, type_name
from .._messages import CREATE_GRAPH_WARNING, FREED_ERROR, type_of, version_error
from ..tensor import Tensor
from .grad_mode import _State

creation_order = itertools.count()  # every node's number: the engine runs newer nodes first
_creation = operator.attrgetter("_seq")


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
    _result_ref: Any = None  # a weak reference to the output, for a node that saved it
    _several = False  # True for a custom Function's node with several outputs: edges (node, k)

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
        """A saved tensor changed in place since it was saved: it, its version then, and the node
        torch's error names (the input's grad_fn now; for the saved output, this node) with the
        number of the output it is."""
        for t, version in self._versions:
            if t._version != version:
                return t, version, t.grad_fn, t._output_nr or 0
        out = self._result_ref() if self._result_ref is not None else None
        if out is not None and out._version != 0:
            return out, 0, self, 0
        return None

    def version_error(self) -> RuntimeError:
        return version_error(*self.stale())


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


def backward(
    roots: list[Tensor],
    grads: list[Tensor],
    keep_graph: bool,
    create_graph: bool,
    inputs: list[Tensor] | None = None,
    accumulate: bool = True,
) -> list[Tensor | None]:
    """Run backward from ``roots``, seeded with ``grads`` (the v of vᵀJ, one per root). With ``inputs``,
    only the nodes on a path to them run, and their gradients are returned (``accumulate=False``, for
    ``autograd.grad``) or accumulated into their ``.grad``."""
    if create_graph and accumulate:
        _warn_once(CREATE_GRAPH_WARNING)  # as torch, once per process
    root_nodes = [t.grad_fn or t._grad_accumulator() for t in roots]
    ops, leaves, broken = discover(root_nodes)  # 1.
    order = execution_order(ops, leaves)  # 3. (before 2: the pruning walks it backwards)
    targets: dict[Node, list[int]] = {}  # for inputs=: each input's node, and where it is in inputs
    needed = None
    if inputs is not None:  # 2.
        for i, t in enumerate(inputs):
            targets.setdefault(t.grad_fn or t._grad_accumulator(), []).append(i)
        needed = leading_to(order, targets)
    if broken:  # 4.
        check(broken, order, needed)

    # 5. Without create_graph the gradients are NumPy arrays, and the rules run on arrays; hooks
    # and .grad see Tensors. With it they are Tensors, and the rules are recorded in turn.
    fast = not create_graph
    buffers: dict[Node, Any] = {}  # the gradient summed so far for each node
    owned: set[Node] = set()  # nodes whose buffered array nothing else holds (it can become .grad)
    captured: list = [None] * (len(inputs) if inputs is not None else 0)
    for node, t, g in zip(root_nodes, roots, grads):
        node, g = (node, t._output_nr) if t._output_nr else node, g._array if fast else g
        buffers[node] = buffers[node] + g if node in buffers else g
    grad_mode, _State.enabled = _State.enabled, create_graph  # rules record only for create_graph
    quiet = silence_numpy()  # no NumPy warnings: torch gives inf and nan silently
    try:
        for node in order:
            grad = buffers.pop(node, None)
            if node._several:  # a custom Function's node with several outputs: all their gradients
                grad = gather_outputs(node, grad, buffers, fast, create_graph)
            if grad is None:
                continue  # nothing reached it (not on the way to an input)
            own, hooked = node in owned, node._hooked
            if hooked and (node._tensor_pre_hooks or node._retains is not None):
                grad, own = call_tensor_hooks(node, grad, fast, create_graph), False
            if targets and node in targets:
                for i in targets[node]:
                    captured[i] = grad if not node._several else grad[inputs[i]._output_nr or 0]
            if type(node) is AccumulateGrad:
                if accumulate and (inputs is None or node in targets):
                    if hooked and node._pre_hooks:
                        grad, own = call_pre_hooks(node, grad, fast), False
                    accumulate_grad(node.variable, grad, create_graph, own)
                    if hooked:
                        call_leaf_hooks(node, grad, fast)
                continue
            if hooked and node._pre_hooks:
                grad = call_pre_hooks(node, grad, fast)
            outs, outs_owned = node.run_rules(grad, needed, fast)
            if hooked and node._post_hooks:
                outs = call_post_hooks(node, outs, grad, fast)
                outs_owned = [False] * len(outs)
            if not keep_graph and node.saves:
                node.release()
            for (fn, k), g, g_owned in zip(node.next_functions, outs, outs_owned):
                if g is None:
                    continue
                fn = (fn, k) if k else fn  # output k of a node with several outputs: buffered apart
                if fn in buffers:  # two paths meet: add (a new array, owned)
                    buffers[fn] = buffers[fn] + g
                    if fast:
                        owned.add(fn)
                else:
                    buffers[fn] = g
                    if g_owned:
                        owned.add(fn)
    finally:
        _State.enabled = grad_mode
        restore_numpy(quiet)
    return [as_tensor(c) for c in captured]


def gather_outputs(node: Node, grad: Any, buffers: dict, fast: bool, create_graph: bool) -> tuple | None:
    """The gradients of each output of a node with several (None if none got one), each after its
    tensor's hooks; buffered as ``node`` for output 0, ``(node, k)`` for output k."""
    grads = [grad] + [buffers.pop((node, k), None) for k in range(1, node._outputs[0])]
    if all(g is None for g in grads):
        return None
    for k, place in node._places.items():
        if grads[k] is not None:
            grads[k] = call_tensor_hooks(place, grads[k], fast, create_graph)
    return tuple(grads)


def discover(root_nodes: list[Node]) -> tuple[list[Node], dict[Node, int], list[Node]]:
    """Every node reachable from the roots: the op nodes; each leaf's node, with the number of
    edges into it; and the nodes that could not run now (freed, or a saved tensor changed in
    place since)."""
    ops, leaves, broken = [], {}, []  # type: ignore[var-annotated]
    stack = list(dict.fromkeys(root_nodes))
    seen = set(stack)
    while stack:
        node = stack.pop()
        if type(node) is AccumulateGrad:  # a leaf given as a root
            leaves.setdefault(node, 0)
            continue
        ops.append(node)
        if node._freed or ((node._versions or node._result_ref is not None) and node.stale()):
            broken.append(node)
        for fn, _ in node.next_functions:
            if type(fn) is AccumulateGrad:
                leaves[fn] = leaves.get(fn, 0) + 1
            elif fn is not None and fn not in seen:
                seen.add(fn)
                stack.append(fn)
    return ops, leaves, broken


def execution_order(ops: list[Node], leaves: dict[Node, int]) -> list[Node]:
    """The order torch's engine runs the nodes in.

    torch runs the ready node with the highest sequence number first. A node's inputs are always
    made before it, so that is simply newest first. A leaf (``AccumulateGrad``) runs as soon as
    its last consumer has, leaves that are ready together in the order they were made.
    """
    ops.sort(key=_creation, reverse=True)
    waiting = leaves  # counted down: each leaf, with the number of its consumers yet to run
    order = sorted((n for n, k in waiting.items() if k == 0), key=_creation)  # leaves given as roots
    for node in ops:
        order.append(node)
        ready = []
        for fn, _ in node.next_functions:
            if fn in waiting:
                waiting[fn] -= 1
                if waiting[fn] == 0:
                    ready.append(fn)
        if ready:
            order += sorted(ready, key=_creation) if len(ready) > 1 else ready
    return order


def leading_to(order: list[Node], targets: dict[Node, list[int]]) -> set[Node]:
    """The nodes from which a target can be reached (the targets included)."""
    needed: set[Node] = set()
    for node in reversed(order):  # every node after its inputs
        if node in targets or any(fn in needed for fn, _ in node.next_functions):
            needed.add(node)
    return needed


def check(broken: list[Node], order: list[Node], needed: set[Node] | None) -> None:
    """Refuse the pass before anything runs, naming the node torch would fail at: the first one,
    in execution order, that cannot run (``error.node``)."""
    failing = [n for n in broken if needed is None or any(fn in needed for fn, _ in n.next_functions)]
    if failing:
        first = min(failing, key=order.index)
        error = RuntimeError(FREED_ERROR) if first._freed else first.version_error()
        error.node = first  # type: ignore[attr-defined]
        try:
            raise error
        finally:
            del error  # no cycle through this frame: a refused graph is freed without the collector


def as_tensor(value: Any) -> Any:
    """A gradient as a Tensor (during a backward without create_graph it is a NumPy array)."""
    return value if value is None or isinstance(value, Tensor) else Tensor._make(value)


def accumulate_grad(t: Tensor, grad: Any, create_graph: bool, owned: bool = False) -> None:
    """``t.grad += grad``, as torch's AccumulateGrad does it.

    The first gradient becomes ``.grad`` (the array itself if nothing else holds it, else a copy);
    later ones are added in place, so an old reference to ``.grad`` sees the sum. Under
    create_graph the sum is a new, differentiable tensor.
    """
    if create_graph:
        t._grad = grad if t._grad is None else t._grad + grad
    elif t._grad is None:
        t._grad = Tensor._make(grad if owned else grad.copy())
    else:
        t._grad._array += grad
        t._grad._version += 1


def call_tensor_hooks(node: Node, grad: Any, fast: bool, create_graph: bool) -> Any:
    """When a tensor's gradient is ready: its hooks (``tensor.register_hook``), then retain_grad."""
    for hook in list((node._tensor_pre_hooks or {}).values()):
        r = hook(as_tensor(grad))
        if r is not None:
            if not isinstance(r, Tensor):
                raise TypeError(f"expected Variable, but hook returned '{type_of(r)}'")
            new, old = (r._array, grad) if fast else (r._array, grad._array)
            if new.shape != old.shape:
                raise RuntimeError(f"hook '{_name(hook)}' has changed the size of value")
            if new.dtype != old.dtype:
                raise RuntimeError(
                    f"hook '{_name(hook)}' has changed the type of value (was {type_name(old.dtype)} "
                    f"got {type_name(new.dtype)})"
                )
            grad = r._array if fast else r
    if node._retains is not None:
        retained = node._retains()
        if retained is not None:
            accumulate_grad(retained, grad, create_graph)
    return grad


def call_leaf_hooks(node: AccumulateGrad, grad: Any, fast: bool) -> None:
    """After a leaf's gradient is accumulated: its post-accumulate-grad hooks, then the node's hooks."""
    hooks = node._tensor_pre_hooks
    for hook in list(hooks.post.values()) if isinstance(hooks, LeafHooks) else ():
        r = hook(node.variable)  # it may read or change .grad (an optimizer step inside backward)
        if r is not None and not isinstance(r, Tensor):
            raise TypeError(f"expected Variable, but hook returned '{type_of(r)}'")
    if node._post_hooks:
        call_post_hooks(node, [], grad, fast)


def call_pre_hooks(node: Node, grad: Any, fast: bool) -> Any:
    """Before a node runs: ``hook(grad_outputs)``; a returned tuple replaces them."""
    grads = grad if node._several else (grad,)  # one per output of the node
    for hook in list(node._pre_hooks.values()):
        r = _hook_result(hook, hook(tuple(as_tensor(g) for g in grads)), len(grads))
        if r is not None:
            grads = tuple(None if g is None else g._array if fast else g for g in r)
    return grads if node._several else grads[0]


def call_post_hooks(node: Node, outs: list, grad: Any, fast: bool) -> list:
    """After a node ran: ``hook(grad_inputs, grad_outputs)``; a returned tuple replaces grad_inputs."""
    for hook in list(node._post_hooks.values()):
        grad_outputs = tuple(as_tensor(g) for g in (grad if node._several else (grad,)))
        r = _hook_result(hook, hook(tuple(as_tensor(g) for g in outs), grad_outputs), len(outs))
        if r is not None:
            if any(g is None and new is not None for g, new in zip(outs, r)):
                raise RuntimeError("can't replace a None gradient with a non-None value")
            outs = [None if new is None else new._array if fast else new for new in r]
    return outs


def _hook_result(hook: Callable, result: Any, expected: int) -> tuple | None:
    if result is None:
        return None
    if not isinstance(result, tuple):
        raise TypeError(f"expected tuple, but hook returned '{type(result).__name__}'")
    if len(result) != expected:
        raise RuntimeError(
            f"hook '{_name(hook)}' has returned an incorrect number of values "
            f"(got {len(result)}, but expected {expected})"
        )
    return result


def _name(hook: Callable) -> str:
    return getattr(hook, "__name__", type(hook).__name__)


_warned: set[str] = set()


def _warn_once(message: str) -> None:
    """Warn once per process (as torch's TORCH_WARN_ONCE), at the user's line that called backward."""
    if message not in _warned:
        _warned.add(message)
        frame, level = sys._getframe(1), 2
        while frame is not None and frame.f_globals.get("__name__", "").startswith("gradbook"):
            frame, level = frame.f_back, level + 1
        warnings.warn(message, UserWarning, stacklevel=level)

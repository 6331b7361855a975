"""The engine: ``backward()`` and ``grad()``, and the loop that runs the chain rule over the graph.

``backward`` and ``grad`` check their arguments as torch does and seed each output with its v
(v = 1 for a one-element output), then ``run_backward`` runs in five steps:

1. discover every node reachable from the roots, counting the edges into each leaf;
2. prune, for ``inputs=``: keep only the nodes that lead to one of the inputs;
3. order them as torch's engine runs them;
4. check that every node can run (nothing freed, no saved tensor changed in place), so that
   a refused backward changes nothing;
5. run them in that order: each node gets the sum of what its consumers sent it, applies its
   op's rules (``ops.py``) and sends one gradient along each of its ``next_functions``.

The nodes themselves are in ``graph.py``.
"""

from __future__ import annotations

import operator
from typing import Any

import numpy as np

from .. import _arguments as arguments
from .._dtypes import restore_numpy, silence_numpy
from .._messages import CREATE_GRAPH_WARNING, FREED_ERROR, check_hook_value, hook_result, type_of, warn_once
from ..tensor import Tensor
from .grad_mode import _State
from .graph import AccumulateGrad, LeafHooks, Node

_creation = operator.attrgetter("_seq")


def backward(
    tensors: Any,
    grad_tensors: Any = None,
    retain_graph: bool | None = None,
    create_graph: bool = False,
    inputs: Any = None,
) -> None:
    """Add d(tensors)/d(leaf), weighted by ``grad_tensors``, into each leaf's ``.grad``.

    For an output y and seed v (``grad_tensors``) each leaf x receives vᵀ·∂y/∂x. v may be left
    out only for one-element outputs. ``retain_graph`` defaults to ``create_graph``; without it
    the graph's saved tensors are freed. ``inputs`` limits which tensors accumulate. Every check
    happens before any ``.grad`` changes (``Tensor.backward`` is this function, for one tensor).
    """
    outputs = arguments.as_list(tensors)
    seeds = arguments.backward_seeds(outputs, grad_tensors)  # v = 1 for a one-element output
    keep = create_graph if retain_graph is None else retain_graph
    only = None if inputs is None else arguments.backward_inputs(arguments.as_list(inputs))
    if create_graph:
        warn_once(CREATE_GRAPH_WARNING)  # as torch, once per process
    run_backward(outputs, seeds, keep, create_graph, inputs=only)


def grad(
    outputs: Any,
    inputs: Any,
    grad_outputs: Any = None,
    retain_graph: bool | None = None,
    create_graph: bool = False,
    allow_unused: bool | None = None,
) -> tuple:
    """Return d(outputs)/d(inputs) (weighted by ``grad_outputs``) without touching any ``.grad``.

    With ``create_graph=True`` the result is itself differentiable, for higher derivatives.

    >>> import gradbook as torch
    >>> x = torch.tensor(3.0, requires_grad=True)
    >>> (dy,) = torch.autograd.grad(x ** 3, x, create_graph=True)   # 3x² = 27
    >>> (d2y,) = torch.autograd.grad(dy, x)                         # 6x = 18
    >>> dy, d2y
    (tensor(27., grad_fn=<MulBackward0>), tensor(18.))
    """
    outs, ins = arguments.as_list(outputs), arguments.as_list(inputs)
    if not ins:
        raise RuntimeError("`inputs` argument to `grad()` cannot be empty.")
    arguments.check_tensors(ins)
    seeds = arguments.backward_seeds(outs, grad_outputs)
    for t in ins:
        if not t.requires_grad:
            raise RuntimeError("One of the differentiated Tensors does not require grad")
    keep = create_graph if retain_graph is None else retain_graph
    if not allow_unused:
        check_used(outs, ins)
    captured = run_backward(outs, seeds, keep, create_graph, inputs=ins, accumulate=False)
    return tuple(c if c is None or create_graph else c.detach() for c in captured)


# ------------------------------------------------ their arguments (torch's checks: _arguments.py)


def check_used(outputs: list[Tensor], inputs: list[Tensor]) -> None:
    """``grad()`` without ``allow_unused``: every input must be in the outputs' graph."""
    ops, leaves, _ = discover([t.grad_fn or t._grad_accumulator() for t in outputs])
    reachable = set(ops) | leaves.keys()
    for i, t in enumerate(inputs):
        if (t.grad_fn or t._grad_accumulator()) not in reachable:
            raise RuntimeError(
                f"The differentiated Tensor at index {i} appears to not have been used in the graph. "
                "Set allow_unused=True if this is the desired behavior."
            )


# ------------------------------------------------ the engine


def run_backward(
    roots: list[Tensor],
    grads: list[Tensor],
    keep_graph: bool,
    create_graph: bool,
    inputs: list[Tensor] | None = None,
    accumulate: bool = True,
) -> list[Tensor | None]:
    """Run backward from ``roots``, seeded with ``grads`` (the v of vᵀJ, one per root). With ``inputs``, only
    the nodes on a path to them run; ``accumulate=False`` (``grad()``) returns their gradients instead."""
    root_nodes = [t.grad_fn or t._grad_accumulator() for t in roots]
    ops, leaves, broken = discover(root_nodes)  # 1.
    order = execution_order(ops, leaves)  # 3. (before 2: the pruning walks it backwards)
    wanted = Wanted(inputs, order) if inputs is not None else None  # 2.
    if broken:  # 4.
        refuse_broken(broken, order, wanted and wanted.needed)
    # 5. Rules run on NumPy arrays (hooks and .grad see Tensors); for create_graph on Tensors, recorded in turn
    on_arrays = not create_graph
    buffers = Buffers(root_nodes, roots, grads, on_arrays)
    grad_mode, _State.enabled = _State.enabled, create_graph  # rules record only for create_graph
    quiet = silence_numpy()  # no NumPy warnings: torch gives inf and nan silently
    try:
        for node in order:
            grad, own = buffers.take(node)  # receive: what its consumers sent it, summed
            if grad is not None and (node._hooked or wanted is not None):  # hooks, retain_grad, inputs=
                grad, own = before_node(node, grad, own, wanted, accumulate, on_arrays, create_graph)
            if grad is None:
                continue  # nothing reached it (not on the way to an input), or a pre-hook gave None
            if type(node) is AccumulateGrad:  # a leaf: its .grad += grad
                if accumulate and (wanted is None or node in wanted.targets):
                    accumulate_grad(node.variable, grad, create_graph, own)
                    if node._hooked:
                        call_leaf_hooks(node, grad, on_arrays)
                continue
            outs, owned = node.run_rules(grad, wanted and wanted.needed, on_arrays)  # the chain rule
            if node._hooked and node._post_hooks:
                outs, owned = call_post_hooks(node, outs, grad, on_arrays), [False] * len(outs)
            if not keep_graph and node.saves:
                node.release()  # free what it saved (no retain_graph)
            buffers.send(node, outs, owned)  # send: one gradient along each edge
    finally:
        _State.enabled = grad_mode
        restore_numpy(quiet)
    return wanted.results() if wanted is not None else []


class Buffers:
    """The gradient each node has received so far, summed where paths meet, and whether that sum is
    an array nothing else holds (so that it can become a leaf's ``.grad`` without a copy)."""

    def __init__(self, root_nodes: list[Node], roots: list[Tensor], grads: list[Tensor], on_arrays: bool) -> None:
        self.sums: dict[Any, Any] = {}  # node, or (node, k) for output k of a node with several
        self.owned: set = set()
        self.on_arrays = on_arrays
        for node, t, g in zip(root_nodes, roots, grads):
            node, g = (node, t._output_nr) if t._output_nr else node, g._array if on_arrays else g
            self.sums[node] = self.sums[node] + g if node in self.sums else g

    def take(self, node: Node) -> tuple[Any, bool]:
        """The gradient summed for ``node`` (a tuple, one per output, for a node with several), and
        whether it is owned; (None, False) if nothing reached it."""
        grad = self.sums.pop(node, None)
        if node._several_outputs:
            return gather_outputs(node, grad, self.sums, self.on_arrays), False
        return grad, node in self.owned

    def send(self, node: Node, grads: list, owned: list[bool]) -> None:
        """Send each input's gradient along ``next_functions``: add it to what that node has."""
        for (fn, k), g, new in zip(node.next_functions, grads, owned):
            if g is not None:
                fn = (fn, k) if k else fn  # output k of a node with several outputs: buffered apart
                if fn in self.sums:  # two paths meet: their sum is a new array
                    self.sums[fn], new = self.sums[fn] + g, self.on_arrays
                else:
                    self.sums[fn] = g
                if new:
                    self.owned.add(fn)


class Wanted:
    """``inputs=``: the nodes on a path to them (the others need not run), and the gradient each
    input received (``autograd.grad`` returns them)."""

    def __init__(self, inputs: list[Tensor], order: list[Node]) -> None:
        self.inputs = inputs
        self.targets: dict[Node, list[int]] = {}  # each input's node, and where it is in inputs
        for i, t in enumerate(inputs):
            self.targets.setdefault(t.grad_fn or t._grad_accumulator(), []).append(i)
        self.needed = leading_to(order, self.targets)
        self.captured: list = [None] * len(inputs)

    def capture(self, node: Node, grad: Any) -> None:
        for i in self.targets[node]:
            self.captured[i] = grad if not node._several_outputs else grad[self.inputs[i]._output_nr or 0]

    def results(self) -> list[Tensor | None]:
        return [as_tensor(c) for c in self.captured]


def gather_outputs(node: Node, grad: Any, buffers: dict, on_arrays: bool) -> tuple | None:
    """The gradients of each output of a node with several (None if none got one), each after its
    tensor's hooks; buffered as ``node`` for output 0, ``(node, k)`` for output k."""
    grads = [grad] + [buffers.pop((node, k), None) for k in range(1, node._outputs[0])]
    if all(g is None for g in grads):
        return None
    for k, place in node._places.items():
        if grads[k] is not None:
            grads[k] = call_tensor_hooks(place, grads[k], on_arrays, not on_arrays)
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
        if node._freed or ((node._kept_at or node._versions or node._result_version is not None) and node.stale()):
            broken.append(node)
        for fn, _ in node.next_functions:
            if type(fn) is AccumulateGrad:
                leaves[fn] = leaves.get(fn, 0) + 1
            elif fn is not None and fn not in seen:
                seen.add(fn)
                stack.append(fn)
    return ops, leaves, broken


def execution_order(ops: list[Node], leaves: dict[Node, int]) -> list[Node]:
    """The order torch's engine runs the nodes in: the ready node with the highest sequence number first,
    which is newest first (a node's inputs are made before it); a leaf (``AccumulateGrad``) as soon as its
    last consumer has run, leaves ready together in the order they were made."""
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


def refuse_broken(broken: list[Node], order: list[Node], needed: set[Node] | None) -> None:
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
    """``t.grad += grad``, as torch's AccumulateGrad does it: the first gradient becomes ``.grad`` (the array
    itself if nothing else holds it, else a copy); later ones are added in place, so an old reference to
    ``.grad`` sees the sum. Under create_graph the sum is a new, differentiable tensor."""
    if create_graph:
        t._grad = recorded_copy(grad) if t._grad is None else t._grad + grad
    elif t._grad is None:
        t._grad = Tensor._make(grad if owned else grad.copy())
    else:
        t._grad._array += grad
        t._grad._version += 1


def before_node(
    node: Node, grad: Any, own: bool, wanted: Wanted | None, accumulate: bool, on_arrays: bool, create_graph: bool
) -> tuple[Any, bool]:
    """What runs on a node's gradient before the node does: its tensor's hooks and retain_grad, the
    capture of an ``inputs=`` gradient, and the node's pre-hooks (a leaf's only if it accumulates)."""
    if node._hooked:
        grad, own = call_tensor_hooks(node, grad, on_arrays, create_graph), False
    if wanted is not None and node in wanted.targets:
        wanted.capture(node, grad)
    if node._hooked and node._pre_hooks:
        leaf_skipped = type(node) is AccumulateGrad and not (accumulate and (wanted is None or node in wanted.targets))
        if not leaf_skipped:
            grad, own = call_pre_hooks(node, grad, on_arrays), False
    return grad, own


def recorded_copy(grad: Tensor) -> Tensor:
    """A first ``.grad`` under create_graph: a new tensor, its copy recorded (CopyBackwards), as torch's
    AccumulateGrad makes it, never the gradient object itself (a seed, another leaf's ``.grad``)."""
    return Tensor._make(np.empty_like(grad._array)).copy_(grad)


def call_tensor_hooks(node: Node, grad: Any, on_arrays: bool, create_graph: bool) -> Any:
    """When a tensor's gradient is ready: its hooks (``tensor.register_hook``), then retain_grad."""
    for hook in list((node._tensor_pre_hooks or {}).values()):
        r = hook(as_tensor(grad))
        if r is not None:
            grad = hooked_grad(hook, r, grad, on_arrays)
    if node._retains is not None:
        retained = node._retains()
        if retained is not None:
            accumulate_grad(retained, grad, create_graph)
    return grad


def call_leaf_hooks(node: AccumulateGrad, grad: Any, on_arrays: bool) -> None:
    """After a leaf's gradient is accumulated: its post-accumulate-grad hooks, then the node's hooks."""
    hooks = node._tensor_pre_hooks
    for hook in list(hooks.post.values()) if isinstance(hooks, LeafHooks) else ():
        r = hook(node.variable)  # it may read or change .grad (an optimizer step inside backward)
        if r is not None and not isinstance(r, Tensor):
            raise TypeError(f"expected Variable, but hook returned '{type_of(r)}'")
    if node._post_hooks:
        call_post_hooks(node, [], grad, on_arrays)


def call_pre_hooks(node: Node, grad: Any, on_arrays: bool) -> Any:
    """Before a node runs: ``hook(grad_outputs)``; a returned tuple replaces them."""
    grads = grad if node._several_outputs else (grad,)  # one per output of the node
    for hook in list(node._pre_hooks.values()):
        r = hook_result(hook, hook(tuple(as_tensor(g) for g in grads)), len(grads))
        if r is not None:
            grads = tuple(hooked_grad(hook, new, old, on_arrays) for new, old in zip(r, grads))
    return grads if node._several_outputs else grads[0]


def hooked_grad(hook: Any, new: Any, old: Any, on_arrays: bool) -> Any:
    """A gradient a hook (a tensor's, or a node's pre-hook) returned in place of ``old``, checked as torch
    checks it."""
    if new is None:
        return None
    if not isinstance(new, Tensor):
        raise TypeError(f"expected Variable, but hook returned '{type_of(new)}'")
    if old is None:
        raise RuntimeError("can't replace a None gradient with a non-None value")
    check_hook_value(hook, new._array, old if on_arrays else old._array)
    return new._array if on_arrays else new


def call_post_hooks(node: Node, outs: list, grad: Any, on_arrays: bool) -> list:
    """After a node ran: ``hook(grad_inputs, grad_outputs)``; a returned tuple replaces grad_inputs."""
    for hook in list(node._post_hooks.values()):
        grad_outputs = tuple(as_tensor(g) for g in (grad if node._several_outputs else (grad,)))
        r = hook_result(hook, hook(tuple(as_tensor(g) for g in outs), grad_outputs), len(outs))
        if r is not None:
            if any(g is None and new is not None for g, new in zip(outs, r)):
                raise RuntimeError("can't replace a None gradient with a non-None value")
            outs = [None if new is None else new._array if on_arrays else new for new in r]
    return outs

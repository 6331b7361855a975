"""Node hooks (``grad_fn.register_hook`` / ``register_prehook``), as torch's, checked by hand and
against torch itself when it is installed."""

import numpy as np
import pytest

import gradbook

try:
    import torch
except ImportError:
    torch = None

LIBS = [gradbook] + ([torch] if torch is not None else [])
oracle = pytest.mark.skipif(torch is None, reason="torch is not installed")


def hooked_pass(L):
    """y = x*x + x*c with a pre- and post-hook on every node, and a tensor hook on x: the log."""
    x = L.tensor(2.0, requires_grad=True)
    c = L.tensor(3.0)
    y = x * x + x * c
    log = []
    add = y.grad_fn
    sq, xc = add.next_functions[0][0], add.next_functions[1][0]
    acc = sq.next_functions[0][0]
    for node in (add, sq, xc, acc):
        node.register_prehook(lambda go, node=node: log.append(("pre", node.name(), _values(go))))
        node.register_hook(lambda gi, go, node=node: log.append(("post", node.name(), _values(gi), _values(go))))
    x.register_hook(lambda g: log.append(("tensor hook", g.item())))
    y.backward()
    return log, x.grad.item()


def _values(grads):
    return tuple(None if g is None else round(g.item(), 6) for g in grads)


def test_hooks_see_what_each_node_receives_and_sends():
    log, grad = hooked_pass(gradbook)
    assert log == [
        ("pre", "AddBackward0", (1.0,)),
        ("post", "AddBackward0", (1.0, 1.0), (1.0,)),
        ("pre", "MulBackward0", (1.0,)),  # x * c, made last, runs first
        ("post", "MulBackward0", (3.0, None), (1.0,)),  # c needs no gradient
        ("pre", "MulBackward0", (1.0,)),
        ("post", "MulBackward0", (2.0, 2.0), (1.0,)),  # ∂(x·x)/∂x, once per input
        ("tensor hook", 7.0),  # x's gradient, summed over the three edges into it
        ("pre", "torch::autograd::AccumulateGrad", (7.0,)),
        ("post", "torch::autograd::AccumulateGrad", (), (7.0,)),
    ]
    assert grad == 7.0


@oracle
def test_hooks_match_torch():
    assert hooked_pass(gradbook) == hooked_pass(torch)


@pytest.mark.parametrize("L", LIBS, ids=lambda L: L.__name__)
def test_hooks_can_replace_gradients(L):
    x = L.tensor(2.0, requires_grad=True)
    y = x * 3
    y.grad_fn.register_prehook(lambda go: (go[0] * 10,))  # upstream 1 -> 10
    y.backward()
    assert x.grad.item() == 30.0
    y = x * 3
    y.grad_fn.register_hook(lambda gi, go: (gi[0] * 100, None))  # what it sends to x: 3 -> 300
    y.backward()
    assert x.grad.item() == 330.0
    y = x * 3
    y.grad_fn.next_functions[0][0].register_prehook(lambda go: (go[0] * 2,))  # on x's AccumulateGrad
    y.backward()
    assert x.grad.item() == 330.0 + 3.0 * 2  # the accumulator hook doubles what reaches x.grad


@pytest.mark.parametrize("L", LIBS, ids=lambda L: L.__name__)
def test_removed_hooks_are_not_called(L):
    x = L.tensor(2.0, requires_grad=True)
    y = x * 3
    calls = []
    handle = y.grad_fn.register_prehook(lambda go: calls.append(1))
    handle.remove()
    y.grad_fn.register_hook(lambda gi, go: calls.append(2)).remove()
    y.backward()
    assert calls == [] and x.grad.item() == 3.0


@pytest.mark.parametrize("L", LIBS, ids=lambda L: L.__name__)
def test_a_grad_call_does_not_run_the_leaf_accumulators(L):
    x = L.tensor(2.0, requires_grad=True)
    y = x * 3
    calls = []
    y.grad_fn.next_functions[0][0].register_prehook(lambda go: calls.append("acc"))
    y.grad_fn.register_prehook(lambda go: calls.append("mul"))
    (g,) = L.autograd.grad(y, x)
    assert g.item() == 3.0 and calls == ["mul"] and x.grad is None


def bad_hook_errors(L):
    x = L.tensor([1.0, 2.0], requires_grad=True)
    found = []
    for register in (
        lambda n: n.register_prehook(lambda go: go[0]),
        lambda n: n.register_prehook(lambda go: (go[0], go[0])),
        lambda n: n.register_hook(lambda gi, go: gi[0]),
        lambda n: n.register_hook(lambda gi, go: (gi[0], gi[0])),
    ):
        z = x * 3
        register(z.grad_fn)
        with pytest.raises((TypeError, RuntimeError)) as e:
            z.sum().backward()
        found.append((type(e.value).__name__, str(e.value)))
    return found, x.grad


def test_a_hook_returning_the_wrong_thing_gets_torchs_error():
    found, grad = bad_hook_errors(gradbook)
    assert found == [
        ("TypeError", "expected tuple, but hook returned 'Tensor'"),
        ("RuntimeError", "hook '<lambda>' has returned an incorrect number of values (got 2, but expected 1)"),
        ("TypeError", "expected tuple, but hook returned 'Tensor'"),
        ("RuntimeError", "can't replace a None gradient with a non-None value"),
    ]
    assert grad is None  # the refused passes never reached x's AccumulateGrad


@oracle
def test_bad_hook_errors_match_torch():
    assert bad_hook_errors(gradbook)[0] == bad_hook_errors(torch)[0]


@pytest.mark.parametrize("L", LIBS, ids=lambda L: L.__name__)
def test_built_in_nodes_are_graph_nodes_but_not_autograd_functions(L):
    class Square(L.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return 2 * x * g

    x = L.tensor(2.0, requires_grad=True)
    mul, custom = (x * x).grad_fn, Square.apply(x).grad_fn
    acc = mul.next_functions[0][0]
    assert [isinstance(n, L.autograd.Function) for n in (mul, custom, acc)] == [False, False, False]
    assert [isinstance(n, L.autograd.graph.Node) for n in (mul, custom, acc)] == [True, True, True]


@pytest.mark.parametrize("L", LIBS, ids=lambda L: L.__name__)
def test_saved_tensors_read_through_saved_attributes_and_raise_once_freed(L):
    x = L.tensor([1.0, 2.0], requires_grad=True)
    y = x.exp()
    np.testing.assert_array_equal(y.grad_fn._saved_result.detach().numpy(), y.detach().numpy())
    y.sum().backward()
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
        _ = y.grad_fn._saved_result
    s = x.sum(0)
    assert s.grad_fn._saved_dim == (0,) and s.grad_fn._saved_keepdim is False

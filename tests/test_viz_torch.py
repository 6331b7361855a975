"""gradbook.viz on real PyTorch graphs: one program, run on gradbook and on torch, gives the same
drawing (its DOT, "torch" read as "gradbook") and the same recording (steps, rules, contributions,
fan-in sums, leaf grads, freed tensors); and every contribution recorded on a torch graph is what
torch's own node hooks see on that edge. Skipped without torch.

Left out of the equality, because the graphs legitimately differ (README, "Deliberate
differences"): ``a @ b`` on batches (gradbook records one BmmBackward0, torch expands and
reshapes around its bmm; gradbook has no ``bmm`` function), and a Python int used as a constant
(torch saves ``tensor(3)`` as an int64 wrapped number, gradbook saves ``3.`` in the op's dtype;
floats print alike).
"""

from __future__ import annotations

import numpy as np
import pytest

import gradbook
from gradbook.viz import GraphModel, animate, draw, history, record_backward
from gradbook.viz.model import tensor_names

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.oracle

RNG = np.random.default_rng(13)
X = RNG.standard_normal((2, 3)).round(2)
W = RNG.standard_normal((4, 3)).round(2)
B = RNG.standard_normal(4).round(2)
V = RNG.standard_normal(3).round(2)
P = (RNG.random((2, 3)) + 0.5).round(2)


def elementwise(lib):
    x = lib.tensor(X[0], requires_grad=True)
    w = lib.tensor(V, requires_grad=True)
    y = (x.exp() * w.sin() / (w.tanh() + 2.0) - x.sigmoid().neg() + (x * w).relu() + w.abs().sqrt().log1p()).sum()
    return {"x": x, "w": w, "y": y}


def broadcasting(lib):
    x = lib.tensor(X.reshape(6, 1)[:3], requires_grad=True)  # (3, 1)
    w = lib.tensor(B, requires_grad=True)  # (4,)
    c = lib.tensor(0.5, requires_grad=True)
    y = ((x + w) * c - w / 2.0).mean()
    return {"x": x, "w": w, "c": c, "y": y}


def reductions(lib):
    x = lib.tensor(P, requires_grad=True)
    s = x.sum(dim=1)
    m = x.mean(dim=0, keepdim=True)
    y = s.prod() + (x - m).pow(2).sum() + x.max() + x.max(dim=1).values.sum() + x.var() + x.std(dim=0).sum()
    return {"x": x, "s": s, "m": m, "y": y}


def linear(lib):
    net = lib.nn.Linear(3, 4)
    with lib.no_grad():
        net.weight.copy_(lib.tensor(W, dtype=lib.float32))
        net.bias.copy_(lib.tensor(B, dtype=lib.float32))
    x = lib.tensor(X, dtype=lib.float32)
    out = net(x).tanh()
    y = lib.nn.functional.mse_loss(out, lib.zeros(2, 4))
    return {"net": net, "x": x, "out": out, "y": y}


def pow_tensor_exponent(lib):
    x = lib.tensor(P[0], requires_grad=True)
    e = lib.tensor(V, requires_grad=True)
    y = (x**e).sum() + (2.0**e).sum() + (x**3.0).sum()
    return {"x": x, "e": e, "y": y}


def matrix_products(lib):
    a = lib.tensor(X, requires_grad=True)  # (2, 3)
    m = lib.tensor(W.T, requires_grad=True)  # (3, 4)
    v = lib.tensor(V, requires_grad=True)
    b = lib.tensor(B, requires_grad=True)
    y = lib.mm(a, m).sum() + lib.mv(a, v).sum() + lib.dot(v, v) + (a @ m + b).sum()
    return {"a": a, "m": m, "v": v, "b": b, "y": y}


def fan_in(lib):
    x = lib.tensor(2.0, requires_grad=True)
    y = x * x + 3.0 * x
    return {"x": x, "y": y}


def retain_grad(lib):
    x = lib.tensor(X[0], requires_grad=True)
    w = lib.tensor(V, requires_grad=True)
    h = (x * w).tanh()
    h.retain_grad()
    y = (h * x + 2.0 * h).sum()
    return {"x": x, "w": w, "h": h, "y": y}


def hooks(lib):
    x = lib.tensor(X[0], requires_grad=True)
    h = x.exp()
    h.register_hook(lambda g: g * 2)  # doubles what h's node receives
    x.register_hook(lambda g: g + 1)
    y = (h * h).sum()
    y.grad_fn.register_prehook(lambda go: (go[0] * 3,))
    return {"x": x, "h": h, "y": y}


def custom_function(lib):
    class Square(lib.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            ctx.save_for_backward(a)
            return a * a

        @staticmethod
        def backward(ctx, g):
            (a,) = ctx.saved_tensors
            return 2 * a * g

    class SplitScale(lib.autograd.Function):
        @staticmethod
        def forward(ctx, a, b):
            ctx.save_for_backward(a)  # torch reports even an empty ctx freed after backward; gradbook does not
            return a * 2, b * 3

        @staticmethod
        def backward(ctx, ga, gb):
            return ga * 2, gb * 3

    x = lib.tensor(V, requires_grad=True)
    w = lib.tensor(V[::-1].copy(), requires_grad=True)
    p, q = SplitScale.apply(x, w)
    y = Square.apply(x).sum() + (p * q).sum()
    return {"x": x, "w": w, "p": p, "q": q, "y": y}


PROGRAMS = [
    elementwise,
    broadcasting,
    reductions,
    linear,
    pow_tensor_exponent,
    matrix_products,
    fan_in,
    retain_grad,
    hooks,
    custom_function,
]


def both(program):
    return program(gradbook), program(torch)


def same_source(ours, theirs):
    a, b = ours.source, theirs.source.replace("torch", "gradbook")
    assert a.splitlines() == b.splitlines()


@pytest.mark.parametrize("program", PROGRAMS, ids=lambda p: p.__name__)
def test_torch_graph_draws_as_the_gradbook_graph(program):
    ours, theirs = both(program)
    same_source(draw(ours["y"], names=ours, stacklevel=0), draw(theirs["y"], names=theirs, stacklevel=0))


@pytest.mark.parametrize("program", PROGRAMS, ids=lambda p: p.__name__)
def test_after_backward_the_drawings_agree_too(program):
    """grads filled in, saved tensors drawn freed."""
    ours, theirs = both(program)
    ours["y"].backward()
    theirs["y"].backward()
    same_source(draw(ours["y"], names=ours, stacklevel=0), draw(theirs["y"], names=theirs, stacklevel=0))


def steps_as_data(recording):
    def array(a):
        return None if a is None else (a.dtype.name, a.shape, a.tolist())

    return [
        (
            s.index,
            s.key,
            s.name,
            s.kind,
            array(s.upstream),
            [(e.slot, e.target, e.rule, array(e.contribution)) for e in s.edges],
            [(f.target, array(f.before), array(f.added), array(f.total)) for f in s.sums],
            array(s.grad_before),
            array(s.grad_after),
            s.freed,
        )
        for s in recording.steps
    ]


def close(a, b):
    """Equal structure; numbers equal to float32 rounding (torch's and NumPy's exp, sin... may
    differ in the last bit)."""
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(close(x, y) for x, y in zip(a, b))
    if isinstance(a, float) and isinstance(b, float):
        return bool(np.isclose(a, b, rtol=1e-5, atol=1e-6))
    return a == b


@pytest.mark.parametrize("program", PROGRAMS, ids=lambda p: p.__name__)
def test_record_backward_gives_the_same_steps_on_torch(program):
    ours, theirs = both(program)
    a = record_backward(ours["y"], names=ours, stacklevel=0)
    b = record_backward(theirs["y"], names=theirs, stacklevel=0)
    assert [n["name"] for n in a.nodes] == [n["name"] for n in b.nodes]
    assert [n["rules"] for n in a.nodes] == [n["rules"] for n in b.nodes]
    sa, sb = steps_as_data(a), steps_as_data(b)
    assert [s[:4] for s in sa] == [s[:4] for s in sb]  # same nodes, run in the same order
    for x, y in zip(sa, sb):
        assert close(x, y), f"step {x[0]} ({x[2]}):\n{x}\n{y}"
    for (leaf, (_, after)), (leaf_t, (_, after_t)) in zip(a.leaf_grads().items(), b.leaf_grads().items()):
        assert leaf == leaf_t
        np.testing.assert_allclose(after, tensor_names(theirs, 0)[leaf].grad.numpy(), rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(after, after_t, rtol=1e-5, atol=1e-6)


def watched(root):
    """torch's own node hooks on every node: what each node received and sent, per call."""
    seen, stack, nodes = set(), [root.grad_fn], []
    while stack:
        fn = stack.pop()
        if fn is None or fn in seen:
            continue
        seen.add(fn)
        nodes.append(fn)
        stack.extend(f for f, _ in fn.next_functions)
    sent: dict = {}

    def hook(fn):
        def keep(grad_inputs, grad_outputs):
            sent[fn] = [g if g is None else g.clone() for g in grad_inputs]

        return keep

    handles = [fn.register_hook(hook(fn)) for fn in nodes if fn.name() != "torch::autograd::AccumulateGrad"]
    return sent, handles


@pytest.mark.parametrize("program", PROGRAMS, ids=lambda p: p.__name__)
def test_each_contribution_is_what_torchs_hooks_see_on_that_edge(program):
    names = program(torch)
    sent, handles = watched(names["y"])
    rec = record_backward(names["y"], names=names, stacklevel=0)
    for handle in handles:
        handle.remove()
    model = GraphModel.from_roots(names["y"])
    checked = 0
    for step in rec.steps:
        if step.kind != "op":
            continue
        grads = sent[model[step.key].node]
        assert len(grads) == len(step.edges)
        for flow, g in zip(step.edges, grads):
            if flow.contribution is None:
                assert g is None or flow.target is None
            else:
                np.testing.assert_array_equal(flow.contribution, g.numpy())
                checked += 1
    assert checked >= 2


def test_a_refused_second_backward_is_recorded_on_torch_at_the_freed_node():
    for lib in (gradbook, torch):
        x = lib.tensor(2.0, requires_grad=True)
        y = x * x
        record_backward(y, stacklevel=0)
        with pytest.raises(RuntimeError) as refused:
            record_backward(y, stacklevel=0)
        rec = refused.value.recording
        assert (rec.error.key, rec.error.name) == ("n0", "MulBackward0")
        assert rec.error.message.startswith("Trying to backward through the graph a second time")
        assert x.grad.item() == 4.0  # a refused backward changes nothing


def test_the_seed_lesson_on_torch_accumulates_4_8_12_then_14():
    x = torch.tensor(2.0, requires_grad=True)
    recordings = [record_backward(x * x, names={"x": x}, stacklevel=0) for _ in range(3)]
    recordings.append(record_backward(2.0 * x, names={"x": x}, stacklevel=0))
    assert [row["after"] for row in history(recordings)] == [4.0, 8.0, 12.0, 14.0]
    assert len(animate(recordings[0])) == 3


def test_names_follow_the_same_rule_on_torch():
    x = torch.tensor(2.0, requires_grad=True)
    alias = x  # noqa: F841  (bound second: x keeps its name)
    y = x * x
    assert "<B>x</B>" in draw(y).source and "alias" not in draw(y).source
    assert record_backward(y).node("n1")["name"] == "x"


def test_mixing_gradbook_and_torch_tensors_is_refused():
    with pytest.raises(TypeError, match="both gradbook and torch tensors"):
        draw(gradbook.ones(1, requires_grad=True) * 2, torch.ones(1, requires_grad=True) * 2)
    with pytest.raises(TypeError, match="takes tensors"):
        draw([1.0])

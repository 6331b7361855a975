"""record_backward: the seed's passes, a fan-in graph and a refused pass, derived by hand."""

import numpy as np
import pytest

import gradbook as torch
from gradbook.viz import GraphModel, record_backward

FREED = "Trying to backward through the graph a second time"


def test_seed_example_1_recorded_call_by_call():
    x = torch.tensor(2, dtype=torch.float, requires_grad=True)
    grads = []
    for _ in range(3):
        y = x * x
        rec = record_backward(y)
        mul, acc = rec.steps
        assert (mul.name, acc.name) == ("MulBackward0", "AccumulateGrad")
        assert mul.upstream == 1.0
        # upstream × local = contribution: ∂(x·x)/∂self = other = 2, and the same for the other slot
        assert [(e.rule, float(e.contribution)) for e in mul.edges] == [
            ("∂out/∂self = other", 2.0),
            ("∂out/∂other = self", 2.0),
        ]
        assert mul.edges[0].target == mul.edges[1].target == acc.key
        # the two paths meet at x's AccumulateGrad: 2 + 2
        (fan_in,) = mul.sums
        assert (float(fan_in.before), float(fan_in.added), float(fan_in.total)) == (2.0, 2.0, 4.0)
        assert acc.upstream == 4.0
        assert mul.freed == ("self", "other")
        grads.append((None if acc.grad_before is None else float(acc.grad_before), float(acc.grad_after)))
        assert rec.leaf_grads()["x"][1] == x.grad.item()
    z = 2 * x
    rec = record_backward(z)
    mul, acc = rec.steps
    assert mul.edges[1].target is None and mul.edges[1].contribution is None  # the constant 2
    assert float(mul.edges[0].contribution) == 2.0
    grads.append((float(acc.grad_before), float(acc.grad_after)))
    assert grads == [(None, 4.0), (4.0, 8.0), (8.0, 12.0), (12.0, 14.0)]


def test_fan_in_graph_in_torch_order():
    x = torch.tensor(2.0, requires_grad=True)
    y = x * x + 3 * x  # dy/dx = 2x + 3 = 7
    rec = record_backward(y)
    assert [s.name for s in rec.steps] == ["AddBackward0", "MulBackward0", "MulBackward0", "AccumulateGrad"]
    add, mul3, mulx, acc = rec.steps
    assert [float(e.contribution) for e in add.edges] == [1.0, 1.0]
    assert mul3.key == GraphModel.from_roots(y).key_of(y.grad_fn.next_functions[1][0])  # 3*x runs first
    assert float(mul3.edges[0].contribution) == 3.0 and not mul3.sums
    assert [(float(f.before), float(f.added), float(f.total)) for f in mulx.sums] == [(3.0, 2.0, 5.0), (5.0, 2.0, 7.0)]
    assert (acc.grad_before, float(acc.grad_after)) == (None, 7.0)
    assert x.grad.item() == 7.0


def test_recording_does_what_backward_does():
    def run(record):
        w = torch.tensor([1.0, -2.0, 0.5], requires_grad=True)
        b = torch.tensor(0.3, requires_grad=True)
        out = ((w * w).sum() + b).tanh() * (w.exp() + b).mean()
        record_backward(out) if record else out.backward()
        assert no_hooks_left(out)
        return w.grad.numpy().copy(), b.grad.numpy().copy()

    for ours, plain in zip(run(True), run(False)):
        np.testing.assert_array_equal(ours, plain)


def no_hooks_left(y):
    """The recording took its node hooks off again (checked on the engine's private dicts)."""
    nodes, stack = [], [y.grad_fn]
    while stack:
        node = stack.pop()
        if node is not None and node not in nodes:
            nodes.append(node)
            stack.extend(fn for fn, _ in node.next_functions)
    return all(not node._pre_hooks and not node._post_hooks for node in nodes)


def test_second_backward_is_refused_at_the_freed_node_and_recorded():
    x = torch.tensor(2.0, requires_grad=True)
    y = x * x
    record_backward(y)
    with pytest.raises(RuntimeError, match=FREED) as e:
        record_backward(y)
    rec = e.value.recording
    assert rec.error.name == "MulBackward0" and rec.error.key == rec.roots[0]
    assert rec.steps == [] and x.grad.item() == 4.0
    assert rec.node(rec.roots[0])["freed"] is True
    assert no_hooks_left(y)


def test_non_scalar_error_is_recorded_without_a_node():
    x = torch.tensor([2.0, 3.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="grad can be implicitly created only for scalar outputs") as e:
        record_backward(x * x)
    assert e.value.recording.error.key is None


def test_retain_graph_frees_nothing_and_gradient_is_recorded():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x * x
    rec = record_backward(y, torch.tensor([1.0, -1.0]), retain_graph=True)
    assert rec.steps[0].freed == () and rec.retain_graph
    np.testing.assert_array_equal(rec.steps[0].upstream, [1.0, -1.0])
    rec2 = record_backward(y, torch.ones(2))
    np.testing.assert_array_equal(rec2.steps[-1].grad_before, [2.0, -4.0])
    np.testing.assert_array_equal(rec2.steps[-1].grad_after, [4.0, 0.0])


def test_snapshot_names_leaves_and_holds_plain_data():
    w = torch.tensor([1.0, 2.0], requires_grad=True)
    loss = (w * 3).sum()
    rec = record_backward(loss, names={"weights": w})
    leaf = next(n for n in rec.nodes if n["kind"] == "leaf")
    assert leaf["name"] == "weights" and leaf["shape"] == (2,)
    root = rec.node(rec.roots[0])
    assert root["name"] == "loss" and float(root["data"]) == 9.0
    for step in rec.steps:
        assert isinstance(step.upstream, np.ndarray)
        for e in step.edges:
            assert e.contribution is None or isinstance(e.contribution, np.ndarray)


def test_history_of_the_seed_calls_and_a_refused_one():
    from gradbook.viz import history

    x = torch.tensor(2, dtype=torch.float, requires_grad=True)
    recs = [record_backward(x * x) for _ in range(3)]
    recs.append(record_backward(2 * x))
    y = x * x
    recs.append(record_backward(y))
    with pytest.raises(RuntimeError) as e:
        record_backward(y)
    recs.append(e.value.recording)
    rows = history(recs)
    assert [(r["call"], r["after"], r["added"]) for r in rows if r["leaf"]] == [
        (1, 4.0, 4.0),
        (2, 8.0, 4.0),
        (3, 12.0, 4.0),
        (4, 14.0, 2.0),
        (5, 18.0, 4.0),
    ]
    assert rows[-1]["call"] == 6 and rows[-1]["error"].startswith(FREED)


def test_draw_and_record_backward_name_an_aliased_leaf_alike():
    """The naming rule (gradbook.viz.model.tensor_names): names= first, then the caller's
    variables, and of several variables holding one tensor, the one bound first."""
    from gradbook.viz import draw

    x = torch.tensor(2.0, requires_grad=True)
    alias = x  # noqa: F841  (bound after x: x keeps its name)
    y = x * x
    assert "<B>x</B>" in draw(y).source and "alias" not in draw(y).source
    rec = record_backward(y, retain_graph=True)
    assert rec.node("n1")["name"] == "x" and rec.node("n0")["name"] == "y"
    assert record_backward(y, names={"alias": x}).node("n1")["name"] == "alias"  # names= wins


def test_fan_in_sums_are_per_output_of_a_node_with_several():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    a, b = (x * 1).split(1)  # one SplitBackward0 node, two outputs
    y = (a * 2 + b * 3 + a).sum()
    recording = record_backward(y)
    sums = [f for step in recording.steps for f in step.sums]
    assert len(sums) == 1  # only output 0 (a) has two paths; b's 3 is not added to a's
    assert sorted([sums[0].before.item(), sums[0].added.item()]) == [1.0, 2.0] and sums[0].total.item() == 3.0
    assert x.grad.tolist() == [3.0, 3.0]

"""The chain-rule ledger: each input of each op shows its own rule text, taken from the op table's
``rules`` (data, not docstrings), on gradbook's graphs and on torch's."""

import inspect

import numpy as np
import pytest

import gradbook
from gradbook import ops
from gradbook.viz import record_backward
from gradbook.viz.library import op_class
from gradbook.viz.record import local_rule
from gradbook.widgets.backward_player import ledger_frames

OP_CLASSES = {
    cls.__name__: cls
    for cls in vars(ops).values()
    if inspect.isclass(cls) and issubclass(cls, ops.Op) and cls is not ops.Op
}


def test_the_viz_op_table_holds_every_op_class_of_both_modules():
    for name, cls in OP_CLASSES.items():
        node = cls.__new__(cls)
        assert op_class(node) is cls

        foreign = type("Node", (), {"name": lambda self, torch_name=name: torch_name})()  # a torch node
        assert op_class(foreign) is cls


@pytest.mark.parametrize("name", sorted(OP_CLASSES))
def test_every_input_of_every_op_shows_its_own_rule(name):
    cls = OP_CLASSES[name]
    node = cls.__new__(cls)
    shown = [local_rule(node, slot) for slot in range(len(cls.inputs))]
    # one text per input, in order, taken from the table (a rule in alpha also says the node's alpha)
    alpha = {True: " = -1", False: " = 1"}  # the table's default alpha, 1
    expected = [rule + (alpha[rule.endswith("-alpha")] if rule.endswith("alpha") else "") for rule in cls.rules]
    assert shown == [rule.replace("= beta,", "= beta = 1,") for rule in expected]  # and beta, addmm's
    assert len(set(shown)) == len(shown)  # distinct where the inputs differ
    doc = " ".join((cls.__doc__ or "").split())
    for input_name, text in zip(cls.inputs, shown):
        assert input_name in text
        assert text != doc and text not in doc and doc not in text, f"{name}: {text!r} is its docstring"


def linear_program(lib):
    net = lib.nn.Linear(3, 2)
    x = lib.ones(4, 3)
    e = lib.tensor([0.5, 1.5, 2.0], requires_grad=True)
    b = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    v = lib.tensor([1.0, -1.0], requires_grad=True)
    m = lib.tensor([[1.0, 2.0, 0.5], [0.0, 1.0, -1.0]], requires_grad=True)
    y = net(x).sum() + (b**e).sum() + (m @ b).sum() + (m.T @ v).sum() + (m @ m.T).sum()
    return y


def rules_shown(rec):
    return {(rec.node(s.key)["label"], e.slot): e.rule for s in rec.steps if s.kind == "op" for e in s.edges}


@pytest.mark.parametrize("lib_name", ["gradbook", "torch"])
def test_addmm_pow_mm_and_mv_show_one_rule_per_input(lib_name):
    lib = gradbook if lib_name == "gradbook" else pytest.importorskip("torch")
    rec = record_backward(linear_program(lib), stacklevel=0)
    shown = rules_shown(rec)
    for name in ("AddmmBackward0", "PowBackward1", "MmBackward0", "MvBackward0"):
        texts = [text for (label, _), text in sorted(shown.items()) if label == name]
        assert texts == [text.replace("= beta,", "= beta = 1,") for text in ops.__dict__[name].rules], name
        assert len(set(texts)) == len(texts)
    assert shown[("AddmmBackward0", 0)] == "∂out/∂self = beta = 1, summed over the batch"
    assert shown[("PowBackward1", 1)].startswith("∂out/∂exponent")
    frame = "".join(ledger_frames(rec))
    assert "nn.Linear" not in frame and "out = self + mat1 @ mat2" not in frame  # no docstring


def test_each_ledger_row_shows_local_times_upstream_equals_contribution():
    x = gradbook.tensor(2.0, requires_grad=True)
    rec = record_backward(x * 3.0, stacklevel=0)
    step = ledger_frames(rec)[1]
    assert "local <code>∂out/∂self = other = 3.</code><br><code>1.</code> × local = <code>3.</code>" in step
    np.testing.assert_array_equal(rec.steps[0].edges[0].contribution, 3.0)

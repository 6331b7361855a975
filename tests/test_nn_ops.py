"""The ops of gradbook.nn.functional (in gradbook/ops/, by family), one line per program: it records the op,
gradcheck (finite differences in float64) agrees with its rules, and, with torch installed,
values, dtype, the graph's node names and the gradients are torch's.

The lines are those of tests/test_ops_table.py (same ``line`` helper); test_ops_table fails until every op
class has a line in one of the two.
"""

import inspect

import numpy as np
import pytest
from test_ops_table import inputs, line, node_names

import gradbook


def F(T):
    return T.nn.functional


def const(T, values):
    """A float64 constant that needs no gradient (targets, running statistics, weights)."""
    return T.tensor(values, dtype=T.float64)


class Doubler:
    """A module with a full backward hook: its input and output pass through BackwardHookFunctionBackward."""

    @staticmethod
    def run(T, a):
        class Double(T.nn.Module):
            def forward(self, x):
                return x * 2

        m = Double()
        m.register_full_backward_hook(lambda module, gi, go: None)
        return m(a)


TABLE = [
    # activations
    line("LeakyReluBackward0", lambda T, a: F(T).leaky_relu(a, 0.1), (5,)),
    line("AddBackward1", lambda T, a: F(T).rms_norm(a, (4,), eps=0.01), (3, 4)),  # rms_norm adds eps in ATen
    line("ConstantPadNdBackward0", lambda T, a: F(T).pad(a, (1, 2, -1, 0), value=0.5), (2, 3, 4)),
    line("ReflectionPad1DBackward0", lambda T, a: F(T).pad(a, (2, 1), mode="reflect"), (2, 3, 5)),
    line("ReflectionPad2DBackward0", lambda T, a: F(T).pad(a, (1, 1, 2, 0), mode="reflect"), (1, 2, 4, 5)),
    line("ReflectionPad3DBackward0", lambda T, a: F(T).pad(a, (1, 0, 1, 1, 2, 1), mode="reflect"), (1, 2, 3, 4, 4)),
    line("ReplicationPad1DBackward0", lambda T, a: F(T).pad(a, (2, 1), mode="replicate"), (2, 3, 5)),
    line("ReplicationPad2DBackward0", lambda T, a: F(T).pad(a, (1, 3, 2, 0), mode="replicate"), (1, 2, 4, 5)),
    line("ReplicationPad3DBackward0", lambda T, a: F(T).pad(a, (1, 0, 2, 1, 0, 1), mode="replicate"), (1, 2, 3, 4, 4)),
    line("MulBackward1", lambda T, a: F(T).cross_entropy(a, T.tensor([1, 0, 3]), label_smoothing=0.1), (3, 4)),
    line("DivBackward1", lambda T, a: F(T).cross_entropy(a, T.full((3, 4), 0.25, dtype=T.float64)), (3, 4)),
    line("GeluBackward0", lambda T, a: F(T).gelu(a), (5,)),
    line("GeluBackward0", lambda T, a: F(T).gelu(a, approximate="tanh"), (2, 3)),
    line("ConvolutionBackward0", lambda T, a, w, b: F(T).conv2d(a, w, b), (2, 3, 5, 5), (4, 3, 3, 3), (4,)),
    line(
        "ConvolutionBackward0",  # transposed
        lambda T, a, w, b: F(T).conv_transpose2d(a, w, b, stride=2, padding=1, output_padding=1, groups=2),
        (2, 4, 3, 3),
        (4, 1, 3, 3),
        (2,),
    ),
    line(
        "ConvolutionBackward0", lambda T, a, w: F(T).conv_transpose1d(a, w, stride=2, dilation=2), (2, 3, 4), (3, 2, 3)
    ),
    line(
        "ConvolutionBackward0",
        lambda T, a, w: F(T).conv2d(a, w, stride=2, padding=(1, 2), dilation=(2, 1), groups=2),
        (1, 4, 7, 6),
        (2, 2, 2, 3),
    ),
    line("ConvolutionBackward0", lambda T, a, w: F(T).conv2d(a, w, padding="same"), (1, 2, 4, 4), (3, 2, 3, 1)),
    line(
        "ConvolutionBackward0", lambda T, a, w, b: F(T).conv1d(a, w, b, stride=2, padding=1), (2, 3, 9), (2, 3, 3), (2,)
    ),
    line("MaxPool2DWithIndicesBackward0", lambda T, a: F(T).max_pool2d(a, 2), (2, 3, 4, 6)),
    line(
        "MaxPool2DWithIndicesBackward0",
        lambda T, a: F(T).max_pool2d(a, 3, stride=2, padding=1, dilation=1),
        (1, 2, 7, 5),
    ),
    line(
        "MaxPool2DWithIndicesBackwardBackward0",  # max_pool2d's gradient under create_graph
        lambda T, a, g: T.autograd.grad(F(T).max_pool2d(a, 3, stride=1, padding=1), a, g, create_graph=True)[0],
        (1, 2, 4, 5),
        (1, 2, 4, 5),
    ),
    line("MaxPool2DWithIndicesBackward0", lambda T, a: F(T).max_pool2d(a, 2), (3, 4, 6)),  # no batch dimension
    line("AvgPool2DBackward0", lambda T, a: F(T).avg_pool2d(a, 2), (2, 3, 4, 6)),
    line("AvgPool2DBackward0", lambda T, a: F(T).avg_pool2d(a, (3, 2), stride=(2, 1), padding=1), (1, 2, 5, 5)),
    line("NativeLayerNormBackward0", lambda T, a, w, b: F(T).layer_norm(a, (3,), w, b), (2, 3), (3,), (3,)),
    line("NativeLayerNormBackward0", lambda T, a: F(T).layer_norm(a, (2, 3)), (4, 2, 3)),
    line("SoftplusBackward0", lambda T, a: F(T).softplus(a * 12, beta=2.0, threshold=10.0), (8,)),
    line("SiluBackward0", lambda T, a: F(T).silu(a), (5,)),
    line("MishBackward0", lambda T, a: F(T).mish(a), (5,)),
    line("EluBackward0", lambda T, a: F(T).elu(a, alpha=0.7), (5,)),
    line("EluBackward1", lambda T, a: F(T).elu(a * 1, alpha=0.7, inplace=True), (5,)),  # elu_: reads the result
    line("LeakyReluBackward1", lambda T, a: F(T).leaky_relu(a * 1, 0.1, inplace=True), (5,)),
    line("HardtanhBackward0", lambda T, a: F(T).hardtanh(a * 2, -1.5, 0.5), (6,)),
    line("HardtanhBackward0", lambda T, a: F(T).relu6(a * 5), (6,)),
    line("LogSigmoidBackward0", lambda T, a: F(T).logsigmoid(a * 5), (5,)),
    # normalisation and lookup
    line(
        "NativeBatchNormBackward0",
        lambda T, x, w, b: F(T).batch_norm(x, None, None, w, b, training=True),
        (5, 3),
        (3,),
        (3,),
    ),
    line(
        "NativeBatchNormBackward0",  # (N, C, L), statistics over N and L
        lambda T, x, w, b: F(T).batch_norm(x, None, None, w, b, training=True, eps=0.1),
        (4, 3, 2),
        (3,),
        (3,),
    ),
    line(
        "NativeBatchNormBackward0",  # eval: the running statistics are constants
        lambda T, x, w, b: F(T).batch_norm(x, const(T, [0.5, -1.0]), const(T, [2.0, 0.5]), w, b, training=False),
        (4, 2),
        (2,),
        (2,),
    ),
    line("NativeBatchNormBackward0", lambda T, x: F(T).batch_norm(x, None, None, training=True), (3, 2)),  # no affine
    line("EmbeddingBackward0", lambda T, w: F(T).embedding(T.tensor([[0, 2], [2, 3]]), w), (4, 3)),
    # losses (the targets require grad too: torch differentiates them)
    line(
        "BinaryCrossEntropyBackward0",
        lambda T, a, t: F(T).binary_cross_entropy(a.sigmoid(), t.sigmoid()),
        (2, 3),
        (2, 3),
    ),
    line(
        "BinaryCrossEntropyBackward0",
        lambda T, a, t: F(T).binary_cross_entropy(
            a.sigmoid(), t.sigmoid(), weight=const(T, [0.5, 1.0, 2.0]), reduction="sum"
        ),
        (2, 3),
        (2, 3),
    ),
    line(
        "BinaryCrossEntropyBackward0",
        lambda T, a, t: F(T).binary_cross_entropy(a.sigmoid(), t.sigmoid(), reduction="none"),
        (4,),
        (4,),
    ),
    line(
        "BinaryCrossEntropyWithLogitsBackward0",
        lambda T, a, t: F(T).binary_cross_entropy_with_logits(a * 3, t.sigmoid()),
        (2, 3),
        (2, 3),
    ),
    line(
        "BinaryCrossEntropyWithLogitsBackward0",
        lambda T, a, t: F(T).binary_cross_entropy_with_logits(
            a, t.sigmoid(), weight=const(T, [[2.0], [0.5]]), pos_weight=const(T, [1.0, 3.0, 0.25]), reduction="none"
        ),
        (2, 3),
        (2, 3),
    ),
    line("SmoothL1LossBackward0", lambda T, a, t: F(T).smooth_l1_loss(a, t), (2, 3), (2, 3)),
    line("SmoothL1LossBackward0", lambda T, a, t: F(T).smooth_l1_loss(a, t, beta=0.5, reduction="none"), (6,), (6,)),
    line("HuberLossBackward0", lambda T, a, t: F(T).huber_loss(a, t), (2, 3), (2, 3)),
    line("HuberLossBackward0", lambda T, a, t: F(T).huber_loss(a, t, delta=0.7, reduction="sum"), (6,), (6,)),
    # module hooks
    line("BackwardHookFunctionBackward", Doubler.run, (3,)),
]

OP_CLASSES = {
    name: cls
    for name, cls in vars(gradbook.ops).items()
    if inspect.isclass(cls) and issubclass(cls, gradbook.ops.Op) and name in {p.values[0] for p in TABLE}
}


@pytest.mark.parametrize("op, program, shapes, positive, torch_graph, eps", TABLE)
def test_the_line_records_its_op_and_passes_gradcheck(op, program, shapes, positive, torch_graph, eps):
    xs = inputs(gradbook, shapes, positive)
    out = program(gradbook, *xs)
    assert op in node_names(out)
    assert gradbook.autograd.gradcheck(lambda *a: program(gradbook, *a), xs, eps=eps, atol=max(1e-5, eps))


@pytest.mark.parametrize("op, program, shapes, positive, torch_graph, eps", TABLE)
def test_the_rules_differentiate_again_under_create_graph(op, program, shapes, positive, torch_graph, eps):
    """Second derivatives: the gradient, recorded under create_graph, checked by finite differences."""
    xs = inputs(gradbook, shapes, positive)
    weights = gradbook.tensor(np.random.default_rng(1).standard_normal(program(gradbook, *xs).shape))

    def gradient(*a):
        out = (program(gradbook, *a) * weights).sum()
        return gradbook.autograd.grad(out, a, create_graph=True)[0]

    assert gradbook.autograd.gradcheck(gradient, xs, eps=1e-6, atol=1e-4)


@pytest.mark.parametrize("name", sorted(OP_CLASSES))
def test_each_input_has_one_rule_with_its_own_text(name):
    cls = OP_CLASSES[name]
    texts = list(cls.rules)
    assert len(texts) == len(cls.inputs)
    for input_name, text in zip(cls.inputs, texts):
        assert input_name in text and text.startswith("∂") and len(text) <= 70, text
        assert text not in (cls.__doc__ or "")


def test_float32_inputs_give_float32_results_as_torch():
    x = gradbook.tensor([-1.5, 0.2, 3.0], requires_grad=True)
    for out in (
        gradbook.nn.functional.gelu(x),
        gradbook.nn.functional.leaky_relu(x),
        gradbook.nn.functional.smooth_l1_loss(x, gradbook.zeros(3)),
        gradbook.nn.functional.huber_loss(x, gradbook.zeros(3, dtype=gradbook.float64)),  # as torch: float32
        gradbook.nn.functional.binary_cross_entropy_with_logits(x, gradbook.ones(3)),
    ):
        assert out.dtype == gradbook.float32
        out.sum().backward()
        assert x.grad.dtype == gradbook.float32


def test_the_padding_row_of_an_embedding_gets_no_gradient():
    """By design not the slope of the forward (so not in the gradcheck table): row padding_idx
    is looked up but never learns."""
    w = gradbook.ones(4, 2, requires_grad=True)
    out = gradbook.nn.functional.embedding(gradbook.tensor([0, 2, 2, 3]), w, padding_idx=2)
    (out * gradbook.tensor([[1.0], [2.0], [3.0], [4.0]])).sum().backward()
    assert w.grad.tolist() == [[1.0, 1.0], [0.0, 0.0], [0.0, 0.0], [4.0, 4.0]]


def test_hand_derived_values():
    """Values worked out by hand from the formulas in the docstrings."""
    F = gradbook.nn.functional
    x = gradbook.tensor([-2.0, 0.5, 3.0], dtype=gradbook.float64, requires_grad=True)
    zero = gradbook.zeros(3, dtype=gradbook.float64)
    F.leaky_relu(x, 0.1).sum().backward()
    assert x.grad.tolist() == [0.1, 1.0, 1.0]
    assert F.smooth_l1_loss(x, zero, reduction="none").tolist() == [1.5, 0.125, 2.5]
    assert F.huber_loss(x, zero, reduction="none", delta=2.0).tolist() == [2.0, 0.125, 4.0]
    bce = F.binary_cross_entropy(gradbook.tensor([0.5, 0.0]), gradbook.tensor([1.0, 1.0]), reduction="none")
    assert bce.tolist() == pytest.approx([np.log(2), 100.0])  # ln 0 clamped at -100


# ================================================================ against torch


@pytest.mark.oracle
@pytest.mark.parametrize("op, program, shapes, positive, torch_graph, eps", TABLE)
def test_the_line_matches_torch(op, program, shapes, positive, torch_graph, eps):
    torch = pytest.importorskip("torch")
    ours, theirs = inputs(gradbook, shapes, positive), inputs(torch, shapes, positive)
    out_g, out_t = program(gradbook, *ours), program(torch, *theirs)
    np.testing.assert_allclose(out_g.detach().numpy(), out_t.detach().numpy(), rtol=1e-12, atol=1e-12)
    assert str(out_g.dtype).split(".")[1] == str(out_t.dtype).split(".")[1]
    assert node_names(out_g) == node_names(out_t)
    weights = np.random.default_rng(1).standard_normal(out_g.shape)
    (out_g * gradbook.tensor(weights, dtype=out_g.dtype)).sum().backward()
    (out_t * torch.tensor(weights, dtype=out_t.dtype)).sum().backward()
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=1e-10, atol=1e-12)


@pytest.mark.oracle
@pytest.mark.parametrize("op, program, shapes, positive, torch_graph, eps", TABLE)
def test_second_derivatives_match_torch(op, program, shapes, positive, torch_graph, eps):
    torch = pytest.importorskip("torch")
    results = []
    for T in (gradbook, torch):
        xs = inputs(T, shapes, positive)
        out = program(T, *xs)
        weights = T.tensor(np.random.default_rng(1).standard_normal(tuple(out.shape)), dtype=T.float64)
        (g,) = T.autograd.grad((out * weights).sum(), xs[:1], create_graph=True)
        # + x²: a term that depends on x, for ops whose gradient does not (leaky_relu, embedding)
        (gg,) = T.autograd.grad((g * g).sum() + (xs[0] ** 2).sum(), xs[:1])
        results.append(gg.detach().numpy())
    np.testing.assert_allclose(results[0], results[1], rtol=1e-9, atol=1e-10)


SAVED = {  # program -> the _saved_ attributes torch names, compared by value (tensors by values)
    "leaky_relu": (lambda T, x: T.nn.functional.leaky_relu(x, 0.2), ["_saved_negative_slope", "_saved_self"]),
    "gelu": (lambda T, x: T.nn.functional.gelu(x, approximate="tanh"), ["_saved_approximate", "_saved_self"]),
    "smooth_l1": (lambda T, x: T.nn.functional.smooth_l1_loss(x, x * 0, beta=0.5), ["_saved_beta", "_saved_self"]),
    "huber": (lambda T, x: T.nn.functional.huber_loss(x, x * 0, delta=2.0), ["_saved_delta", "_saved_target"]),
    "embedding": (lambda T, x: T.nn.functional.embedding(T.tensor([1, 0]), x), ["_saved_indices"]),
    "batch_norm": (
        lambda T, x: T.nn.functional.batch_norm(x, None, None, training=True, eps=0.01),
        ["_saved_eps", "_saved_training", "_saved_input"],
    ),
}


@pytest.mark.oracle
@pytest.mark.parametrize("name", SAVED)
def test_saved_values_read_as_torch(name):
    torch = pytest.importorskip("torch")
    program, attributes = SAVED[name]
    for attribute in attributes:
        values = []
        for T in (gradbook, torch):
            x = T.tensor([[0.5, -1.0], [2.0, 0.25]], requires_grad=True)
            v = getattr(program(T, x).grad_fn, attribute)
            values.append(v.detach().numpy() if hasattr(v, "detach") else v)
        np.testing.assert_array_equal(values[0], values[1])


def test_layer_norm_has_true_second_derivatives():
    x = gradbook.tensor([[0.5, -1.0, 2.0], [1.5, 0.2, -0.7]], dtype=gradbook.float64, requires_grad=True)
    w = gradbook.tensor([1.5, -0.5, 2.0], dtype=gradbook.float64, requires_grad=True)
    b = gradbook.tensor([0.1, 0.2, 0.3], dtype=gradbook.float64, requires_grad=True)
    assert gradbook.autograd.gradgradcheck(lambda x, w, b: gradbook.nn.functional.layer_norm(x, (3,), w, b), (x, w, b))

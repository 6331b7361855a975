"""Forward mode (``autograd.forward_ad``, ``func.jvp``) through every op of the op tables.

Each line of ``test_ops_table.TABLE`` and ``test_nn_ops.TABLE`` runs on dual inputs with random
tangents v; the output's tangent must be J·v as central finite differences of the program give it
(independent of the engine's rules), and, with torch installed, as ``torch.func.jvp`` gives it.
"""

import numpy as np
import pytest
from test_nn_ops import TABLE as NN_TABLE
from test_ops_table import TABLE, inputs

import gradbook
import gradbook.autograd.forward_ad as fw_ad

try:
    import torch
    import torch.func
except ImportError:
    torch = None

LINES = [p for p in TABLE + NN_TABLE if p.values[5] is not None]  # ops with a derivative
IDS = [f"{p.id}-{i}" for i, p in enumerate(TABLE + NN_TABLE) if p.values[5] is not None]
NOT_DIFFERENTIABLE_IN_FORWARD = {"Identity"}  # its program opens a dual level itself
NEEDS_GRAD = {"IndexPutBackward0", "MaxPool2DWithIndicesBackwardBackward0"}  # programs with autograd.grad inside


def _tangents(shapes, seed=7):
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(s) for s in shapes]


def _values(T, shapes, positive, requires_grad):
    xs = inputs(T, shapes, positive)
    return [x.detach().requires_grad_(requires_grad) for x in xs]


def _finite_difference(program, xs, vs, h=1e-6):
    """(f(x + hv) - f(x - hv)) / 2h, with the same random draws on both sides."""
    outs = []
    for sign in (1, -1):
        gradbook.manual_seed(0)
        shifted = [gradbook.tensor(x.detach().numpy() + sign * h * v, requires_grad=True) for x, v in zip(xs, vs)]
        outs.append(program(gradbook, *shifted).detach().numpy())
    return (outs[0] - outs[1]) / (2 * h)


@pytest.mark.parametrize("op, program, shapes, positive, torch_graph, eps", LINES, ids=IDS)
@pytest.mark.parametrize("requires_grad", [False, True])
def test_the_tangent_is_the_directional_derivative(op, program, shapes, positive, torch_graph, eps, requires_grad):
    if op in NOT_DIFFERENTIABLE_IN_FORWARD or (op in NEEDS_GRAD and not requires_grad):
        pytest.skip("the program opens a dual level itself, or differentiates by its input")
    xs, vs = _values(gradbook, shapes, positive, requires_grad), _tangents(shapes)
    with fw_ad.dual_level():
        duals = [fw_ad.make_dual(x, gradbook.tensor(v)) for x, v in zip(xs, vs)]
        gradbook.manual_seed(0)
        out = program(gradbook, *duals)
        primal, tangent = fw_ad.unpack_dual(out)
    assert tangent is not None, f"{op}: the output has no tangent"
    gradbook.manual_seed(0)
    again = program(gradbook, *[x.detach().requires_grad_() for x in xs])
    np.testing.assert_allclose(primal.detach().numpy(), again.detach().numpy())
    expected = _finite_difference(program, xs, vs)
    np.testing.assert_allclose(tangent.detach().numpy(), expected, rtol=1e-4, atol=max(1e-5, 10 * eps))


@pytest.mark.oracle
@pytest.mark.skipif(torch is None, reason="torch is not installed")
@pytest.mark.parametrize("op, program, shapes, positive, torch_graph, eps", LINES, ids=IDS)
def test_jvp_matches_torch_func(op, program, shapes, positive, torch_graph, eps):
    if op in NOT_DIFFERENTIABLE_IN_FORWARD | NEEDS_GRAD:
        pytest.skip("the program opens a dual level itself")
    vs = _tangents(shapes)
    results = []
    for T in (gradbook, torch):
        xs = _values(T, shapes, positive, False)
        T.manual_seed(0)
        try:
            _, tangent = T.func.jvp(lambda *a, T=T: program(T, *a), tuple(xs), tuple(T.tensor(v) for v in vs))
        except (NotImplementedError, RuntimeError) as e:  # torch has no forward formula for a few ops
            assert T is torch, f"gradbook refused: {e}"
            pytest.skip(f"torch: {str(e).splitlines()[0]}")
        results.append(tangent.detach().numpy())
    np.testing.assert_allclose(results[0], results[1], rtol=1e-8, atol=1e-10)


def test_a_program_that_never_opens_a_level_runs_the_original_code():
    """Leaving the level puts back every function it replaced (the hot path pays nothing)."""
    from gradbook import _arguments
    from gradbook.autograd import function, inplace
    from gradbook.ops import shape
    from gradbook.ops.op import Op

    before = [Op.__dict__["apply"], Op.__dict__["result"], shape.SplitBackward0.__dict__["apply"]]
    before += [function.apply_custom, inplace.update, _arguments.setitem, _arguments.indexing.setitem]
    before += [gradbook.Tensor.__repr__]
    with fw_ad.dual_level():
        assert Op.__dict__["apply"] is not before[0]
    try:
        with fw_ad.dual_level():
            raise KeyError("inside")
    except KeyError:
        pass
    after = [Op.__dict__["apply"], Op.__dict__["result"], shape.SplitBackward0.__dict__["apply"]]
    after += [function.apply_custom, inplace.update, _arguments.setitem, _arguments.indexing.setitem]
    after += [gradbook.Tensor.__repr__]
    assert after == before
    assert fw_ad._tangents == {} and fw_ad._level is None


def test_an_inplace_change_through_a_view_changes_the_tangents_of_its_base_and_of_the_other_views():
    """As in torch, a view's tangent is a view of its base's (here the base is the dual made by make_dual, whose
    primal keeps no tangent); hand-derived values."""
    x = gradbook.tensor([1.0, 2.0, 3.0])
    with fw_ad.dual_level():
        d = fw_ad.make_dual(x, gradbook.tensor([1.0, 10.0, 100.0]))
        first, rest = d[0], d[1:]
        first.mul_(2)  # d₀ = 2·d₀: its tangent doubles
        rest[1] = d[0] * 3  # d₂ = 3·d₀ (after the change): tangent 6
        assert fw_ad.unpack_dual(d).tangent.tolist() == [2.0, 10.0, 6.0]
        assert fw_ad.unpack_dual(rest).tangent.tolist() == [10.0, 6.0]
        assert fw_ad.unpack_dual(first).tangent.tolist() == 2.0
        assert fw_ad.unpack_dual(x).tangent is None  # the primal has none, as in torch
        out = gradbook.zeros(2, 3)
        out[1].copy_(d)  # a plain tensor gets its tangent through a view of it
        assert fw_ad.unpack_dual(out).tangent.tolist() == [[0.0, 0.0, 0.0], [2.0, 10.0, 6.0]]
        a, b = d.clone().unbind()[:2]
        with pytest.raises(NotImplementedError, match="piece of split, chunk or unbind"):
            a.mul_(2)  # where a piece lies in its base is not kept: refused, not silently wrong
    assert x.tolist() == [2.0, 2.0, 6.0]


def test_inside_inference_mode_there_are_no_tangents_as_in_torch():
    with fw_ad.dual_level():
        d = fw_ad.make_dual(gradbook.tensor([1.0, 2.0]), gradbook.tensor([1.0, 1.0]))
        with gradbook.inference_mode():
            assert fw_ad.unpack_dual(d * d).tangent is None
            assert fw_ad.unpack_dual(fw_ad.make_dual(gradbook.ones(2), gradbook.ones(2))).tangent is None
        assert fw_ad.unpack_dual(d * d).tangent.tolist() == [2.0, 4.0]


def test_hessian_by_forward_over_reverse_equals_reverse_over_reverse_and_the_hand_derived_one():
    from gradbook.func import hessian, jacrev

    x = gradbook.tensor([0.3, -0.7, 1.1], dtype=gradbook.float64)

    def f(x):
        return (x.sin() * x.exp() + x.tanh() ** 2 + x.sigmoid() * x).sum()

    s, e, t, sg = np.sin(x.numpy()), np.exp(x.numpy()), np.tanh(x.numpy()), 1 / (1 + np.exp(-x.numpy()))
    by_hand = (
        2 * np.cos(x.numpy()) * e
        + (2 * (1 - t**2) ** 2 - 4 * t**2 * (1 - t**2))
        + (2 * sg * (1 - sg) + x.numpy() * sg * (1 - sg) * (1 - 2 * sg))
    )
    _ = s
    np.testing.assert_allclose(np.diag(hessian(f)(x).numpy()), by_hand, rtol=1e-10)
    np.testing.assert_allclose(hessian(f)(x).numpy(), jacrev(jacrev(f))(x).numpy(), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("requires_grad", [False, True])
def test_an_op_whose_inputs_depend_on_each_other_gets_its_partial_derivatives(requires_grad):
    """y * exp(y): the Mul's tangent is exp(y)·ẏ + y·(exp(y))˙, not a total derivative counted twice
    (found by the rms_norm line: inputs that require grad are linked in the graph)."""
    values, direction = np.array([0.3, -1.2, 2.0]), np.array([1.0, 0.5, -2.0])
    y = gradbook.tensor(values, requires_grad=requires_grad)
    with fw_ad.dual_level():
        d = fw_ad.make_dual(y * 1, gradbook.tensor(direction))
        tangent = fw_ad.unpack_dual(d * d.exp()).tangent
    np.testing.assert_allclose(tangent.detach().numpy(), (1 + values) * np.exp(values) * direction, rtol=1e-12)

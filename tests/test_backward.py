"""backward() as torch does it: accumulation, freed graphs, validation, create_graph, inputs=.

Expected values are derived by hand in the comments.
"""

import warnings

import numpy as np
import pytest
from conftest import watch_order

import gradbook as torch

FREED = "Trying to backward through the graph a second time"


def leaf(v, dtype=torch.float32):
    return torch.tensor(v, dtype=dtype, requires_grad=True)


# ---------------------------------------------------------------- accumulation


def test_gradients_accumulate_across_backward_calls():
    x = leaf(2.0)
    seen = []
    for _ in range(3):
        y = x * x  # dy/dx = 2x = 4 each time
        y.backward()
        seen.append(x.grad.item())
    z = 2 * x  # dz/dx = 2
    z.backward()
    seen.append(x.grad.item())
    assert seen == [4.0, 8.0, 12.0, 14.0]


def test_building_a_graph_without_backward_adds_nothing():
    x = leaf(2.0)
    (x * x).backward()
    _ = 2 * x
    assert x.grad.item() == 4.0


def test_accumulation_is_in_place_like_torch():
    x = leaf([1.0, 2.0])
    (x * 3).sum().backward()
    held = x.grad
    (x * 3).sum().backward()
    assert held is x.grad
    assert held.tolist() == [6.0, 6.0]


def test_first_gradient_is_a_copy_of_the_seed():
    x = leaf([1.0, 2.0])
    seed = torch.ones(2)
    (x + 0).backward(seed)
    seed.mul_(5)
    assert x.grad.tolist() == [1.0, 1.0]


def test_grad_none_and_zero_grad_restart_accumulation():
    x = leaf(3.0)
    (x * x).backward()
    x.grad = None
    (x * x).backward()
    assert x.grad.item() == 6.0
    x.grad.zero_()
    (x * x * x).backward()  # 3x² = 27
    assert x.grad.item() == 27.0


def test_non_scalar_output_needs_an_explicit_gradient():
    x = leaf([2.0, 3.0, 4.0])
    y = x * x
    with pytest.raises(RuntimeError, match="^grad can be implicitly created only for scalar outputs$"):
        y.backward()
    assert x.grad is None
    y.backward(torch.ones_like(y))  # vᵀJ with v = 1: 2x
    assert x.grad.tolist() == [4.0, 6.0, 8.0]


def test_gradient_is_the_vector_of_a_vector_jacobian_product():
    x = leaf([1.0, 2.0, 3.0])
    y = x * x
    y.backward(torch.tensor([1.0, 0.0, -2.0]))  # vᵢ · 2xᵢ
    assert x.grad.tolist() == [2.0, 0.0, -12.0]


def test_one_element_non_scalar_output_gets_an_implicit_gradient():
    x = leaf([3.0])
    (x * x).backward()
    assert x.grad.tolist() == [6.0]


def test_fan_in_sums_contributions():
    x = leaf(3.0)
    y = x * x + x * 4 + x  # 2x + 4 + 1 = 11
    y.backward()
    assert x.grad.item() == 11.0


# ---------------------------------------------------------------- retain_graph and freed nodes


def test_x_plus_3_saves_nothing_so_backward_works_three_times():
    x = leaf(2.0)
    y = x + 3
    for _ in range(3):
        y.backward()
    assert x.grad.item() == 3.0


@pytest.mark.parametrize("build", [lambda x: x * x, lambda x: 2 * x, lambda x: x.exp(), lambda x: x / 2])
def test_nodes_that_saved_tensors_refuse_a_second_backward(build):
    x = leaf(2.0)
    y = build(x)
    y.backward()
    before = x.grad.item()
    with pytest.raises(RuntimeError, match=FREED):
        y.backward()
    assert x.grad.item() == before


def test_retain_graph_allows_a_second_backward():
    x = leaf(2.0)
    y = x * x
    y.backward(retain_graph=True)
    y.backward()
    assert x.grad.item() == 8.0
    with pytest.raises(RuntimeError, match=FREED):
        y.backward()


def test_freed_error_happens_before_any_grad_changes():
    # y = w*w + u: MulBackward0 is freed, but u's path (AddBackward0) is not; u.grad must not move
    w, u = leaf(2.0), leaf(3.0)
    y = w * w + u
    y.backward()
    with pytest.raises(RuntimeError, match=FREED):
        y.backward()
    assert (w.grad.item(), u.grad.item()) == (4.0, 1.0)


def test_saved_tensors_are_readable_until_freed():
    x, w = leaf(2.0), leaf(5.0)
    y = x * w
    assert y.grad_fn._saved_self is x
    assert y.grad_fn._saved_other is w
    z = x * 3  # as torch: only what the needed rule reads (∂z/∂x = other) is saved
    assert z.grad_fn._saved_self is None
    assert z.grad_fn._saved_other.item() == 3.0
    y.backward()
    z.backward()
    with pytest.raises(RuntimeError, match=FREED):
        _ = y.grad_fn._saved_self
    with pytest.raises(RuntimeError, match=FREED):
        _ = z.grad_fn._saved_other
    assert z.grad_fn._saved_self is None  # never saved, so not freed


def test_retain_graph_defaults_to_create_graph():
    x = leaf(2.0)
    y = x * x * x
    y.backward(create_graph=True)
    y.backward()  # the graph was kept
    assert x.grad.item() == 24.0  # 12 + 12 (x.grad carries a graph, then gets 12 added)


# ---------------------------------------------------------------- validation before mutation


def test_shape_mismatch_message_and_nothing_changes():
    x = leaf([1.0, 2.0])
    (x * x).sum().backward()
    y = x * x
    with pytest.raises(RuntimeError) as e:
        y.backward(torch.ones(3))
    assert str(e.value) == (
        "Mismatch in shape: grad_output[0] has a shape of gradbook.Size([3]) and output[0] has a "
        "shape of gradbook.Size([2])."
    )
    assert x.grad.tolist() == [2.0, 4.0]
    y.backward(torch.ones(2))  # the graph is still intact
    assert x.grad.tolist() == [4.0, 8.0]


def test_backward_on_a_tensor_without_grad():
    with pytest.raises(RuntimeError, match="^element 0 of tensors does not require grad and does not have a grad_fn$"):
        torch.tensor([1.0, 2.0]).sum().backward()


def test_several_outputs_are_checked_before_running():
    x = leaf(2.0)
    a, b = x * 1, x * x
    with pytest.raises(RuntimeError, match="element 1 of tensors"):
        torch.autograd.backward([a, torch.tensor(1.0)])
    assert x.grad is None
    torch.autograd.backward([a, b])  # 1 + 2x
    assert x.grad.item() == 5.0


def test_modified_saved_tensor_is_reported_before_anything_changes():
    w, u = leaf([1.0, 2.0]), leaf(1.0)
    y = (w * w).sum() + u
    with torch.no_grad():
        w.mul_(2)
    with pytest.raises(RuntimeError, match="modified by an inplace operation.*is at version 1; expected version 0"):
        y.backward()
    assert u.grad is None


# ---------------------------------------------------------------- graph structure


def test_next_functions_of_x_times_x_lists_the_same_accumulator_twice():
    x = leaf(2.0)
    y = x * x
    (a, i), (b, j) = y.grad_fn.next_functions
    assert a is b and (i, j) == (0, 0)
    assert type(a).__name__ == "AccumulateGrad"
    assert a.variable is x
    assert a.name() == "torch::autograd::AccumulateGrad"
    assert repr(a).startswith("<AccumulateGrad object at 0x")


def test_constants_appear_as_none_and_leaves_as_accumulators():
    x = leaf(2.0)
    z = 2 * x
    assert z.grad_fn.name() == "MulBackward0"
    assert z.grad_fn.next_functions[0][0].variable is x
    assert z.grad_fn.next_functions[1] == (None, 0)
    assert x.is_leaf and not z.is_leaf and z.requires_grad
    assert x.grad_fn is None


def test_creation_order_numbers_increase_along_the_forward_pass():
    x = leaf(1.0)
    a = x * 2
    b = a.exp()
    c = b + a
    seqs = [t.grad_fn._seq for t in (a, b, c)]
    assert seqs == sorted(seqs) and len(set(seqs)) == 3


def test_execution_order_follows_torch_highest_sequence_number_first():
    # two branches; torch runs the most recently created ready node first
    x = leaf(1.0)
    a = x * 2  # Mul (1)
    b = x.exp()  # Exp (2)
    c = a + b  # Add (3)
    order = watch_order(c)
    c.backward()
    # x's AccumulateGrad waits for both branches, then runs once with their sum
    assert order == ["AddBackward0", "ExpBackward0", "MulBackward0", "torch::autograd::AccumulateGrad"]
    assert x.grad.item() == pytest.approx(2 + np.e)


def test_no_recursion_on_a_100000_op_chain():
    x = leaf(1.0)
    y = x
    for _ in range(100_000):
        y = y * 1.0 + 0.0
    y.backward()
    assert x.grad.item() == 1.0


# ---------------------------------------------------------------- non-leaf tensors


def test_reading_grad_of_a_non_leaf_warns_and_returns_none():
    x = leaf(2.0)
    y = x * 2
    y.backward()
    with pytest.warns(
        UserWarning, match=r"^The \.grad attribute of a Tensor that is not a leaf Tensor is being accessed\."
    ):
        assert y.grad is None


def test_retain_grad_keeps_and_accumulates_a_non_leaf_gradient():
    x = leaf(2.0)
    y = x * 3
    y.retain_grad()
    z = y * y  # dz/dy = 2y = 12
    z.backward(retain_graph=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert y.grad.item() == 12.0
    z.backward()
    assert y.grad.item() == 24.0
    assert x.grad.item() == 72.0


def test_retain_grad_on_a_tensor_without_grad():
    with pytest.raises(RuntimeError, match="^can't retain_grad on Tensor that has requires_grad=False$"):
        torch.ones(2).retain_grad()


# ---------------------------------------------------------------- hooks


def test_hook_sees_the_gradient_and_can_replace_it():
    x = leaf([1.0, 2.0])
    seen = []
    h = x.register_hook(lambda g: seen.append(g.tolist()) or g * 10)
    (x * x).sum().backward()
    assert seen == [[2.0, 4.0]]
    assert x.grad.tolist() == [20.0, 40.0]
    h.remove()
    x.grad = None
    (x * x).sum().backward()
    assert x.grad.tolist() == [2.0, 4.0]


def test_hook_on_a_non_leaf_changes_what_flows_on():
    x = leaf(1.0)
    y = x * 2
    y.register_hook(lambda g: g * 0)
    (y * y).backward()
    assert x.grad.item() == 0.0


def test_hook_on_a_tensor_without_grad():
    with pytest.raises(RuntimeError, match="^cannot register a hook on a tensor that doesn't require gradient$"):
        torch.ones(2).register_hook(lambda g: g)


# ---------------------------------------------------------------- create_graph and autograd.grad


def test_second_derivative_through_create_graph():
    x = leaf(3.0)
    y = x**3
    (dy,) = torch.autograd.grad(y, x, create_graph=True)  # 3x² = 27
    assert dy.requires_grad and dy.item() == 27.0
    (d2y,) = torch.autograd.grad(dy, x)  # 6x = 18
    assert d2y.item() == 18.0
    assert x.grad is None  # autograd.grad accumulates nothing


def test_third_derivative_of_sin():
    x = leaf(0.5, torch.float64)
    d = x.sin()
    for _ in range(3):
        (d,) = torch.autograd.grad(d, x, create_graph=True)
    assert d.item() == pytest.approx(-np.cos(0.5))


def test_backward_with_create_graph_gives_a_differentiable_grad():
    x = leaf(2.0)
    (x**3).backward(create_graph=True)  # x.grad = 3x² = 12, with a graph
    assert x.grad.grad_fn is not None
    g = x.grad
    x.grad = None
    g.backward()  # d(3x²)/dx = 6x = 12
    assert x.grad.item() == 12.0


def test_grad_with_unused_input():
    x, unused = leaf(1.0), leaf(2.0)
    y = x * 2
    with pytest.raises(RuntimeError) as e:
        torch.autograd.grad(y, [x, unused], retain_graph=True)
    assert str(e.value) == (
        "The differentiated Tensor at index 1 appears to not have been used in the graph. "
        "Set allow_unused=True if this is the desired behavior."
    )
    gx, gu = torch.autograd.grad(y, [x, unused], allow_unused=True)
    assert gx.item() == 2.0 and gu is None


def test_grad_of_a_non_leaf_input():
    x = leaf(2.0)
    h = x * 3
    y = h * h  # dy/dh = 2h = 12
    (gh,) = torch.autograd.grad(y, h)
    assert gh.item() == 12.0
    assert x.grad is None


def test_grad_outputs_weights_the_outputs():
    x = leaf([1.0, 2.0])
    (g,) = torch.autograd.grad(x * x, x, grad_outputs=torch.tensor([1.0, 3.0]))
    assert g.tolist() == [2.0, 12.0]


# ---------------------------------------------------------------- inputs=


def test_inputs_restricts_which_leaves_accumulate():
    a, b = leaf(1.0), leaf(2.0)
    (a * b).backward(inputs=[a])
    assert a.grad.item() == 2.0 and b.grad is None


def test_inputs_must_not_be_empty():
    a = leaf(1.0)
    with pytest.raises(RuntimeError, match="^`inputs` argument to `backward\\(\\)` cannot be empty.$"):
        (a * 2).backward(inputs=[])


def test_inputs_with_a_non_leaf_fills_its_grad():
    a = leaf(2.0)
    h = a * 3
    (h * h).backward(inputs=[h])  # 2h = 12
    assert h.grad.item() == 12.0 and a.grad is None


# ---------------------------------------------------------------- grad modes and in-place ops


def test_no_grad_records_nothing():
    x = leaf(1.0)
    with torch.no_grad():
        y = x * 2
        with torch.enable_grad():
            z = x * 2
    assert not y.requires_grad and y.grad_fn is None
    assert z.requires_grad
    assert torch.is_grad_enabled()


def test_grad_modes_as_decorators_and_functions():
    x = leaf(1.0)

    @torch.no_grad()
    def f():
        return x * 2

    assert not f().requires_grad and torch.is_grad_enabled()
    torch.set_grad_enabled(False)
    try:
        assert not (x * 2).requires_grad
    finally:
        torch.set_grad_enabled(True)
    with torch.set_grad_enabled(False):
        assert not torch.is_grad_enabled()
    assert torch.is_grad_enabled()


def test_in_place_on_a_leaf_that_requires_grad_is_refused_outside_no_grad():
    w = leaf([1.0, 2.0])
    for op in (lambda: w.add_(1), lambda: w.mul_(2), lambda: w.sub_(1), lambda: w.zero_(), lambda: w.fill_(3)):
        with pytest.raises(
            RuntimeError, match="^a leaf Variable that requires grad is being used in an in-place operation.$"
        ):
            op()
    assert w.tolist() == [1.0, 2.0]


def test_manual_sgd_step_under_no_grad():
    w = leaf([1.0, 2.0])
    (w * w).sum().backward()  # grad 2w
    with torch.no_grad():
        w -= 0.25 * w.grad
    assert w.tolist() == [0.5, 1.0]
    assert w.is_leaf and w.requires_grad


def test_in_place_on_a_non_leaf_is_recorded():
    x = leaf(2.0)
    y = x * 1
    y.mul_(3)  # y = 3x
    assert y.grad_fn.name() == "MulBackward0"
    y.backward()
    assert x.grad.item() == 3.0


def test_numpy_refuses_a_tensor_that_requires_grad():
    with pytest.raises(
        RuntimeError,
        match=r"^Can't call numpy\(\) on Tensor that requires grad. Use tensor.detach\(\).numpy\(\) instead.$",
    ):
        leaf([1.0]).numpy()


def test_only_floating_point_tensors_can_require_grad():
    with pytest.raises(RuntimeError, match="^Only Tensors of floating point and complex dtype can require gradients$"):
        torch.tensor([1, 2], requires_grad=True)


def test_broadcast_error_is_torchs_runtime_error():
    with pytest.raises(RuntimeError) as e:
        torch.ones(2, 4) + torch.ones(3)
    assert str(e.value) == "The size of tensor a (4) must match the size of tensor b (3) at non-singleton dimension 1"


# ---------------------------------------------------------------- user-written functions


class Cube(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x * x

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return 3 * x * x * grad_output  # d(x³)/dx = 3x²


def test_custom_function_backward_and_double_backward():
    x = leaf(2.0)
    y = Cube.apply(x)
    assert y.grad_fn.name() == "CubeBackward" and y.item() == 8.0
    (g,) = torch.autograd.grad(y, x, create_graph=True)  # 3x² = 12
    assert g.item() == 12.0
    (h,) = torch.autograd.grad(g, x)  # 6x = 12
    assert h.item() == 12.0


def test_custom_function_frees_its_saved_tensors():
    x = leaf(2.0)
    y = Cube.apply(x)
    y.backward()
    with pytest.raises(RuntimeError, match=FREED):
        y.backward()
    assert x.grad.item() == 12.0


def test_a_refused_backward_names_the_node_torch_fails_at():
    # y = exp(w) + w*u: the second backward reaches MulBackward0 (created later) before ExpBackward0
    w, u = leaf(1.0), leaf(2.0)
    y = w.exp() + w * u
    y.backward()
    ran = watch_order(y)
    with pytest.raises(RuntimeError, match=FREED) as e:
        y.backward()
    assert e.value.node is y.grad_fn.next_functions[1][0]
    assert ran == []  # refused before any node ran


@pytest.mark.parametrize(
    "build",
    [
        lambda a, b: a + b,  # the same gradient flows to both
        lambda a, b: (a.view(2, 1) + b.view(2, 1)).view(2),
        lambda a, b: a.clone() - b,
        lambda a, b: a.expand(3, 2).sum(0) + b,
        lambda a, b: torch.stack([a, b]).t().sum(1),
        lambda a, b: a * b + a,
    ],
)
def test_grads_never_share_memory(build):
    """.grad may keep the array a rule made, but never one that something else also holds."""
    a, b = leaf([1.0, 2.0]), leaf([3.0, 4.0])
    seed = torch.tensor([1.0, -1.0])
    y = build(a, b)
    y.backward(seed)
    before = (b.grad.tolist(), seed.tolist())
    a.grad.add_(100)
    assert (b.grad.tolist(), seed.tolist()) == before
    b.grad.add_(100)
    assert a.grad.tolist()[0] > 50 and b.grad.tolist()[0] > 50


def test_a_gradient_a_hook_kept_is_not_changed_by_later_accumulation():
    x = leaf([1.0, 1.0])
    kept = []
    x.register_hook(kept.append)
    (x * 2).sum().backward()
    (x * 2).sum().backward()
    assert kept[0].tolist() == [2.0, 2.0] and x.grad.tolist() == [4.0, 4.0]


def test_changing_a_saved_output_in_place_is_refused():
    # exp saved its output e^x for its rule; add_(1) changed it, so the rule would be wrong
    x = leaf([1.0, 2.0])
    y = x.exp()
    y.add_(1)
    with pytest.raises(RuntimeError, match="which is output 0 of Exp, is at version 1; expected version 0"):
        y.sum().backward()
    assert x.grad is None
    z = x * 2  # MulBackward0 saved only the constant: changing z is fine
    z.add_(1)
    z.sum().backward()
    assert x.grad.tolist() == [2.0, 2.0]


@pytest.mark.parametrize(
    "dtype, name", [("float16", "HalfTensor"), ("float32", "FloatTensor"), ("float64", "DoubleTensor")]
)
def test_the_version_error_names_the_tensor_type_as_torch_does(dtype, name):
    x = torch.tensor([1.0, 2.0], dtype=getattr(torch, dtype), requires_grad=True)
    y = x.exp()
    y.add_(1)  # torch: "[torch.HalfTensor [2]], which is output 0 of Exp, is at version 1; ..."
    with pytest.raises(RuntimeError, match=rf"\[gradbook\.{name} \[2\]\], which is output 0 of Exp,"):
        y.sum().backward()

"""Tensors, dtypes, factories, nn and optim: values derived by hand."""

import subprocess
import sys

import numpy as np
import pytest

import gradbook as torch


def test_import_gradbook_loads_numpy_and_the_standard_library_only():
    """What ``import gradbook`` costs is counted here (its time is in benchmarks/import_time.py):
    no graphviz, ipywidgets, matplotlib or torch, and nothing outside NumPy and the standard library."""
    code = (
        "import sys, numpy; before = set(sys.modules); import gradbook; "
        "new = sorted({m.split('.')[0] for m in set(sys.modules) - before}); print(' '.join(new))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    # (NumPy's compiled parts add cython_runtime and private _cython_* modules)
    outside = [m for m in out if m not in sys.stdlib_module_names and not m.startswith("_") and m != "cython_runtime"]
    assert outside == ["gradbook", "numpy"], out


def test_default_dtypes_follow_torch():
    assert torch.tensor(2.0).dtype is torch.float32
    assert torch.tensor(2).dtype is torch.int64
    assert torch.tensor(True).dtype is torch.bool
    assert torch.tensor(np.ones(2)).dtype is torch.float64
    assert torch.float is torch.float32 and torch.double is torch.float64
    assert repr(torch.float64) == "gradbook.float64"


def test_dtype_promotion_follows_torch():
    f32, f64, i64 = torch.ones(2), torch.ones(2, dtype=torch.float64), torch.ones(2, dtype=torch.int64)
    assert (f32 + f64).dtype is torch.float64
    assert (i64 * 2.5).dtype is torch.float32  # not NumPy's float64
    assert (i64 / 2).dtype is torch.float32
    assert (i64 + f32).dtype is torch.float32
    assert (f32 * torch.tensor(2.0, dtype=torch.float64)).dtype is torch.float32  # 0-d does not widen
    assert (f32 * 2).dtype is torch.float32


def test_attributes():
    x = torch.ones(2, 3)
    assert x.shape == (2, 3) and x.size() == (2, 3) and x.size(1) == 3 and x.size(-1) == 3
    assert repr(x.shape) == "gradbook.Size([2, 3])"
    assert x.ndim == 2 and x.dim() == 2 and x.numel() == 6
    assert torch.tensor([[1.0, 2.0]]).tolist() == [[1.0, 2.0]]
    assert torch.tensor(2.5).item() == 2.5
    with pytest.raises(RuntimeError, match="^a Tensor with 6 elements cannot be converted to Scalar$"):
        x.item()


def test_detach_and_clone():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    d = x.detach()
    assert not d.requires_grad and d.grad_fn is None
    with torch.no_grad():
        x.mul_(2)
    assert d.tolist() == [2.0, 4.0]  # shares memory
    c = x.clone()
    assert c.grad_fn.name() == "CloneBackward0"
    c.sum().backward()
    assert x.grad.tolist() == [1.0, 1.0]


def test_float_double_and_requires_grad_():
    x = torch.tensor([1, 2])
    assert x.float().dtype is torch.float32 and x.double().dtype is torch.float64
    y = x.float().requires_grad_()
    assert y.requires_grad and y.is_leaf
    assert repr(y) == "tensor([1., 2.], requires_grad=True)"


def test_factories():
    assert torch.ones(2, 2).tolist() == [[1.0, 1.0], [1.0, 1.0]]
    assert torch.zeros((3,)).tolist() == [0.0, 0.0, 0.0]
    assert torch.full((2,), 7).dtype is torch.int64 and torch.full((2,), 7.0).tolist() == [7.0, 7.0]
    assert torch.arange(4).tolist() == [0, 1, 2, 3] and torch.arange(4).dtype is torch.int64
    assert torch.arange(0, 1, 0.5).tolist() == [0.0, 0.5]
    assert torch.linspace(0, 1, 3).tolist() == [0.0, 0.5, 1.0]
    assert torch.eye(2).tolist() == [[1.0, 0.0], [0.0, 1.0]]
    x = torch.ones(2, dtype=torch.float64)
    assert torch.ones_like(x).dtype is torch.float64 and torch.zeros_like(x).tolist() == [0.0, 0.0]
    assert torch.ones(2, requires_grad=True).requires_grad


def test_random_numbers_are_seeded():
    torch.manual_seed(3)
    a, b = torch.rand(3), torch.randn(2, 2)
    torch.manual_seed(3)
    assert torch.equal(a, torch.rand(3)) and torch.equal(b, torch.randn(2, 2))
    assert ((a >= 0) & (a < 1)).all()


def test_max_with_dim_returns_values_and_indices():
    w = torch.tensor([[1.0, 5.0], [7.0, 2.0]], requires_grad=True)
    values, indices = w.max(1)
    assert values.tolist() == [5.0, 7.0] and indices.tolist() == [1, 0]
    assert values.grad_fn.name() == "MaxBackward0"
    values.sum().backward()
    assert w.grad.tolist() == [[0.0, 1.0], [1.0, 0.0]]


def test_max_of_everything_shares_the_gradient_among_ties():
    x = torch.tensor([3.0, 1.0, 3.0], requires_grad=True)
    m = x.max()
    assert m.grad_fn.name() == "MaxBackward1"
    m.backward()
    assert x.grad.tolist() == [0.5, 0.0, 0.5]


def test_linear_layer_gradients_by_hand():
    layer = torch.nn.Linear(2, 1)
    with torch.no_grad():
        layer.weight.copy_(torch.tensor([[2.0, -1.0]]))
        layer.bias.fill_(0.5)
    x = torch.tensor([[1.0, 3.0]])
    y = layer(x)  # 2 - 3 + 0.5 = -0.5
    assert y.grad_fn.name() == "AddmmBackward0"
    assert y.item() == -0.5
    loss = torch.nn.functional.mse_loss(y, torch.tensor([[0.5]]))  # (y - 0.5)² = 1, dL/dy = -2
    loss.backward()
    assert layer.weight.grad.tolist() == [[-2.0, -6.0]]  # dL/dy · x
    assert layer.bias.grad.tolist() == [-2.0]


def test_module_registers_parameters_and_zero_grad():
    net = torch.nn.Sequential(torch.nn.Linear(2, 3), torch.nn.ReLU(), torch.nn.Linear(3, 1))
    names = [n for n, _ in net.named_parameters()]
    assert names == ["0.weight", "0.bias", "2.weight", "2.bias"]
    assert repr(net) == (
        "Sequential(\n  (0): Linear(in_features=2, out_features=3, bias=True)\n  (1): ReLU()\n"
        "  (2): Linear(in_features=3, out_features=1, bias=True)\n)"
    )
    net(torch.ones(4, 2)).sum().backward()
    assert all(p.grad is not None for p in net.parameters())
    net.zero_grad()
    assert all(p.grad is None for p in net.parameters())
    assert repr(torch.nn.Parameter(torch.tensor([1.0]))) == "Parameter containing:\ntensor([1.], requires_grad=True)"


def test_sgd_step_and_momentum_by_hand():
    w = torch.nn.Parameter(torch.tensor([1.0]))
    opt = torch.optim.SGD([w], lr=0.1, momentum=0.9)
    for expected in (0.8, 0.42):  # g = 2 each step; v = 2, then 0.9·2 + 2 = 3.8: 0.8 - 0.38
        opt.zero_grad()
        (2 * w).sum().backward()
        opt.step()
        assert w.item() == pytest.approx(expected)


def test_forgetting_zero_grad_accumulates_like_the_seed_lesson():
    w = torch.nn.Parameter(torch.tensor([0.0]))
    opt = torch.optim.SGD([w], lr=1.0)
    for _ in range(3):
        (3 * w).sum().backward()  # grad 3, 6, 9 without zero_grad
        opt.step()
    assert w.grad.item() == 9.0
    assert w.item() == -18.0  # -(3 + 6 + 9)


@pytest.mark.parametrize(
    "call",
    [
        lambda x, m: x.clamp(min=m),
        lambda x, m: x.clamp(None, m),
        lambda x, m: x.clamp_min(m),
        lambda x, m: x.clamp_max(m),
        lambda x, m: torch.clamp(x, m),
    ],
)
def test_a_clamp_bound_that_requires_grad_is_refused_not_dropped(call):
    """torch sends a gradient into a tensor bound (ClampBackward0); gradbook has no such node yet, so
    it refuses with a message, instead of clamping to the bound's value and losing its gradient."""
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    m = torch.tensor(1.5, requires_grad=True)
    with pytest.raises(NotImplementedError, match="bound that requires grad"):
        call(x, m)
    assert x.grad is None and m.grad is None and x._version == 0
    with torch.no_grad():  # no gradient to lose: the bound's value
        assert call(x, m).tolist() != []
    assert call(x, m.detach()).grad_fn is not None

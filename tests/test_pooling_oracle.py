"""max_pool2d against torch on windows with ties, nans, -inf and padding: the value, the index torch's loop
picks (the first largest, a later nan, the first real place of a window of -inf only) and the gradient,
which goes to that one place. Fuzzed over kernel, stride, padding and dilation."""

import numpy as np
import pytest

import gradbook

torch = pytest.importorskip("torch")


@pytest.mark.parametrize("seed", range(6))
def test_max_pool2d_picks_torchs_place(seed):
    rng = np.random.default_rng(seed)
    compared = 0
    for trial in range(60):
        x = rng.integers(-2, 3, (2, 3, 7, 8)).astype(np.float32)  # small integers: many ties
        if trial % 3 == 0:
            x[rng.random(x.shape) < 0.1] = np.nan
        if trial % 5 == 0:
            x[rng.random(x.shape) < 0.3] = -np.inf
        if trial % 7 == 0:
            x[:] = -np.inf
        k, s, d = int(rng.integers(1, 4)), int(rng.integers(1, 3)), int(rng.integers(1, 3))
        p = int(rng.integers(0, k // 2 + 1))
        outs = []
        for lib in (torch, gradbook):
            t = lib.tensor(x, requires_grad=True)
            try:
                y, idx = lib.nn.functional.max_pool2d(t, k, s, p, d, return_indices=True)
            except RuntimeError as e:
                outs.append(str(e))
                continue
            weights = lib.tensor(np.arange(y.numel(), dtype=np.float32).reshape(y.shape))
            (y * weights).sum().backward()
            outs.append((y.detach().numpy(), idx.numpy(), t.grad.numpy()))
        if isinstance(outs[0], str) or isinstance(outs[1], str):
            assert isinstance(outs[0], str) and isinstance(outs[1], str), outs
            continue
        compared += 1
        for a, b in zip(*outs):
            np.testing.assert_array_equal(a, b, err_msg=f"kernel {k} stride {s} padding {p} dilation {d}")
    assert compared > 30


# ------------------------------------------------ an outside review's cases (docs/reviews/2026-12-07-speed.md)


def same_bits(a, b):
    a, b = np.asarray(a), np.asarray(b)
    return a.shape == b.shape and a.dtype == b.dtype and np.ascontiguousarray(a).tobytes() == b.tobytes()


def both(program):
    """program(lib) for torch and gradbook, each result as NumPy arrays (or the error's type and text)."""
    outs = []
    for lib in (torch, gradbook):
        try:
            outs.append([np.asarray(r.detach().numpy()) for r in program(lib)])
        except Exception as e:  # noqa: BLE001 (the error is what is compared)
            outs.append((type(e).__name__, str(e)))
    return outs


@pytest.mark.parametrize(
    "shape, args",
    [
        ((1, 1, 2, 1), dict(kernel_size=(1, 2), stride=1, padding=(0, 1), dilation=(1, 2))),  # no place inside
        ((1, 1, 2, 2), dict(kernel_size=2, stride=1, padding=1, dilation=3)),  # the index past the channel
        ((2, 3, 5, 4), dict(kernel_size=3, stride=3, padding=1, dilation=2, ceil_mode=True)),
    ],
)
def test_windows_with_no_place_inside_the_input_are_minus_inf(shape, args):
    x = np.arange(np.prod(shape), dtype=np.float32).reshape(shape)
    t, g = both(lambda lib: lib.nn.functional.max_pool2d(lib.tensor(x), return_indices=True, **args))
    assert all(same_bits(a, b) for a, b in zip(t, g)), (t, g)


def grads(lib, x, args, g, create_graph=False, w=None):
    xt = lib.tensor(x, requires_grad=True)
    gt = lib.tensor(g, requires_grad=create_graph)
    (gx,) = lib.autograd.grad(lib.nn.functional.max_pool2d(xt, **args), xt, gt, create_graph=create_graph)
    if w is None:
        return [gx]
    (gx * lib.tensor(w)).sum().backward()
    return [gx, gt.grad, xt.grad]


@pytest.mark.parametrize("create_graph", [False, True])
def test_a_minus_zero_gradient_lands_as_plus_zero(create_graph):
    """torch adds each incoming value to a zero: -0 becomes +0 (windows apart, and overlapping)."""
    x = np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4)
    for args in (dict(kernel_size=2), dict(kernel_size=2, stride=3, padding=1), dict(kernel_size=3, stride=1)):
        g = -np.zeros(tuple(torch.nn.functional.max_pool2d(torch.tensor(x), **args).shape), np.float32)
        t, b = both(lambda lib, args=args, g=g: grads(lib, x, args, g, create_graph))
        assert all(same_bits(p, q) for p, q in zip(t, b)), (args, t, b)


def test_overlapping_windows_add_in_torchs_order():
    """Output by output (row-major), as torch's loop: 1 + 1e8 - 1e8 is 0 there, not 1."""
    x = np.array([[[[0.0, 0.0, 1.0, 0.0, 0.0]]]], np.float32)
    g = np.array([[[[1.0, 1e8, -1e8, 0.0, 0.0]]]], np.float32)
    t, b = both(lambda lib: grads(lib, x, dict(kernel_size=(1, 5), stride=1, padding=(0, 2)), g))
    assert same_bits(t[0], b[0]) and t[0].sum() == 0, (t, b)


def test_create_graph_records_torchs_node_and_keeps_inf_and_minus_zero_in_place():
    x = np.array([[[[1.0, 2.0], [3.0, 4.0]]]], np.float32)
    for g, w in (([[[[np.inf]]]], x), ([[[[5.0]]]], [[[[np.inf, 1.0], [1.0, -0.0]]]])):
        t, b = both(lambda lib, g=g, w=w: grads(lib, x, dict(kernel_size=2), np.float32(g), True, np.float32(w)))
        assert all(same_bits(p, q) for p, q in zip(t, b)), (t, b)
    xt = gradbook.tensor(x, requires_grad=True)
    (gx,) = gradbook.autograd.grad(
        gradbook.nn.functional.max_pool2d(xt, 2), xt, gradbook.ones(1, 1, 1, 1), create_graph=True
    )
    assert gx.requires_grad and type(gx.grad_fn).__name__ == "MaxPool2DWithIndicesBackwardBackward0"
    assert gx.grad_fn._saved_indices.tolist() == [[[[3]]]]


def test_the_node_saves_torchs_arguments_and_a_3d_input_gets_the_node_itself():
    x = np.random.default_rng(0).standard_normal((2, 3, 7, 6)).astype(np.float32)
    for lib_args in (dict(kernel_size=3, stride=2, padding=1, ceil_mode=True), dict(kernel_size=(2,), dilation=(1, 2))):
        nodes = [
            lib.nn.functional.max_pool2d(lib.tensor(x, requires_grad=True), **lib_args).grad_fn
            for lib in (torch, gradbook)
        ]
        for name in ("kernel_size", "stride", "padding", "dilation", "ceil_mode"):
            assert getattr(nodes[1], f"_saved_{name}") == getattr(nodes[0], f"_saved_{name}"), name
    y = gradbook.nn.functional.max_pool2d(gradbook.tensor(x[0], requires_grad=True), 2)
    assert type(y.grad_fn).__name__ == "MaxPool2DWithIndicesBackward0" and tuple(y.grad_fn._saved_result1.shape) == (
        3,
        3,
        3,
    )


BAD_ARGUMENTS = [
    ((1, 1, 4, 4), dict(kernel_size=0)),
    ((1, 1, 4, 4), dict(kernel_size=2, stride=0)),
    ((1, 1, 4, 4), dict(kernel_size=2, padding=-1)),
    ((1, 1, 4, 4), dict(kernel_size=2, dilation=0)),
    ((1, 1, 4, 4), dict(kernel_size=5)),
    ((1, 1, 4, 4), dict(kernel_size=3, padding=2)),
    ((1, 1, 4, 4), dict(kernel_size=3, padding=2, dilation=2)),
    ((4, 4), dict(kernel_size=2)),
    ((1, 1, 1, 4, 4), dict(kernel_size=2)),
    ((0, 1, 4, 4), dict(kernel_size=2)),
    ((1, 0, 4, 4), dict(kernel_size=2)),
    ((0, 4, 4), dict(kernel_size=2)),
    ((1, 1, 0, 4), dict(kernel_size=1)),
    ((1, 1, 4, 4), dict(kernel_size=(2, 2, 2))),
    ((1, 1, 4, 4), dict(kernel_size=2, stride=(1, 1, 1))),
    ((1, 1, 4, 4), dict(kernel_size=2, padding=(1, 1, 1))),
    ((1, 1, 4, 4), dict(kernel_size=2, dilation=(1, 2, 3))),
    ((1, 1, 4, 4), dict(kernel_size=-1)),
    ((1, 1, 4, 4), dict(kernel_size=(2, -1))),
    ((1, 1, 4, 4), dict(kernel_size=2, stride=-1)),
    ((1, 1, 4, 4), dict(kernel_size=(2,))),
    ((1, 1, 4, 4), dict(kernel_size=2, stride=(1,))),
    ((1, 1, 4, 4), dict(kernel_size=2, padding=(1,))),
    ((1, 1, 4, 4), dict(kernel_size=2, dilation=(2,))),
    ((1, 1, 3, 3), dict(kernel_size=2, dilation=3)),
    ((1, 1, 4, 4), dict(kernel_size=4, stride=1, padding=2)),
    ((1, 1, 2, 2), dict(kernel_size=3, stride=1, padding=1, ceil_mode=True)),
    ((1, 1, 4, 4), dict(kernel_size=2, stride=[])),
    ((1, 1, 4, 4), dict(kernel_size=2.0)),
    ((1, 1, 4, 4), dict(kernel_size=True)),
    ((1, 1, 4, 4), dict(kernel_size=(2, 2.0))),
    ((1, 1, 4, 4), dict(kernel_size=2, padding=1.5)),
    ((1, 1, 4, 4), dict(kernel_size=None)),
    ((1, 1, 6, 6), dict(kernel_size=(2.0, 2))),  # the parser checks the first element's type
    ((1, 1, 6, 6), dict(kernel_size=(True, 2))),
    ((1, 1, 6, 6), dict(kernel_size=(2, True))),  # a later bool converts: 1
    ((1, 1, 6, 6), dict(kernel_size=[2, 2.0])),
    ((1, 1, 6, 6), dict(kernel_size=2, padding=(1.5, 0))),
    ((1, 1, 6, 6), dict(kernel_size=2, padding=(0, 1.5))),
    ((1, 1, 6, 6), dict(kernel_size=2, stride=(None,))),
    ((1, 1, 6, 6), dict(kernel_size=2, dilation=[1, None])),
]


@pytest.mark.parametrize("shape, args", BAD_ARGUMENTS)
@pytest.mark.parametrize("return_indices", [False, True])
def test_arguments_are_checked_as_torch_checks_them(shape, args, return_indices):
    x = np.ones(shape, np.float32)

    def program(lib):
        out = lib.nn.functional.max_pool2d(lib.tensor(x), return_indices=return_indices, **args)
        return out if return_indices else (out,)

    t, g = both(program)
    if isinstance(t, tuple) or isinstance(g, tuple):
        assert t == g
    else:
        assert all(same_bits(a, b) for a, b in zip(t, g))

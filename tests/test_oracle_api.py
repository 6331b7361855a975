"""torch's API surface that lessons reach for, one line per case, torch decides.

Each case runs on gradbook and on torch; the outcomes must be equal: values (tensors as dtype,
shape, values, requires_grad), reprs with ``torch.`` read as ``gradbook.``, or the exception's type
and first line. Skipped without torch.
"""

from __future__ import annotations

import pytest
from test_oracle_semantics import normal

import gradbook

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.oracle


def outcome(T, program):
    try:
        return ("value", renamed(normal(program(T))))
    except BaseException as e:  # noqa: BLE001  (AssertionError is torch's CUDA refusal)
        return ("error", type(e).__name__, str(e).split("\n")[0].replace("torch.", "gradbook."))


def renamed(v):
    """torch's module name read as gradbook's, in every string of a value."""
    if isinstance(v, str):
        return v.replace("torch.", "gradbook.")
    return tuple(renamed(x) for x in v) if isinstance(v, (tuple, list)) else v


def with_default_dtype(T, d, program):
    """``program`` run with ``set_default_dtype(d)``, the default restored after."""
    T.set_default_dtype(d)
    try:
        return program()
    finally:
        T.set_default_dtype(T.float32)


def leaf(T, values, **kw):
    return T.tensor(values, requires_grad=True, **kw)


CASES = {
    # ------------------------------------------------ devices: the CPU only
    "device('cpu')": lambda T: repr(T.device("cpu")),
    "str(device)": lambda T: str(T.device("cpu")),
    "device('cpu', 0)": lambda T: repr(T.device("cpu", 0)),
    "device('cpu:0')": lambda T: repr(T.device("cpu:0")),
    "device('cuda:1') can be named": lambda T: (
        repr(T.device("cuda:1")),
        T.device("cuda:1").type,
        T.device("cuda:1").index,
    ),
    "device(type=, index=)": lambda T: repr(T.device(type="cpu", index=0)),
    "device of a device": lambda T: repr(T.device(T.device("cpu"))),
    "device('gpu')": lambda T: T.device("gpu"),
    "device('float64')": lambda T: T.device("float64"),
    "device('cpu:x')": lambda T: T.device("cpu:x"),
    "device('cpu', -1)": lambda T: T.device("cpu", -1),
    "device(0)": lambda T: T.device(0),
    "device equality": lambda T: (
        T.device("cpu") == T.device("cpu"),
        T.device("cpu") == "cpu",
        T.device("cpu") in {T.device("cpu")},
    ),
    "x.device": lambda T: repr(T.ones(2).device),
    "x.device.type": lambda T: T.ones(2).device.type,
    "x.is_cuda, x.is_cpu": lambda T: (T.ones(1).is_cuda, T.ones(1).is_cpu),
    "x.get_device()": lambda T: T.ones(1).get_device(),
    "the device idiom": lambda T: (lambda d: T.ones(2, device=d) * T.tensor([1.0, 2.0]).to(d))(
        "cuda" if T.cuda.is_available() else "cpu"
    ),
    "factories with device=": lambda T: [
        f(device="cpu").shape
        for f in (
            lambda **k: T.zeros(2, **k),
            lambda **k: T.ones(2, **k),
            lambda **k: T.full((2,), 3.0, **k),
            lambda **k: T.arange(3, **k),
            lambda **k: T.linspace(0, 1, 3, **k),
            lambda **k: T.eye(2, **k),
            lambda **k: T.rand(2, **k),
            lambda **k: T.randn(2, **k),
            lambda **k: T.randint(0, 5, (2,), **k),
            lambda **k: T.randperm(3, **k),
            lambda **k: T.tensor([1.0], **k),
            lambda **k: T.as_tensor([1.0], **k),
            lambda **k: T.zeros_like(T.ones(2), **k),
            lambda **k: T.ones_like(T.ones(2), **k),
        )
    ],
    "zeros(device='cuda')": lambda T: T.zeros(2, device="cuda"),
    "tensor(device=device('cuda'))": lambda T: T.tensor([1.0], device=T.device("cuda")),
    "x.cuda()": lambda T: T.ones(2).cuda(),
    "x.to('cuda')": lambda T: T.ones(2).to("cuda"),
    "x.to('gpu')": lambda T: T.ones(2).to("gpu"),
    "x.to(3)": lambda T: T.ones(2).to(3),
    "x.to('float64')": lambda T: T.ones(2).to("float64"),
    "x.to('cpu') is x": lambda T: (lambda x: x.to("cpu") is x)(T.ones(2)),
    "x.cpu() is x": lambda T: (lambda x: x.cpu() is x)(T.ones(2)),
    "x.to(dtype)": lambda T: T.ones(2).to(T.float64),
    "x.to('cpu', dtype)": lambda T: T.ones(2).to("cpu", T.float64),
    "x.to(device=, dtype=)": lambda T: T.ones(2).to(device="cpu", dtype=T.int64),
    "x.to(other)": lambda T: T.ones(2).to(T.ones(1, dtype=T.float64)),
    "x.to(copy=True) is a copy": lambda T: (lambda x: x.to("cpu", copy=True) is x)(T.ones(2)),
    "x.to(dtype) records ToCopyBackward0": lambda T: leaf(T, [1.0]).to("cpu", T.float64).grad_fn.name(),
    "x.to(None)": lambda T: T.ones(2).to(None),
    "x.to(non_blocking=True)": lambda T: T.ones(1).to("cpu", non_blocking=True),
    "x.to([1])": lambda T: T.ones(2).to([1]),
    "x.to(dtype, dtype)": lambda T: T.ones(2).to(T.float64, T.float32),
    "cuda queries": lambda T: (T.cuda.is_available(), T.cuda.device_count(), T.cuda.is_initialized()),
    "cuda.manual_seed": lambda T: (T.cuda.manual_seed(0), T.cuda.manual_seed_all(0)),
    "cuda.memory_allocated": lambda T: T.cuda.memory_allocated(),
    "cuda.current_device()": lambda T: T.cuda.current_device(),
    "cuda.get_device_name()": lambda T: T.cuda.get_device_name(),
    "cuda.synchronize()": lambda T: T.cuda.synchronize(),
    "accelerator": lambda T: (
        T.accelerator.is_available(),
        T.accelerator.current_accelerator(),
        T.accelerator.device_count(),
    ),
    "backends.mps": lambda T: (T.backends.mps.is_available(), T.backends.mps.is_built()),
    "backends.cudnn flags": lambda T: (
        T.backends.cudnn.enabled,
        T.backends.cudnn.benchmark,
        T.backends.cudnn.deterministic,
        T.backends.cudnn.is_available(),
    ),
    "get_default_device": lambda T: repr(T.get_default_device()),
    "set_default_device('cpu')": lambda T: (T.set_default_device("cpu"), T.ones(1))[1],
    "set_default_device('cuda'), then a factory": lambda T: (
        (
            T.set_default_device("cuda"),
            (lambda: (_ for _ in ()).throw(AssertionError("unreached"))) if False else None,
        )
        and _restoring_device(T, lambda: T.zeros(1))
    ),
    # ------------------------------------------------ the default dtype
    "get_default_dtype": lambda T: T.get_default_dtype(),
    "set_default_dtype(float64): floats": lambda T: with_default_dtype(
        T,
        T.float64,
        lambda: (
            T.tensor([1.5]),
            T.ones(1),
            T.arange(0.0, 2.0),
            T.linspace(0, 1, 3),
            T.Tensor([1]),
            T.tensor([1, 2]) / 2,
            T.tensor([1, 2]) * 1.5,
            T.exp(T.tensor([1])),
            T.get_default_dtype(),
        ),
    ),
    "set_default_dtype(float64): a float32 tensor prints its dtype": lambda T: with_default_dtype(
        T, T.float64, lambda: repr(T.tensor([1.5], dtype=T.float32))
    ),
    "set_default_dtype(float64): repr of a float64 tensor": lambda T: with_default_dtype(
        T, T.float64, lambda: repr(T.tensor([1.5, 2.0]))
    ),
    "set_default_dtype(float64): FloatTensor stays float32": lambda T: with_default_dtype(
        T, T.float64, lambda: T.FloatTensor([1]).dtype
    ),
    "set_default_dtype(float64): gradcheck-style leaf": lambda T: with_default_dtype(
        T, T.float64, lambda: (lambda x: ((x * x).sum().backward(), x.grad)[1])(leaf(T, [0.1, 0.2]))
    ),
    "set_default_dtype(int64)": lambda T: T.set_default_dtype(T.int64),
    # ------------------------------------------------ legacy types and names
    "FloatTensor([1, 2])": lambda T: T.FloatTensor([1, 2]),
    "FloatTensor(2, 3).shape": lambda T: T.FloatTensor(2, 3).shape,
    "LongTensor([1, 2])": lambda T: T.LongTensor([1, 2]),
    "DoubleTensor([1, 2])": lambda T: T.DoubleTensor([1, 2]),
    "BoolTensor([1, 0])": lambda T: T.BoolTensor([1, 0]),
    "IntTensor([1, 0])": lambda T: T.IntTensor([1, 0]),
    "isinstance(x, FloatTensor)": lambda T: (
        isinstance(T.ones(2), T.FloatTensor),
        isinstance(T.ones(2), T.LongTensor),
        isinstance(T.ones(2, dtype=T.int64), T.LongTensor),
        isinstance(T.ones(2), T.Tensor),
    ),
    "repr(FloatTensor)": lambda T: repr(T.FloatTensor),
    "x.type()": lambda T: (T.ones(2).type(), T.ones(2, dtype=T.int64).type(), T.ones(2, dtype=T.float64).type()),
    "x.type(DoubleTensor)": lambda T: leaf(T, [1.0]).type(T.DoubleTensor),
    "x.type('torch.DoubleTensor')": lambda T: T.ones(1).type(f"{T.__name__}.DoubleTensor"),
    "x.type(float64)": lambda T: T.ones(1).type(T.float64),
    "type(x)": lambda T: repr(type(T.ones(1))),
    "type(x.dtype), type(x.shape), type(x.device)": lambda T: (
        repr(type(T.float32)),
        repr(type(T.ones(1).shape)),
        repr(type(T.ones(1).device)),
    ),
    "Tensor(2, 3).shape": lambda T: T.Tensor(2, 3).shape,
    "Tensor()": lambda T: T.Tensor(),
    "is_tensor": lambda T: (T.is_tensor(T.ones(1)), T.is_tensor(1.0), T.is_tensor([1])),
    "x.grad = 0.": lambda T: setattr(leaf(T, [1.0]), "grad", 0.0),
    # ------------------------------------------------ new_* and size=
    "x.new_ones(3)": lambda T: T.ones(2, dtype=T.float64).new_ones(3),
    "x.new_zeros((2,))": lambda T: T.ones(2, dtype=T.float64).new_zeros((2,)),
    "x.new_tensor([1.5]) on int64": lambda T: T.ones(2, dtype=T.int64).new_tensor([1.5]),
    "x.new_full((2,), 3.0)": lambda T: T.ones(2).new_full((2,), 3.0),
    "new_ones needs no grad": lambda T: leaf(T, [1.0]).new_ones(2).requires_grad,
    "randn(size=())": lambda T: T.randn(size=()).shape,
    "zeros(size=(2, 3))": lambda T: T.zeros(size=(2, 3)),
    "ones(size=[2])": lambda T: T.ones(size=[2]),
    "rand(size=(1, 2)).shape": lambda T: T.rand(size=(1, 2)).shape,
    # ------------------------------------------------ norms, reductions, elementwise
    "x.norm()": lambda T: T.tensor([[3.0, 4.0], [0.0, 12.0]]).norm(),
    "x.norm(p=1, dim=1)": lambda T: T.tensor([[3.0, -4.0], [0.0, 12.0]]).norm(p=1, dim=1),
    "x.norm(inf, keepdim)": lambda T: T.tensor([[3.0, -4.0], [0.0, 12.0]]).norm(p=float("inf"), dim=0, keepdim=True),
    "x.norm(p=3)": lambda T: T.tensor([1.0, -2.0, 3.0]).norm(p=3),
    "torch.norm(x, dim=(0, 1))": lambda T: T.norm(T.ones(2, 3), dim=(0, 1)),
    "linalg.norm(matrix)": lambda T: T.linalg.norm(T.tensor([[3.0, 4.0], [0.0, 12.0]])),
    "linalg.norm(x, ord=1, dim=1)": lambda T: T.linalg.norm(T.tensor([[3.0, -4.0], [0.0, 12.0]]), ord=1, dim=1),
    "linalg.vector_norm": lambda T: T.linalg.vector_norm(T.tensor([[3.0, 4.0], [0.0, 12.0]]), ord=2, dim=-1),
    "norm grad_fn": lambda T: leaf(T, [3.0, 4.0]).norm().grad_fn.name(),
    "norm gradient": lambda T: (lambda x: (x.norm().backward(), x.grad)[1])(leaf(T, [3.0, 4.0])),
    "norm gradient at 0": lambda T: (lambda x: (x.norm().backward(), x.grad)[1])(leaf(T, [0.0, 0.0])),
    "1-norm gradient": lambda T: (lambda x: (x.norm(p=1).backward(), x.grad)[1])(leaf(T, [3.0, -4.0, 0.0])),
    "inf-norm gradient, a tie": lambda T: (lambda x: (x.norm(p=float("inf")).backward(), x.grad)[1])(
        leaf(T, [3.0, -3.0, 1.0])
    ),
    "norm of an int tensor": lambda T: T.tensor([1, 2]).norm(),
    "x.cumsum(0)": lambda T: T.tensor([[1.0, 2.0], [3.0, 4.0]]).cumsum(0),
    "x.cumsum of ints": lambda T: T.tensor([1, 2, 3]).cumsum(0),
    "cumsum gradient": lambda T: (lambda x: ((x.cumsum(0) * T.tensor([1.0, 2.0, 3.0])).sum().backward(), x.grad)[1])(
        leaf(T, [1.0, 2.0, 3.0])
    ),
    "x.prod()": lambda T: T.tensor([[1.0, 2.0], [3.0, 4.0]]).prod(),
    "x.prod(1, keepdim=True)": lambda T: T.tensor([[1.0, 2.0], [3.0, 4.0]]).prod(1, keepdim=True),
    "prod of ints": lambda T: T.tensor([2, 3]).prod(),
    "prod gradient with a zero": lambda T: (lambda x: (x.prod().backward(), x.grad)[1])(leaf(T, [2.0, 0.0, 3.0])),
    "prod gradient with two zeros": lambda T: (lambda x: (x.prod().backward(), x.grad)[1])(leaf(T, [0.0, 0.0, 3.0])),
    "prod(dim) gradient with a zero": lambda T: (lambda x: (x.prod(1).sum().backward(), x.grad)[1])(
        leaf(T, [[2.0, 0.0, 3.0], [1.0, 2.0, 4.0]])
    ),
    "prod's second derivative with a zero": lambda T: (
        lambda x: T.autograd.grad(T.autograd.grad(x.prod(), x, create_graph=True)[0].sum(), x)[0]
    )(leaf(T, [2.0, 0.0, 3.0])),
    "x.var()": lambda T: T.tensor([1.0, 2.0, 4.0]).var(),
    "x.var(unbiased=False)": lambda T: T.tensor([1.0, 2.0, 4.0]).var(unbiased=False),
    "x.var(False)": lambda T: T.tensor([1.0, 2.0, 4.0]).var(False),
    "x.var(1, keepdim=True)": lambda T: T.tensor([[1.0, 2.0], [3.0, 5.0]]).var(1, keepdim=True),
    "x.std(correction=0)": lambda T: T.tensor([1.0, 2.0, 4.0]).std(correction=0),
    "x.std(dim=0)": lambda T: T.tensor([[1.0, 2.0], [3.0, 5.0]]).std(dim=0),
    "var of ints": lambda T: T.tensor([1, 2]).var(),
    "var of one element": lambda T: T.tensor([1.0]).var(),
    "var gradient": lambda T: (lambda x: (x.var().backward(), x.grad)[1])(leaf(T, [1.0, 2.0, 4.0])),
    "std gradient": lambda T: (lambda x: (x.std(0).sum().backward(), x.grad)[1])(leaf(T, [[1.0, 2.0], [3.0, 5.0]])),
    "x.square()": lambda T: (lambda x: (x.square(), x.square().grad_fn.name()))(leaf(T, [1.5, -2.0])),
    "log1p expm1 exp2 log2 log10": lambda T: (lambda x: (x.log1p(), x.expm1(), x.exp2(), x.log2(), x.log10()))(
        T.tensor([0.5, 2.0])
    ),
    "sign floor ceil round": lambda T: (lambda x: (x.sign(), x.floor(), x.ceil(), x.round()))(
        T.tensor([-1.5, 0.0, 0.5, 2.5, 3.7])
    ),
    "round(decimals=1)": lambda T: T.round(T.tensor([1.25, 2.35]), decimals=1),
    "floor of ints": lambda T: T.tensor([1, -2]).floor(),
    "step functions' gradient": lambda T: (lambda x: ((x.floor() + x.round() + x.sign()).sum().backward(), x.grad)[1])(
        leaf(T, [1.5, -0.3])
    ),
    "torch.pow(x, 2)": lambda T: (lambda x: (T.pow(x, 2), T.pow(x, 2).grad_fn.name()))(leaf(T, [1.5, -2.0])),
    "torch.pow(2, x)": lambda T: T.pow(2, T.tensor([1.0, 3.0])),
    "x.sum(axis=0)": lambda T: T.ones(2, 3).sum(axis=0),
    "x.mean(axis=1, keepdims=True)": lambda T: T.tensor([[1.0, 2.0], [3.0, 5.0]]).mean(axis=1, keepdims=True),
    "torch.sum(x, dim=1)": lambda T: T.sum(T.ones(2, 3), dim=1),
    "torch.matmul(input=, other=)": lambda T: T.matmul(input=T.ones(2, 3), other=T.ones(3)),
    "torch.exp(input=x)": lambda T: T.exp(input=T.tensor([0.0])),
    "allclose": lambda T: (T.allclose(T.ones(2), T.ones(2) + 1e-9), T.allclose(T.ones(2), T.zeros(2))),
    "isclose": lambda T: T.isclose(T.tensor([1.0, 2.0]), T.tensor([1.0, 2.1])),
    "isclose equal_nan": lambda T: T.isclose(T.tensor([float("nan")]), T.tensor([float("nan")]), equal_nan=True),
    "equal": lambda T: (T.equal(T.ones(2), T.ones(2)), T.equal(T.ones(2), T.ones(3))),
    "item of a (1, 1) tensor": lambda T: T.ones(1, 1).item(),
    "numel": lambda T: (T.numel(T.ones(2, 3)), T.ones(2, 3).numel()),
    "element_size": lambda T: [
        (t.element_size(), t.nbytes) for t in (T.ones(2, 3), T.ones(2, dtype=T.float64), T.arange(3), T.ones(2) > 0)
    ],
    "nelement": lambda T: (T.ones(2, 3).nelement(), T.zeros(0).nelement()),
    "data_ptr: a view from the start shares it": lambda T: (
        lambda w: (
            w.t().data_ptr() == w.data_ptr(),
            w[1:].data_ptr() - w.data_ptr(),
            w.clone().data_ptr() == w.data_ptr(),
        )
    )(T.ones(3, 2)),
    "is_floating_point": lambda T: (T.is_floating_point(T.ones(1)), T.is_floating_point(T.tensor([1]))),
    # ------------------------------------------------ in-place variants
    "abs_ on a non-leaf": lambda T: (
        lambda x: (lambda y: (y.abs_(), y.grad_fn.name(), y.sum().backward(), x.grad))(x * 1)
    )(leaf(T, [-1.0, 2.0])),
    "relu_, exp_, neg_": lambda T: (lambda y: (y.relu_(), y.exp_(), y.neg_(), y)[3])(T.tensor([-1.0, 0.5])),
    "sigmoid_ grad_fn": lambda T: (lambda x: (lambda y: (y.sigmoid_(), y.grad_fn.name())[1])(x * 1))(leaf(T, [0.0])),
    "pow_ and square_": lambda T: (lambda y: (y.pow_(2), y.square_(), y)[2])(T.tensor([1.0, 2.0])),
    "abs_ on a leaf": lambda T: leaf(T, [-1.0]).abs_(),
    "round_ and floor_": lambda T: (lambda y: (y.round_(), y)[1])(T.tensor([1.5, 2.5])),
    # ------------------------------------------------ indexing ops
    "masked_fill": lambda T: T.tensor([1.0, -2.0, 3.0]).masked_fill(T.tensor([True, False, True]), 0.0),
    "masked_fill gradient": lambda T: (
        lambda x: ((x.masked_fill(x > 1, 0.0) * T.tensor([1.0, 2.0, 3.0])).sum().backward(), x.grad)[1]
    )(leaf(T, [1.0, 2.0, 3.0])),
    "masked_fill with a broadcast mask": lambda T: T.ones(2, 3).masked_fill(T.tensor([True, False, True]), 5.0),
    "masked_fill with a 0-d tensor": lambda T: T.ones(2).masked_fill(T.tensor([True, False]), T.tensor(7.0)),
    "masked_fill with an int mask": lambda T: T.ones(2).masked_fill(T.tensor([1, 0]), 0.0),
    "masked_fill with a 1-d value": lambda T: T.ones(2).masked_fill(T.tensor([True, False]), T.tensor([7.0])),
    "masked_fill_ in place": lambda T: (lambda y: (y.masked_fill_(y > 1, 0.0), y)[1])(T.tensor([1.0, 2.0])),
    "gather": lambda T: T.tensor([[1.0, 2.0], [3.0, 4.0]]).gather(1, T.tensor([[0, 0], [1, 0]])),
    "gather, a smaller index": lambda T: T.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]).gather(0, T.tensor([[1, 0]])),
    "gather gradient": lambda T: (lambda x: (x.gather(1, T.tensor([[0, 0], [1, 0]])).sum().backward(), x.grad)[1])(
        leaf(T, [[1.0, 2.0], [3.0, 4.0]])
    ),
    "gather with an int32 index": lambda T: T.ones(2, 2).gather(1, T.tensor([[0], [1]], dtype=T.int32)),
    "gather out of bounds": lambda T: T.ones(2, 2).gather(1, T.tensor([[0], [2]])),
    "gather, index of another rank": lambda T: T.ones(2, 2).gather(1, T.tensor([0, 1])),
    "scatter": lambda T: T.zeros(2, 3).scatter(0, T.tensor([[0, 1, 0]]), T.arange(1.0, 7.0).reshape(2, 3)),
    "scatter a number": lambda T: T.zeros(2, 3).scatter(1, T.tensor([[2], [0]]), 5.0),
    "scatter(value=)": lambda T: T.zeros(2).scatter(0, T.tensor([1]), value=3.0),
    "scatter_add, repeated": lambda T: T.zeros(3).scatter_add(0, T.tensor([0, 0, 2]), T.tensor([1.0, 2.0, 3.0])),
    "scatter_ in place": lambda T: (lambda y: (y.scatter_(0, T.tensor([1]), T.tensor([9.0])), y)[1])(T.zeros(3)),
    "torch.scatter": lambda T: T.scatter(T.zeros(3), 0, T.tensor([2]), T.tensor([4.0])),
    "scatter gradients": lambda T: (
        lambda x, s: (
            (T.scatter(x * 1, 0, T.tensor([[0, 1, 0]]), s) * T.arange(1.0, 7.0).reshape(2, 3)).sum().backward(),
            x.grad,
            s.grad,
        )[1:]
    )(leaf(T, [[0.0, 0.0, 0.0], [0.0, 0.0, 0.0]]), leaf(T, [[1.0, 2.0, 3.0]])),
    "scatter_add gradients": lambda T: (
        lambda x, s: (
            (x.scatter_add(0, T.tensor([0, 0]), s) * T.tensor([1.0, 2.0, 3.0])).sum().backward(),
            x.grad,
            s.grad,
        )[1:]
    )(leaf(T, [0.0, 0.0, 0.0]), leaf(T, [1.0, 2.0, 3.0])),
    "scatter's src gradient, src larger than index": lambda T: (
        lambda s: (T.zeros(2, 3).scatter(0, T.tensor([[0, 1, 0]]), s).sum().backward(), s.grad)[1]
    )(leaf(T, [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])),
    "scatter with a float index": lambda T: T.zeros(2, 3).scatter(0, T.tensor([[0.0, 1, 0]]), T.ones(2, 3)),
    "scatter out of bounds": lambda T: T.zeros(2, 3).scatter(0, T.tensor([[0, 2, 0]]), T.ones(2, 3)),
    "scatter, index of another rank": lambda T: T.zeros(2, 3).scatter(0, T.tensor([[[0]]]), T.ones(2, 3)),
    "index_select": lambda T: T.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]).index_select(0, T.tensor([2, 0])),
    "index_select gradient": lambda T: (lambda x: (x.index_select(0, T.tensor([1, 1])).sum().backward(), x.grad)[1])(
        leaf(T, [1.0, 2.0, 3.0])
    ),
    "index_select out of range": lambda T: T.ones(3).index_select(0, T.tensor([3])),
    "index_put_": lambda T: (lambda y: (y.index_put_((T.tensor([0, 2]),), T.tensor(5.0)), y)[1])(T.zeros(3)),
    "index_put_ accumulate": lambda T: (
        lambda y: (y.index_put_((T.tensor([0, 0, 2]),), T.tensor([1.0, 2.0, 3.0]), accumulate=True), y)[1]
    )(T.zeros(3)),
    "index_put_ accumulate gradient": lambda T: (
        lambda x: (
            lambda y: (
                y.index_put_((T.tensor([0, 0]),), x[:2], accumulate=True),
                y.grad_fn.name(),
                (y * T.tensor([1.0, 2.0, 3.0])).sum().backward(),
                x.grad,
            )[1:]
        )(x * 1)
    )(leaf(T, [1.0, 2.0, 3.0])),
    "index_put_ with a list": lambda T: T.zeros(3).index_put_([T.tensor([0])], T.tensor(1.0)),
    "where with a number": lambda T: T.where(T.tensor([1.0, -1.0]) > 0, T.tensor([1.0, -1.0]), 0.0),
    # ------------------------------------------------ memory layout: contiguous, view and reshape
    "is_contiguous": lambda T: (
        T.ones(2, 3).is_contiguous(),
        T.ones(2, 3).t().is_contiguous(),
        T.ones(3)[::2].is_contiguous(),
        T.ones(2, 1).expand(2, 3).is_contiguous(),
    ),
    "contiguous() of a contiguous tensor is itself": lambda T: (lambda x: x.contiguous() is x)(T.ones(2)),
    "contiguous() after .t()": lambda T: (
        lambda x: (x.t().contiguous().grad_fn.name(), x.t().contiguous().is_contiguous())
    )(leaf(T, [[1.0, 2.0], [3.0, 4.0]])),
    "clone keeps the layout": lambda T: (
        T.ones(2, 3).t().clone().is_contiguous(),
        T.ones(2, 3)[:, ::2].clone().is_contiguous(),
    ),
    "view after .t()": lambda T: T.ones(2, 3).t().view(-1),
    "reshape after .t()": lambda T: (
        lambda x: (lambda r: (r, r.grad_fn.name(), r.grad_fn.next_functions[0][0].name(), r._base is None))(
            x.t().reshape(-1)
        )
    )(leaf(T, [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])),
    "reshape of a contiguous tensor is a view": lambda T: (
        lambda x: (x.reshape(3, 2).grad_fn.name(), x.reshape(3, 2)._base is x)
    )(leaf(T, [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])),
    "flatten after .t()": lambda T: leaf(T, [[1.0, 2.0], [3.0, 4.0]]).t().flatten().grad_fn.name(),
    "view of a slice that stays a view": lambda T: T.arange(12.0).reshape(3, 4)[1:].view(8),
    # ------------------------------------------------ class weights in nll_loss / cross_entropy
    "nll_loss with class weights": lambda T: (
        lambda x, t, w: [T.nn.functional.nll_loss(x, t, w, reduction=r) for r in ("mean", "sum", "none")]
    )(_log_probs(T), T.tensor([1, 2, 0]), T.tensor([1.0, 2.0, 0.5])),
    "nll_loss weighted gradient": lambda T: (
        lambda x: (T.nn.functional.nll_loss(x, T.tensor([1, 2, 0]), T.tensor([1.0, 2.0, 0.5])).backward(), x.grad)[1]
    )(_log_probs(T).requires_grad_()),
    "nll_loss weighted, an ignored target": lambda T: T.nn.functional.nll_loss(
        _log_probs(T), T.tensor([1, -100, 0]), T.tensor([1.0, 2.0, 0.5])
    ),
    "nll_loss weighted, one example": lambda T: T.nn.functional.nll_loss(
        _log_probs(T)[0], T.tensor(1), T.tensor([1.0, 2.0, 0.5])
    ),
    "nll_loss with a wrong weight": lambda T: T.nn.functional.nll_loss(_log_probs(T), T.tensor([1, 2, 0]), T.ones(2)),
    "CrossEntropyLoss(weight=)": lambda T: T.nn.CrossEntropyLoss(weight=T.tensor([1.0, 2.0, 0.5]))(
        _log_probs(T), T.tensor([1, 2, 0])
    ),
    "nll_loss(size_average=False)": lambda T: T.nn.functional.nll_loss(
        _log_probs(T), T.tensor([1, 2, 0]), size_average=False
    ),
    "the old size_average/reduce in every loss that takes them": lambda T: (
        lambda x, t: (
            T.nn.functional.binary_cross_entropy(x, t, size_average=False),
            T.nn.functional.binary_cross_entropy_with_logits(x, t, reduce=False),
            T.nn.functional.l1_loss(x, t, size_average=False),
            T.nn.functional.smooth_l1_loss(x, t, reduce=False),
            T.nn.MSELoss(size_average=False)(x, t),
            T.nn.L1Loss(reduce=False).reduction,
            T.nn.CrossEntropyLoss(size_average=False).reduction,
        )
    )(T.tensor([0.5, 0.5]), T.tensor([0.0, 1.0])),  # logs of 0.5: the same float32 bits in both
    "its weight is saved": lambda T: (
        T.nn.functional.nll_loss(
            _log_probs(T).requires_grad_(), T.tensor([1, 2, 0]), T.tensor([1.0, 2.0, 0.5])
        ).grad_fn._saved_weight
    ),
    # ------------------------------------------------ post-accumulate-grad hooks
    "post-accumulate hooks see each sum": lambda T: (
        lambda x, seen: (
            x.register_post_accumulate_grad_hook(lambda t: seen.append(t.grad.clone())),
            (x * 3).sum().backward(),
            (x * 2).sum().backward(),
            seen,
        )[3]
    )(leaf(T, [1.0, 2.0]), []),
    "a removed post-accumulate hook": lambda T: (
        lambda x, seen: (
            x.register_post_accumulate_grad_hook(lambda t: seen.append(1)).remove(),
            (x * 3).sum().backward(),
            len(seen),
        )[2]
    )(leaf(T, [1.0]), []),
    "an optimizer step inside backward": lambda T: (
        lambda w: (
            w.register_post_accumulate_grad_hook(
                lambda p: (
                    T.no_grad().__enter__(),
                    p.sub_(0.1 * p.grad),
                    T.set_grad_enabled(True),
                    setattr(p, "grad", None),
                )
            ),
            (w * w).sum().backward(),
            w,
            w.grad,
        )[2:]
    )(leaf(T, [1.0, 2.0])),
    "post-accumulate hook order with tensor and node hooks": lambda T: (
        lambda x, seen: (
            x.register_hook(lambda g: seen.append("tensor") or None),
            x.register_post_accumulate_grad_hook(lambda t: seen.append("post-accumulate")),
            (
                lambda y: (
                    y.grad_fn.next_functions[0][0].register_hook(lambda i, o: seen.append("node")),
                    y.sum().backward(),
                )
            )(x * 2),
            seen,
        )[3]
    )(leaf(T, [1.0]), []),
    "a post-accumulate hook returning a number": lambda T: (
        lambda x: (x.register_post_accumulate_grad_hook(lambda t: 5), (x * 1).sum().backward())
    )(leaf(T, [1.0])),
    "a post-accumulate hook returning a tensor": lambda T: (
        lambda x: (x.register_post_accumulate_grad_hook(lambda t: t), (x * 1).sum().backward(), x.grad)[2]
    )(leaf(T, [1.0])),
    "post-accumulate hook on a non-leaf": lambda T: (leaf(T, [1.0]) * 1).register_post_accumulate_grad_hook(print),
    "post-accumulate hook without grad": lambda T: T.ones(1).register_post_accumulate_grad_hook(print),
    # ------------------------------------------------ masks choose, they do not multiply: inf/nan upstream
    **{
        f"an inf or nan upstream stays out of what {name} masks out": (
            lambda T, op=op: (
                lambda x: (op(T, x).backward(T.tensor([float("inf"), float("nan"), 1.0])), x.grad)[1]
            )(leaf(T, [-2.0, 0.0, 3.0]))
        )
        for name, op in {
            "relu": lambda T, x: x.relu(),
            "clamp": lambda T, x: x.clamp(-1.0, 1.0),
            "clamp(min=)": lambda T, x: x.clamp(min=0),
            "clamp(max=)": lambda T, x: x.clamp(max=0),
            "hardtanh": lambda T, x: T.nn.functional.hardtanh(x),
            "relu6": lambda T, x: T.nn.functional.relu6(x),
            "maximum": lambda T, x: T.maximum(x, T.zeros(3)),
            "minimum": lambda T, x: T.minimum(x, T.zeros(3)),
            "where": lambda T, x: T.where(x > 0, x, T.zeros(3)),
            "masked_fill": lambda T, x: x.masked_fill(x < 0, 0.0),
            "max()": lambda T, x: x.max().expand(3),
            "max(dim)": lambda T, x: x.reshape(1, 3).max(dim=1).values.expand(3),
        }.items()
    },
    "division's gradient for other, in torch's order (no overflow in other²)": lambda T: (
        lambda a, b: ((a / b).sum().backward(), b.grad.tolist())[1]
    )(leaf(T, [1e-200, 1e200, 3.0], dtype=T.float64), leaf(T, [1e-200, 1e200, 7.0], dtype=T.float64)),
    "sinc by the double where, at tiny x in float32": lambda T: (
        lambda x: (
            (lambda safe: T.where(x != 0, safe.sin() / safe, 1.0))(T.where(x != 0, x, 1.0)).sum().backward(),
            x.grad.tolist(),
        )[1]
    )(leaf(T, [1e-30, 1e-20, 1e-3, 0.0])),
    "sqrt after clamp at 0 and below": lambda T: (
        lambda x: (x.clamp(min=0).sqrt().sum().backward(), x.grad)[1]
    )(leaf(T, [-1.0, 0.0, 4.0])),
    "the double where: +0.0 where masked": lambda T: (
        lambda x: (T.where(x != 0, 1 / T.where(x != 0, x, 1.0), 0.0).sum().backward(), str(x.grad.tolist()))[1]
    )(leaf(T, [0.0, 2.0])),
    # ------------------------------------------------ saved_tensors_hooks
    "saved_tensors_hooks sees what is saved": lambda T: (
        lambda x, seen: (
            (lambda y: None)(
                _with_hooks(T, lambda t: seen.append(tuple(t.shape)) or t, lambda p: p, lambda: x * x + x.exp())
            ),
            seen,
        )[1]
    )(leaf(T, [1.0, 2.0]), []),
    "a Python number an op saved is not packed": lambda T: (
        lambda x, seen: (
            _with_hooks(
                T,
                lambda t: seen.append(tuple(t.shape)) or t,
                lambda p: p,
                lambda: ((x * 2).exp() / 3 - 1.5 * x, x * T.tensor(2.0)),
            ),
            seen,
        )[1]
    )(leaf(T, [1.0, 2.0]), []),
    "gradients through packed tensors": lambda T: (
        lambda x: (_with_hooks(T, lambda t: t * 1, lambda p: p, lambda: (x * x * x).sum()).backward(), x.grad)[1]
    )(leaf(T, [1.0, 2.0])),
    "unpack changes what backward reads": lambda T: (
        lambda x: (_with_hooks(T, lambda t: t, lambda p: p * 0 + 10, lambda: (x * x).sum()).backward(), x.grad)[1]
    )(leaf(T, [1.0, 2.0])),
    "nested hooks: the innermost packs": lambda T: (
        lambda x, seen: (
            _with_hooks(
                T,
                lambda t: seen.append("outer") or t,
                lambda p: p,
                lambda: _with_hooks(T, lambda t: seen.append("inner") or t, lambda p: p, lambda: x.sin()),
            ),
            seen,
        )[1]
    )(leaf(T, [1.0]), []),
    "unpack returning a number": lambda T: (
        lambda x: _with_hooks(T, lambda t: t, lambda p: 5, lambda: x.sin()).sum().backward()
    )(leaf(T, [1.0])),
    # ------------------------------------------------ random draws: shape, dtype, errors (values: test_random_torch.py)
    "manual_seed returns a Generator": lambda T: repr(T.manual_seed(3)).split(" object at")[0],
    "initial_seed after manual_seed": lambda T: (T.manual_seed(3), T.initial_seed())[1],
    "Generator()": lambda T: (repr(T.Generator()).split(" object at")[0], T.Generator().initial_seed()),
    "Generator().manual_seed(5).initial_seed()": lambda T: T.Generator().manual_seed(5).initial_seed(),
    "Generator().device": lambda T: repr(T.Generator().device),
    "manual_seed(-1)": lambda T: T.Generator().manual_seed(-1).initial_seed(),
    "manual_seed(2**64)": lambda T: T.manual_seed(2**64),
    "Generator(device='cuda')": lambda T: _error_type(
        lambda: T.Generator(device="cuda")
    ),  # torch's text: a linker rant
    "randn(2, 3, generator=5)": lambda T: T.randn(2, 3, generator=5),
    "randint(0, 5, (2,), generator=5)": lambda T: T.randint(0, 5, (2,), generator=5),
    "randperm(3, generator=5)": lambda T: T.randperm(3, generator=5),
    "uniform_(generator=5)": lambda T: T.ones(2).uniform_(generator=5),
    "normal(tensor, 1.0, generator=5)": lambda T: T.normal(T.zeros(2), 1.0, generator=5),
    "a generator repeats its draws": lambda T: (lambda a, b: T.equal(a, b))(
        T.rand(3, generator=T.Generator().manual_seed(1)), T.rand(3, generator=T.Generator().manual_seed(1))
    ),
    "rand(generator=5)": lambda T: T.rand(2, generator=5),
    "shapes and dtypes of the draws": lambda T: [
        (tuple(v.shape), v.dtype)
        for v in (
            T.rand(2, 3),
            T.randn(4, dtype=T.float64),
            T.randint(0, 5, (3,)),
            T.randint(5, (2, 2)),
            T.randperm(4),
            T.randint_like(T.ones(2), 5),
            T.normal(0.0, 1.0, size=(2,)),
            T.normal(T.zeros(2), 1.0),
            T.normal(0.0, T.ones(3)),
            T.normal(T.zeros(2, 1), T.ones(3)),
            T.normal(T.zeros(2, dtype=T.float64), 1.0),
            T.bernoulli(T.tensor([0.0, 1.0])),
            T.multinomial(T.tensor([0.2, 0.8]), 4, replacement=True),
            T.multinomial(T.tensor([[0.2, 0.8], [0.5, 0.5]]), 1),
            T.ones(2).uniform_(),
            T.ones(2, dtype=T.float64).normal_(),
            T.ones(3, dtype=T.int64).random_(0, 5),
            T.ones(2).bernoulli_(0.5),
        )
    ],
    "draws that are certain": lambda T: (
        T.bernoulli(T.tensor([0.0, 1.0])),
        T.multinomial(T.tensor([0.0, 1.0]), 1),
        T.ones(2).uniform_(3, 3),
        T.ones(3, dtype=T.int64).random_(0, 1),
        T.ones(2).normal_(4.0, 0.0),
    ),
    "normal(0.0, 1.0)": lambda T: T.normal(0.0, 1.0),
    "normal with std < 0": lambda T: T.normal(T.zeros(2), -1.0),
    "bernoulli(p > 1)": lambda T: T.bernoulli(T.tensor([2.0])),
    "multinomial too many without replacement": lambda T: T.multinomial(T.tensor([0.5, 0.5]), 3),
    "multinomial of zeros": lambda T: T.multinomial(T.tensor([0.0, 0.0]), 1),
    "multinomial of a negative weight": lambda T: T.multinomial(T.tensor([-1.0, 2.0]), 1),
    "uniform_(3, 2)": lambda T: T.ones(2).uniform_(3, 2),
    "normal_(0, -1)": lambda T: T.ones(2).normal_(0, -1),
    "random_(5, 5)": lambda T: T.ones(2).random_(5, 5),
    "uniform_ on a leaf that requires grad": lambda T: leaf(T, [1.0]).uniform_(),
    "uniform_ on a non-leaf": lambda T: (lambda y: (y.uniform_(2.0, 2.0), y.grad_fn.name(), y)[1:])(leaf(T, [1.0]) * 1),
    "normal_ on a non-leaf": lambda T: (lambda y: (y.normal_(1.0, 0.0), y.grad_fn.name(), y)[1:])(leaf(T, [1.0]) * 1),
    "init under no_grad": lambda T: (
        lambda w: (T.no_grad().__enter__(), w.uniform_(1.0, 1.0), T.set_grad_enabled(True), w)[3]
    )(leaf(T, [0.0, 0.0])),
    # ------------------------------------------------ more ops (sorting, shapes, elementwise)
    "cumprod through a zero": lambda T: _grads(T, lambda x: x.cumprod(0), [2.0, 0.0, 3.0, 0.5]),
    "cumprod through two zeros": lambda T: _grads(T, lambda x: x.cumprod(0), [0.0, 2.0, 0.0, 3.0]),
    "amax shares the gradient among ties": lambda T: _grads(T, lambda x: x.amax(), [3.0, 1.0, 3.0]),
    "amax along a dim with ties": lambda T: _grads(T, lambda x: x.amax(1), [[1.0, 1.0], [2.0, 0.0]]),
    "sort keeps equal values in order": lambda T: T.tensor([2.0, 1.0, 2.0, 0.0]).sort(stable=True),
    "sort of bools, descending": lambda T: T.tensor([True, False, True, False]).sort(descending=True),
    "topk of bools": lambda T: T.tensor([True, False, True]).topk(2),
    "trunc's gradient of an inf": lambda T: (lambda x: (x.trunc().backward(T.tensor(float("inf"))), x.grad)[1])(
        leaf(T, 1.5)
    ),
    "sort descending": lambda T: T.tensor([[2.0, 1.0, 3.0], [0.0, 5.0, 4.0]]).sort(descending=True),
    "sort's gradient": lambda T: _grads(T, lambda x: x.sort().values * T.tensor([1.0, 10.0, 100.0]), [3.0, 1.0, 2.0]),
    "argsort": lambda T: T.tensor([[2.0, 1.0, 3.0], [0.0, 5.0, 4.0]]).argsort(dim=0),
    "topk": lambda T: T.tensor([1.0, 5.0, 3.0, 4.0]).topk(2),
    "topk smallest": lambda T: T.tensor([1.0, 5.0, 3.0, 4.0]).topk(3, largest=False),
    "topk k too large": lambda T: T.tensor([1.0, 5.0]).topk(3),
    "topk's gradient": lambda T: _grads(T, lambda x: x.topk(2).values * T.tensor([1.0, 10.0]), [1.0, 5.0, 3.0]),
    "logsumexp of large values": lambda T: T.tensor([1000.0, 1000.0]).logsumexp(0),
    "logsumexp of an integer tensor": lambda T: (lambda y: (y.dtype, round(y.item(), 6)))(
        T.tensor([1, 2, 3]).logsumexp(0)
    ),
    "tril and triu": lambda T: (T.ones(3, 3).tril(-1), T.ones(2, 3).triu(1)),
    "flip": lambda T: T.arange(6).reshape(2, 3).flip(1),
    "roll flattened": lambda T: T.arange(6).reshape(2, 3).roll(1),
    "roll shifts and dims differ": lambda T: T.ones(2, 3).roll((1, 2), 0),
    "repeat adds dimensions": lambda T: T.tensor([1.0, 2.0]).repeat(2, 2),
    "repeat with too few sizes": lambda T: T.ones(2, 3).repeat(2),
    "tile": lambda T: T.tensor([[1.0, 2.0]]).tile(2),
    "narrow": lambda T: (lambda x: (x.narrow(1, -2, 2), x.narrow(1, 1, 2).grad_fn.name()))(leaf(T, [[1.0, 2.0, 3.0]])),
    "narrow past the end": lambda T: T.ones(2, 3).narrow(1, 2, 2),
    "diff": lambda T: (lambda y: (y, y.grad_fn.name()))(leaf(T, [1.0, 4.0, 9.0, 16.0]).diff(n=2)),
    "movedim": lambda T: T.ones(2, 3, 4).movedim(0, -1).shape,
    "movedim of two": lambda T: T.ones(2, 3, 4, 5).movedim((0, 1), (2, 3)).shape,
    "swapaxes": lambda T: (lambda y: (y.shape, y.grad_fn.name()))(leaf(T, [[1.0, 2.0]]).swapaxes(0, 1)),
    "outer": lambda T: (lambda y: (y, y.grad_fn.name()))(leaf(T, [1.0, 2.0]).outer(T.tensor([1.0, 0.5, 3.0]))),
    "where as a method": lambda T: T.tensor([1.0, -2.0]).where(T.tensor([True, False]), 0.0),
    "isnan, isinf, isfinite": lambda T: (lambda x: (x.isnan(), x.isinf(), x.isfinite()))(
        T.tensor([1.0, float("nan"), float("inf"), -float("inf")])
    ),
    "nan_to_num": lambda T: T.tensor([float("nan"), float("inf"), -float("inf"), 1.0]).nan_to_num(),
    "nan_to_num's gradient": lambda T: _grads(T, lambda x: x.log().nan_to_num(), [0.0, 1.0, -1.0]),
    "atan2 of signs": lambda T: T.tensor([1.0, -1.0, 0.0]).atan2(T.tensor([-1.0, -1.0, -1.0])),
    "atan2 of a number": lambda T: T.tensor([1.0]).atan2(2.0),
    "float32 atan, asin, acos, sinh, cosh (to 6 digits)": lambda T: (
        lambda x: [[round(v, 6) for v in f().tolist()] for f in (x.atan, x.asin, x.acos, x.sinh, x.cosh)]
    )(T.linspace(-0.99, 0.99, 9)),
    "trunc and frac of negatives": lambda T: (T.tensor([-1.5, 2.7]).trunc(), T.tensor([-1.5, 2.7]).frac()),
    "lerp": lambda T: _grads(T, lambda x: x.lerp(T.tensor([1.0, 1.0], dtype=T.float64), 0.25), [0.0, 2.0]),
    "lerp of two dtypes": lambda T: T.tensor([0.0], dtype=T.float64).lerp(T.tensor([1.0]), 0.5),
    "addcmul": lambda T: T.tensor([1.0, 2.0]).addcmul(T.tensor([3.0, 4.0]), T.tensor([0.5]), value=2),
    "clamp_min, clamp_max": lambda T: (T.tensor([-1.0, 2.0]).clamp_min(0.0), T.tensor([-1.0, 2.0]).clamp_max(0.0)),
    "trace of a non-square matrix": lambda T: T.arange(6.0).reshape(2, 3).trace(),
    "sort of a 0-d tensor": lambda T: T.tensor(3.0).sort(),
    "bmm": lambda T: (lambda y: (y.shape, y.grad_fn.name()))(
        T.bmm(T.ones(2, 3, 4, requires_grad=True), T.ones(2, 4, 5))
    ),
    "bmm of matrices": lambda T: T.bmm(T.ones(3, 4), T.ones(4, 5)),
    "bmm of other batches": lambda T: T.bmm(T.ones(2, 3, 4), T.ones(3, 4, 5)),
    "addmm": lambda T: (lambda y: (y, y.grad_fn.name()))(
        T.addmm(T.ones(3), T.ones(2, 4, requires_grad=True), T.ones(4, 3))
    ),
    "softsign as its ops": lambda T: _grads(T, lambda x: T.nn.functional.softsign(x), [-2.0, 0.5]),
    "normalize as its ops": lambda T: _grads(T, lambda x: T.nn.functional.normalize(x, dim=0), [3.0, 4.0]),
    "normalize of zeros": lambda T: _grads(T, lambda x: T.nn.functional.normalize(x, dim=0), [0.0, 0.0]),
    "activation modules": lambda T: [
        repr(m(T.tensor([-2.0, 0.5, 7.0], dtype=T.float64)))
        for m in (
            T.nn.Softplus(),
            T.nn.SiLU(),
            T.nn.Mish(),
            T.nn.ELU(0.5),
            T.nn.Hardtanh(),
            T.nn.ReLU6(),
            T.nn.LogSigmoid(),
        )
    ],
    "LayerNorm modules": lambda T: [
        repr(m)
        for m in (
            T.nn.LayerNorm(4),
            T.nn.LayerNorm((3, 4), eps=1e-6, elementwise_affine=False),
            T.nn.LayerNorm(4, bias=False),
        )
    ],
    "LayerNorm's parameters and graph": lambda T: (
        lambda m: (
            sorted(n for n, _ in m.named_parameters()),
            (lambda y: (y.grad_fn.name(), [f is None for f, _ in y.grad_fn.next_functions]))(m(T.ones(2, 4))),
        )
    )(T.nn.LayerNorm(4)),
    "layer_norm without weight": lambda T: [
        f is None for f, _ in T.nn.functional.layer_norm(leaf(T, [[1.0, 2.0, 4.0]]), (3,)).grad_fn.next_functions
    ],
    "layer_norm of a wrong shape": lambda T: T.nn.functional.layer_norm(T.ones(2, 3), (4,)),
    "conv and pool modules": lambda T: [
        repr(m)
        for m in (
            T.nn.Conv2d(3, 4, 3, stride=2, padding=1),
            T.nn.Conv2d(3, 4, (3, 5), bias=False, dilation=2),
            T.nn.Conv2d(4, 4, 3, padding="same", groups=2),
            T.nn.Conv1d(2, 3, 3),
            T.nn.MaxPool2d(2),
            T.nn.MaxPool2d(3, 1, 1),
            T.nn.AvgPool2d(2),
            T.nn.AdaptiveAvgPool2d(1),
            T.nn.BatchNorm2d(3),
        )
    ],
    "Conv2d's first weights": lambda T: (T.manual_seed(3), T.nn.Conv2d(2, 3, 2).weight, T.nn.Conv2d(2, 3, 2).bias)[1:],
    "a CNN step (to 4 decimals)": lambda T: (
        lambda net, x: (
            lambda loss: (loss.backward(), [round(p.grad.abs().sum().item(), 4) for p in net.parameters()])[1]
        )(T.nn.functional.cross_entropy(net(x), T.tensor([0, 1])))
    )(
        (
            T.manual_seed(0),
            T.nn.Sequential(
                T.nn.Conv2d(1, 2, 3, padding=1),
                T.nn.BatchNorm2d(2),
                T.nn.ReLU(),
                T.nn.MaxPool2d(2),
                T.nn.Conv2d(2, 2, 3),
                T.nn.AdaptiveAvgPool2d(1),
                T.nn.Flatten(),
                T.nn.Linear(2, 2),
            ),
        )[1],
        T.randn(2, 1, 6, 6),
    ),
    "max_pool2d's indices": lambda T: T.nn.functional.max_pool2d(
        T.tensor([[[[1.0, 5.0, 2.0], [7.0, 0.0, 3.0], [4.0, 8.0, 6.0]]]]), 2, stride=1, return_indices=True
    ),
    "conv2d of too few channels": lambda T: T.nn.functional.conv2d(T.ones(1, 2, 4, 4), T.ones(3, 3, 2, 2)),
    "conv2d of a 2-D input": lambda T: T.nn.functional.conv2d(T.ones(4, 4), T.ones(3, 1, 2, 2)),
    "conv2d 'same' with a stride": lambda T: T.nn.functional.conv2d(
        T.ones(1, 1, 4, 4), T.ones(1, 1, 2, 2), stride=2, padding="same"
    ),
    "an unbatched conv2d": lambda T: T.nn.functional.conv2d(T.ones(1, 3, 3), T.ones(2, 1, 2, 2)).shape,
    "BatchNorm2d of a 2-D input": lambda T: T.nn.BatchNorm2d(3)(T.ones(2, 3)),
    "max_pool2d pad too large": lambda T: T.nn.functional.max_pool2d(T.ones(1, 1, 4, 4), 2, padding=2),
    "float() of a tensor that requires grad warns": lambda T: _warned(lambda: float(leaf(T, [2.0]) * 3)),
    "hardtanh min above max": lambda T: T.nn.functional.hardtanh(T.ones(2), 2.0, 1.0),
    "softplus of an integer tensor": lambda T: T.nn.functional.softplus(T.tensor([1, 2])),
    # ------------------------------------------------ inference tensors
    "is_inference of what inference_mode made": lambda T: (
        lambda a, x: (
            a.is_inference(),
            a[0:1].is_inference(),
            a.detach().is_inference(),
            a.clone().is_inference(),
            x.is_inference(),
            T.is_inference(a),
            (a * 2).is_inference(),
            a.requires_grad,
        )
    )(_inferred(T, lambda: T.ones(2)), T.ones(2)),
    "a view of a normal tensor in inference_mode": lambda T: (lambda x: _inferred(T, lambda: x[0:1]).is_inference())(
        T.ones(2)
    ),
    "inference_mode(False) inside makes normal tensors": lambda T: _inferred(T, lambda: _normal_inside(T)),
    "an inference tensor's version": lambda T: _inferred(T, lambda: T.ones(2))._version,
    "an inference tensor changed in place outside": lambda T: _inferred(T, lambda: T.ones(2)).add_(1),
    "an inference tensor assigned into outside": lambda T: _inferred(T, lambda: T.ones(2)).__setitem__(0, 5.0),
    "an inference tensor changed in place inside": lambda T: _inferred(T, lambda: T.ones(2).add_(1).mul_(3)),
    "an inference tensor saved for backward": lambda T: leaf(T, [1.0, 2.0]) * _inferred(T, lambda: T.ones(2)),
    "an inference tensor in an op that saves nothing": lambda T: leaf(T, [1.0, 2.0]) + _inferred(T, lambda: T.ones(2)),
    "an inference tensor as a constant": lambda T: _inferred(T, lambda: T.ones(2)) * 2,
    "requires_grad_ on an inference tensor": lambda T: _inferred(T, lambda: T.ones(2)).requires_grad_(),
    "an inference tensor's clone joins a graph": lambda T: (
        lambda w: (w * _inferred(T, lambda: T.ones(2) * 3).clone()).sum().backward() or w.grad
    )(leaf(T, [1.0, 2.0])),
}


def _warned(program):
    """What ``program()`` returns, and the warnings it gave (every one, not once per process)."""
    import warnings

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        value = program()
    return value, [str(w.message).split(" (Triggered internally")[0] for w in caught]


def _grads(T, f, values):
    """f(x) and x.grad after backward of the sum of f(x), for x a float64 leaf with ``values``."""
    x = T.tensor(values, dtype=T.float64, requires_grad=True)
    y = f(x)
    y.sum().backward()
    return y, y.grad_fn.name(), x.grad


def _normal_inside(T):
    with T.inference_mode(False):
        return T.ones(1).is_inference(), T.is_inference_mode_enabled()


def _inferred(T, make):
    """What ``make()`` returns inside ``inference_mode``."""
    with T.inference_mode():
        return make()


def _log_probs(T):
    return T.tensor([[0.1, 0.7, 0.2], [0.3, 0.3, 0.4], [0.5, 0.1, 0.4]]).log()


def _with_hooks(T, pack, unpack, program):
    with T.autograd.graph.saved_tensors_hooks(pack, unpack):
        return program()


def _error_type(program):
    try:
        program()
    except Exception as e:  # noqa: BLE001
        return type(e).__name__
    return None


def _restoring_device(T, program):
    try:
        return program()
    finally:
        T.set_default_device("cpu")


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_case_ends_as_in_torch(name):
    assert outcome(gradbook, CASES[name]) == outcome(torch, CASES[name])


def _clipping(T):
    """nn.utils.clip_grad_norm_ and clip_grad_value_ on a few gradients: the total norm returned,
    the gradients after, the empty cases, and the non-finite error (lesson 13 clips)."""
    import warnings

    seen = []
    for norm_type, max_norm in ((2.0, 5.0), (2.0, 100.0), (float("inf"), 1.0), (1, 3.0)):
        w, b, u = leaf(T, [3.0, 4.0]), leaf(T, [[1.0, -2.0]]), leaf(T, [1.0])
        ((w * w).sum() + (b * 3).sum()).backward()
        total = T.nn.utils.clip_grad_norm_([w, b, u], max_norm, norm_type=norm_type)
        seen.append((repr(total), w.grad.tolist(), b.grad.tolist(), u.grad))
    w = leaf(T, [3.0, 4.0])
    (w * w).sum().backward()
    seen.append((T.nn.utils.clip_grad_value_(w, 7.0), w.grad.tolist()))
    seen.append(repr(T.nn.utils.clip_grad_norm_([], 1.0)))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        T.nn.utils.clip_grad_norm_((p for p in []), 1.0)
    seen.append([str(w.message) for w in caught])
    w = leaf(T, [1.0, 1.0])
    (w * 1).sum().backward()
    w.grad[0] = float("inf")
    try:
        T.nn.utils.clip_grad_norm_(w, 1.0, error_if_nonfinite=True)
    except RuntimeError as err:
        seen.append(str(err))
    return renamed(seen)


def test_gradient_clipping_as_in_torch():
    assert _clipping(gradbook) == _clipping(torch)

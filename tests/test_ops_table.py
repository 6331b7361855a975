"""The op table, one line per op: a program that records it, checked with gradcheck (finite
differences) and, when torch is installed, against torch's values, graph and gradients.

Adding an op to ``gradbook/ops/`` means adding its line to ``TABLE`` (a test fails until you do).
"""

import ast
import inspect
import re
from pathlib import Path

import numpy as np
import pytest

import gradbook
from gradbook import ops

try:
    import torch
except ImportError:
    torch = None


def line(op, program, *shapes, positive=False, torch_graph=True, eps=1e-6):
    """``program(T, *inputs)`` records ``op`` (T is gradbook or torch); ``shapes`` are the float64
    inputs that require grad (random normal; ``positive``: in [0.5, 2]). ``torch_graph=False``
    where torch records the same math under other node names; ``eps`` is gradcheck's step (and
    tolerance), larger for a float32 result; ``eps=None``: torch has no derivative for the op, and
    backward must refuse as torch does."""
    return pytest.param(op, program, shapes, positive, torch_graph, eps, id=op)


def _primal(T, a):
    with T.autograd.forward_ad.dual_level():
        return T.autograd.forward_ad.unpack_dual(a).primal


TABLE = [
    # arithmetic
    line("AddBackward0", lambda T, a, b: a + b, (2, 3), (3,)),
    line("SubBackward0", lambda T, a, b: a.sub(b, alpha=2), (2, 3), (2, 1)),
    line("RsubBackward1", lambda T, a: 1 - a, (3,)),
    line("MulBackward0", lambda T, a, b: a * b, (2, 3), (3,)),
    line("DivBackward0", lambda T, a, b: a / b, (3,), (3,), positive=True),
    line("DivBackward2", lambda T, a, b: (a * 5).div(b, rounding_mode="floor") + a, (3,), (3,), positive=True),
    line("ReciprocalBackward0", lambda T, a: 2 / a, (3,), positive=True),
    line("NegBackward0", lambda T, a: -a, (3,)),
    line("PowBackward0", lambda T, a: a**3, (3,)),
    line("PowBackward1", lambda T, a, b: a**b, (3,), (3,), positive=True),
    line("PowBackward2", lambda T, a: 2**a, (3,)),
    line("RemainderBackward0", lambda T, a: a % 0.7, (4,)),
    line("RemainderBackward1", lambda T, a, b: a % b, (4,), (4,), positive=True),
    line("NotImplemented", lambda T, a: a // 0.5, (4,), eps=None),
    # matrix products
    line("DotBackward0", lambda T, a, b: a @ b, (4,), (4,)),
    line("MvBackward0", lambda T, a, b: a @ b, (3, 4), (4,)),
    line("MmBackward0", lambda T, a, b: a @ b, (3, 4), (4, 2)),
    line("BmmBackward0", lambda T, a, b: a @ b, (2, 3, 4), (2, 4, 2), torch_graph=False),  # torch: bmm + views
    line("AddmmBackward0", lambda T, b, x, w: T.nn.functional.linear(x, w, b), (2,), (3, 4), (2, 4)),
    line("LinalgCrossBackward0", lambda T, a, b: T.linalg.cross(a, b), (4, 3), (4, 3)),
    # elementwise functions
    line("ExpBackward0", lambda T, a: a.exp(), (3,)),
    line("LogBackward0", lambda T, a: a.log(), (3,), positive=True),
    line("SqrtBackward0", lambda T, a: a.sqrt(), (3,), positive=True),
    line("RsqrtBackward0", lambda T, a: a.rsqrt(), (3,), positive=True),
    line("Log1PBackward0", lambda T, a: a.log1p(), (3,), positive=True),
    line("Expm1Backward0", lambda T, a: a.expm1(), (3,)),
    line("Exp2Backward0", lambda T, a: a.exp2(), (3,)),
    line("Log2Backward0", lambda T, a: a.log2(), (3,), positive=True),
    line("Log10Backward0", lambda T, a: T.log10(a), (3,), positive=True),
    line("ErfBackward0", lambda T, a: T.erf(a), (3,)),
    line("SignBackward0", lambda T, a: a.sign(), (3,)),
    line("FloorBackward0", lambda T, a: a.floor(), (3,)),
    line("CeilBackward0", lambda T, a: T.ceil(a), (3,)),
    line("RoundBackward0", lambda T, a: a.round(), (3,)),
    line("RoundBackward1", lambda T, a: a.round(decimals=1), (3,)),
    line("AbsBackward0", lambda T, a: a.abs(), (3,)),
    line("SinBackward0", lambda T, a: a.sin(), (3,)),
    line("CosBackward0", lambda T, a: a.cos(), (3,)),
    line("TanhBackward0", lambda T, a: a.tanh(), (3,)),
    line("SigmoidBackward0", lambda T, a: a.sigmoid(), (3,)),
    line("ReluBackward0", lambda T, a: a.relu(), (4,)),
    line("ClampBackward1", lambda T, a: a.clamp(-0.5, 0.5), (4,)),
    line("MaximumBackward0", lambda T, a, b: T.maximum(a, b), (4,), (4,)),
    line("AtanBackward0", lambda T, a: a.atan(), (3,)),
    line("AsinBackward0", lambda T, a: (a * 0.3).asin(), (3,)),
    line("AcosBackward0", lambda T, a: (a * 0.3).acos(), (3,)),
    line("SinhBackward0", lambda T, a: a.sinh(), (3,)),
    line("CoshBackward0", lambda T, a: a.cosh(), (3,)),
    line("Atan2Backward0", lambda T, a, b: a.atan2(b), (2, 3), (3,)),
    line("HypotBackward0", lambda T, a, b: a.hypot(b), (2, 3), (3,)),
    line("LogaddexpBackward0", lambda T, a, b: a.logaddexp(b), (2, 3), (3,)),
    line("TruncBackward0", lambda T, a: (a * 3).trunc(), (3,)),
    line("FracBackward0", lambda T, a: (a * 3).frac(), (3,)),
    line("ClampMinBackward0", lambda T, a: a.clamp_min(0.1), (5,)),
    line("ClampMaxBackward0", lambda T, a: a.clamp_max(-0.1), (5,)),
    line("NanToNumBackward0", lambda T, a: (a.log()).nan_to_num(), (5,)),
    line("LerpBackward0", lambda T, a, b: a.lerp(b, 0.3), (2, 3), (3,)),
    line("AddcmulBackward0", lambda T, a, b, c: a.addcmul(b, c, value=0.5), (2, 3), (3,), (2, 1)),
    line("MinimumBackward0", lambda T, a, b: T.minimum(a, b), (4,), (4,)),
    line("WhereBackward0", lambda T, a, b: T.where(a > 0, a, b), (4,), (4,)),
    line("SoftmaxBackward0", lambda T, a: a.softmax(1), (2, 3)),
    line("LogSoftmaxBackward0", lambda T, a: a.log_softmax(1), (2, 3)),
    # reductions
    line("SumBackward0", lambda T, a: a.sum(), (2, 3)),
    line("SumBackward1", lambda T, a: a.sum(0), (2, 3)),
    line("ProdBackward0", lambda T, a: a.prod(), (2, 3)),
    line("ProdBackward1", lambda T, a: a.prod(1), (2, 3)),
    line("CumsumBackward0", lambda T, a: a.cumsum(1), (2, 3)),
    line("CumprodBackward0", lambda T, a: a.cumprod(1), (2, 3)),
    line("AmaxBackward0", lambda T, a: a.amax(1), (2, 3)),
    line("AminBackward0", lambda T, a: a.amin((0, 1), keepdim=True), (2, 3)),
    line("LogsumexpBackward0", lambda T, a: a.logsumexp(1), (2, 3)),
    line("TraceBackward0", lambda T, a: a.trace(), (3, 4)),
    line("DiagonalBackward0", lambda T, a: a.diagonal(1, 0, 2), (3, 2, 4)),
    line("SortBackward0", lambda T, a: a.sort(1, descending=True).values, (2, 4)),
    line("TopkBackward0", lambda T, a: a.topk(2, dim=0).values, (4, 3)),
    line("VarBackward0", lambda T, a: a.var(1), (2, 3)),
    line("StdBackward0", lambda T, a: a.std(correction=0), (2, 3)),
    line("LinalgVectorNormBackward0", lambda T, a: a.norm(dim=1), (2, 3)),
    line("MeanBackward0", lambda T, a: a.mean(), (2, 3)),
    line("MeanBackward1", lambda T, a: a.mean(1, keepdim=True), (2, 3)),
    line("MaxBackward1", lambda T, a: a.max(), (2, 3)),
    line("MinBackward1", lambda T, a: a.min(), (2, 3)),
    line("MaxBackward0", lambda T, a: a.max(1)[0], (2, 3)),
    line("MinBackward0", lambda T, a: a.min(0, keepdim=True)[0], (2, 3)),
    # shape
    line("ViewBackward0", lambda T, a: a.view(3, 2), (2, 3)),
    line("UnsafeViewBackward0", lambda T, a: a.t().reshape(6), (2, 3)),  # no view after a transpose
    line("SqueezeBackward0", lambda T, a: a.squeeze(), (2, 1, 3)),
    line("SqueezeBackward1", lambda T, a: a.squeeze(1), (2, 1, 3)),
    line("SqueezeBackward2", lambda T, a: a.squeeze((1,)), (2, 1, 3)),
    line("SqueezeBackward4", lambda T, a, b: a @ b, (4,), (4, 3)),
    line("UnsqueezeBackward0", lambda T, a: a.unsqueeze(0), (3,)),
    line("TBackward0", lambda T, a: a.t(), (2, 3)),
    line("TransposeBackward0", lambda T, a: a.transpose(0, 2), (2, 3, 4)),
    line("PermuteBackward0", lambda T, a: a.permute(2, 0, 1), (2, 3, 4)),
    line("ExpandBackward0", lambda T, a: a.expand(2, 3), (1, 3)),
    line("CloneBackward0", lambda T, a: a.clone(), (3,)),
    line("AliasBackward0", lambda T, a: a[...], (3,)),
    line("ReshapeAliasBackward0", lambda T, a: a.transpose(1, 2).reshape(2, 4, 3), (2, 3, 4)),
    line("Identity", lambda T, a: _primal(T, a * 2), (3,), torch_graph=False),  # torch: a CppFunction named Identity
    line("ToCopyBackward0", lambda T, a: a.float(), (3,), eps=1e-3),
    line("ZeroBackward0", lambda T, a: (a * 2).zero_() + a, (3,)),
    line("FillBackward2", lambda T, a: (a * 2).fill_(5.0) * a, (3,)),
    line("CopyBackwards", lambda T, a, b: (a * 2).copy_(b), (3,), (3,)),
    line("CopySlices", lambda T, a, b: (lambda y: (y.__setitem__(slice(0, 2), b * 2), y)[1])(a * 1), (3,), (2,)),
    line("SelectBackward0", lambda T, a: a[1], (3, 2)),
    line("SliceBackward0", lambda T, a: a[:, 1:3], (2, 4)),
    line("IndexBackward0", lambda T, a: a[T.tensor([0, 0, 2])], (3, 2)),
    line("UniformBackward0", lambda T, a: (a * 1).uniform_(2.0, 2.0) * a, (3,)),  # [2, 2): always 2
    line("NormalBackward0", lambda T, a: (a * 1).normal_(3.0, 0.0) * a, (3,)),  # std 0: always 3
    # normal(mean, std) with tensors: torch's rule gives them zero gradients (here the mean is held at 3, std at 0)
    line("NormalBackward1", lambda T, a: T.normal(a * 0 + 3, 0.0) * a, (3,)),
    line("NormalBackward2", lambda T, a: T.normal(3.0, a * 0) * a, (3,)),
    line("NormalBackward3", lambda T, a: T.normal(a * 0 + 3, a * 0) * a, (3,)),
    line("MaskedFillBackward0", lambda T, a: a.masked_fill(a > 0, 2.0), (3, 2)),
    line("MaskedFillBackward1", lambda T, a, v: a.masked_fill(a > 0, v), (3, 2), ()),
    line("GatherBackward0", lambda T, a: a.gather(1, T.tensor([[0, 0], [1, 0], [1, 1]])), (3, 2)),
    line("TrilBackward0", lambda T, a: a.tril(), (3, 4)),
    line("TriuBackward0", lambda T, a: a.triu(1), (3, 4)),
    line("FlipBackward0", lambda T, a: a.flip(0, 1), (3, 4)),
    line("RollBackward0", lambda T, a: a.roll((1, -2), (0, 1)), (3, 4)),
    line("RepeatBackward0", lambda T, a: a.repeat(2, 1, 3), (3, 2)),
    line("ScatterBackward0", lambda T, a, s: (a * 1).scatter(0, T.tensor([[1, 0], [2, 1]]), s), (3, 2), (2, 2)),
    line("ScatterBackward1", lambda T, a: a.scatter(1, T.tensor([[1], [0], [1]]), 2.0), (3, 2)),
    line("ScatterAddBackward0", lambda T, a, s: a.scatter_add(0, T.tensor([[1, 0], [1, 1]]), s), (3, 2), (2, 2)),
    line("IndexSelectBackward0", lambda T, a: a.index_select(0, T.tensor([2, 0, 2])), (3, 2)),
    line(
        "IndexPutBackward0",  # what indexing's rule records under create_graph
        lambda T, a: T.autograd.grad((a[T.tensor([0, 0, 2])] ** 2).sum(), a, create_graph=True)[0],
        (3,),
        torch_graph=False,
    ),
    line("CatBackward0", lambda T, a, b: T.cat([a, b], 1), (2, 3), (2, 1)),
    line("StackBackward0", lambda T, a, b: T.stack([a, b], 1), (2, 3), (2, 3)),
    # losses
    line("MseLossBackward0", lambda T, a, b: T.nn.functional.mse_loss(a, b), (2, 3), (2, 3)),
    line("NllLossBackward0", lambda T, a: T.nn.functional.nll_loss(a, T.tensor([2, 0])), (2, 3)),
    line("NllLoss2DBackward0", lambda T, a: T.nn.functional.nll_loss(a, T.tensor([[[2, 0]], [[1, 1]]])), (2, 3, 1, 2)),
]

ALL_OP_CLASSES = {  # every op of the table (gradbook/ops/), the ones gradbook.nn.functional calls too
    cls.__name__: cls
    for name, cls in vars(ops).items()
    if inspect.isclass(cls) and issubclass(cls, ops.Op) and cls is not ops.Op
}
OP_CLASSES = {name: cls for name, cls in ALL_OP_CLASSES.items() if name in {p.values[0] for p in TABLE}}


def inputs(T, shapes, positive, seed=0):
    rng = np.random.default_rng(seed)
    arrays = [rng.uniform(0.5, 2.0, s) if positive else rng.standard_normal(s) for s in shapes]
    return [T.tensor(a, dtype=T.float64, requires_grad=True) for a in arrays]


def node_names(t):
    """The class names of every node in t's graph."""
    found, stack = set(), [t.grad_fn]
    while stack:
        node = stack.pop()
        if node is not None and type(node).__name__ not in found:
            found.add(type(node).__name__)
            stack.extend(fn for fn, _ in node.next_functions)
    return found


def test_every_op_class_has_a_line_here_or_in_test_nn_ops():
    from test_nn_ops import TABLE as NN_TABLE  # the ops of gradbook.nn.functional, with their programs

    here = [p.values[0] for p in TABLE]
    assert len(here) == len(set(here)), "one line per op"
    assert sorted(here + sorted({p.values[0] for p in NN_TABLE} - set(here))) == sorted(ALL_OP_CLASSES)


@pytest.mark.parametrize("op, program, shapes, positive, torch_graph, eps", TABLE)
def test_the_line_records_its_op_and_passes_gradcheck(op, program, shapes, positive, torch_graph, eps):
    xs = inputs(gradbook, shapes, positive)
    out = program(gradbook, *xs)
    assert op in node_names(out)
    if eps is None:
        with pytest.raises(RuntimeError, match="derivative for aten::.* is not implemented"):
            out.sum().backward()
        return
    assert gradbook.autograd.gradcheck(lambda *a: program(gradbook, *a), xs, eps=eps, atol=max(1e-5, eps))


@pytest.mark.oracle
@pytest.mark.skipif(torch is None, reason="torch is not installed")
@pytest.mark.parametrize("op, program, shapes, positive, torch_graph, eps", TABLE)
def test_the_line_matches_torch(op, program, shapes, positive, torch_graph, eps):
    ours, theirs = inputs(gradbook, shapes, positive), inputs(torch, shapes, positive)
    out_g, out_t = program(gradbook, *ours), program(torch, *theirs)
    np.testing.assert_allclose(out_g.detach().numpy(), out_t.detach().numpy(), rtol=1e-12, atol=1e-12)
    assert str(out_g.dtype).split(".")[1] == str(out_t.dtype).split(".")[1]
    if torch_graph:
        assert node_names(out_g) == node_names(out_t)
    if eps is None:  # no derivative: both refuse, with the same text
        messages = []
        for out in (out_g, out_t):
            with pytest.raises(RuntimeError) as e:
                out.sum().backward()
            messages.append(str(e.value))
        assert messages[0] == messages[1]
        return
    weights = np.random.default_rng(1).standard_normal(out_g.shape)  # a seed v for vᵀJ
    (out_g * gradbook.tensor(weights, dtype=out_g.dtype)).sum().backward()
    (out_t * torch.tensor(weights, dtype=out_t.dtype)).sum().backward()
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("name", sorted(OP_CLASSES))
def test_each_input_has_one_rule_with_its_own_text(name):
    cls = OP_CLASSES[name]
    texts = list(cls.rules)
    assert len(texts) == len(cls.inputs), f"{name}: {len(cls.inputs)} inputs but {len(texts)} rules"
    for input_name, text in zip(cls.inputs, texts):
        assert input_name in text, f"{name}: the rule {text!r} does not name its input {input_name!r}"
        assert text.startswith("∂") and "\n" not in text and len(text) <= 60
        assert text not in (cls.__doc__ or ""), f"{name}: the rule text is the docstring"
    assert all(callable(rule) for rule in cls.rules.values())


def test_the_worked_example_of_docs_engine_md_adds_an_op():
    """docs/engine.md adds tan in one class: run its code as written and check the new op."""
    text = (Path(__file__).resolve().parents[1] / "docs" / "engine.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", text, re.S)
    (cls_source,) = [b for b in blocks if b.startswith("class TanBackward0(Op):")]
    assert not hasattr(ops, "TanBackward0"), "gradbook has tan now: the worked example needs another op"
    scope = dict(vars(ops.pointwise))  # its family file: np, Op, floating and the rule helpers
    exec(cls_source, scope)  # as if written in gradbook/ops/pointwise.py
    tan = scope["TanBackward0"]
    values = np.array([0.5, -1.0, 1.2])
    x = gradbook.tensor(values, dtype=gradbook.float64, requires_grad=True)
    y = tan.apply(x)
    assert y.grad_fn.name() == "TanBackward0" and y.grad_fn._saved_self is x
    np.testing.assert_allclose(y.detach().numpy(), np.tan(values))
    assert gradbook.autograd.gradcheck(tan.apply, (x,))
    (g,) = gradbook.autograd.grad(y.sum(), x, create_graph=True)  # the rule is differentiable again
    (gg,) = gradbook.autograd.grad(g.sum(), x)
    np.testing.assert_allclose(gg.numpy(), 2 * np.tan(values) / np.cos(values) ** 2)  # d²tan/dx² = 2 tan sec²
    if torch is not None:
        assert torch.tensor(1.0, requires_grad=True).tan().grad_fn.name() == "TanBackward0"


SECOND_DERIVATIVES = {  # rules that must record under create_graph (their Tensor branch)
    "cumprod through a zero": lambda a: (a * gradbook.tensor([1.0, 0.0, 1.0, 1.0], dtype=a.dtype)).cumprod(0),
    "cumprod": lambda a: a.cumprod(0),
    "sort": lambda a: a.sort(descending=True).values * a,
    "topk": lambda a: a.topk(2).values.square(),
    "repeat": lambda a: a.repeat(2, 3).square(),
    "roll": lambda a: a.roll(1).square() * a,
    "logsumexp": lambda a: a.reshape(2, 2).logsumexp(1),
    "amax": lambda a: a.amax() * a,
    "trace": lambda a: a.reshape(2, 2).trace() * a,
    "atan2": lambda a: a.atan2(a.flip(0)),
    "hypot": lambda a: a.hypot(a.roll(1)),
    "logaddexp": lambda a: a.logaddexp(a.flip(0)),
    "asin, acos, atan": lambda a: (a * 0.3).asin() * (a * 0.3).acos() * a.atan(),
    "sinh, cosh": lambda a: a.sinh() * a.cosh(),
    "tril, triu": lambda a: a.reshape(2, 2).tril().square() + a.reshape(2, 2).triu(1).square(),
    "lerp, addcmul": lambda a: a.lerp(a.square(), 0.3).addcmul(a, a, value=0.5),
    "clamp_min, clamp_max, nan_to_num": lambda a: (
        a.clamp_min(-0.5).square() + a.clamp_max(0.5).square() * a.nan_to_num()
    ),
}


@pytest.mark.parametrize("name", SECOND_DERIVATIVES)
def test_second_derivatives_of_the_new_rules(name):
    a = gradbook.tensor([0.7, 0.2, -0.9, 1.3], dtype=gradbook.float64, requires_grad=True)
    assert gradbook.autograd.gradgradcheck(SECOND_DERIVATIVES[name], (a,))


# An op is one class in its family's file, one line in a table above, and one entry that calls it:
# a Tensor method, an argument rule (gradbook/_arguments/) or a gradbook.nn.functional function.
# The ops named in more than one place of the engine, and where: adding to this list is a choice.
MORE_THAN_ONE_ENTRY = {
    "AddBackward0": ("_arguments/arithmetic.py", "tensor.py"),  # x + y, and add(alpha=) as a + alpha·b
    "CloneBackward0": ("_arguments/shape.py", "tensor.py"),  # clone(), and contiguous() of a view
    "MeanBackward0": ("_arguments/reduce.py", "tensor.py"),  # mean over all, and over dims
    "MulBackward0": ("_arguments/arithmetic.py", "tensor.py"),  # x * y, and mul(), addcmul's product
    "PowBackward0": ("_arguments/arithmetic.py", "tensor.py"),  # x ** n, and square()
    "SubBackward0": ("_arguments/arithmetic.py", "tensor.py"),  # x - y, and rsub, diff
    "ToCopyBackward0": ("_arguments/tensors.py", "autograd/function.py"),  # .to(), and a Function's dtype
    "UnsqueezeBackward0": ("_arguments/indexing.py", "tensor.py"),  # unsqueeze(), and t[None]
}


def names_in(source, names):
    """The names of ``names`` that the code of ``source`` uses (not its strings or comments)."""
    found = set()
    for node in ast.walk(ast.parse(source)):
        name = node.attr if isinstance(node, ast.Attribute) else getattr(node, "id", None)
        if name in names:
            found.add(name)
    return found


def entry_places():
    """{op class name: the engine's files (outside gradbook/ops/ and the layers above) whose code names it}."""
    package = Path(gradbook.__file__).parent
    places = {name: set() for name, cls in vars(ops).items() if cls in ALL_OP_CLASSES.values()}  # as ops names them
    for path in package.rglob("*.py"):
        rel = path.relative_to(package).as_posix()
        if rel.startswith("ops/") or rel.split("/")[0] in ("viz", "widgets", "exercises", "grading", "lessons"):
            continue
        for name in names_in(path.read_text(), places):
            places[name].add(rel)
    return places


ENTERED_BY_A_RULE = {  # a node only a derivative rule records (under create_graph), as torch's *BackwardBackward0
    "MaxPool2DWithIndicesBackwardBackward0": "ops/conv.py",
}


def test_an_op_needs_one_entry_besides_its_class_and_test_line():
    places = entry_places()
    package = Path(gradbook.__file__).parent
    for name, rel in ENTERED_BY_A_RULE.items():
        assert not places.pop(name) and name in names_in((package / rel).read_text(), {name})
    assert [name for name, where in places.items() if not where] == [], "an op nothing calls"
    more = {name: tuple(sorted(where)) for name, where in places.items() if len(where) > 1}
    assert more == MORE_THAN_ONE_ENTRY


def test_the_count_of_entries_reads_code_not_words():
    source = (
        '"""SinBackward0 in a docstring"""\n# CosBackward0\ndef f(self):\n    return ops.ExpBackward0.apply(self)\n'
    )
    assert names_in(source, {"SinBackward0", "CosBackward0", "ExpBackward0"}) == {"ExpBackward0"}

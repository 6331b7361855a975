"""User-written autograd.Function (both styles, ctx's methods, once_differentiable, the checks on
backward's result), grad modes (inference_mode) and the profiler stand-in.

Checked against finite differences (gradcheck) and hand-derived values first, then against torch
(the oracle section, skipped without torch)."""

import importlib
import warnings

import pytest

import gradbook
from gradbook.autograd.function import once_differentiable


def library(L):
    """The custom Functions of these tests, written once for gradbook and for torch."""
    once = importlib.import_module(L.__name__ + ".autograd.function").once_differentiable

    class Cube(L.autograd.Function):  # old style: forward(ctx, ...)
        @staticmethod
        def forward(ctx, x, k):
            ctx.save_for_backward(x)
            ctx.k = k
            return k * x**3

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return 3 * ctx.k * x**2 * g, None  # d(k x³)/dx = 3k x²

    class Cube2(L.autograd.Function):  # PyTorch 2 style: forward without ctx, then setup_context
        @staticmethod
        def forward(x, k=2.0):
            return k * x**3

        @staticmethod
        def setup_context(ctx, inputs, output):
            x, k = inputs
            ctx.save_for_backward(x)
            ctx.k = k

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return 3 * ctx.k * x**2 * g, None

    class Mul(L.autograd.Function):  # two tensor inputs: needs_input_grad, None where not needed
        @staticmethod
        def forward(ctx, a, b):
            ctx.save_for_backward(a, b)
            ctx.seen = ctx.needs_input_grad
            return a * b

        @staticmethod
        def backward(ctx, g):
            a, b = ctx.saved_tensors
            return g * b if ctx.needs_input_grad[0] else None, g * a if ctx.needs_input_grad[1] else None

    class Max(L.autograd.Function):  # a second output marked non-differentiable
        @staticmethod
        def forward(ctx, x):
            value, index = x.max(0)
            ctx.mark_non_differentiable(index)
            ctx.save_for_backward(index)
            ctx.n = x.shape[0]
            return value, index

        @staticmethod
        def backward(ctx, g_value, g_index):
            ctx.received = g_index
            (index,) = ctx.saved_tensors
            out = L.zeros(ctx.n)
            out[index] = g_value
            return out

    class MaxNoMaterialize(Max):
        @staticmethod
        def forward(ctx, x):
            ctx.set_materialize_grads(False)
            return Max.forward(ctx, x)

    class OnceCube(L.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x**3

        @staticmethod
        @once
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            ctx.recording = L.is_grad_enabled()
            return 3 * x**2 * g

    return Cube, Cube2, Mul, Max, MaxNoMaterialize, OnceCube


def detached_cube(L):
    """x³ with a backward that is right (3x²) but detached: its own derivative is 0, not 6x."""

    class DetachedCube(L.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x**3

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return 3 * x.detach() ** 2 * g

    return DetachedCube


def returning(L, name, result):
    """A Function whose forward is ``2 * the tensor input`` and whose backward is ``result(ctx, g)``."""

    def forward(ctx, *args):
        return 2 * next(a for a in args if isinstance(a, L.Tensor))

    return type(name, (L.autograd.Function,), {"forward": staticmethod(forward), "backward": staticmethod(result)})


Cube, Cube2, Mul, Max, MaxNoMaterialize, OnceCube = library(gradbook)


def x64(values, requires_grad=True):
    return gradbook.tensor(values, dtype=gradbook.float64, requires_grad=requires_grad)


# ---------------------------------------------------------------- finite differences and hand-derived values


def test_both_styles_pass_gradcheck():
    assert gradbook.autograd.gradcheck(lambda x: Cube.apply(x, 2.0), (x64([0.5, -1.5, 2.0]),))
    assert gradbook.autograd.gradcheck(lambda x: Cube2.apply(x), (x64([0.5, -1.5, 2.0]),))
    assert gradbook.autograd.gradcheck(Mul.apply, (x64([0.5, 2.0]), x64([-1.0, 3.0])))


def test_setup_context_receives_defaults_and_keywords():
    x = gradbook.tensor([1.0, 2.0], requires_grad=True)
    Cube2.apply(x).sum().backward()  # k = 2 (the default): 6x²
    assert x.grad.tolist() == [6.0, 24.0]
    x.grad = None
    Cube2.apply(x, k=1.0).sum().backward()  # 3x²
    assert x.grad.tolist() == [3.0, 12.0]


def test_needs_input_grad_and_none_for_an_input_that_needs_none():
    a, b = gradbook.tensor([2.0, 3.0], requires_grad=True), gradbook.tensor([5.0, 7.0])
    y = Mul.apply(a, b)
    assert y.grad_fn.seen == (True, False)
    y.sum().backward()
    assert a.grad.tolist() == [5.0, 7.0] and b.grad is None


def test_a_non_differentiable_output_gets_zeros_or_none():
    x = gradbook.tensor([1.0, 5.0, 2.0], requires_grad=True)
    value, index = Max.apply(x)
    assert value.requires_grad and not index.requires_grad and index.grad_fn is None
    node = value.grad_fn
    (3 * value).backward()
    assert x.grad.tolist() == [0.0, 3.0, 0.0]  # d max/dx: 1 at the maximum
    assert node.received.tolist() == 0  # materialized: zeros for the index
    value, _ = MaxNoMaterialize.apply(x)
    node = value.grad_fn
    value.backward()
    assert node.received is None


def test_once_differentiable_runs_backward_unrecorded_and_refuses_a_second_derivative():
    x = gradbook.tensor([1.0, 2.0], requires_grad=True)
    y = OnceCube.apply(x)
    v = gradbook.ones(2, requires_grad=True)
    (g,) = gradbook.autograd.grad(y, x, v, create_graph=True)
    assert g.tolist() == [3.0, 12.0] and y.grad_fn.recording is False  # 3x²
    with pytest.raises(RuntimeError, match="trying to differentiate twice a function that was marked with"):
        g.sum().backward()


class SquareAndCube(gradbook.autograd.Function):
    """(x², x³), two differentiable outputs: backward gets one gradient per output."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x, x * x * x

    @staticmethod
    def backward(ctx, g_square, g_cube):
        (x,) = ctx.saved_tensors
        ctx.received = (g_square, g_cube)
        return 2 * x * g_square + 3 * x * x * g_cube


def test_two_differentiable_outputs_share_one_node_with_numbered_edges():
    x = gradbook.tensor([1.0, 2.0], requires_grad=True)
    s, c = SquareAndCube.apply(x)
    assert s.grad_fn is c.grad_fn and (s.output_nr, c.output_nr) == (0, 1)
    assert [(fn is s.grad_fn, k) for fn, k in (s + c).grad_fn.next_functions] == [(True, 0), (True, 1)]
    (s + c).sum().backward()
    assert x.grad.tolist() == [2 + 3, 4 + 12]  # 2x + 3x²


def test_an_output_that_gets_no_gradient_arrives_as_zeros_or_none():
    x = gradbook.tensor([1.0, 2.0], requires_grad=True)
    s, c = SquareAndCube.apply(x)
    c.sum().backward()  # only the cube: the square's gradient is materialised as zeros
    assert x.grad.tolist() == [3.0, 12.0] and s.grad_fn.received[0].tolist() == [0.0, 0.0]

    class Lazy(SquareAndCube):
        @staticmethod
        def forward(ctx, x):
            ctx.set_materialize_grads(False)
            return SquareAndCube.forward(ctx, x)

        @staticmethod
        def backward(ctx, g_square, g_cube):
            ctx.received = (g_square, g_cube)
            return 3 * ctx.saved_tensors[0] ** 2 * g_cube

    s, c = Lazy.apply(x)
    x.grad = None
    c.backward(gradbook.tensor([1.0, 0.5]))  # a second output as the root
    assert s.grad_fn.received[0] is None and x.grad.tolist() == [3.0, 6.0]


def test_hooks_and_retain_grad_belong_to_their_own_output():
    x = gradbook.tensor([1.0, 2.0], requires_grad=True)
    s, c = SquareAndCube.apply(x)
    c.retain_grad()
    c.register_hook(lambda g: g * 10)  # runs on the cube's gradient only
    seen = []
    s.grad_fn.register_prehook(lambda grads: seen.append([None if g is None else g.tolist() for g in grads]))
    (s + 2 * c).sum().backward()
    assert seen == [[[1.0, 1.0], [20.0, 20.0]]] and c.grad.tolist() == [20.0, 20.0]  # retain_grad runs last
    assert x.grad.tolist() == [2 + 60, 4 + 240] and s.retains_grad is False


def test_grad_with_respect_to_a_second_output_and_through_create_graph():
    x = gradbook.tensor([1.0, 2.0], requires_grad=True)
    s, c = SquareAndCube.apply(x)
    g_c, g_x = gradbook.autograd.grad((s * c).sum(), [c, x], create_graph=True)
    assert g_c.tolist() == [1.0, 4.0]  # d(s c)/dc = s = x²
    assert g_x.tolist() == [5.0, 80.0]  # d(x⁵)/dx = 5x⁴
    (g2,) = gradbook.autograd.grad(g_x.sum(), x)
    assert g2.tolist() == [20.0, 160.0]  # 20x³, through the custom rule recorded under create_graph
    assert gradbook.autograd.gradcheck(lambda t: SquareAndCube.apply(t), (x64([0.5, -1.5]),))


def test_an_in_place_change_of_a_second_output_keeps_its_edge():
    x = gradbook.tensor([1.0, 2.0], requires_grad=True)
    s, c = SquareAndCube.apply(x)
    y = c * 1
    y.mul_(2)
    assert y.output_nr == 0 and y.grad_fn.next_functions[0][0].next_functions[0][1] == 1
    c2 = c.clone()
    c.add_(1)  # c is output 1 of the node: the in-place op reads it through edge (node, 1)
    assert c.output_nr == 0 and c.grad_fn.next_functions[0][1] == 1
    (c.sum() + c2.sum()).backward()
    assert x.grad.tolist() == [6.0, 24.0]  # 2 · 3x²


def test_gradgradcheck_passes_for_true_second_derivatives():
    assert gradbook.autograd.gradgradcheck(lambda x: x.sin() * x, (x64([0.5, -1.0]),))
    assert gradbook.autograd.gradgradcheck(lambda a, b: (a * b).sum() * a, (x64([0.5, 1.0]), x64([2.0, 3.0])))
    assert gradbook.autograd.gradgradcheck(lambda x: Cube.apply(x, 2.0), (x64([0.5, -1.0]),))


def test_gradgradcheck_catches_a_backward_that_is_right_only_once():
    DetachedCube = detached_cube(gradbook)
    x = x64([0.5, -1.0])
    assert gradbook.autograd.gradcheck(DetachedCube.apply, (x,))
    assert not gradbook.autograd.gradgradcheck(DetachedCube.apply, (x,), raise_exception=False)
    with pytest.raises(gradbook.autograd.GradcheckError):
        gradbook.autograd.gradgradcheck(DetachedCube.apply, (x,))


def test_once_differentiable_is_importable_where_torch_has_it():
    assert once_differentiable.__module__ == "gradbook.autograd.function"


def test_tensors_made_in_inference_mode_are_inference_tensors():
    x = gradbook.tensor([1.0, 2.0], requires_grad=True)
    with gradbook.inference_mode():
        y = x * 2
        w = gradbook.ones(2)
    assert (y.is_inference(), w.is_inference(), x.is_inference()) == (True, True, False)
    assert (y[0].is_inference(), y.detach().is_inference(), y.clone().is_inference()) == (True, True, False)


def test_the_profiler_runs_the_code_and_says_it_has_no_table(capsys):
    from gradbook.autograd.profiler import profile, record_function

    x = gradbook.tensor([1.0, 2.0], requires_grad=True)
    with gradbook.autograd.profiler.profile(record_shapes=True) as prof, record_function("step"):
        (x * x).sum().backward()
    assert x.grad.tolist() == [2.0, 4.0] and profile is gradbook.autograd.profiler.profile
    print(prof)
    print(prof.key_averages().table(sort_by="cpu_time_total", row_limit=10))
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 2 and lines[0] == lines[1] and lines[0].startswith("gradbook has no profiler")


# ---------------------------------------------------------------- the oracle: torch prints the same


def outcome(fn):
    """What ``fn()`` gives, as text: its value, or its error's type and first line (before torch's
    hint, which gradbook writes for learners)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return str(fn()).replace("torch.", "gradbook.")
        except Exception as e:  # noqa: BLE001
            return f"{type(e).__name__}: {str(e).splitlines()[0].split(' Hint:')[0]}".replace("torch.", "gradbook.")


def grads_of(L, function, *args):
    """Call ``function.apply(*args)``, sum, backward: the grads of the tensor inputs."""
    function.apply(*args).sum().backward()
    return [a.grad for a in args if isinstance(a, L.Tensor)]


def leaf(L, values=(1.0, 2.0, 3.0)):
    return L.tensor(list(values), requires_grad=True)


BACKWARD_RESULTS = {  # what backward returns, for forward(x) = 2x (or forward(a, b) with one tensor)
    "right": (lambda L, g: g, 1),
    "extra None is allowed": (lambda L, g: (g, None), 1),
    "too many": (lambda L, g: (g, g), 1),
    "too few": (lambda L, g: g, 2),
    "none at all": (lambda L, g: (), 1),
    "wrong shape": (lambda L, g: g[:1], 1),
    "a number": (lambda L, g: 3.0, 1),
    "a list": (lambda L, g: [g], 1),
    "scalar for a vector": (lambda L, g: g.sum(), 1),
    "broadcastable shape is summed": (lambda L, g: g.reshape(1, 3), 1),
    "non-broadcastable shape": (lambda L, g: g.reshape(3, 1), 1),
    "another dtype is converted": (lambda L, g: g.double(), 1),
    "an integer dtype is converted": (lambda L, g: g.long(), 1),
    "None for a grad-requiring input": (lambda L, g: None, 1),
    "a gradient for a number input": (lambda L, g: (g, g), "number second"),
    "wrong shape after a number input": (lambda L, g: (None, g[:1]), "number first"),
    "wrong shape for an input that needs none": (lambda L, g: (g, g[:1]), "constant second"),
}


def backward_result_case(L, name):
    result, inputs = BACKWARD_RESULTS[name]
    fn = returning(L, name.title().replace(" ", "").replace("-", ""), lambda ctx, g: result(L, g))
    x = leaf(L)
    args = {1: (x,), 2: (x, x), "number second": (x, 2.0), "number first": (2.0, x)}.get(inputs, (x, L.ones(3)))
    return outcome(lambda: grads_of(L, fn, *args))


def graph_case(L, name):
    Cube, Cube2, Mul, Max, MaxNoMaterialize, OnceCube = library(L)
    x = leaf(L)
    if name == "repr of the node":
        node = Cube.apply(x, 2.0).grad_fn
        return (repr(node).split(" object at 0x")[0], type(node).__module__, type(node).__qualname__, node.name())
    if name == "the result and its node":
        y = Cube2.apply(x, k=3.0)
        return (y, [type(n).__name__ for n, _ in y.grad_fn.next_functions], y.grad_fn.next_functions[0][1])
    if name == "needs_input_grad":
        return (Mul.apply(x, L.ones(3)).grad_fn.seen, Mul.apply(L.ones(3), x).grad_fn.seen)
    if name == "no_grad records nothing":
        with L.no_grad():
            y = Cube.apply(x, 1.0)
        return (y, y.grad_fn, Cube.apply(L.ones(3), 1.0).grad_fn)
    if name == "non-differentiable outputs":
        value, index = Max.apply(x)
        node = value.grad_fn
        value.backward()
        return (value, index, index.requires_grad, node.received, x.grad)
    if name == "non-differentiable, not materialized":
        value, index = MaxNoMaterialize.apply(x)
        node = value.grad_fn
        value.backward()
        return (node.received, x.grad)
    if name == "only non-differentiable outputs":

        class Marked(L.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                y = x * 2
                ctx.mark_non_differentiable(y)
                return y

            @staticmethod
            def backward(ctx, g):
                return g

        y = Marked.apply(x)
        return (y, y.requires_grad, y.grad_fn, y.is_leaf)
    if name == "a number output":

        class WithCount(L.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2, 5

            @staticmethod
            def backward(ctx, g, g_count):
                ctx.received = g_count
                return g

        y, count = WithCount.apply(x)
        node = y.grad_fn
        y.sum().backward()
        return (y, count, node.received, x.grad)
    if name == "once_differentiable, first order":
        (g,) = L.autograd.grad(OnceCube.apply(x).sum(), x, create_graph=True)
        return (g, g.requires_grad)
    if name == "once_differentiable, second order":
        (g,) = L.autograd.grad(OnceCube.apply(x), x, L.ones(3, requires_grad=True), create_graph=True)
        node = g.grad_fn
        return (g, node.name(), [n.name() for n, _ in node.next_functions], outcome(lambda: g.sum().backward()))
    if name == "saved tensors freed":
        y = Cube.apply(x, 1.0)
        y.sum().backward()
        return outcome(lambda: y.grad_fn.saved_tensors)
    if name == "saved tensor changed in place":
        a = x * 1
        y = Cube.apply(a, 1.0)
        with L.no_grad():
            a.add_(1)
        return outcome(lambda: y.sum().backward())
    if name == "second backward":
        y = Cube.apply(x, 1.0).sum()
        y.backward()
        return outcome(y.backward)
    if name == "create_graph through a custom Function":
        (g,) = L.autograd.grad(Cube.apply(x, 1.0).sum(), x, create_graph=True)
        (h,) = L.autograd.grad(g.sum(), x)
        return (g, h)  # 3x², 6x
    raise KeyError(name)


GRAPH_CASES = [
    "repr of the node",
    "the result and its node",
    "needs_input_grad",
    "no_grad records nothing",
    "non-differentiable outputs",
    "non-differentiable, not materialized",
    "only non-differentiable outputs",
    "a number output",
    "once_differentiable, first order",
    "once_differentiable, second order",
    "saved tensors freed",
    "saved tensor changed in place",
    "second backward",
    "create_graph through a custom Function",
]


def modes(L):
    """The flags of grad modes, through nesting and decorators."""
    flags = lambda: (L.is_grad_enabled(), L.is_inference_mode_enabled())  # noqa: E731
    seen = [flags()]
    x = L.tensor([1.0, 2.0], requires_grad=True)
    with L.inference_mode():
        seen.append(flags())
        y = x * 2
        with L.inference_mode(False):
            seen.append(flags())
        with L.no_grad():
            seen.append(flags())
        with L.enable_grad():
            seen.append(flags())
    seen.append(flags())
    with L.no_grad(), L.inference_mode(False):
        seen.append(flags())
    decorated = L.inference_mode()(lambda: flags())
    bare = L.inference_mode(lambda a: (a * 2).requires_grad)
    seen += [decorated(), bare(x), y.requires_grad, y.grad_fn, flags()]
    seen.append(repr(L.autograd.inference_mode()).split(" object at")[0])
    return seen


@pytest.fixture
def torch():
    return pytest.importorskip("torch")


@pytest.mark.oracle
@pytest.mark.parametrize("name", BACKWARD_RESULTS)
def test_checks_on_what_backward_returns_match_torch(torch, name):
    assert backward_result_case(gradbook, name) == backward_result_case(torch, name)


@pytest.mark.oracle
@pytest.mark.parametrize("name", GRAPH_CASES)
def test_custom_function_graphs_match_torch(torch, name):
    assert outcome(lambda: graph_case(gradbook, name)) == outcome(lambda: graph_case(torch, name))


@pytest.mark.oracle
def test_grad_mode_flags_match_torch(torch):
    assert outcome(lambda: modes(gradbook)) == outcome(lambda: modes(torch))


@pytest.mark.oracle
def test_gradgradcheck_verdicts_match_torch(torch):
    def verdicts(L):
        x = L.tensor([0.5, -1.0], dtype=L.float64, requires_grad=True)
        checks = [lambda x: x.sin() * x, lambda x: (x**3).sum(), library(L)[0].apply, detached_cube(L).apply]
        return [
            L.autograd.gradgradcheck(f, (x, 2.0) if i == 2 else (x,), raise_exception=False)
            for i, f in enumerate(checks)
        ]

    assert verdicts(gradbook) == verdicts(torch) == [True, True, True, False]


@pytest.mark.oracle
def test_the_custom_node_repr_is_torchs_with_its_address(torch):
    t = library(torch)[0].apply(leaf(torch), 1.0).grad_fn
    g = library(gradbook)[0].apply(leaf(gradbook), 1.0).grad_fn
    assert repr(g).split(" at 0x")[0] == repr(t).split(" at 0x")[0].replace("torch.", "gradbook.")
    assert int(repr(g).split(" at ")[1][:-1], 16) == id(g)

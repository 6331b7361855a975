"""gradbook.exercises: right answers pass with one line, everything else fails kindly."""

import contextlib
import importlib
import importlib.util
import inspect
import io
import pydoc
import subprocess
import sys
from pathlib import Path

import exercise_answers_08_10 as l810  # tests/exercise_answers_08_10.py: answers for lessons 08-10
import exercise_answers_11 as l11  # tests/exercise_answers_11.py: answers for lesson 11
import exercise_answers_12 as l12  # tests/exercise_answers_12.py: answers for lesson 12
import exercise_answers_13 as l13  # tests/exercise_answers_13.py: answers for lesson 13
import exercise_answers_14 as l14  # tests/exercise_answers_14.py: answers for lesson 14
import exercise_answers_15 as l15  # tests/exercise_answers_15.py: answers for lesson 15
import exercise_answers_16 as l16  # tests/exercise_answers_16.py: answers for lesson 16
import exercise_answers_17 as l17  # tests/exercise_answers_17.py: answers for lesson 17
import numpy as np
import pytest

import gradbook as torch
from gradbook import exercises as ex
from gradbook.exercises import CheckFailedError, NotAttemptedError


# ---------------------------------------------------------------- right answers, one per check
def step(w, x, y, lr):
    loss = ((x @ w - y) ** 2).mean()
    loss.backward()
    with torch.no_grad():
        w -= lr * w.grad
    w.grad = None


class XSinX(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x.sin()

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * (x.sin() + x * x.cos())


def backward_twice(y):
    y.backward(retain_graph=True)
    y.backward()


def nth_derivative(f, x, n):
    out = f(x)
    for _ in range(n):
        (out,) = torch.autograd.grad(out, x, create_graph=True)
    return out


def round_ste(x):
    return x + (x.round() - x).detach()


def training_loop(model, optimizer, loss_fn, inputs, targets, steps):
    losses = []
    for _ in range(steps):
        optimizer.zero_grad()
        loss = loss_fn(model(inputs), targets)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return losses


RIGHT = {
    ex.check_grad_after_three_calls: 18.0,
    ex.check_grad_after_zeroing: 32.0,
    ex.check_training_step: step,
    ex.check_vjp: [5.0, 3.5, -18.0],
    ex.check_jacobian: [[3.0, 2.0], [1.0, 1.0], [0.0, 6.0]],
    ex.check_backward_rule: XSinX,
    ex.check_grad_after_retain: 56.0,
    ex.check_backward_twice: backward_twice,
    ex.check_graph_chain: lambda x: (x.exp() * 2).sum(),
    ex.check_leaves_with_grad: {"a", "d"},
    ex.check_second_derivative: 24.0,
    ex.check_nth_derivative: nth_derivative,
    ex.check_grad_through_detach: 8.0,
    ex.check_straight_through: round_ste,
    ex.check_weight_without_zero_grad: -0.25,
    ex.check_training_loop: training_loop,
    ex.check_micrograd_grad: 12.0,
    ex.check_torch_grad: 6.0,
    ex.check_value_pow: l810.Value,
    ex.check_bias_grad: [5.0, -10.0],
    ex.check_unbroadcast: l810.unbroadcast,
    ex.check_logcosh_rule: l810.LogCosh,
    ex.check_gradcheck_verdict: False,
    ex.check_hand_gradients: l11.HAND_RIGHT[0],
    ex.check_numerical_grad: l11.numerical_grad,
    ex.check_tape_backward: l11.backward,
    ex.check_jvp_column: l12.JVP_RIGHT[0],
    ex.check_dual_exp: l12.RightDual,
    ex.check_passes: l12.PASSES_RIGHT[0],
    ex.check_grad_without_division: 10.0,
    ex.check_accumulation_step: l13.accumulation_step,
    ex.check_softmax_ce_grad: l14.CE_RIGHT[0],
    ex.check_linear_function: l14.LinearFunction,
    ex.check_saved_count: l15.SAVED_RIGHT[0],
    ex.check_mask_relu: l15.MaskReLU,
    ex.check_kink_grad: l16.KINK_RIGHT[0],
    ex.check_xlogx: l16.xlogx,
    ex.check_loop_graph: l17.LOOP_RIGHT[0],
    ex.check_array_sum: l17.ArrayValue,
}
CHECKS = list(RIGHT)
NUMERIC = [
    ex.check_grad_after_three_calls,
    ex.check_grad_after_zeroing,
    ex.check_grad_after_retain,
    ex.check_second_derivative,
    ex.check_grad_through_detach,
    ex.check_weight_without_zero_grad,
]


def ids(check):
    return check.__name__


def not_implemented(*args):
    raise NotImplementedError()


# ---------------------------------------------------------------- status: pass, not attempted
@pytest.mark.parametrize("check", CHECKS, ids=ids)
def test_right_answer_prints_one_line_and_nothing_on_stderr(check, capfd):
    assert check(RIGHT[check]) is None
    out, err = capfd.readouterr()
    assert out.count("\n") == 1 and out.startswith("✓ ")
    assert err == ""


@pytest.mark.parametrize("check", CHECKS, ids=ids)
@pytest.mark.parametrize("stub", [..., None], ids=["ellipsis", "none"])
def test_placeholders_are_not_attempted(check, stub, capfd):
    with pytest.raises(NotAttemptedError, match="^not attempted"):
        check(stub)
    assert capfd.readouterr() == ("", "")


@pytest.mark.parametrize("check", [c for c in CHECKS if callable(RIGHT[c]) and not isinstance(RIGHT[c], type)], ids=ids)
def test_a_function_that_raises_not_implemented_is_not_attempted(check):
    with pytest.raises(NotAttemptedError, match="not attempted"):
        check(not_implemented)


def test_a_function_whose_backward_is_not_implemented_is_not_attempted():
    class Stub(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x.sin()

        @staticmethod
        def backward(ctx, grad_output):
            raise NotImplementedError()

    with pytest.raises(NotAttemptedError):
        ex.check_backward_rule(Stub)


def test_not_attempted_is_an_assertion_error_so_nbgrader_gives_zero():
    assert issubclass(NotAttemptedError, AssertionError) and issubclass(CheckFailedError, AssertionError)


# ---------------------------------------------------------------- numbers: kinds, shapes, dtypes
@pytest.mark.parametrize(
    "answer",
    [18.0, 18, np.float32(18), torch.tensor(18.0), torch.tensor([18.0]), np.array(18.0), torch.tensor(18.0).double()],
    ids=["float", "int", "np.float32", "tensor", "one-element tensor", "ndarray", "float64 tensor"],
)
def test_numbers_and_tensors_are_both_accepted(answer, capsys):
    ex.check_grad_after_three_calls(answer)
    assert capsys.readouterr().out.startswith("✓")


def test_vjp_accepts_a_tensor_that_requires_grad():
    ex.check_vjp(torch.tensor([5.0, 3.5, -18.0], requires_grad=True) * 1)


@pytest.mark.parametrize("check", NUMERIC, ids=ids)
@pytest.mark.parametrize("bad", [float("nan"), float("inf"), -float("inf")], ids=["nan", "inf", "-inf"])
def test_nan_and_inf_are_rejected(check, bad):
    with pytest.raises(CheckFailedError, match="NaN or inf"):
        check(bad)


def test_nan_inside_a_tensor_is_rejected():
    with pytest.raises(CheckFailedError, match="NaN or inf"):
        ex.check_vjp(torch.tensor([5.0, float("nan"), -18.0]))


def test_wrong_shape_is_named():
    with pytest.raises(CheckFailedError, match=r"(?s)shape \(3,\).*You gave: shape \(2,\)") as info:
        ex.check_vjp([5.0, 3.5])
    assert "a gradient has the same shape" in str(info.value)
    with pytest.raises(CheckFailedError, match=r"(?s)shape \(3, 2\).*You gave: shape \(2, 3\)"):
        ex.check_jacobian(np.zeros((2, 3)))
    with pytest.raises(CheckFailedError, match="a single number"):
        ex.check_grad_after_three_calls([18.0, 18.0])


def test_integers_and_fractions_are_numbers_too(capsys):
    """A right value is right whatever its type: ints, int arrays and tensors, Fractions, Decimals."""
    from decimal import Decimal
    from fractions import Fraction

    ex.check_grad_after_three_calls(np.array(18))
    ex.check_grad_after_three_calls(torch.tensor(18))
    ex.check_grad_after_three_calls(Fraction(36, 2))
    ex.check_grad_after_three_calls(Decimal("18"))
    ex.check_jacobian(np.array([[3, 2], [1, 1], [0, 6]]))
    ex.check_vjp([Fraction(5), Fraction(7, 2), -18])
    ex.check_grad_after_retain(np.int32(56))
    assert capsys.readouterr().out.count("✓") == 7
    with pytest.raises(CheckFailedError, match="vᵀJ"):
        ex.check_vjp(torch.tensor([5, 3, -18]))  # an integer tensor with a wrong value: wrong, as any other


@pytest.mark.parametrize("answer", ["12", True, b"12", object()], ids=["str", "bool", "bytes", "object"])
def test_non_numbers_are_named(answer):
    with pytest.raises(CheckFailedError, match="as numbers"):
        ex.check_grad_after_three_calls(answer)


class AlwaysEqual:
    """A cheat: equal to everything, and close to everything."""

    def __eq__(self, other):
        return True

    def __ne__(self, other):
        return False

    def __abs__(self):
        return 0.0

    def __sub__(self, other):
        return 0.0

    __rsub__ = __sub__
    __hash__ = object.__hash__


class LyingFloat(float):
    def __eq__(self, other):
        return True

    __hash__ = float.__hash__


class LyingSet(set):
    def __eq__(self, other):
        return True

    def __ne__(self, other):
        return False

    __hash__ = None


def test_objects_whose_eq_lies_do_not_pass():
    with pytest.raises(CheckFailedError):
        ex.check_grad_after_three_calls(AlwaysEqual())
    with pytest.raises(CheckFailedError):
        ex.check_grad_after_three_calls(LyingFloat(3.0))
    with pytest.raises(CheckFailedError):
        ex.check_vjp(np.array([AlwaysEqual()] * 3, dtype=object))
    with pytest.raises(CheckFailedError):
        ex.check_leaves_with_grad(LyingSet({"a"}))


# ---------------------------------------------------------------- wrong answers: expected, got, hint
def message(check, answer):
    with pytest.raises(CheckFailedError) as info:
        check(answer)
    text = str(info.value)
    assert "Expected:" in text and "You gave:" in text and "Hint:" in text
    return text


def test_a_negative_axis_counted_from_the_sums_shape_gets_the_negative_axis_hint():
    assert "axis may be negative" in message(ex.check_array_sum, l17.NegativeAxisOffsetSum)


def test_one_call_instead_of_three_is_told_that_gradients_accumulate():
    assert "adds its gradient" in message(ex.check_grad_after_three_calls, 6.0)


def test_the_seeds_printed_value_is_told_that_x_is_3_here():
    """The lesson prints 12 for x = 2 just above the check, which asks for x = 3."""
    assert "what the seed program printed at x = 2" in message(ex.check_grad_after_three_calls, 12.0)


def test_wrong_messages_never_contain_the_answer():
    for check, wrong in [
        (ex.check_grad_after_three_calls, 5.0),
        (ex.check_grad_after_zeroing, 1.0),
        (ex.check_grad_after_retain, 2.0),
        (ex.check_vjp, [0.0, 0.0, 0.0]),
        (ex.check_micrograd_grad, 3.0),
        (ex.check_torch_grad, 2.0),
        (ex.check_bias_grad, [0.0, 0.0]),
    ]:
        text = message(check, wrong)
        answer = np.atleast_1d(np.asarray(RIGHT[check], dtype=float)).ravel()
        for value in answer:
            assert f"{value:g}" not in text, (check.__name__, text)


def test_vjp_without_the_seed_is_told_about_v():
    assert "multiplies each row of J" in message(ex.check_vjp, [5.0, 7.0, 9.0])


def test_transposed_jacobian_is_named():
    assert "transposed" in message(ex.check_jacobian, np.array([[3.0, 2.0], [1.0, 1.0], [0.0, 6.0]]).T.reshape(3, 2))


def test_training_step_that_forgets_to_zero_the_gradient():
    def no_zeroing(w, x, y, lr):
        loss = ((x @ w - y) ** 2).mean()
        loss.backward()
        with torch.no_grad():
            w -= lr * w.grad

    assert "gradients accumulate" in message(ex.check_training_step, no_zeroing)


def test_training_step_with_the_wrong_sign():
    def uphill(w, x, y, lr):
        ((x @ w - y) ** 2).mean().backward()
        with torch.no_grad():
            w += lr * w.grad
        w.grad = None

    assert "minus sign" in message(ex.check_training_step, uphill)


def test_a_crash_in_student_code_becomes_a_message():
    def broken(w, x, y, lr):
        return w @ torch.ones(7)

    assert "it raised RuntimeError" in message(ex.check_training_step, broken)


def test_backward_rule_with_a_wrong_derivative_fails_gradcheck_kindly(capfd):
    class Wrong(XSinX):
        @staticmethod
        def backward(ctx, grad_output):
            (x,) = ctx.saved_tensors
            return grad_output * x.cos()  # forgot the product rule

    assert "product rule" in message(ex.check_backward_rule, Wrong)
    assert capfd.readouterr() == ("", "")


def test_backward_rule_that_ignores_grad_output_fails():
    class NoSeed(XSinX):
        @staticmethod
        def backward(ctx, grad_output):
            (x,) = ctx.saved_tensors
            return x.sin() + x * x.cos()

    message(ex.check_backward_rule, NoSeed)


def test_backward_rule_must_be_a_function_class():
    assert "autograd.Function" in message(ex.check_backward_rule, lambda x: x * x.sin())


def test_backward_once_is_told_to_keep_the_graph(capfd):
    def twice_without_retain(y):
        y.backward()
        y.backward()

    assert "retain_graph=True" in message(ex.check_backward_twice, twice_without_retain)
    assert "second time" in message(ex.check_backward_twice, lambda y: y.backward())
    assert capfd.readouterr().err == ""


def test_graph_chain_names_what_was_built():
    assert "ExpBackward0 → SumBackward0" in message(ex.check_graph_chain, lambda x: x.exp().sum())
    assert "branches" in message(ex.check_graph_chain, lambda x: (x.exp() * x).sum())
    assert "no grad_fn" in message(ex.check_graph_chain, lambda x: 3.0)


def test_leaves_feedback_says_why_a_name_is_wrong():
    assert "c does not require grad" in message(ex.check_leaves_with_grad, {"a", "c", "d"})
    assert "no path" in message(ex.check_leaves_with_grad, ["a", "b", "d"])
    ex.check_leaves_with_grad("a, d")  # a string of names is read too
    assert "names among" in message(ex.check_leaves_with_grad, {"a", "e"})


def test_second_derivative_names_the_other_orders():
    assert "first derivative" in message(ex.check_second_derivative, 10.0)
    assert "third derivative" in message(ex.check_second_derivative, 36.0)


def test_nth_derivative_without_create_graph_is_told_to_keep_the_graph():
    assert "create_graph=True" in message(ex.check_nth_derivative, nth_derivative_without_graph)
    assert "finite differences" in message(ex.check_nth_derivative, finite_differences)


def test_grad_through_detach_names_the_misreading():
    assert "as if a.detach() were a" in message(ex.check_grad_through_detach, 16.0)
    assert "as if c had been recorded" in message(ex.check_grad_through_detach, 48.0)
    assert "as if nothing had been cut" in message(ex.check_grad_through_detach, 56.0)


def test_straight_through_names_what_is_missing():
    assert "round() has derivative 0" in message(ex.check_straight_through, lambda x: x.round())
    assert "no graph" in message(ex.check_straight_through, lambda x: x.round().detach())
    assert "not rounded" in message(ex.check_straight_through, lambda x: x * 1)


def test_weight_without_zero_grad_is_told_that_nothing_zeroes():
    assert "nothing empties w.grad" in message(ex.check_weight_without_zero_grad, 0.25)


def test_training_loop_feedback_names_the_bug():
    assert "zero_grad() in every step" in message(ex.check_training_loop, loop_without_zero_grad)
    assert "never changed" in message(ex.check_training_loop, loop_zeroing_before_step)
    assert "graph alive" in message(ex.check_training_loop, loop_keeping_tensors)
    assert "return the list" in message(ex.check_training_loop, loop_returning_nothing)


def test_checks_leave_no_warning_even_when_students_read_a_non_leaf_grad(capfd):
    def peeks(y):
        assert y.grad is None  # reading a non-leaf .grad warns; the warning would go to stderr
        backward_twice(y)

    ex.check_backward_twice(peeks)
    assert capfd.readouterr().err == ""


def test_checks_are_deterministic(capsys):
    runs = []
    for _ in range(2):
        texts = []
        for check in CHECKS:
            check(RIGHT[check])
            texts.append(capsys.readouterr().out)
        runs.append(texts)
    assert runs[0] == runs[1]
    # one confirmation line per check; the two Function checks share _functions' line (LogCosh's
    # adds that it stays finite far out, where it is also tried)
    shared = {ex.check_backward_rule, ex.check_logcosh_rule}
    texts = sorted((text for check, text in zip(CHECKS, runs[0]) if check in shared), key=len)
    assert texts[0][:-2] + ", and stay finite far out.\n" == texts[1], texts
    distinct = [text for check, text in zip(CHECKS, runs[0]) if check not in shared]
    assert len(set(distinct)) == len(distinct)


# ---------------------------------------------------------------- Exercise objects
def test_exercise_objects_check_hint_and_have_no_solution(capsys):
    all_exercises = ex.exercises()
    missing = sorted(e.name for e in all_exercises if e.check_answer not in CHECKS)
    assert not missing, f"every check has a right answer in RIGHT and attack cases in ATTACKS: {missing}"
    assert len(all_exercises) == len(CHECKS)
    assert [e.lesson for e in all_exercises] == sorted(e.lesson for e in all_exercises)
    for e in all_exercises:
        assert e.solution_available is False
        assert e.hint() and e.hint(99) == e.hints[-1]
        assert e.check_answer in CHECKS
    ex.exercises(1)[0].check(18.0)
    assert capsys.readouterr().out.startswith("✓")
    assert [e.name for e in ex.exercises(5)] == ["second_derivative", "nth_derivative"]
    with pytest.raises(ValueError, match="lessons"):
        ex.exercises(99)


# ---------------------------------------------------------------- no answers in the package
def test_the_installed_package_contains_no_answers():
    spec = importlib.util.find_spec("gradbook.exercises")
    source = "\n".join(p.read_text() for p in Path(spec.origin).parent.rglob("*.py"))
    for literal in ["32.0", "56.0", "5.0, 3.5, -18.0", "[3.0, 2.0], [1.0, 1.0], [0.0, 6.0]", '{"a", "d"}', "'a', 'd'"]:
        assert literal not in source, literal
    for answer in ["= 12.0", "== 12", "= 32", "== 32", "= 56", "== 56", "-18", "24.0", "= 24", "-0.25", "= 8.0"]:
        assert answer not in source, answer


def test_importing_gradbook_does_not_import_the_exercises_or_plotting():
    code = (
        "import sys, gradbook; assert 'gradbook.exercises' not in sys.modules; "
        "import gradbook.exercises; "
        "assert not {'ipywidgets', 'matplotlib', 'graphviz'} & set(sys.modules), sorted(sys.modules)"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


# ---------------------------------------------------------------- the attack table
# Every check against answers of four kinds: right ones in every form a learner may write them;
# wrong ones; fakes (answers that cheat without touching anything: lying objects, answers built
# from the checks' own docstrings, a Function whose gradients come from built-in ops, ...); and
# patches (the notebook replaces a tool the check relies on, then gives a wrong answer). A right
# answer must pass with one line; everything else must fail with an AssertionError (the learner
# message), never another exception, and nothing may reach stderr.
class RaisingRepr:
    def __repr__(self):
        raise RuntimeError("no repr for you")

    def __float__(self):
        raise RuntimeError("no float either")


class RaisingIter:
    def __iter__(self):
        raise RuntimeError("no iteration")

    def __len__(self):
        raise RuntimeError("no len")

    def __repr__(self):
        raise RuntimeError("no repr")


class RaisingArray:
    def __array__(self, *args, **kwargs):
        raise RuntimeError("no array")


class OnlyApply(torch.autograd.Function):
    """Built-in ops do the differentiation; the Function's backward is never written."""

    @classmethod
    def apply(cls, x):
        return x * x.sin()


class NoBackward(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x * x.sin()


class WrongRule(XSinX):
    """XSinX's forward, with a backward that forgets the product rule."""

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * x.cos()  # a wrong rule


def seed_two(y):
    y.backward(torch.tensor(2.0))  # one pass, twice the gradient


def two_passes_of_a_copy(y):
    (y * 1).backward(retain_graph=True)  # a pass through y, seeded 1
    (y * 1).backward()  # and another: two real passes, and right


def zero_the_data(w, x, y, lr):
    x.zero_()
    y.zero_()


RENAMED = []  # (class, its name): put back after the case, or later tests would see the lie


def renamed_cos(x):
    out = x.cos()
    RENAMED.append((type(out.grad_fn), type(out.grad_fn).__name__))
    type(out.grad_fn).__name__ = "ExpBackward0"  # the class itself, for every cos node
    return (out * 2).sum()


def finite_differences(f, x, n, h=1e-3):
    """Differentiates by evaluating f elsewhere: right numbers, no autograd."""
    if n == 0:
        return f(x).item()
    left, right = (torch.tensor(x.item() + d, dtype=torch.float64) for d in (-h, h))
    return (finite_differences(f, right, n - 1) - finite_differences(f, left, n - 1)) / (2 * h)


def nth_derivative_without_graph(f, x, n):
    out = f(x)
    for _ in range(n):
        (out,) = torch.autograd.grad(out, x)  # no create_graph: the second call fails
    return out


def nth_derivative_through_backward(f, x, n):
    out = f(x)
    for _ in range(n):
        x.grad = None
        out.backward(create_graph=True)  # x.grad keeps a graph
        out = x.grad
    return out


def rounds_its_input(x):
    with torch.no_grad():
        x.round_()  # the caller's x is rounded for good
    return x * 1


class RoundSTE(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x.round()

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output


def loop_without_zero_grad(model, optimizer, loss_fn, inputs, targets, steps):
    losses = []
    for _ in range(steps):
        loss = loss_fn(model(inputs), targets)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return losses


def loop_zeroing_before_step(model, optimizer, loss_fn, inputs, targets, steps):
    losses = []
    for _ in range(steps):
        loss = loss_fn(model(inputs), targets)
        loss.backward()
        optimizer.zero_grad()
        optimizer.step()
        losses.append(loss.item())
    return losses


def loop_keeping_tensors(model, optimizer, loss_fn, inputs, targets, steps):
    losses = []
    for _ in range(steps):
        optimizer.zero_grad()
        loss = loss_fn(model(inputs), targets)
        loss.backward()
        optimizer.step()
        losses.append(loss)
    return losses


def loop_returning_nothing(model, optimizer, loss_fn, inputs, targets, steps):
    training_loop(model, optimizer, loss_fn, inputs, targets, steps)


def loop_zeroing_at_the_end(model, optimizer, loss_fn, inputs, targets, steps):
    losses = []
    for _ in range(steps):
        loss = loss_fn(model(inputs), targets)
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
        losses.append(loss.item())
    return losses


def loop_by_hand(model, optimizer, loss_fn, inputs, targets, steps):
    losses = []
    for _ in range(steps):
        loss = loss_fn(model(inputs), targets)
        loss.backward()
        with torch.no_grad():
            for p in model.parameters():
                p -= 0.1 * p.grad  # the check's learning rate
                p.grad = None
        losses.append(loss.item())
    return losses


def loop_losses_after_the_step(model, optimizer, loss_fn, inputs, targets, steps):
    training_loop(model, optimizer, loss_fn, inputs, targets, steps)
    return [loss_fn(model(inputs), targets).item()] * steps


def loop_on_zeroed_data(model, optimizer, loss_fn, inputs, targets, steps):
    inputs.zero_()
    targets.zero_()
    return training_loop(model, optimizer, loss_fn, inputs, targets, steps)


def docstring_answers(check):
    """What help(check) shows, as answers: every function or class its examples define or pass."""
    import doctest

    found = []
    for example in doctest.DocTestParser().get_examples(check.__doc__ or ""):
        if "check_" in example.source and "(" in example.source:
            arg = example.source.split("(", 1)[1].rsplit(")", 1)[0]
            if arg.strip():
                found.append(arg)
    return found


def _fake_numpy():
    import types

    fake = types.ModuleType("numpy")
    fake.allclose = lambda *a, **k: True
    return fake


PATCHES = {
    "np.allclose always True": lambda mp: mp.setattr(np, "allclose", lambda *a, **k: True),
    "np.isclose always True": lambda mp: mp.setattr(np, "isclose", lambda *a, **k: True),
    "builtins.abs returns 0": lambda mp: mp.setattr("builtins.abs", lambda v: 0),
    "builtins.set always equal": lambda mp: mp.setattr("builtins.set", LyingSet),
    "builtins.isinstance always True": lambda mp: mp.setattr("builtins.isinstance", lambda *a: True),
    "autograd.gradcheck always True": lambda mp: mp.setattr(torch.autograd, "gradcheck", lambda *a, **k: True),
    "sys.modules['numpy'] faked": lambda mp: mp.setitem(sys.modules, "numpy", _fake_numpy()),
    "sys.modules['gradbook'] faked": lambda mp: mp.setitem(sys.modules, "gradbook", _fake_numpy()),
    "Tensor.__eq__ always True": lambda mp: mp.setattr(torch.Tensor, "__eq__", lambda a, b: True),
    "Tensor.backward does nothing": lambda mp: mp.setattr(torch.Tensor, "backward", lambda *a, **k: None),
}

LYING = [AlwaysEqual(), LyingFloat(3.0), RaisingRepr(), RaisingIter(), RaisingArray(), [RaisingRepr()] * 3]
ATTACKS = {  # check: (right answers, wrong answers, fakes)
    ex.check_grad_after_three_calls: (
        [18.0, 18, np.float32(18), torch.tensor(18.0)],
        [6.0, 12.0, 4.0, 8.0, -18.0, 1e308],  # one call, the seed's x = 2, ...
        LYING,
    ),
    ex.check_grad_after_zeroing: ([32.0, 32], [0.0, 41.0, 71.0, 30.0], LYING),
    ex.check_grad_after_retain: ([56.0, np.array(56)], [12.0, 24.0, 32.0, 44.0], LYING),
    ex.check_vjp: (
        [[5.0, 3.5, -18.0], np.array([5.0, 3.5, -18.0]), torch.tensor([5.0, 3.5, -18.0], requires_grad=True)],
        [[5.0, 7.0, 9.0], [1.0, 2.0, 3.0], [1e308] * 3, [5.0, 3.5]],
        LYING,
    ),
    ex.check_jacobian: (
        [
            [[3.0, 2.0], [1.0, 1.0], [0.0, 6.0]],
            np.array([[3, 2], [1, 1], [0, 6]]),
            torch.tensor([[3, 2], [1, 1], [0, 6.0]]),
        ],
        [[[3.0, 1.0, 0.0], [2.0, 1.0, 6.0]], np.zeros((3, 2)), [[3.0, 2.0], [1.0, 1.0], [0.0, 3.0]]],
        LYING,
    ),
    ex.check_leaves_with_grad: (
        [{"a", "d"}, ["d", "a"], "a, d", ("a", "d")],
        [{"a"}, {"a", "b", "d"}, {"c"}, set()],
        [LyingSet({"x"}), RaisingIter(), 42],
    ),
    ex.check_training_step: (
        [step],
        [lambda w, x, y, lr: None, not_implemented],
        [zero_the_data, lambda w, x, y, lr: w.data.zero_(), RaisingRepr()],
    ),
    ex.check_backward_rule: (
        [XSinX],
        [WrongRule],
        [OnlyApply, NoBackward, RaisingRepr, lambda x: x * x.sin()],
    ),
    ex.check_backward_twice: (
        [backward_twice, two_passes_of_a_copy],
        [lambda y: y.backward()],
        [seed_two, RaisingRepr()],
    ),
    ex.check_graph_chain: (
        [lambda x: (x.exp() * 2).sum(), lambda x: (x.exp() * -0.5).sum(), lambda x: (2 * x.exp()).sum()],
        [lambda x: x.exp().sum(), lambda x: (x.exp() * x).sum(), lambda x: (x.exp() * 2).mean()],
        [renamed_cos, RaisingRepr(), lambda x: RaisingRepr()],
    ),
    ex.check_second_derivative: (
        [24.0, 24, np.float64(24), torch.tensor(24.0)],
        [10.0, 36.0, 3.0, 12.0, 1e308],
        LYING,
    ),
    ex.check_nth_derivative: (
        [nth_derivative, nth_derivative_through_backward],
        [
            lambda f, x, n: torch.autograd.grad(f(x), x)[0],
            nth_derivative_without_graph,
            lambda f, x, n: nth_derivative(f, x, n + 1),
            lambda f, x, n: 2 * nth_derivative(f, x, n),
            lambda f, x, n: f(x),
            not_implemented,
        ],
        [finite_differences, RaisingRepr(), lambda f, x, n: RaisingRepr(), lambda f, x, n: AlwaysEqual()],
    ),
    ex.check_grad_through_detach: ([8.0, 8, torch.tensor(8.0)], [16.0, 48.0, 56.0, 4.0, 12.0], LYING),
    ex.check_straight_through: (
        [round_ste, RoundSTE.apply, lambda x: x.round() + x - x.detach()],
        [
            lambda x: x.round(),
            lambda x: x * 1,
            lambda x: x.round().detach(),
            lambda x: round_ste(x).sum(),
            lambda x: 2 * x + (x.round() - 2 * x).detach(),
            not_implemented,
        ],
        [
            RaisingRepr(),
            lambda x: RaisingRepr(),
            lambda x: torch.tensor(np.round(x.detach().numpy()), requires_grad=True),  # right values, a new leaf
            lambda x: x.round() + 0 * torch.ones(x.shape, requires_grad=True),  # a graph, from another leaf
            rounds_its_input,
        ],
    ),
    ex.check_weight_without_zero_grad: (
        [-0.25, np.float32(-0.25), torch.tensor(-0.25)],
        [0.25, 0.5, 1.0, -0.5],
        LYING,
    ),
    ex.check_training_loop: (
        [training_loop, loop_zeroing_at_the_end, loop_by_hand],
        [
            loop_without_zero_grad,
            loop_zeroing_before_step,
            loop_keeping_tensors,
            loop_returning_nothing,
            lambda *args: training_loop(*args)[:-1],
            loop_losses_after_the_step,
            not_implemented,
        ],
        [loop_on_zeroed_data, RaisingRepr(), lambda *args: RaisingRepr(), lambda *args: [AlwaysEqual()] * 4],
    ),
    ex.check_micrograd_grad: (
        [12.0, 12, np.float32(12), torch.tensor(12.0)],
        [6.0, 2.0, 4.0, 3.0, -12.0, 1e308, "12", True, b"12", object(), float("nan"), [12.0, 12.0]]
        + [torch.tensor([True]), torch.tensor(float("inf"))],
        LYING,
    ),
    ex.check_torch_grad: (
        [6.0, 6, np.int64(6), torch.tensor(6.0)],
        [12.0, 2.0, 3.0, 18.0, "6", torch.tensor(True), [6, 6], float("inf"), np.zeros((2, 2))],
        LYING,
    ),
    ex.check_value_pow: (
        [l810.Value, l810.TypedValue],
        [
            l810.OverwritingPow,  # = for +=: wrong where x is used twice
            l810.NoUpstreamPow,
            l810.WrongExponentPow,
            l810.StubPow,
            l810.CrashingPow,
            l810.PowReturnsNoValue,
            l810.GradNotTouched,
            l810.GradNoneCrashes,
            l810.GradText,
            l810.GradBoolTensor,
            l810.GradList,
            l810.GradNan,
            l810.GradTensor,
            int,
            l810.Value(2.0),
            "Value",
        ],
        [
            l810.GradAlwaysEqual,
            l810.GradLyingFloat,
            l810.GradRaisesOnRead,
            l810.PatchingPow,
            l810.TensorValue,  # gradbook's autograd in a wrapper, no rule written
            RaisingRepr,
            RaisingRepr(),
            lambda x: x,
        ],
    ),
    ex.check_bias_grad: (
        [
            [5.0, -10.0],
            (5, -10),
            np.array([5, -10]),
            torch.tensor([5.0, -10.0]),
            torch.tensor([5.0, -10.0], requires_grad=True),
        ],
        [
            [1.0, -2.0],  # one row's gradient
            [-10.0, 5.0],
            [5.0, 10.0],
            [25.0, -50.0],
            np.ones((5, 2)),
            torch.ones(5, 2),
            [5.0],
            [[5.0, -10.0]],
            "5, -10",
            [True, False],
            torch.tensor([True, False]),
            [float("nan"), 1.0],
            5,
        ],
        LYING,
    ),
    ex.check_unbroadcast: (
        [l810.unbroadcast, l810.unbroadcast_in_one_sum, l810.unbroadcast_in_numpy, lambda g, s: g.sum_to_size(s)],
        [
            l810.leading_only,
            l810.forgets_keepdim,
            l810.first_slice_of_size_one,
            l810.mean_not_sum,
            l810.trailing_instead_of_leading,
            l810.sum_everything_to_shape,
            not_implemented,
            lambda g, s: 1 / 0,
            lambda g, s: None,
            lambda g, s: "x",
            lambda g, s: torch.zeros(s),
            lambda g, s: l810.unbroadcast(g, s) > 0,
            lambda g, s: l810.unbroadcast(g, s) / 0,
            lambda g, s: g.sum(),
            3,
            "unbroadcast",
        ],
        [
            RaisingRepr(),
            lambda g, s: RaisingRepr(),
            lambda g, s: AlwaysEqual(),
            lambda g, s: [LyingFloat(0.0)] * 3,
            l810.patching_unbroadcast,
        ],
    ),
    ex.check_logcosh_rule: (
        [l810.LogCosh, l810.LogCoshSavesTanh],
        [
            l810.NaiveLogCosh,
            l810.StableForwardSinhOverCosh,
            l810.LogCoshByExp,
            l810.WrongSignLogCosh,
            l810.ForgetfulLogCosh,
            l810.SinhLogCosh,
            l810.StubLogCosh,
            l810.BackwardStubLogCosh,
            l810.BackwardRaisesLogCosh,
            l810.ForwardRaisesLogCosh,
            l810.LogCoshSummed,
            l810.LogCoshNan,
            l810.LogCoshWrongForward,
            l810.TwoGradients,
            l810.NoBackwardLogCosh,
            XSinX,
            l810.logcosh_function,
            object,
            3,
        ],
        [
            l810.BuiltInLogCosh,
            l810.DetachedLogCosh,
            l810.LogCoshReturnsFloat,
            l810.LogCoshReturnsBool,
            l810.FinalLogCosh,
            l810.SneakyLogCosh,
            l810.PatchingLogCosh,
            RaisingRepr,
        ],
    ),
    ex.check_gradcheck_verdict: (
        [False, np.bool_(False), 1 == 2],
        [True, np.bool_(True), "False", "True", 0, 1, [False], torch.tensor(False)],
        LYING,
    ),
    ex.check_hand_gradients: (l11.HAND_RIGHT, l11.HAND_WRONG, [*LYING, *l11.hand_fakes(LYING)]),
    ex.check_numerical_grad: (l11.NUMERICAL_RIGHT, l11.NUMERICAL_WRONG, [*LYING, *l11.numerical_fakes(LYING)]),
    ex.check_tape_backward: (l11.TAPE_RIGHT, l11.TAPE_WRONG, [*LYING, *l11.tape_fakes(LYING)]),
    ex.check_jvp_column: (l12.JVP_RIGHT, l12.JVP_WRONG, LYING),
    ex.check_dual_exp: (l12.DUAL_RIGHT, l12.DUAL_WRONG, [*LYING, *l12.dual_fakes(LYING)]),
    ex.check_passes: (l12.PASSES_RIGHT, l12.PASSES_WRONG, [*LYING, *l11.hand_fakes(LYING)]),
    ex.check_grad_without_division: (l13.NO_DIVISION_RIGHT, l13.NO_DIVISION_WRONG, LYING),
    ex.check_accumulation_step: (l13.ACCUMULATION_RIGHT, l13.ACCUMULATION_WRONG, LYING),
    ex.check_softmax_ce_grad: (l14.CE_RIGHT, l14.CE_WRONG, LYING),
    ex.check_linear_function: (l14.LINEAR_RIGHT, l14.LINEAR_WRONG, [RaisingRepr]),
    ex.check_saved_count: (l15.SAVED_RIGHT, l15.SAVED_WRONG, LYING),
    ex.check_mask_relu: (l15.MASK_RIGHT, l15.MASK_WRONG, [RaisingRepr]),
    ex.check_kink_grad: (l16.KINK_RIGHT, l16.KINK_WRONG, LYING),
    ex.check_xlogx: (l16.XLOGX_RIGHT, l16.XLOGX_WRONG, [*l16.xlogx_fakes(LYING), RaisingRepr, RaisingRepr()]),
    ex.check_loop_graph: (l17.LOOP_RIGHT, l17.LOOP_WRONG, [*LYING, *l17.loop_fakes(LYING)]),
    ex.check_array_sum: (l17.ARRAY_RIGHT, l17.ARRAY_WRONG, [*l17.ARRAY_FAKES, RaisingRepr, RaisingRepr()]),
}


def _outcome(check, answer, patch=None):
    """'pass', 'fail' (an AssertionError: the learner message) or 'crash' (anything else)."""
    import contextlib
    import io

    out, err = io.StringIO(), io.StringIO()
    mp = pytest.MonkeyPatch()
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err), warnings_as_stderr(err):
            if patch is not None:
                patch(mp)
            try:
                check(answer)
                result = "pass"
            except AssertionError:
                result = "fail"
            except Exception as error:  # noqa: BLE001
                result = f"crash: {type(error).__name__}: {error}"
    finally:
        mp.undo()
        l810.undo_patches()
        while RENAMED:
            cls, name = RENAMED.pop()
            cls.__name__ = name
    if err.getvalue():
        result += " (stderr)"
    return result


def warnings_as_stderr(err):
    import contextlib
    import warnings

    @contextlib.contextmanager
    def cm():
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            yield
        for w in caught:
            err.write(f"{w.category.__name__}: {w.message}\n")

    return cm()


def attack_table():
    """Per check and kind: (cases, how many ended as they must)."""
    rows = {}
    for check, (right, wrong, fakes) in ATTACKS.items():
        docs = []
        for text in docstring_answers(check):
            try:
                docs.append(eval(text, {"torch": torch, "np": np}))  # noqa: S307
            except Exception:  # noqa: BLE001 - a class defined in the docstring: rebuild it there
                import doctest

                scope = {"torch": torch}
                for example in doctest.DocTestParser().get_examples(check.__doc__):
                    if "check_" not in example.source:
                        exec(example.source, scope)  # noqa: S102
                docs.append(scope.get(text.strip()))
        cases = {
            "right": [(a, None, "pass") for a in right],
            "wrong": [(a, None, "fail") for a in wrong],
            "fake": [(a, None, "fail") for a in [*fakes, *docs]],
            "patch": [(w, p, "fail") for p in PATCHES.values() for w in wrong[:1]],
        }
        rows[check.__name__] = {
            kind: [(_outcome(check, a, p), want) for a, p, want in items] for kind, items in cases.items()
        }
    return rows


def test_the_attack_table():
    rows = attack_table()
    bad = {
        (name, kind, i): got
        for name, kinds in rows.items()
        for kind, results in kinds.items()
        for i, (got, want) in enumerate(results)
        if got != want
    }
    total = sum(len(r) for kinds in rows.values() for r in kinds.values())
    print(f"{total} cases, {len(bad)} ended otherwise")
    assert not bad, bad
    assert total > 200


# ---------------------------------------------------------------- no answer ships with the package
def _package_values() -> list[tuple[str, object]]:
    """Every attribute of the exercise modules (private ones too), and what each one that can be
    called without arguments returns: what `from gradbook.exercises.lessonNN import ...` can reach."""
    modules = [importlib.import_module(f"gradbook.exercises.lesson{n:02d}") for n in range(1, 18)]
    modules.append(importlib.import_module("gradbook.exercises._checking"))
    found = []
    for module in modules:
        for name, value in vars(module).items():
            if name.startswith("__") or inspect.ismodule(value):
                continue
            found.append((f"{module.__name__}.{name}", value))
            if not callable(value) or inspect.isclass(value):
                continue
            try:
                parameters = inspect.signature(value).parameters.values()
            except (TypeError, ValueError):
                continue
            if all(p.default is not p.empty or p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) for p in parameters):
                try:
                    with contextlib.redirect_stdout(io.StringIO()):
                        found.append((f"{module.__name__}.{name}()", value()))
                except Exception:
                    pass
    return found


def test_nothing_importable_from_the_package_passes_a_check():
    """No reference solution or worked answer is importable. Each module
    attribute, and each zero-argument function's result, is handed to every check as the answer."""
    from gradbook.exercises import exercises as all_exercises

    checks = [e for lesson in range(1, 18) for e in all_exercises(lesson)]
    values = _package_values()
    assert len(values) > 200 and len(checks) == 39
    passing = []
    for name, value in values:
        for exercise in checks:
            try:
                with contextlib.redirect_stdout(io.StringIO()):
                    exercise.check(value)
            except BaseException:
                continue
            passing.append((name, exercise.name))
    assert passing == []


def test_help_of_graph_chain_does_not_show_the_answer():
    from gradbook.exercises import lesson04

    answer = repr(["AccumulateGrad", *lesson04.CHAIN])
    shown = pydoc.render_doc(lesson04.graph_chain, renderer=pydoc.plaintext)
    assert "graph_chain(" in shown and answer not in shown
    assert answer == "['AccumulateGrad', 'ExpBackward0', 'MulBackward0', 'SumBackward0']"

"""gradbook.set_language: the self-checks and the widgets in Chinese, and English unchanged by default.

Every wrong answer of the attack table (tests/test_exercises.py), and a few more that reach the
checks' other messages, is checked under ``set_language("zh")``: its message must be Chinese all
through (``gradbook.language.misses`` collects any text no catalogue translated), and every
entry of the catalogues must translate some message (``gradbook.language.matched``), or it is
dead. The English texts below are written out from the code, as an independent truth.
"""

import contextlib
import doctest
import io
import os
import re
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
import test_exercises as te  # tests/test_exercises.py: its attack table

import gradbook as torch
from gradbook import exercises as ex
from gradbook import language as _language
from gradbook.exercises import CheckFailedError, NotAttemptedError
from gradbook.exercises._zh import ZH as EXERCISES_ZH

LESSONS = tuple(range(1, 18))  # every lesson: the attack table answers all their checks, and EXTRA below
CJK = re.compile(r"[\u3000-\u303f\u4e00-\u9fff\uff00-\uffef]")  # Chinese characters and punctuation
FIELD = re.compile(r"\{(\w+)\}")


@contextlib.contextmanager
def speaking(language):
    """``set_language(language)``, with misses and matched keys collected; English again afterwards.

    ``translate`` notes a miss only when no key at all translated a text; a field left in English
    inside a translated template (``能顺利运行your power rule，不报错``) goes unnoticed. So the
    fields' texts that no key translated are collected too, in ``fields`` (as candidates: a
    template that matched but lost to a better one leaves its fields there as well)."""
    _language.misses, _language.matched = set(), set()
    best, fields = _language._best, set()

    def noting(text, catalogue, patterns):
        found = best(text, catalogue, patterns)
        if not found[2] and _language._PROSE.search(text) and not _language._REPR.fullmatch(text):
            fields.add(text)
        return found

    _language._best = noting  # translate and _best itself call it by its module-level name
    try:
        torch.set_language(language)
        yield SimpleNamespace(misses=_language.misses, matched=_language.matched, fields=fields)
    finally:
        _language._best = best
        torch.set_language("en")
        _language.misses = _language.matched = None


@pytest.fixture(autouse=True)
def english_afterwards():
    yield
    torch.set_language("en")
    _language.misses = _language.matched = None


# ---------------------------------------------------------------- the answers: the attack table, and more
class Final(torch.autograd.Function):
    def __init_subclass__(cls, **kwargs):
        raise TypeError("Final cannot be subclassed")


class ReturnsFloat(torch.autograd.Function):
    @classmethod
    def apply(cls, x):
        return 3.0


class ReturnsBool(torch.autograd.Function):
    @classmethod
    def apply(cls, x):
        return x > 0


class Detached(torch.autograd.Function):
    @classmethod
    def apply(cls, x):
        return (x * x.sin()).detach()


class BackwardRaises(te.XSinX):
    @staticmethod
    def backward(ctx, grad_output):
        raise ValueError("a bug in backward")


class BackwardStub(te.XSinX):
    @staticmethod
    def backward(ctx, grad_output):
        raise NotImplementedError()


class Sneaky(te.XSinX):
    """Right gradients, from a backward put in place of the one the check counts."""

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        cls.backward = te.XSinX.backward


def leaf_of(y):
    node = y.grad_fn
    while type(node).__name__ != "AccumulateGrad":
        node = next(fn for fn, _ in node.next_functions if fn is not None)
    return node.variable


def grads_only(y):
    torch.autograd.grad(y, leaf_of(y), retain_graph=True)
    torch.autograd.grad(y, leaf_of(y))


def one_grad_one_backward(y):
    torch.autograd.grad(y, leaf_of(y), retain_graph=True)
    y.backward()


def twice_then_triple(y):
    te.backward_twice(y)
    with torch.no_grad():
        leaf_of(y).grad *= 3


def twice_then_nan(y):
    te.backward_twice(y)
    leaf_of(y).grad.fill_(float("nan"))


def raises_runtime_error(y):
    raise RuntimeError("something else")


def nan_step(w, x, y, lr):
    with torch.no_grad():
        w.fill_(float("nan"))


def no_zeroing(w, x, y, lr):
    ((x @ w - y) ** 2).mean().backward()
    with torch.no_grad():
        w -= lr * w.grad


class RoundBackwardRaises(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x.round()

    @staticmethod
    def backward(ctx, grad_output):
        raise ValueError("a bug in backward")


class RoundNanGradient(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x.round()

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output * float("nan")


def loop_freezing_the_weight(model, optimizer, loss_fn, inputs, targets, steps):
    model.weight.requires_grad_(False)
    return te.training_loop(model, optimizer, loss_fn, inputs, targets, steps)


def loop_ending_in_nan(model, optimizer, loss_fn, inputs, targets, steps):
    losses = te.training_loop(model, optimizer, loss_fn, inputs, targets, steps)
    with torch.no_grad():
        model.weight.fill_(float("nan"))
    return losses


def loop_returning_text(model, optimizer, loss_fn, inputs, targets, steps):
    return [str(loss) for loss in te.training_loop(model, optimizer, loss_fn, inputs, targets, steps)]


EXTRA = {  # check: answers that reach the messages the attack table does not
    ex.check_grad_after_three_calls: ["18", True, b"18", object(), float("nan"), [18.0, 18.0]],
    ex.check_vjp: [torch.tensor([True, False, True]), np.array([5.0, 7.0, 9.0])],
    ex.check_jacobian: [np.zeros((2, 3)), np.array([[3.0, 2.0], [1.0, 1.0], [0.0, 6.0]]).T.reshape(3, 2)],
    ex.check_training_step: [
        no_zeroing,
        lambda w, x, y, lr: w @ torch.ones(7),
        lambda w, x, y, lr: w.requires_grad_(False),
        nan_step,
    ],
    ex.check_backward_rule: [Final, ReturnsFloat, ReturnsBool, Detached, BackwardRaises, BackwardStub, Sneaky],
    ex.check_backward_twice: [
        te.not_implemented,
        lambda y: (y.backward(), y.backward()),
        lambda y: 1 / 0,
        raises_runtime_error,
        grads_only,
        one_grad_one_backward,
        twice_then_triple,
        twice_then_nan,
    ],
    ex.check_graph_chain: [
        te.not_implemented,
        lambda x: None,
        lambda x: 3.0,
        lambda x: x.detach(),
        lambda x: np.zeros(3),
        lambda x: (torch.tensor([0.1, 0.2, 0.3], requires_grad=True).exp() * 2).sum(),
        lambda x: (x.exp() * x.detach()).sum(),
        lambda x: 1 / 0,
    ],
    ex.check_leaves_with_grad: [
        {"a", "c", "d"},
        ["a", "b", "d"],
        {"a", "e"},
        {"a", "b", "c", "d"},
        [1],
        [torch.tensor(1.0)],
    ],
    ex.check_nth_derivative: [lambda f, x, n: None, lambda f, x, n: torch.tensor(float("nan"))],
    ex.check_straight_through: [lambda x: None, lambda x: x * 2, RoundBackwardRaises.apply, RoundNanGradient.apply],
    ex.check_training_loop: [loop_freezing_the_weight, loop_ending_in_nan, loop_returning_text],
    ex.check_linear_function: te.l14.EXTRA,
    ex.check_saved_count: te.l15.EXTRA_SAVED,
    ex.check_mask_relu: te.l15.EXTRA_MASK,
    ex.check_xlogx: te.l16.EXTRA,
    ex.check_loop_graph: te.l17.EXTRA_LOOP,
    ex.check_array_sum: te.l17.EXTRA_ARRAY,
    ex.check_numerical_grad: [  # right at eps=1e-6, and not numbers at the eps the check passes next
        lambda f, inputs, eps=1e-6: te.l11.numerical_grad(f, inputs) if eps == 1e-6 else "later",
    ],
}


def docstring_answers(check):
    """What help(check) shows, as answers (as test_exercises.attack_table reads them)."""
    found = []
    for text in te.docstring_answers(check):
        try:
            found.append(eval(text, {"torch": torch, "np": np}))  # noqa: S307
        except Exception:  # noqa: BLE001 - a class defined in the docstring: rebuild it there
            scope = {"torch": torch}
            for example in doctest.DocTestParser().get_examples(check.__doc__):
                if "check_" not in example.source:
                    exec(example.source, scope)  # noqa: S102
            found.append(scope.get(text.strip()))
    return found


def cases():
    """(check, answer, patch, the outcome it must have): every case of the attack table, stubs, and EXTRA."""
    for check, (right, wrong, fakes) in te.ATTACKS.items():
        yield from ((check, a, None, "pass") for a in right)
        yield from ((check, a, None, "fail") for a in [*wrong, *fakes, *docstring_answers(check), ..., None])
        yield from ((check, wrong[0], p, "fail") for p in te.PATCHES.values())
        yield from ((check, a, None, "fail") for a in EXTRA.get(check, []))


def outcome(check, answer, patch=None):
    """('pass' or 'fail', the message the learner reads); anything else raised is a test failure."""
    out = io.StringIO()
    mp = pytest.MonkeyPatch()
    try:
        with contextlib.redirect_stdout(out):
            if patch is not None:
                patch(mp)
            try:
                check(answer)
            except AssertionError as error:
                return "fail", str(error)
    finally:
        mp.undo()
        te.l810.undo_patches()
        while te.RENAMED:
            cls, name = te.RENAMED.pop()
            cls.__name__ = name
    return "pass", out.getvalue()


def exercise_texts():
    """Every message and hint of the checks, with the misses and catalogue keys they gave."""
    with speaking("zh") as language:
        messages = [(check.__name__, want, *outcome(check, a, p)) for check, a, p, want in cases()]
        hints = [e.hint(level) for e in ex.exercises() for level in range(len(e.hints))]
        hints.append(ex.Exercise("no_hints", 1, "?", lambda answer: None).hint())
        texts = [text for *_, text in messages] + hints
        in_english = {field for field in language.fields if any(field in text for text in texts)}
        return messages, hints, set(language.misses) | in_english, set(language.matched)


@pytest.fixture(scope="module")
def zh_exercises():
    return exercise_texts()


def test_every_failure_path_speaks_chinese(zh_exercises):
    messages, hints, misses, _ = zh_exercises
    assert len(messages) > 250
    wrong = [(name, want, got, text) for name, want, got, text in messages if got != want]
    assert not wrong, wrong  # translating changes no outcome (not even with a builtin replaced)
    assert not misses, sorted(misses)
    english = [(name, text) for name, _, _, text in messages if not CJK.search(text)]
    assert not english, english
    assert all(CJK.search(h) or not re.search("[A-Za-z]{3,} [a-z]{2,}", h) for h in hints), hints  # or a formula


def test_the_labels_and_placeholders_are_chinese(zh_exercises):
    messages = {text for _, _, _, text in zh_exercises[0]}
    failures = [m for m in messages if m.startswith("\n")]
    assert failures and all(re.fullmatch(r"\n  期望：.+\n  你的答案：.+\n  提示：.+", m, re.S) for m in failures)
    assert "尚未作答：这里还是占位符，请换成你对 x.grad 的预测。" in messages
    assert "✓ 正确：三次 backward() 调用把各自的梯度累加在了一起。\n" in messages
    assert any("它抛出了 ZeroDivisionError: division by zero" in m for m in messages)  # Python's words stay


ASCII_AFTER_CHINESE = re.compile(r"[\u3000-\u303f\u4e00-\u9fff\uff00-\uffef][:,;!?]")  # "期望:" and the like


def test_chinese_phrases_end_in_full_width_punctuation(zh_exercises):
    messages, hints, _, _ = zh_exercises
    texts = {text for *_, text in messages} | set(hints)
    assert not [t for t in texts if ASCII_AFTER_CHINESE.search(t)]
    assert all(ASCII_AFTER_CHINESE.search(v) is None for v in EXERCISES_ZH.values())  # the catalogue itself
    with speaking("zh"), pytest.raises(CheckFailedError) as info:
        ex.check_grad_after_three_calls(6.0)
    assert str(info.value) == (
        "\n  期望：三次调用之后的 x.grad"
        "\n  你的答案：6，这只是一次调用的梯度"
        "\n  提示：backward() 不会覆盖 x.grad：每次调用都会把梯度累加到已有的值上。"
    )


def test_every_exercise_catalogue_entry_is_used(zh_exercises):
    matched = zh_exercises[3]
    unused = set(EXERCISES_ZH) - matched
    assert not unused, sorted(unused)


def test_every_lesson_is_answered():
    assert {e.lesson for e in ex.exercises()} == set(LESSONS)
    assert {e.check_answer for e in ex.exercises()} <= set(te.ATTACKS)


# ---------------------------------------------------------------- the catalogues themselves
def catalogues():
    found = {"exercises": EXERCISES_ZH}
    with contextlib.suppress(ImportError):
        from gradbook.widgets._zh import ZH as WIDGETS_ZH

        found["widgets"] = WIDGETS_ZH
    return found


@pytest.mark.parametrize("name", ["exercises", "widgets"])
def test_each_translation_has_the_fields_of_its_key(name):
    if name not in catalogues():
        pytest.skip("gradbook.widgets needs ipywidgets")
    for key, value in catalogues()[name].items():
        assert set(FIELD.findall(key)) == set(FIELD.findall(value)), key
        assert CJK.search(value), key
        if FIELD.search(key):
            value.format(**dict.fromkeys(FIELD.findall(key), "x"))  # no stray brace in a template


# ---------------------------------------------------------------- English, unchanged by default
def test_english_is_the_default_and_unchanged(capsys):
    assert torch.get_language() == "en"
    with pytest.raises(CheckFailedError) as info:
        ex.check_grad_after_three_calls(6.0)
    assert str(info.value) == (
        "\n  Expected: x.grad after all three calls"
        "\n  You gave: 6, the gradient of one call"
        "\n  Hint: backward() does not overwrite x.grad: each call adds its gradient to what is already there."
    )
    with pytest.raises(CheckFailedError) as info:
        ex.check_vjp([5.0, 3.5])
    assert str(info.value) == (
        "\n  Expected: your prediction of x.grad with shape (3,)"
        "\n  You gave: shape (2,)"
        "\n  Hint: a gradient has the same shape as the tensor it belongs to."
    )
    with pytest.raises(CheckFailedError) as info:
        ex.check_training_step(lambda w, x, y, lr: 1 / 0)
    assert str(info.value) == (
        "\n  Expected: your training step to run without an error"
        "\n  You gave: it raised ZeroDivisionError: division by zero"
        "\n  Hint: call your code on its own in a cell: the traceback names the line and the operation that failed."
    )
    with pytest.raises(NotAttemptedError) as info:
        ex.check_leaves_with_grad(...)
    assert str(info.value) == "not attempted: your set of names is still the placeholder. Replace it with your answer."
    ex.check_grad_after_retain(56.0)
    assert capsys.readouterr().out == "✓ Right: retained or not, every backward() adds into x.grad.\n"
    assert ex.exercises(3)[1].hint(1) == "y.backward(retain_graph=True) keeps the saved tensors."
    assert ex.Exercise("e", 1, "?", lambda a: None).hint() == (
        "No hint for this one: reread the question and the worked example before it."
    )


def test_back_in_english_after_chinese():
    with speaking("zh"):
        with pytest.raises(NotAttemptedError, match="^尚未作答"):
            ex.check_vjp(None)
    with pytest.raises(NotAttemptedError, match="^not attempted: your prediction of x.grad is still"):
        ex.check_vjp(None)


def test_an_unknown_language_is_refused():
    with pytest.raises(ValueError, match="'fr' is not one of 'en', 'zh'"):
        torch.set_language("fr")
    assert torch.get_language() == "en"


def test_gradbook_lang_starts_a_kernel_in_chinese():
    code = (
        "import gradbook\n"
        "from gradbook.exercises import check_vjp\n"
        "print(gradbook.get_language())\n"
        "try:\n"
        "    check_vjp(None)\n"
        "except AssertionError as error:\n"
        "    print(error)\n"
    )
    root = Path(__file__).resolve().parent.parent
    for value, language, text in [("zh", "zh", "尚未作答"), ("fr", "en", "not attempted"), ("", "en", "not attempted")]:
        env = dict(os.environ, GRADBOOK_LANG=value, PYTHONPATH=str(root))
        run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
        assert run.stdout.splitlines()[0] == language and text in run.stdout, (value, run.stdout)


def test_translate_fills_templates_and_keeps_raw_fields():
    catalogue = {"{what} failed: {raw_error}": "{what}失败：{raw_error}", "the step": "这一步", "error": "错误"}
    with speaking("zh") as language:
        assert _language.translate("the step failed: error", catalogue) == "这一步失败：error"
        assert _language.translate("the step", catalogue) == "这一步"
        assert _language.translate("an English sentence", catalogue) == "an English sentence"
        assert language.misses == {"an English sentence"}
        assert language.matched == {"{what} failed: {raw_error}", "the step"}
    assert _language.translate("the step", catalogue) == "the step"


# ---------------------------------------------------------------- help(): the checks' docstrings
def test_help_of_a_check_shows_a_chinese_summary_above_the_english_docstring():
    import inspect
    import pydoc

    from gradbook.exercises._zh_docs import DOCS

    checks = [e.check_answer for e in ex.exercises()]
    english = {check: inspect.getdoc(check) for check in checks}
    assert set(DOCS) == {check.__name__ for check in checks}  # every check a lesson asks for
    with speaking("zh"):
        chinese = {check: inspect.getdoc(check) for check in checks}
        shown = pydoc.render_doc(ex.check_vjp, renderer=pydoc.plaintext)
    for check in checks:  # Chinese first, then the English original (its program and examples) unchanged
        assert CJK.search(chinese[check].splitlines()[0]), check.__name__
        assert chinese[check].endswith("\n\n以下是英文原文（代码和调用示例照原样保留）：\n\n" + english[check])
    assert chinese[ex.check_vjp].startswith(
        "预测用向量种子 v 做一次反向传播之后的 ``x.grad``（程序见下面的英文原文）。\n"
        "yᵢ 只依赖于 xᵢ，所以 J 是对角矩阵，Jᵢᵢ = 2xᵢ + 3，而 x.grad = vᵀJ。\n"
    )
    assert "    预测用向量种子 v" in shown and "y.backward(torch.tensor([1.0, 0.5, -2.0]))" in shown
    assert {check: inspect.getdoc(check) for check in checks} == english  # English again, as it was


def test_help_of_a_check_in_english_is_unchanged():
    import inspect

    assert inspect.getdoc(ex.check_vjp) == (
        "Predict ``x.grad`` after a backward with a vector seed v::\n"
        "\n"
        "    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)\n"
        "    y = x ** 2 + 3 * x\n"
        "    y.backward(torch.tensor([1.0, 0.5, -2.0]))\n"
        "\n"
        "yᵢ depends only on xᵢ, so J is diagonal with Jᵢᵢ = 2xᵢ + 3, and x.grad = vᵀJ.\n"
        "\n"
        ">>> check_vjp([1.0, 2.0, 3.0])  # doctest: +ELLIPSIS\n"
        "Traceback (most recent call last):\n"
        "...\n"
        "gradbook.exercises._checking.CheckFailedError: ..."
    )
    assert ex.check_grad_after_retain.__doc__.startswith(
        "Predict ``x.grad`` at the end of this program (it runs without errors)::\n"
    )


def test_gradbook_lang_starts_help_in_chinese():
    code = "import pydoc\nfrom gradbook.exercises import check_bias_grad\nprint(pydoc.render_doc(check_bias_grad))\n"
    root = Path(__file__).resolve().parent.parent
    env = dict(os.environ, GRADBOOK_LANG="zh", PYTHONPATH=str(root))
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    assert "预测下面程序运行之后的 ``b.grad``（两个数）。" in run.stdout and "b = torch.zeros(2" in run.stdout


# ---------------------------------------------------------------- the drawings
ROW = '<FONT COLOR="#525252">{}</FONT>'.format  # a row's name, as draw() writes it


def _chain(n, kinds=9):
    x = torch.tensor(0.5, requires_grad=True)
    ops = [lambda z: z.exp(), lambda z: z.sin(), lambda z: z * 2, lambda z: z + 1, lambda z: z.cos(),
           lambda z: z.tanh(), lambda z: z.sigmoid(), lambda z: z**2, lambda z: z.neg()]  # fmt: skip
    z = x
    for i in range(n):
        z = ops[i % kinds](z)
    return z


def _refused(y):
    from gradbook.viz import record_backward

    with pytest.raises(RuntimeError) as info:
        record_backward(y)
    return info.value.recording


def _saved_names(frame):
    """The text of each "saved" row of one animation frame, by node."""
    return dict(re.findall(r'<g id="a_(n\d+)_saved_name"[^>]*>.*?<text[^>]*>([^<]*)</text>', frame, re.S))


def test_drawings_speak_chinese_and_keep_values_and_names():
    from gradbook.viz import animate
    from gradbook.viz.animate import COLOURS

    x = torch.tensor([1.0, 2.0], requires_grad=True)
    c = torch.tensor(3.0)
    y = (x * x * c).sum()
    names = {"x": x, "c": c, "y": y}
    with speaking("zh") as language:
        before = torch.draw(y, legend=True, names=names, stacklevel=0).source
        y.backward()
        after = torch.draw(y, names=names, stacklevel=0).source
        frames = animate(_refused(y), legend=True).frames_svg()
        collapsed = torch.draw(_chain(30), max_nodes=10, stacklevel=0).source
        loose = torch.draw(torch.tensor([1.0, 2.0]), stacklevel=0).source
    assert not language.misses, language.misses
    for zh, en in [("数值", "data"), ("梯度", "grad"), ("形状", "shape"), ("已保存", "saved")]:
        assert ROW(zh) in before and ROW(en) not in before
    assert ROW("已释放") in after and ROW("freed") not in after
    assert before.startswith("// 含 4 个节点的 autograd 计算图\n") and "常量" in before
    assert "<B>图例</B>" in before and "需要梯度的叶子节点（AccumulateGrad）</TD>" in before
    assert "已释放：被 backward() 释放掉的保存张量" in before and "虚线边框：常量，或保存的张量已被释放的节点" in before
    texts = re.findall(r">([^<>]+)</(?:TD|FONT|B)>", before)
    english = re.compile(r"\b(legend|leaf|output|constant|saved|freed|dashed|data|grad|shape)\b")
    assert not [t for t in texts if english.search(t)], texts
    # what the program wrote stays as it is: torch's class names, the variables' names, the values
    for kept in ("<B>x</B>", "<B>c</B>", "<B>y</B>", "MulBackward0", "SumBackward0", "AccumulateGrad", "[1., 2.]"):
        assert kept in before
    assert "[ 6., 12.]" in after and "label=self" in after and "label=other" in after
    # the animation: freed before the call, refused at its end, in words and in the row's colour
    assert set(_saved_names(frames[0]).values()) == {"已释放"} and "报错" in _saved_names(frames[-1]).values()
    assert COLOURS["freed"] in frames[0] and COLOURS["refused"] in frames[-1]
    assert "运行中：backward() 这一步运行的节点" in frames[0] and "报错：backward() 报错时停下的那个节点" in frames[0]
    note = re.search(r'label="(大计算图[^"]*)"', collapsed)[1]
    assert note == (
        "大计算图：31 个节点，不少于 max_nodes=10。其中 26 个藏在 1 个灰色方框里；"
        "显示的是离输出最近的 4 个节点和 1 个叶子节点。传入 max_nodes=32 可以全部画出来。"
    )
    assert "<B>26 个隐藏节点</B>" in collapsed and "还有另外 3 种" in collapsed and "SinBackward0" in collapsed
    assert "张量（没有 grad_fn）" in loose


def test_every_drawing_catalogue_entry_is_used():
    from gradbook.viz import animate, record_backward
    from gradbook.viz._zh import ZH

    x = torch.tensor([2.0, 1.0], requires_grad=True)
    c = torch.tensor(3.0)
    y = (x * x * c).sum()
    with speaking("zh") as language:
        torch.draw(y, legend=True, stacklevel=0)
        y.backward()
        torch.draw(y, stacklevel=0)
        refused = animate(_refused(y), legend=True).captions()
        steps = animate(record_backward(torch.tensor(2.0, requires_grad=True) * 3)).captions()
        torch.draw(_chain(30), max_nodes=10, stacklevel=0)  # 1 grey box, 1 leaf, 26 hidden nodes, 3 more kinds
        torch.draw(*[_chain(6, 2) for _ in range(4)], max_nodes=10, stacklevel=0)  # grey boxes, leaves
        torch.draw(_chain(5, 2), max_nodes=6, stacklevel=0)  # 1 hidden node
        torch.draw(torch.tensor(1.0), stacklevel=0)
    assert not language.misses, language.misses
    assert not set(ZH) - language.matched, sorted(set(ZH) - language.matched)
    assert steps == ["backward() 之前", "第 1 步：MulBackward0", "第 2 步：AccumulateGrad"]
    assert refused[0] == "backward() 之前" and refused[1].startswith("在 MulBackward0 处报错：Trying to backward")


def test_a_torch_graph_is_drawn_in_chinese_too():
    pytorch = pytest.importorskip("torch")
    x = pytorch.tensor(3.0, requires_grad=True)
    y = x * x
    with speaking("zh"):
        source = torch.draw(y, names={"x": x, "y": y}, stacklevel=0).source
        svg = torch.draw(y, names={"x": x, "y": y}, stacklevel=0, legend=True).svg()
    assert ROW("数值") in source and ROW("梯度") in source and ROW("已保存") in source
    assert "MulBackward0" in source and "AccumulateGrad" in source and "<B>x</B>" in source
    assert ">图例</text>" in svg and ">已保存</text>" in svg


def test_drawings_in_english_are_unchanged():
    from gradbook.viz.draw import legend_label

    x = torch.tensor(3.0, requires_grad=True)
    y = x * x
    head = (
        "// autograd graph of 2 nodes\n"
        "digraph {\n"
        "\tgraph [fontname=Helvetica fontsize=10 rankdir=BT]\n"
        '\tnode [fillcolor=white fontname=Helvetica fontsize=10 margin="0.16,0.055" shape=box style="rounded,filled"]\n'
        '\tedge [fontcolor="#525252" fontname=Helvetica fontsize=8]\n'
    )
    table = '<TABLE BORDER="0" CELLBORDER="0" CELLSPACING="0" CELLPADDING="2">'
    left = '<TD ALIGN="LEFT" BALIGN="LEFT">'
    name = '<TD ALIGN="RIGHT" VALIGN="TOP"><FONT COLOR="#525252">'

    def picture(state, colour, grad, extra):
        return head + (
            f'\tn0 [label=<{table}<TR><TD COLSPAN="2"><B>y</B></TD></TR><TR><TD COLSPAN="2">MulBackward0</TD></TR>'
            f'<TR>{name}data</FONT></TD>{left}<FONT FACE="Courier">9.<BR ALIGN="LEFT"/></FONT></TD></TR>'
            f'<TR><TD ALIGN="RIGHT" VALIGN="TOP" BGCOLOR="{colour}"><FONT COLOR="#525252">{state}</FONT></TD>'
            f'<TD ALIGN="LEFT" BALIGN="LEFT" BGCOLOR="{colour}">self, other<BR ALIGN="LEFT"/></TD></TR></TABLE>> '
            f'class="op output {state} MulBackward0" fillcolor="#c7e9c0" {extra}\n'
            f'\tn1 [label=<{table}<TR><TD COLSPAN="2"><B>x</B></TD></TR>'
            '<TR><TD COLSPAN="2"><FONT POINT-SIZE="8" COLOR="#525252">AccumulateGrad</FONT></TD></TR>'
            f'<TR>{name}data</FONT></TD>{left}<FONT FACE="Courier">3.<BR ALIGN="LEFT"/></FONT></TD></TR>'
            f'<TR>{name}grad</FONT></TD>{left}<FONT FACE="Courier">{grad}<BR ALIGN="LEFT"/></FONT></TD></TR>'
            '</TABLE>> class="leaf AccumulateGrad" fillcolor="#c6dbef" id=n1 style="rounded,filled"]\n'
            "\tn1 -> n0 [label=self]\n"
            "\tn1 -> n0 [label=other]\n"
            "}\n"
        )

    names = {"x": x, "y": y}
    assert torch.draw(y, names=names, stacklevel=0).source == picture(
        "saved", "#fdae6b", "None", 'id=n0 penwidth=2 style="rounded,filled"]'
    )
    y.backward()
    assert torch.draw(y, names=names, stacklevel=0).source == picture(
        "freed", "#bdbdbd", "6.", 'fontcolor="#636363" id=n0 penwidth=2 style="rounded,filled,dashed"]'
    )
    rows = [
        ("#c6dbef", "leaf that requires grad (AccumulateGrad)"),
        ("#c7e9c0", "output: a tensor passed to draw()"),
        ("#ffeda0", "non-leaf that called retain_grad()"),
        ("#ffffff", "op: a grad_fn"),
        ("#eeeeee", "constant: an input that needs no grad"),
        ("#fdae6b", "saved tensors, kept for backward"),
        ("#bdbdbd", "freed: saved tensors released by backward()"),
    ]
    assert legend_label() == (
        '<<FONT POINT-SIZE="8"><TABLE BORDER="0" CELLBORDER="1" CELLSPACING="0" CELLPADDING="3">'
        '<TR><TD COLSPAN="2"><B>legend</B></TD></TR>'
        + "".join(f'<TR><TD BGCOLOR="{c}" WIDTH="18"> </TD><TD ALIGN="LEFT">{t}</TD></TR>' for c, t in rows)
        + '<TR><TD COLSPAN="2" ALIGN="LEFT">dashed border: a constant, or a node whose saved tensors were freed</TD>'
        "</TR></TABLE></FONT>>"
    )
    frames = _refused_frames()
    assert set(_saved_names(frames[0]).values()) == {"freed"} and "refused" in _saved_names(frames[-1]).values()
    collapsed = torch.draw(_chain(30), max_nodes=10, stacklevel=0).source
    assert re.search(r'label="(Large graph[^"]*)"', collapsed)[1] == (
        "Large graph: 31 nodes, at least max_nodes=10. 26 of them are hidden in 1 grey box; "
        "shown: 4 nodes nearest the outputs and 1 leaf. Pass max_nodes=32 to draw them all."
    )
    assert "<B>26 hidden nodes</B>" in collapsed and ">and 3 more kinds<" in collapsed
    loose = torch.draw(torch.tensor(1.0), stacklevel=0).source
    assert '<TD COLSPAN="2"><FONT POINT-SIZE="8" COLOR="#525252">Tensor (no grad_fn)</FONT></TD>' in loose


def _refused_frames():
    from gradbook.viz import animate

    x = torch.tensor(2.0, requires_grad=True)
    y = x * x
    y.backward()
    return animate(_refused(y)).frames_svg()


# ---------------------------------------------------------------- the widgets
def _widgets():
    pytest.importorskip("ipywidgets")
    pytest.importorskip("anywidget")
    pytest.importorskip("matplotlib")
    from gradbook.viz.render import find_renderer

    if not any(find_renderer(name) for name in ("dot", "graphviz-pure")):
        pytest.skip("no Graphviz renderer")
    import gradbook.widgets as widgets

    return widgets


def build_widgets():
    """Every widget, driven through its messages: ``{name: widget}`` and a dict of other texts."""
    widgets = _widgets()
    from gradbook.viz import record_backward
    from gradbook.widgets import _common
    from gradbook.widgets._zh import ZH
    from gradbook.widgets.accumulation_lab import AccumulationLab

    texts = {}
    lab = widgets.AccumulationLab(lambda x: x * x, x=2.0)
    texts["lab ready"] = lab.status.value
    lab.backward()
    lab.backward()  # refused: the graph was freed
    texts["lab refused"] = lab.status.value
    lab.zero_grad(set_to_none=False)
    texts["lab zeroed"] = lab.status.value
    lab.f = lambda x: x * torch.tensor([1.0, 2.0])
    lab.new_graph()
    lab.backward()  # not a scalar
    texts["lab scalar"] = lab.status.value
    lab.gradient_text.value = "[1, "
    lab.backward()
    texts["lab gradient"] = lab.status.value
    lab.f = lambda x: 3
    lab.new_graph()
    texts["lab returned"] = lab.status.value
    lab.f = lambda x: 1 / 0
    lab.new_graph()
    texts["lab raised"] = lab.status.value
    long = widgets.AccumulationLab(lambda x: x * x, x=1.0)
    for _ in range(8):  # more rows than the table shows
        long.new_graph()
        long.backward()
    texts["lab long"] = long.table.value
    refused = SimpleNamespace(error=SimpleNamespace(key="n1", name="PowBackward0"), node=lambda key: {"saves": []})
    texts["freed note"] = _language.translate(AccumulationLab._freed_note(refused), ZH)

    x = torch.tensor(2.0, requires_grad=True)
    y = x * 3 + x.exp()
    player = widgets.BackwardPlayer(y)
    texts["ledger"] = []
    for i in range(len(player)):
        player.go(i)
        texts["ledger"].append(player.current_ledger)
    y2 = x * x
    y2.backward()
    refused_player = widgets.BackwardPlayer(y2)
    refused_player.go(len(refused_player) - 1)
    texts["refused ledger"] = refused_player.current_ledger
    z = x
    for _ in range(4):
        z = z * 1.5
    texts["too many"] = widgets.BackwardPlayer(record_backward(z), max_nodes=3).current_svg

    view = widgets.GraphView(y)
    texts["bundle"] = view._repr_mimebundle_()["text/html"]
    view.y = "not a tensor"
    view.legend.value = True  # the refresh raises inside the callback
    texts["callback"] = view.status.value
    view.y = y
    view.static_html = lambda: 1 / 0
    texts["no static view"] = view._repr_mimebundle_()["text/html"]
    texts["no renderer"] = _common.drawing_svg(SimpleNamespace(svg=lambda: 1 / 0, source="digraph {}"))

    explorer = widgets.TangentExplorer(lambda x: x**3, (-2, 2), x=1.0)
    texts["readout"] = explorer.readout.value
    jacobian = widgets.JacobianView(lambda x: torch.stack([x[0] * x[1], x[1] ** 2]), [2.0, 3.0], column=1)
    texts["jacobian"] = (jacobian.columns.description, jacobian.rows.description, jacobian.readout.value)
    texts["parabola"] = [t.get_text() for t in widgets.TangentExplorer(
        lambda x: x**3, (-2, 2), x=1.0, order=2).plot.ax.get_legend().get_texts()][-1]  # fmt: skip
    for f in (lambda x: torch.tensor([1.0, 2.0]) * x, lambda x: 3.0, lambda x: torch.tensor(3.0)):
        explorer.f = f
        explorer.update()
        texts.setdefault("tangent", []).append(explorer.status.value)
    return {"lab": lab, "player": player, "refused": refused_player, "view": view, "explorer": explorer}, texts


@pytest.fixture(scope="module")
def zh_widgets():
    with speaking("zh") as language:
        built, texts = build_widgets()
        return built, texts, set(language.misses), set(language.matched)


def test_widgets_built_in_chinese_show_chinese_labels(zh_widgets):
    built, texts, misses, _ = zh_widgets
    lab, player, view, explorer = built["lab"], built["player"], built["view"], built["explorer"]
    assert {k: b.description for k, b in lab.buttons.items()} == {
        "new graph": "新建计算图",
        "backward()": "backward()",
        "x.grad = None": "x.grad = None",
        "x.grad.zero_()": "x.grad.zero_()",
    }
    assert lab.buttons["x.grad.zero_()"].tooltip == "原地清零"
    assert (lab.retain_graph.description, lab.use_gradient.description) == ("retain_graph", "gradient=")
    assert ">调用</th>" in lab.table.value
    assert "4.（不变）" in lab.table.value and "报错" in lab.table.value
    assert "backward() 调用次数" in lab.plot.widget.value  # text kept as text: the browser's fonts draw it
    assert "调用后的 x.grad" in lab.plot.widget.value and "本次调用累加的量" in lab.plot.widget.value  # the legend
    assert "… 更早的 2 行（见 lab.history）" in texts["lab long"]
    assert "就绪" in texts["lab ready"] and "x.grad 现在是 " in texts["lab zeroed"]
    assert "Trying to backward through the graph a second time" in texts["lab refused"]  # torch's text stays
    assert "勾选 retain_graph" in texts["lab refused"] and "y 不是标量" in texts["lab scalar"]
    labels = player.view.payload["labels"]
    assert labels["play"] == "播放" and labels["first"] == "第一帧" and labels["hint"].startswith("拖动")
    assert player.view.payload["captions"][:2] == ["backward() 之前", "第 1 步：AddBackward0"]
    assert built["refused"].view.payload["captions"][-1].startswith("在 MulBackward0 处报错：Trying to backward")
    assert "上游梯度" in texts["ledger"][1] and "局部导数" in texts["ledger"][1] and "处求和 Σ" in texts["ledger"][3]
    assert [box.description for box in view.show.values()] == ["数值", "梯度", "形状", "变量名"]
    columns, rows, readout = texts["jacobian"]
    assert (columns, rows) == ("J·v，v =", "vᵀJ，v =") and "(第 1 列)" in readout and "(第 0 行)" in readout
    assert (view.legend.description, view.refresh_button.description) == ("图例", "刷新")
    assert "（在控件的回调函数里抛出）" in texts["callback"]
    assert "（切线的斜率）" in texts["readout"] and "切线，斜率为 x.grad" in explorer.plot.widget.value
    assert all("在 x = 1 处：ValueError: f" in status for status in texts["tangent"])
    assert not misses, sorted(misses)


def test_every_widget_catalogue_entry_is_used(zh_widgets):
    from gradbook.widgets._zh import ZH

    unused = set(ZH) - zh_widgets[3]
    assert not unused, sorted(unused)


def test_widgets_speak_english_by_default():
    widgets = _widgets()
    from gradbook.widgets._frontend import PLAYER_LABELS, localized

    lab = widgets.AccumulationLab(lambda x: x * x, x=2.0)
    lab.backward()
    labels = ["new graph", "backward()", "x.grad = None", "x.grad.zero_()"]
    assert [b.description for b in lab.buttons.values()] == labels
    assert lab.buttons["x.grad = None"].tooltip == "what optimizer.zero_grad() does"
    assert lab.status.value == '<div class="gradbook-status" style="color:#555">ready</div>'
    assert ">x.grad after</th>" in lab.table.value
    assert "<text" not in lab.plot.widget.value  # matplotlib's glyphs as paths, as before
    assert "labels" not in lab.view.payload  # the payload (and a saved notebook's bytes) as before
    x = torch.tensor(2.0, requires_grad=True)
    player = widgets.BackwardPlayer(x * x)
    assert player.view.payload["captions"] == ["before backward()", "step 1: MulBackward0", "step 2: AccumulateGrad"]
    assert player.current_ledger == (
        '<div class="gradbook-ledger" style="font-size:12px"><b>before backward()</b><p>The output receives the '
        "gradient <code>1.</code> (<code>gradient=</code>, or 1 for a scalar). Each step runs one node: "
        "<b>upstream × local = contribution</b> for each of its inputs.</p></div>"
    )
    view = widgets.GraphView(x * x)
    assert [box.description for box in view.show.values()] == ["data", "grad", "shape", "names"]
    assert (view.legend.description, view.refresh_button.description) == ("legend", "refresh")
    assert view.refresh_button.tooltip == "redraw after further computation"
    payload = {"captions": ["before backward()"]}
    assert localized(payload) is payload
    # player.js's own English labels are the ones Python translates
    js = (Path(torch.__file__).parent / "viz" / "static" / "player.js").read_text(encoding="utf-8")
    block = re.search(r"const LABELS = \{(.*?)\};", js, re.S).group(1)
    assert dict(re.findall(r'(\w+): "([^"]*)"', block)) == PLAYER_LABELS


def test_widgets_draw_their_graphs_and_plots_in_chinese(zh_widgets):
    import json

    built, texts, _, _ = zh_widgets
    lab, player, view, explorer = built["lab"], built["player"], built["view"], built["explorer"]
    # the graphs the widgets show: draw()'s rows in Chinese, torch's class names as they are
    assert ">数值</text>" in view.svg and ">梯度</text>" in view.svg and ">data</text>" not in view.svg
    shown = json.dumps(player.view.payload, ensure_ascii=False)
    assert ">数值</text>" in shown and ">已保存</text>" in shown and "AddBackward0" in shown
    refused = json.dumps(lab.recordings[1].picture.slots, ensure_ascii=False)  # the call refused: freed before it
    assert "已释放" in refused and "freed" not in refused
    # the plots: axis labels and legends in Chinese, code (x.grad, f(x)) as it is
    assert lab.plot.ax.get_xlabel() == "backward() 调用次数" and lab.plot.ax.get_ylabel() == "x.grad"
    legend = explorer.plot.ax.get_legend()
    assert [t.get_text() for t in legend.get_texts()] == ["f(x)", "切线，斜率为 x.grad"]
    assert ">切线，斜率为 x.grad</text>" in explorer.plot.widget.value  # text, in the browser's fonts
    # no CJK font here for matplotlib: the SVG keeps text as text, its font list ending in the
    # browser's generic sans-serif, which the browser completes with a CJK font of its own
    assert re.search(r"font-family: [^;\"]*sans-serif", explorer.plot.widget.value)
    # the freed-graph hint names the button once, and the notes end in full-width colons
    assert "点“新建计算图”按钮，或者在第一次 backward() 之前勾选 retain_graph 来保留计算图。" in texts["lab refused"]
    assert "（新建计算图）" not in texts["lab refused"]
    assert texts["no renderer"] == "<pre>没有可用的 Graphviz 渲染器（division by zero）：\ndigraph {}</pre>"
    prose = [v for v in texts.values() if isinstance(v, str)] + texts["ledger"] + texts["tangent"]
    assert not [t for t in prose if ASCII_AFTER_CHINESE.search(re.sub(r"<[^>]*>", "", t))]


def test_widgets_draw_their_graphs_and_plots_in_english_by_default():
    widgets = _widgets()
    from gradbook.widgets import _common

    lab = widgets.AccumulationLab(lambda x: x * x, x=2.0)
    lab.backward()
    lab.backward()  # refused: the graph was freed
    assert lab.status.value.endswith(
        "<br><i>MulBackward0 (drawn freed, then refused) lost self, other to the first backward(). "
        "Build a new graph (new graph), or tick retain_graph before the first backward() to keep it.</i></div>"
    )
    assert lab.plot.ax.get_xlabel() == "backward() call" and lab.plot.ax.get_ylabel() == "x.grad"
    explorer = widgets.TangentExplorer(lambda x: x**3, (-2, 2), x=1.0)
    assert [t.get_text() for t in explorer.plot.ax.get_legend().get_texts()] == ["f(x)", "tangent, slope x.grad"]
    x = torch.tensor(2.0, requires_grad=True)
    view = widgets.GraphView(x * x)
    assert ">data</text>" in view.svg and ">saved</text>" in view.svg and ">数值</text>" not in view.svg
    broken = SimpleNamespace(svg=lambda: 1 / 0, source="digraph {}")
    assert _common.drawing_svg(broken) == "<pre>no Graphviz renderer (division by zero):\ndigraph {}</pre>"

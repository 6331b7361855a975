"""The checks' docstrings in Chinese: what ``help(check_...)`` shows under ``set_language("zh")``.

Each check keeps its English docstring (the program of the question and how to call the check,
which are code, and the doctest examples); in Chinese, ``help()`` shows the translation of its
prose first, then the English original. ``localize`` is called by ``gradbook.language`` on every
``set_language``, and gives back the English docstrings, exactly as they were, in English.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

INTRO = "以下是英文原文（代码和调用示例照原样保留）："

DOCS: dict[str, str] = {
    # ---- lesson 01
    "check_grad_after_three_calls": (
        "预测 ``x.grad``：每次都新建计算图，在 x = 3 处调用三次 backward() 之后它的值（程序见下面的英文原文；课程里运行的是 x = 2）。\n"
        "每次调用都会把 dy/dx = 2x 累加进 ``x.grad``。"
    ),
    "check_grad_after_zeroing": (
        "不运行程序，预测下面程序结束时的 ``x.grad``。\n"
        "d(x²)/dx = 2x，d(x³)/dx = 3x²，d(5x)/dx = 5；``zero_()`` 会清空到目前为止累加的和。"
    ),
    "check_training_step": (
        "检查一个原地更新 ``w`` 的训练函数 ``step(w, x, y, lr)``。\n"
        "它对均方误差 L(w) = mean((x @ w - y)²) 做一步梯度下降：计算损失，调用 ``backward()``，\n"
        "然后在 ``no_grad()`` 下执行 w ← w - lr · ∂L/∂w，并让 ``w.grad`` 为空（``None`` 或全零），留给下一步。\n"
        "检查会在它自己的数据副本（你看不到）上多次运行你的 step，并把 ``w`` 与在另一份副本上\n"
        "正确执行的梯度下降比较，所以改动 ``x`` 或 ``y`` 的 step 只会改变它自己的结果。"
    ),
    # ---- lesson 02
    "check_vjp": (
        "预测用向量种子 v 做一次反向传播之后的 ``x.grad``（程序见下面的英文原文）。\n"
        "yᵢ 只依赖于 xᵢ，所以 J 是对角矩阵，Jᵢᵢ = 2xᵢ + 3，而 x.grad = vᵀJ。"
    ),
    "check_jacobian": (
        "给出 y = (x₀·x₁, x₀ + x₁, x₁²) 在 x = (2, 3) 处的雅可比矩阵 J = ∂y/∂x，写成 3 × 2 的数组。\n"
        "第 i 行是 yᵢ 的梯度，也就是 ``y.backward(eᵢ)`` 放进 ``x.grad`` 的值。"
    ),
    "check_backward_rule": (
        "检查一个逐元素计算 f(x) = x · sin(x) 的自定义 ``autograd.Function``。\n"
        "它的 ``backward(ctx, grad_output)`` 必须返回 grad_output · f'(x)，其中 f'(x) = sin(x) + x · cos(x)，\n"
        "并使用 ``forward`` 里用 ``ctx.save_for_backward(x)`` 保存的 x。检查会在你看不到的张量上\n"
        "用 ``gradcheck`` 验证，而且梯度必须来自*你自己*的 ``backward``：检查会统计引擎调用它的次数\n"
        "（让内置运算去求导的 ``apply`` 或 ``forward`` 不算答案）。"
    ),
    # ---- lesson 03
    "check_grad_after_retain": "预测下面程序结束时的 ``x.grad``（这个程序运行时不会报错）。",
    "check_backward_twice": (
        "检查 ``backward_twice(y)``：它必须在同一个计算图上调用两次 ``y.backward()``。\n"
        "只有第一次调用保留了计算图（``retain_graph=True``），第二次调用才能成功。\n"
        "之后叶子节点的 ``.grad`` 是 dy/dx 的两倍。引擎会统计经过 ``y`` 的计算图的反向传播次数：\n"
        "把种子梯度加倍后只做一次，不算两次。"
    ),
    # ---- lesson 04
    "check_graph_chain": (
        "检查 ``build(x)``：它返回的张量的计算图，从叶子节点 x 到结果，必须恰好是\n"
        "AccumulateGrad → ExpBackward0 → MulBackward0 → SumBackward0 这条链。\n"
        "从结果出发沿着 ``grad_fn.next_functions`` 走，就能看到你建出的链。检查比较的是节点的\n"
        "真实类型（gradbook 的运算创建的类，而不是它们的名字），以及你的结果和它的梯度的数值。"
    ),
    "check_leaves_with_grad": "下面的程序运行之后，a、b、c、d、f 中哪些有 ``.grad``？用名字的集合作答。",
    # ---- lesson 05
    "check_second_derivative": (
        "不运行程序，预测下面程序结束时的 ``d2y``。\n"
        "第一次 ``grad`` 返回 f'(x)，并带有它自己的计算图（``create_graph=True``）；\n"
        "第二次对这个计算图求导。把多项式求两次导，再代入 x = 1。"
    ),
    "check_nth_derivative": (
        "检查 ``nth_derivative(f, x, n)``：f 在点 x 处的 n 阶导数（n ≥ 1）。\n"
        "``x`` 是一个需要梯度的单个数字张量，``f`` 把张量映射成张量。调用 n 次 ``torch.autograd.grad``，\n"
        "每次都作用在上一次的结果上，并传入 ``create_graph=True``，这样每个结果都能再次求导。\n"
        "检查会在你看不到的函数和点上，对 n = 1、2、3 运行它。"
    ),
    # ---- lesson 06
    "check_grad_through_detach": (
        "不运行程序，预测下面程序结束时的 ``x.grad``。\n"
        "只沿着被记录下来的路径走：``detach()`` 和 ``no_grad()`` 得到的是常量。"
    ),
    "check_straight_through": (
        "检查 ``round_ste(x)``：数值是 ``x.round()`` 的，梯度是恒等函数的。\n"
        "这就是直通估计器（straight-through estimator）：前向计算做四舍五入，反向传播时当作没有做过，\n"
        "所以到达 x 的梯度就是到达结果的梯度，原样不变。（单独的 ``x.round()`` 处处梯度为 0，\n"
        "会让训练停下来。）检查会在你看不到的张量上调用它，并用你也看不到的种子梯度做反向传播。"
    ),
    # ---- lesson 07
    "check_weight_without_zero_grad": (
        "不运行程序，预测下面程序结束时的 ``w``（程序里没有 ``zero_grad()``）。\n"
        "每次 ``backward()`` 都把 2w 累加进 ``w.grad``；每次 ``step()`` 执行 w ← w - lr · w.grad。"
    ),
    "check_training_loop": (
        "检查 ``training_loop(model, optimizer, loss_fn, inputs, targets, steps)``。\n"
        "在 ``steps`` 步中的每一步，它都必须先把梯度清零，计算 ``loss = loss_fn(model(inputs), targets)``，\n"
        "调用 ``loss.backward()`` 和 ``optimizer.step()``，并记下 ``loss.item()``；最后返回这些损失组成的列表。\n"
        "检查会用 ``SGD`` 和 ``nn.MSELoss()`` 在你看不到的数据上训练一个 ``nn.Linear``，并把参数和损失\n"
        "与它自己在副本上正确运行的训练循环比较。"
    ),
    # ---- lesson 08
    "check_value_pow": (
        "检查 micrograd 的 ``Value`` 类的幂法则：``(x ** k).backward()`` 必须给出 ``x.grad`` = k·xᵏ⁻¹，\n"
        "x 被使用不止一次时也一样。检查会用你的类（``Value(number)``、``+``、``*``、指数为数字的 ``**``、\n"
        "``.backward()``、``.grad``）构造表达式，并把每个梯度与 gradbook 的结果比较。"
    ),
    "check_micrograd_grad": "预测下面程序运行之后 micrograd 的 ``a.grad``（``Value`` 是第 08 课的引擎）。",
    "check_torch_grad": "预测下面程序运行之后 torch 的 ``a.grad``。",
    # ---- lesson 09
    "check_bias_grad": "预测下面程序运行之后的 ``b.grad``（两个数）。程序里 b 被广播成形状 (5, 2)。",
    "check_unbroadcast": (
        "检查 ``unbroadcast(grad, shape)``：把 ``grad`` 求和还原成 ``shape`` 的形状（``shape`` 能广播成\n"
        "``grad.shape``），也就是这个形状的张量被广播上去之后得到的梯度。检查会在你看不到的梯度和形状上\n"
        "（有前导维度、有大小为 1 的维度、两者都有、都没有），把你的函数与 autograd 对\n"
        "``x.expand(grad.shape)`` 给出的结果比较。"
    ),
    # ---- lesson 10
    "check_gradcheck_verdict": (
        "预测 ``gradcheck(..., raise_exception=False)`` 的返回值：被检查的 Function 的 backward\n"
        "忘了乘以 ``grad_output``（只返回了 f'(x)），输入是含 3 个元素的向量。回答 ``True`` 或 ``False``。"
    ),
    "check_logcosh_rule": (
        "检查一个逐元素计算 f(x) = log(cosh(x)) 的自定义 ``autograd.Function``：它的\n"
        "``backward(ctx, grad_output)`` 返回 grad_output · f'(x)，并使用 ``forward`` 用\n"
        "``ctx.save_for_backward`` 保存的内容。检查会在你看不到的张量上运行 ``gradcheck``，\n"
        "而且梯度必须来自*你自己*的 ``backward``（检查会统计引擎调用它的次数）。"
    ),
    # ---- lesson 11
    "check_hand_gradients": (
        '对下面英文原文中的程序，逐个节点手算 g 的梯度，给出字典 ``{"u": dg/du, "v": dg/dv, "w": dg/dw}``。\n'
        "每个节点把 上游梯度 × 局部导数 传给它的输入；一个变量被用了两次时，把两条路径的梯度相加。"
    ),
    "check_numerical_grad": (
        "检查 ``numerical_grad(f, inputs, eps=1e-6)``：用中心差分 (f(…, xᵢ + ε, …) − f(…, xᵢ − ε, …)) / 2ε\n"
        "求 ``f(*inputs)`` 对每个输入的偏导数（f 的输入和输出都是普通浮点数），以列表返回。检查会在用\n"
        "``math`` 写成的函数上调用它，并与这些函数的解析导数比较；它还会传入 ``eps=1e-2``。"
    ),
    "check_tape_backward": (
        "检查第 11 课磁带的 ``backward(tape, out)``：``tape`` 按创建顺序列出每个 ``Var``，每个都有\n"
        "``.value`` 和 ``.inputs``（输入 Var 与局部导数 d 节点 / d 输入 组成的对）；它返回字典\n"
        "``{Var: d out / d Var}``。检查会自己建几条磁带（其中有被一个、两个、三个节点使用的变量），并与手算的导数比较。"
    ),
    # ---- lesson 12
    "check_jvp_column": (
        "对下面英文原文中的程序，手算 J·v（h 在 x 处的雅可比矩阵乘以 v），以含 3 个数的列表给出。\n"
        "J·v 是雅可比矩阵的一列：x 沿 v 移动时，每个输出移动多少。"
    ),
    "check_dual_exp": (
        "检查第 12 课 ``Dual`` 类的 ``exp``：``Dual(a, a').exp()`` 必须是按 ε² = 0 算出的 e^(a + a'ε) 的对偶数。检查会用你的类\n"
        "（``Dual(value, tangent)``、``+``、``*``、``.sin()``、``.exp()``、``.value``、``.tangent``）构造表达式并推进切向量，\n"
        "再把每个值和切向量与 gradbook 的 ``autograd.functional.jvp`` 比较。"
    ),
    "check_passes": (
        "下面英文原文中的 f，它的完整雅可比矩阵需要几遍前向模式的计算（每遍一个 J·v），以及反向模式下几次反向传播（每次一个 vᵀJ，之前先做一次前向传播）？\n"
        '给出由整数组成的字典 ``{"forward": ..., "reverse": ...}``。'
    ),
    # ---- lesson 13
    "check_grad_without_division": (
        "不运行程序，预测下面英文原文中程序结束时的 ``w.grad``：两个微批次各调用一次 backward()，\n"
        "损失没有除以微批次的个数。"
    ),
    "check_accumulation_step": (
        "检查 ``accumulation_step(model, optimizer, loss_fn, batches)``：用 ``batches``（k 个大小相同的\n"
        "(输入, 目标) 微批次，每个做一次反向传播）得到整个批次的梯度，再做一次优化器更新。检查会在你看不到的数据上，\n"
        "对一个 ``nn.Linear``（``SGD``、``nn.MSELoss()``）调用它两次，并与手算的两次全批次梯度下降比较参数。"
    ),
    # ---- lesson 14
    "check_softmax_ce_grad": (
        "手算下面英文原文中程序的 ``z.grad``（一个 2 × 3 的嵌套列表）：cross_entropy 的梯度是\n"
        "(softmax(z) − one-hot(y)) / N。"
    ),
    "check_linear_function": (
        "检查一个实现 ``nn.Linear`` 运算的 ``autograd.Function``：``apply(x, weight, bias)`` = x @ weightᵀ + bias，\n"
        "x 是 (N, in)，weight 是 (out, in)，bias 是 (out,)；它的 ``backward(ctx, grad_output)`` 返回三个梯度。\n"
        "检查会在你看不到的 float64 张量上运行它，把输出和每个梯度与 gradbook 的 autograd 比较，并要求输出的节点是你的 Function 的。"
    ),
    # ---- lesson 17
    "check_loop_graph": (
        "数一数下面英文原文中程序里 y 的计算图有几个 ``MulBackward0`` 节点，并预测 ``x.grad``。\n"
        '给出一个字典 ``{"mul_nodes": 整数, "x_grad": 两个数的列表}``。循环运行几次由输入决定，计算图只记录运行过的乘法。'
    ),
    "check_array_sum": (
        "检查课程里 ``ArrayValue`` 类的 ``sum(axis)`` 的反向传播规则：``x.sum()`` 把所有元素加起来，\n"
        "``x.sum(axis)`` 沿一维求和（x 可以有任意多维，axis 也可以像 NumPy 里那样是负数），每个元素的梯度就是它所在的那个和的\n"
        "``out.grad``。检查会在你看不到的数组上，\n"
        "用你的类（``ArrayValue(array)``、``+``、``*``、``@``、``tanh``、``mean``、``sum``、``.backward()``、``.grad``）构造表达式，\n"
        "并把每个梯度与 gradbook 的结果比较。"
    ),
    # ---- lesson 15
    "check_saved_count": (
        '数一数下面英文原文中的程序为反向传播保存了多少个张量、共多少字节，用字典 ``{"tensors": ..., "bytes": ...}`` 作答：\n'
        "节点只保存需要的梯度的规则所读取的东西。"
    ),
    "check_mask_relu": (
        "检查一个保存布尔掩码（每个数 1 字节）而不是 float32 张量（每个数 4 字节）的 ReLU ``autograd.Function``：\n"
        "``apply(x)`` 等于 ``x.relu()``，它的 backward 在 x 为正处传递梯度。检查会在你看不到的 float32 输入（其中有 0）上运行它，\n"
        "用 ``saved_tensors_hooks`` 数保存的字节数，并把梯度与 ``relu`` 的比较。"
    ),
    # ---- lesson 16
    "check_kink_grad": (
        "预测下面英文原文中程序结束时的 ``x.grad``（四个数的列表），在每个不可导点处都按 torch 定义的梯度：\n"
        "clamp 在边界上传递梯度，relu'(0) = 0，sign(0) = 0：这些是每个运算自己的约定，常常是某一侧的斜率，有时两侧都不是。"
    ),
    "check_xlogx": (
        "检查 ``xlogx(x)``：逐元素计算，x > 0 处为 x · log x，x ≤ 0 处为 0，而且梯度处处有限：x > 0 处为 log x + 1，\n"
        "x ≤ 0 处为 0。检查会在你看不到的 float64 和 float32 张量上（负数、0、极小的正数、10³⁰）调用它，\n"
        "带着上游梯度做反向传播，并把值和 x.grad 与解析式比较。"
    ),
}


def chinese(summary: str, english: str) -> str:
    """The docstring ``help()`` shows in Chinese: the summary, then the English original (indented
    as a docstring's later lines are, so that ``inspect.cleandoc`` lines them all up)."""
    indent = "\n    "
    return summary.replace("\n", indent) + f"\n{indent}{INTRO}\n{indent}{english}"


def docstrings(checks: Iterable[Callable[..., Any]]) -> Callable[[str], None]:
    """What ``gradbook.language.on_change`` calls: each check's docstring in the language set.
    Their English docstrings are taken as they are now (after ``show_program`` filled them in)."""
    english = {check: check.__doc__ for check in checks}

    def localize(language: str) -> None:
        for check, doc in english.items():
            summary = DOCS.get(check.__name__) if language == "zh" else None
            check.__doc__ = doc if summary is None or doc is None else chinese(summary, doc)

    return localize

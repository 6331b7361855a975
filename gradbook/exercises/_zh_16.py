"""The Chinese words of lesson 16's self-checks, in the format of ``_zh.ZH`` (``{English text or
template: 中文}``), kept apart until they are merged into it. Terms: 梯度, 反向传播, 前向传播,
不可导点 (kink), 约定 (convention), 上游梯度, 分支; code stays code.
"""

from ..language import prepare

ZH_16: dict[str, str] = prepare(
    {
        # ---- check_kink_grad (predict)
        "your x.grad": "你的 x.grad",
        "x.grad has x's shape: four numbers, one per element of x.": "x.grad 的形状和 x 相同：四个数，x 的每个元素一个。",
        "x.grad as autograd computes it": "autograd 算出的 x.grad",
        "the average of the two one-sided slopes at the kinks": "在不可导点处取了左右两侧斜率的平均值",
        "that is what a central difference gives; at a kink autograd uses a convention instead: relu passes the "
        "gradient only where x > 0, clamp where min ≤ x ≤ max, and |u| sends sign(u).": "那是中心差分给出的结果；在不可导点处，autograd 用的是一个约定：relu 只在 x > 0 处传递梯度，"
        "clamp 在 min ≤ x ≤ max 处传递，而 |u| 传回 sign(u)。",
        "x.grad after y.sum().backward()": "y.sum().backward() 之后的 x.grad",
        "look at x = {x}, on a bound of clamp(-2.0, 1.0): torch's clamp passes the gradient where min ≤ x ≤ max, "
        "bounds included.": "看 x = {x}，它在 clamp(-2.0, 1.0) 的边界上：torch 的 clamp 在 min ≤ x ≤ max 处传递梯度，包括边界。",
        "look at x = {x}, relu's kink: torch's relu passes the gradient only where x > 0.": "看 x = {x}，它是 relu 的不可导点：torch 的 relu 只在 x > 0 处传递梯度。",
        "look at x = {x}, the kink of |x − 1|: (x - 1).abs() sends sign(x − 1), with sign(0) = 0.": "看 x = {x}，它是 |x − 1| 的不可导点：(x - 1).abs() 传回 sign(x − 1)，且 sign(0) = 0。",
        "look at x = {x}, on a bound of clamp(-2.0, 1.0) and on the kink of |x − 1|: torch's clamp passes the gradient "
        "where min ≤ x ≤ max, bounds included, and (x - 1).abs() sends sign(x − 1), with sign(0) = 0.": "看 x = {x}，它既在 clamp(-2.0, 1.0) 的边界上，也是 |x − 1| 的不可导点：torch 的 clamp 在 min ≤ x ≤ max 处"
        "传递梯度（包括边界），而 (x - 1).abs() 传回 sign(x − 1)，且 sign(0) = 0。",
        "look at x = {x}, on no kink: there each term has its ordinary slope (clamp 1 inside its bounds and 0 "
        "outside, 2·relu 2 or 0, −|x − 1| sends −sign(x − 1)).": "看 x = {x}，它不在任何不可导点上：那里每一项都是它通常的斜率（clamp 在边界内为 1、边界外为 0，"
        "2·relu 为 2 或 0，−|x − 1| 传回 −sign(x − 1)）。",
        "look at the term x.clamp(-2.0, 1.0) as a whole: it passes the gradient 1 between its bounds and 0 outside "
        "them, and the program adds it.": "把 x.clamp(-2.0, 1.0) 这一项作为整体来看：它在边界之间传递梯度 1，在边界之外为 0，而且程序是把它加上去的。",
        "look at the term 2 * x.relu() as a whole: relu passes the gradient where x > 0, and the 2 doubles what it "
        "passes.": "把 2 * x.relu() 这一项作为整体来看：relu 在 x > 0 处传递梯度，而前面的 2 把它传递的梯度加倍。",
        "look at the term −(x - 1).abs() as a whole: (x - 1).abs() sends sign(x − 1), and the minus in front of it "
        "flips that.": "把 −(x - 1).abs() 这一项作为整体来看：(x - 1).abs() 传回 sign(x − 1)，而它前面的负号把它反过来。",
        "x.grad is off at x = {x}, and no single term explains it: work out each term's gradient there on its own, "
        "by torch's convention at its kinks, then add them with the signs of the program.": "x.grad 在 x = {x} 处不对，而且不是某一项单独出错所能解释的：在那里把每一项的梯度单独算出来"
        "（在不可导点处按 torch 的约定），再按程序里的正负号加起来。",
        "Right: torch's conventions at the kinks: clamp passes on its bounds, relu'(0) = 0, sign(0) = 0.": "正确：在不可导点处用的是 torch 的约定：clamp 在边界上传递梯度，relu'(0) = 0，sign(0) = 0。",
        # ---- check_xlogx (debug)
        "your xlogx": "你的 xlogx",
        "a function xlogx(x)": "一个函数 xlogx(x)",
        "define it with def xlogx(x): and pass the function itself.": "用 def xlogx(x): 来定义它，并传入这个函数本身。",
        "the values x · log x where x > 0 and 0 where x ≤ 0, all finite": "值在 x > 0 处为 x · log x、在 x ≤ 0 处为 0，而且全是有限值",
        "nan or inf among the values": "值里有 nan 或 inf",
        "the output is 0 wherever x ≤ 0: log(0) is −inf and 0 · −inf is nan, so the log must not see x = 0 in the "
        "branch that is kept.": "在 x ≤ 0 处输出应为 0：log(0) 是 −inf，而 0 · −inf 是 nan，所以在保留下来的分支里，log 不能碰到 x = 0。",
        "xlogx(x)": "xlogx(x) 的输出",
        "xlogx(x) to return a tensor": "xlogx(x) 返回一个张量",
        "end your function with return and the tensor it computed.": "在函数末尾用 return 返回它算出的张量。",
        "xlogx works elementwise: its output has x's shape.": "xlogx 是逐元素计算的：它的输出和 x 的形状相同。",
        "the values x · log x where x > 0 and 0 where x ≤ 0": "值在 x > 0 处为 x · log x、在 x ≤ 0 处为 0",
        "keep the forward as it was: only what the log is taken of changes where x ≤ 0.": "前向传播的值保持不变：在 x ≤ 0 处，只改变 log 所作用的输入。",
        "an output computed from x with torch's ops, so that backward reaches x": "输出是用 torch 的运算从 x 算出来的，这样反向传播才能到达 x",
        "an output with no grad_fn": "一个没有 grad_fn 的输出",
        "return the tensor your ops computed from x, not a copy, a detached tensor or NumPy values.": "返回你的运算从 x 算出的那个张量，而不是副本、detach 过的张量或 NumPy 数值。",
        "backward() through your xlogx": "经过你的 xlogx 的 backward()",
        "x.grad with x's shape": "形状和 x 相同的 x.grad",
        "the gradient must reach x through your ops.": "梯度必须经过你的运算到达 x。",
        "a finite x.grad everywhere": "处处有限的 x.grad",
        "nan or inf in x.grad where x ≤ 0": "x.grad 在 x ≤ 0 处有 nan 或 inf",
        "nan or inf in x.grad": "x.grad 里有 nan 或 inf",
        "where's backward sends 0 to the branch it throws away, and that branch's backward multiplies the 0 by "
        "log's 1/x (inf at x = 0) or by the nan of log(x < 0): 0 · inf and 0 · nan are nan. Give the log a safe "
        "input where x ≤ 0, with a first where.": "where 的反向传播给被丢弃的分支传回 0，而那个分支的反向传播会把这个 0 乘以 log 的 1/x（在 x = 0 处是 inf），"
        "或乘以 log(x < 0) 得到的 nan：0 · inf 和 0 · nan 都是 nan。先用一个 where，在 x ≤ 0 处给 log 一个安全的输入。",
        "x.grad = (log x + 1) · upstream where x > 0, and 0 where x ≤ 0": "x.grad 在 x > 0 处为 (log x + 1) · 上游梯度，在 x ≤ 0 处为 0",
        "a different x.grad": "不一样的 x.grad",
        "a clamp to a small ε changes the function below ε: keep x itself where x > 0, and replace it only where "
        "the branch is thrown away.": "把 x clamp 到一个小的 ε 会改变 ε 以下的函数：在 x > 0 处保留 x 本身，只在分支被丢弃的地方替换它。",
        "the product rule: d(x · log x)/dx = log x + 1; both factors must be computed from x.": "乘积法则：d(x · log x)/dx = log x + 1；两个因子都必须由 x 算出。",
        "where x ≤ 0 the function is the constant 0, so its gradient there is 0.": "在 x ≤ 0 处函数是常数 0，所以那里的梯度是 0。",
        "where x > 0 the gradient is log x + 1, times the upstream gradient.": "在 x > 0 处梯度是 log x + 1，再乘以上游梯度。",
        "Right: the log never sees x ≤ 0, so the branch that where throws away has a finite backward.": "正确：log 从不碰到 x ≤ 0，所以被 where 丢弃的分支的反向传播也是有限的。",
        # ---- the exercises' hints
        "On a kink use torch's convention, not the average of the two sides.": "在不可导点处用 torch 的约定，而不是两侧斜率的平均值。",
        "clamp passes on its bounds, relu'(0) = 0, sign(0) = 0.": "clamp 在边界上传递梯度，relu'(0) = 0，sign(0) = 0。",
        "Which branch does the where throw away at x = 0, and what does its backward compute?": "在 x = 0 处 where 丢弃了哪个分支？那个分支的反向传播算的是什么？",
        "A first where gives the log a safe input where x ≤ 0.": "先用一个 where，在 x ≤ 0 处给 log 一个安全的输入。",
    }
)

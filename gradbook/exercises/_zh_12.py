"""The Chinese words of lesson 12's self-checks, in the format of ``_zh.ZH`` (``{English text or
template: 中文}``), kept apart until they are merged into it. Terms: 雅可比矩阵, 切向量 (tangent),
对偶数, 前向模式, 反向模式, 反向传播; code stays code.
"""

from ..language import prepare

ZH_12: dict[str, str] = prepare(
    {
        # ---- check_jvp_column (derive)
        "your J·v": "你的 J·v",
        "J·v has one number per output of h, as a flat list.": "J·v 是 h 的每个输出一个数，写成一个扁平的列表。",
        "J·v, one number per output of h": "J·v：h 的每个输出一个数",
        "that is vᵀJ, a row (what backward(v) gives); J·v is a column: how each output moves when x moves along v.": "这是 vᵀJ，是一行（backward(v) 给出的就是它）；J·v 是一列：x 沿 v 移动时，每个输出移动多少。",
        "row i of J holds the derivatives of output i; J·v with v = e₂ keeps the derivatives by x[2].": "J 的第 i 行是第 i 个输出的各个导数；v = e₂ 时，J·v 只保留对 x[2] 的导数。",
        "Right: J·v with v = e₂ is the Jacobian's last column, how every output moves with x[2].": "正确：v = e₂ 时，J·v 是雅可比矩阵的最后一列，也就是每个输出随 x[2] 变化的快慢。",
        # ---- check_dual_exp (build)
        "your Dual class": "你的 Dual 类",
        "the Dual class itself": "Dual 类本身",
        "pass the class: check_dual_exp(Dual).": "传入类本身：check_dual_exp(Dual)。",
        "your exp": "你的 exp",
        "the value of {raw_text}": "{raw_text} 的值",
        "the tangent of {raw_text}": "{raw_text} 的切向量",
        "the value of {raw_text} at x = {raw_x}": "{raw_text} 在 x = {raw_x} 处的值",
        "the value of e^a is e^a.": "e^a 的值就是 e^a。",
        "the tangent of {raw_text} at x = {raw_x}, tangent {raw_t}": "{raw_text} 在 x = {raw_x}、切向量为 {raw_t} 时的切向量",
        "expand e^(a + a'ε) = e^a · e^(a'ε) with ε² = 0: what multiplies ε?": "按 ε² = 0 展开 e^(a + a'ε) = e^a · e^(a'ε)：乘在 ε 前面的是什么？",
        "the tangent coming in, a', must scale the tangent going out: the chain rule, run forward.": "传进来的切向量 a' 必须按比例缩放传出去的切向量：这就是向前运行的链式法则。",
        "Right: your exp pushes the tangent forward, e^a · a', through every expression.": "正确：你的 exp 在每个表达式里都把切向量 e^a · a' 向前传了下去。",
        # ---- check_passes (count)
        "your numbers of passes": "你给出的遍数",
        "whole numbers of passes": "整数的遍数",
        "a pass is run whole: count them.": "每一遍都是完整地走一遍：请数一数。",
        'a dict {"forward": ..., "reverse": ...}': '一个字典 {"forward": ..., "reverse": ...}',
        "one entry per mode, keyed by its name.": "每种模式一项，键是模式的名字。",
        'the keys "forward" and "reverse"': '键 "forward" 和 "reverse"',
        'exactly these two keys, as strings: {"forward": ..., "reverse": ...}.': '正好这两个键，写成字符串：{"forward": ..., "reverse": ...}。',
        "the number of {raw_mode}-mode passes": "{raw_mode} 模式的遍数",
        "swapped: a forward pass pushes one input direction (a column), a backward pass pulls one output (a row).": "弄反了：前向模式每遍推进一个输入方向（一列），反向传播每次拉回一个输出（一行）。",
        "forward mode gets one column of J per pass: how many columns has J, one per input?": "前向模式每遍得到 J 的一列：J 有多少列？每个输入一列。",
        "reverse mode gets one row of J per backward pass: how many rows has J, one per output?": "反向模式每次反向传播得到 J 的一行：J 有多少行？每个输出一行。",
        "the passes for the full Jacobian in each mode": "每种模式下得到完整雅可比矩阵所需的遍数",
        "Right: one pass per input forward, one per output backward; a loss has one output.": "正确：前向模式每个输入一遍，反向模式每个输出一遍；而损失只有一个输出。",
        # ---- the exercises' hints
        "J·v with v = eⱼ is column j of J.": "v = eⱼ 时，J·v 就是 J 的第 j 列。",
        "Differentiate each output by x[2] only.": "只对 x[2] 求每个输出的导数。",
        "e^(a + a'ε) = e^a · e^(a'ε), and e^(a'ε) = 1 + a'ε when ε² = 0.": "e^(a + a'ε) = e^a · e^(a'ε)，而在 ε² = 0 时 e^(a'ε) = 1 + a'ε。",
        "The tangent is e^a · a'.": "切向量是 e^a · a'。",
        "A forward-mode pass gives one column, a backward pass one row.": "前向模式每遍给出一列，反向传播每次给出一行。",
        "J has one column per input.": "J 的每一列对应一个输入。",
    }
)

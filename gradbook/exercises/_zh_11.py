"""The Chinese words of lesson 11's self-checks, in the format of ``_zh.ZH`` (``{English text or
template: 中文}``), kept apart until they are merged into it. Terms as in ``_zh_08_10``: 梯度,
反向传播, 计算图, 局部导数, 上游梯度, 中心差分, 前向差分, 磁带 (tape); code stays code.
"""

from ..language import prepare

ZH_11: dict[str, str] = prepare(
    {
        # ---- check_hand_gradients (derive)
        "your dict of gradients": "你的梯度字典",
        "your backward pass": "你的反向传播",
        'a dict {"u": ..., "v": ..., "w": ...}': '一个字典 {"u": ..., "v": ..., "w": ...}',
        "one entry per variable, keyed by its name.": "每个变量一项，键是变量名。",
        'the keys "u", "v" and "w"': '键 "u"、"v" 和 "w"',
        "the keys {raw_keys}": "键 {raw_keys}",
        'exactly these three keys, as strings: {"u": ...}.': '正好这三个键，写成字符串：{"u": ...}。',
        "g = w * w + u uses w twice in one product: d(w·w)/dw = w + w.": "g = w * w + u 在同一个乘法里用了两次 w：d(w·w)/dw = w + w。",
        "v reaches g only through w: dg/dv = dg/dw · dw/dv, and dw/dv = u.": "v 只通过 w 影响 g：dg/dv = dg/dw · dw/dv，而 dw/dv = u。",
        "u reaches g along two paths, through w and directly through + u: add what each path gives.": "u 沿两条路径影响 g：一条经过 w，一条直接经过 + u。把每条路径给出的梯度加起来。",
        "Right: local derivative times upstream at each node, and the two paths to u added.": "正确：每个节点都是局部导数乘以上游梯度，到 u 的两条路径也加在了一起。",
        # ---- check_numerical_grad (build)
        "your numerical_grad": "你的 numerical_grad",
        "a function numerical_grad(f, inputs, eps=1e-6)": "一个函数 numerical_grad(f, inputs, eps=1e-6)",
        "pass the function itself.": "传入函数本身。",
        "numerical_grad of f = {text}": "f = {text} 的 numerical_grad",
        "divide by 2ε: the two points x + ε and x − ε are 2ε apart.": "要除以 2ε：x + ε 和 x − ε 两点相距 2ε。",
        "nudge one input at a time, both ways, and keep the others as they are.": "一次只挪动一个输入，向上向下各挪一次，其余输入保持不变。",
        "divide by 2ε, not 4ε.": "要除以 2ε，而不是 4ε。",
        "the sign is flipped: f(x + ε) − f(x − ε), in that order.": "符号反了：是 f(x + ε) − f(x − ε)，顺序不能颠倒。",
        "close, but not to 1e-7: a forward difference is off by about ε·f''/2; use f(x + ε) − f(x − ε) over 2ε.": "很接近，但没有达到 1e-7：前向差分会差大约 ε·f''/2；请用 f(x + ε) − f(x − ε) 再除以 2ε。",
        "the partial derivatives of {text} at ({raw_where}) to within 1e-7": "{text} 在 ({raw_where}) 处的偏导数，误差在 1e-7 以内",
        "numerical_grad(f, (0.0,), eps=1e-2) of f = exp(3a)": "f = exp(3a) 时 numerical_grad(f, (0.0,), eps=1e-2) 的结果",
        "the central difference at ε = 1e-2 of exp(3a) at a = 0": "exp(3a) 在 a = 0 处、ε = 1e-2 时的中心差分",
        "at ε = 1e-2 the answer must be (f(x + ε) − f(x − ε)) / 2ε with the ε the caller passes.": "在 ε = 1e-2 时，结果必须是用调用者传入的 ε 算出的 (f(x + ε) − f(x − ε)) / 2ε。",
        "Right: central differences, with an error that shrinks as ε².": "正确：这是中心差分，它的误差随 ε² 减小。",
        # ---- check_tape_backward (debug)
        "a function backward(tape, out)": "一个函数 backward(tape, out)",
        "a dict {Var: gradient}": "一个字典 {Var: 梯度}",
        "return grads, the dict filled by the loop.": "返回 grads，也就是循环填好的那个字典。",
        "looking a Var up raised {kind}.": "查找一个 Var 时抛出了 {kind}。",
        "d e / d {name} in {raw_text}": "{raw_text} 中的 d e / d {name}",
        "a is used twice: each use sends a gradient, and both must be added (+=), not the last one kept.": "a 被用了两次：每次使用都会传来一个梯度，两个都要加起来（+=），而不是只保留最后一个。",
        "a tape's backward is right when it walks the tape from its end (a node has all its gradient "
        "before it passes it on) and adds into grads[inp] (+=), never overwriting it.": "磁带的反向传播要做对，需要两点：从磁带的末尾往回走（这样一个节点在把梯度传下去之前已经收齐了梯度），"
        "并且把梯度累加到 grads[inp] 上（+=），绝不覆盖。",
        "Right: a node used twice adds what each use sends it, and the tape is walked from its end.": "正确：被用了两次的节点把每次使用传来的梯度加在一起，而且磁带是从末尾往回走的。",
        # ---- the exercises' hints
        "Start at g with dg/dg = 1 and walk back: each node sends upstream × its local derivative.": "从 g 开始，dg/dg = 1，然后往回走：每个节点向输入传递 上游梯度 × 局部导数。",
        "u is used twice: add what its two paths give.": "u 被用了两次：把两条路径给出的梯度加起来。",
        "Nudge one input at a time: up by ε and down by ε.": "一次只挪动一个输入：加上 ε，再减去 ε。",
        "Divide the difference by 2ε.": "把差除以 2ε。",
        "Which line runs twice for x in f = (x * y + z) * x?": "对 f = (x * y + z) * x 里的 x，哪一行会运行两次？",
        "grads.get(inp, 0.0) gives what arrived so far.": "grads.get(inp, 0.0) 给出到目前为止已经传来的梯度。",
    }
)

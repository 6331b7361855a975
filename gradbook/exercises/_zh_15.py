"""The Chinese words of lesson 15's self-checks, in the format of ``_zh.ZH`` (``{English text or
template: 中文}``), kept apart until they are merged into it. Terms: 保存的张量, 字节, 掩码, 节点; code
stays code.
"""

from ..language import prepare

ZH_15: dict[str, str] = prepare(
    {
        # ---- check_saved_count (count)
        "your count": "你数出的结果",
        "one entry for the number of saved tensors, one for their bytes.": "一项是保存的张量个数，一项是它们的字节数。",
        'exactly these two keys, as strings: {"tensors": ..., "bytes": ...}.': '恰好这两个键，写成字符串：{"tensors": ..., "bytes": ...}。',
        "the number of saved tensors": "保存的张量个数",
        "the number of bytes": "字节数",
        "whole numbers of tensors and bytes": "张量个数和字节数都是整数",
        "count whole tensors, and 4 bytes per number.": "按整个张量来数，每个数 4 字节。",
        "Right: each node keeps only what the rules of the needed gradients read.": "正确：每个节点只保存需要的梯度的规则所读取的东西。",
        "the tensors are right; each is 100 float32 numbers of 4 bytes.": "张量个数对了；每个张量是 100 个 float32 数字，每个 4 字节。",
        "x * v: only x needs a gradient, and x's rule reads v alone.": "x * v：只有 x 需要梯度，而 x 的规则只读取 v。",
        "sin reads its input, exp its output (eˣ is its own derivative): each keeps one tensor.": "sin 读取它的输入，exp 读取它的输出（eˣ 的导数就是它自己）：各保存一个张量。",
        "+ and sum read nothing to pass their gradient on; count only what a needed gradient reads.": "+ 和 sum 传递梯度时什么都不读取；只数需要的梯度要读取的东西。",
        "the saved tensors and their bytes": "保存的张量及其字节数",
        'a dict {"tensors": ..., "bytes": ...}': '一个字典 {"tensors": ..., "bytes": ...}',
        'the keys "tensors" and "bytes"': '键 "tensors" 和 "bytes"',
        "a count is a single number.": "个数是单个数字。",
        "return a tensor, the result of forward; apply puts your Function's node on it.": "返回一个张量，即 forward 的结果；apply 会给它挂上你的 Function 的节点。",
        "the mask saved with ctx.save_for_backward, and no other tensor": "只用 ctx.save_for_backward 保存掩码，不保留别的张量",
        "a tensor kept as an attribute of ctx": "一个作为 ctx 属性保留的张量",
        "Right: the same gradient as relu's, from 1 byte a number saved instead of 4.": "正确：和 relu 的梯度相同，每个数只保存 1 字节而不是 4 字节。",
        "A bool tensor is 1 byte a number; grad_output passes where it is True.": "布尔张量每个数 1 字节；grad_output 在它为 True 的地方通过。",
        # ---- check_mask_relu (build)
        "your MaskReLU": "你的 MaskReLU",
        "define class MaskReLU(torch.autograd.Function) with forward and backward.": "定义 class MaskReLU(torch.autograd.Function)，并写出 forward 和 backward。",
        "the output of apply(x)": "apply(x) 的输出",
        "relu(x) has x's shape.": "relu(x) 的形状和 x 相同。",
        "the output relu(x)": "输出 relu(x)",
        "forward returns x where it is positive, 0 elsewhere.": "forward 在 x 为正处返回 x，其余位置返回 0。",
        "the mask saved with ctx.save_for_backward": "用 ctx.save_for_backward 保存的掩码",
        "nothing saved": "什么都没有保存",
        "a tensor kept as an attribute of ctx is memory too, unseen by the hooks and not freed by backward.": "作为 ctx 的属性保存的张量同样占内存，钩子看不到它，反向传播也不会释放它。",
        "{raw_n} bytes saved: one per number": "保存 {raw_n} 字节：每个数 1 字节",
        "{raw_n} bytes saved": "保存了 {raw_n} 字节",
        "save only the mask x > 0, a bool tensor: 1 byte a number.": "只保存掩码 x > 0，一个布尔张量：每个数 1 字节。",
        "backward returns one gradient: grad_output where x > 0.": "backward 返回一个梯度：在 x > 0 处为 grad_output。",
        "different values at x = 0": "在 x = 0 处的值不一样",
        "torch's relu passes no gradient at x = 0.": "torch 的 relu 在 x = 0 处不传梯度。",
        "multiply grad_output by the saved mask.": "把 grad_output 乘以保存的掩码。",
        # ---- the exercises' hints
        "A node saves what the rules of the needed gradients read.": "节点保存的是需要的梯度的规则要读取的东西。",
        "float32 is 4 bytes a number.": "float32 每个数 4 字节。",
        "The backward rule only needs to know where x > 0.": "反向传播的规则只需要知道哪里 x > 0。",
    }
)

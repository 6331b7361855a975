"""The Chinese words of the self-checks of lessons 08-10 (and of ``_functions``' texts for lesson
10's ``LogCosh``), in the format of ``_zh.ZH`` (``{English text or template: 中文}``), kept apart
until they are merged into it.

Fields in braces are filled with the message's own values, themselves translated when they are
phrases of the catalogue (``{raw_...}`` fields are kept as they are). Terms: 梯度, 反向传播, 计算图,
叶子节点, 累加, 张量, 广播, 偏置, 雅可比矩阵; code stays code.

``"x.grad after backward() through {text} as numbers"`` and its kin read better than the general
``"{what} as numbers"`` filled in; ``gradbook.language`` picks the more specific of two templates that
translate as much. The translation of
``"unbroadcast(grad of shape {big}, {small})"`` keeps ``{big}, {small}`` together, because the
comma inside ``{big}`` (``(4, 3)``) can split the two fields anywhere. ``"other values"`` is also
in ``_zh_05_07`` (the same translation).
"""

from ..language import prepare

ZH_08_10: dict[str, str] = prepare({
    # ---- lesson 08: micrograd and torch
    "your prediction of micrograd's a.grad": "你对 micrograd 中 a.grad 的预测",
    "micrograd's a.grad, which differs from torch's here": "micrograd 的 a.grad（这里它和 torch 的结果不一样）",
    "{value}, what torch gives": "{value}，这是 torch 给出的结果",
    "micrograd's c = a + b keeps its own .grad between calls and passes its whole total on to a.":
        "micrograd 的 c = a + b 在两次调用之间保留着自己的 .grad，并且每次都把累加起来的总数整个传给 a。",
    "micrograd's a.grad after the three calls": "三次调用之后 micrograd 的 a.grad",
    "follow c.grad call by call (it grows by d each time), and add each call's c.grad into a.grad.":
        "逐次跟踪 c.grad（每次调用都增加 d），再把每次调用时的 c.grad 累加到 a.grad 上。",
    "Right: micrograd's inner node c passed its growing total to a on every call.":
        "正确：micrograd 的中间节点 c 每次调用都把它不断增长的总数传给了 a。",
    "your prediction of torch's a.grad": "你对 torch 中 a.grad 的预测",
    "torch's a.grad, which differs from micrograd's here": "torch 的 a.grad（这里它和 micrograd 的结果不一样）",
    "{value}, what micrograd gives": "{value}，这是 micrograd 给出的结果",
    "torch's inner nodes keep no .grad: each call passes only that call's gradient on to a.":
        "torch 的中间节点不保留 .grad：每次调用只把这一次的梯度传给 a。",
    "torch's a.grad after the three calls": "三次调用之后 torch 的 a.grad",
    "one call adds de/da = d into a.grad; three calls add it three times.":
        "一次调用往 a.grad 里累加 de/da = d；三次调用就累加三次。",
    "Right: only the leaf accumulates in torch, by the same amount each call.":
        "正确：在 torch 里只有叶子节点累加梯度，而且每次调用累加的量都一样。",
    "your Value class": "你的 Value 类",
    "the Value class itself": "Value 类本身",
    "pass the class: check_value_pow(Value).": "传入类本身：check_value_pow(Value)。",
    "your power rule": "你的幂运算规则",
    "x.grad set by backward() through {text}": "对 {text} 调用 backward() 之后被设置的 x.grad",
    "start grad at 0.0 and add into it.": "让 grad 从 0.0 开始，再往上累加。",
    "multiply by out.grad: here the output is used by * 2, so 2 arrives from above.":
        "要乘以 out.grad：这里输出又被 * 2 用到，所以从上游传来的是 2。",
    "forward to return one value per element of x": "forward 为 x 的每个元素返回一个值",
    "shape {got} for an x of shape {shape}": "x 的形状为 {shape} 时，形状为 {got}",
    "compute elementwise, and do not sum.": "逐元素计算，不要求和。",
    "unbroadcast to return the summed gradient": "unbroadcast 返回求和之后的梯度",
    "end the function with return grad.": "函数最后要 return grad。",
    "{text} to give a Value": "{text} 的结果是一个 Value",
    "the class must be lesson 08's Value, with __pow__.": "这个类必须是第 8 课的 Value，并且定义了 __pow__。",
    "x.grad after backward() through {text} as numbers": "对 {text} 调用 backward() 之后的 x.grad 是数字",
    "x.grad after backward() through {text} as real numbers": "对 {text} 调用 backward() 之后的 x.grad 是实数",
    "x.grad after backward() through {text} with a single number":
        "对 {text} 调用 backward() 之后的 x.grad 是单个数字",
    "x.grad after backward() through {text} with finite values":
        "对 {text} 调用 backward() 之后的 x.grad 全是有限值",
    "x.grad = d({text})/dx at x = {start}": "x = {start} 处的 x.grad = d({text})/dx",
    "x is used twice here: the rule must add into self.grad (+=), not overwrite it.":
        "这里 x 被用了两次：规则必须累加到 self.grad 上（+=），而不是覆盖它。",
    "d(xᵏ)/dx = k·xᵏ⁻¹, times out.grad (the gradient arriving from above).":
        "d(xᵏ)/dx = k·xᵏ⁻¹，还要乘以 out.grad（从上游传来的梯度）。",
    "Right: your power rule agrees with gradbook, also where x is used twice.":
        "正确：你的幂运算规则和 gradbook 的结果一致，x 被用了两次的情况也没问题。",
    "Write down c.grad after each call.": "把每次调用之后的 c.grad 写下来。",
    "a.grad receives c.grad's total on each call, not c's share of it.":
        "每次调用时，a.grad 收到的是 c.grad 的总数，而不只是这一次新增的那一份。",
    "de/da = d.": "de/da 就等于 d。",
    "Only leaves keep a .grad in torch, and each call adds to it.": "在 torch 里只有叶子节点保留 .grad，每次调用都往上累加。",
    "d(xᵏ)/dx = k·xᵏ⁻¹.": "幂运算的导数：d(xᵏ)/dx = k·xᵏ⁻¹。",
    "Multiply by out.grad, and add into self.grad with +=.": "乘以 out.grad，再用 += 累加到 self.grad 上。",
    # ---- lesson 09: broadcasting
    "your prediction of b.grad": "你对 b.grad 的预测",
    "b.grad with b's shape, (2,)": "和 b 形状相同的 b.grad，即形状为 (2,)",
    "shape (5, 2), the shape of out": "形状为 (5, 2)，这是 out 的形状",
    "b was copied to all 5 rows; its gradient is the sum of the 5 copies' gradients.":
        "b 被复制到了全部 5 行；它的梯度是这 5 份副本的梯度之和。",
    "b.grad, summed over every row b was copied to": "b.grad，即在 b 被复制到的每一行上求和",
    "the gradient of one row": "只有一行的梯度",
    "count the rows of x.": "数一数 x 有几行。",
    "b.grad after loss.backward()": "loss.backward() 之后的 b.grad",
    "other values": "别的值",
    "d(loss)/d(out) is (1, -2) in every row; b receives it once per row.":
        "d(loss)/d(out) 在每一行都是 (1, -2)；b 每一行收到一次。",
    "Right: a broadcast bias collects one gradient per row it was copied to.":
        "正确：被广播的偏置在它被复制到的每一行都收到一份梯度，全部加在一起。",
    "your unbroadcast": "你的 unbroadcast",
    "a function unbroadcast(grad, shape)": "一个函数 unbroadcast(grad, shape)",
    "define it with def unbroadcast(grad, shape):": "用 def unbroadcast(grad, shape): 来定义它",
    "unbroadcast(grad of shape {big}, {small})": "grad.shape, shape = {big}, {small} 时 unbroadcast(grad, shape) 的返回值",
    "unbroadcast(grad of shape {big}, {small}) with shape {shape}":
        "grad.shape, shape = {big}, {small} 时 unbroadcast(grad, shape) 的返回值的形状为 {shape}",
    "the sum of grad over the positions each element of shape {small} was copied to":
        "对形状为 {small} 的张量的每个元素，grad 在它被复制到的所有位置上的和",
    "sum over the dimensions of size 1 too, keeping them (keepdim=True).":
        "大小为 1 的维度也要求和，并且保留这些维度（keepdim=True）。",
    "sum over the leading dimensions that shape does not have.": "对 shape 没有的那些前导维度求和。",
    "Right: your unbroadcast sums exactly where broadcasting copied.": "正确：你的 unbroadcast 恰好在广播复制过的地方求和。",
    "b.grad has b's shape.": "b.grad 的形状和 b 相同。",
    "Each row passes b the same gradient; add the rows up.": "每一行都给 b 传回同样的梯度；把各行加起来。",
    "First sum over the leading dimensions shape lacks.": "先对 shape 没有的前导维度求和。",
    "Then sum, with keepdim=True, where shape has a 1.": "再在 shape 中大小为 1 的维度上用 keepdim=True 求和。",
    # ---- lesson 10: a custom autograd.Function (the texts _functions fills in for LogCosh), gradcheck
    "write class LogCosh(torch.autograd.Function): with static forward and backward methods.":
        "写 class LogCosh(torch.autograd.Function):，并给它定义静态方法 forward 和 backward。",
    "return x.abs() + (-2 * x.abs()).exp().log1p() - math.log(2) from forward.": "在 forward 里返回 x.abs() + (-2 * x.abs()).exp().log1p() - math.log(2)。",
    "forward to compute log(cosh(x))": "forward 计算的是 log(cosh(x))",
    "forward returns x.abs() + (-2 * x.abs()).exp().log1p() - math.log(2).": "forward 应该返回 x.abs() + (-2 * x.abs()).exp().log1p() - math.log(2)。",
    "forward at x = {where} to give {values}": "forward 在 x = {where} 处给出 {values}",
    "gradients at x = {where} of {values}": "x = {where} 处的梯度为 {values}",
    "cosh(1000) overflows to inf, as exp(1000) did in softplus: write log(cosh(x)) in a form that "
    "never makes a huge number, |x| + log(1 + e^(-2|x|)) - log(2), and use tanh(x) in backward.":
        "cosh(1000) 会溢出成 inf，就像 softplus 里的 exp(1000)：把 log(cosh(x)) 写成不会产生巨大数值的形式 "
        "|x| + log(1 + e^(-2|x|)) - log(2)，backward 里用 tanh(x)。",
    "Right: forward and backward agree with finite differences on hidden inputs, and stay finite far out.":
        "正确：在隐藏的输入上，forward 和 backward 与有限差分一致，在很远处也保持有限。",
    "backward to return grad_output times f'(x) = tanh(x)": "backward 返回 grad_output 乘以 f'(x) = tanh(x)",
    "d log(u)/du = 1/u and d cosh(x)/dx = sinh(x); multiply by grad_output.":
        "用链式法则：d log(u)/du = 1/u，d cosh(x)/dx = sinh(x)；最后乘以 grad_output。",
    "(log cosh x)' = sinh x / cosh x.": "求导：(log cosh x)' = sinh x / cosh x。",
    "your prediction": "你的预测",
    "True or False": "True 或 False",
    "gradcheck returns a bool when raise_exception=False.": "raise_exception=False 时，gradcheck 返回一个布尔值。",
    "gradcheck's verdict on a backward that ignores grad_output": "gradcheck 对一个忽略 grad_output 的 backward 给出的判定",
    "gradcheck seeds one output element at a time (grad_output is 1 there and 0 elsewhere): "
    "what does a rule that ignores grad_output put in the other rows of the Jacobian?":
        "gradcheck 每次只给一个输出元素设置梯度（grad_output 在那个位置为 1，其余位置为 0）："
        "一条忽略 grad_output 的规则，会往雅可比矩阵的其他行里填些什么？",
    "Right: ignoring grad_output fills the Jacobian's off-diagonal, and gradcheck sees it.":
        "正确：忽略 grad_output 会把雅可比矩阵的非对角元素也填上，gradcheck 能发现这一点。",
    "gradcheck builds the Jacobian one row at a time.": "gradcheck 一次构造雅可比矩阵的一行。",
    "A row seeded with e_i must have zeros off position i.": "以 e_i 为初始梯度的那一行，除第 i 个位置以外都应该是 0。",
})  # fmt: skip

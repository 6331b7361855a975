"""The Chinese words of lesson 17's self-checks, in the format of ``_zh.ZH`` (``{English text or
template: 中文}``), kept apart until they are merged into it. Terms: 计算图, 节点, 梯度, 形状,
上游梯度, 广播, 累加; code (``MulBackward0``, ``out.grad``, ``np.expand_dims``) stays code.
"""

from ..language import prepare

ZH_17: dict[str, str] = prepare(
    {
        # ---- check_loop_graph (count)
        "your dict of the count and the gradient": "你的字典（节点个数和梯度）",
        'a dict {"mul_nodes": ..., "x_grad": ...}': '一个字典 {"mul_nodes": ..., "x_grad": ...}',
        "one entry for the number of MulBackward0 nodes, one for x.grad.": "一项是 MulBackward0 节点的个数，一项是 x.grad。",
        'the keys "mul_nodes" and "x_grad"': '键 "mul_nodes" 和 "x_grad"',
        'exactly these two keys, as strings: {"mul_nodes": ..., "x_grad": ...}.': '正好这两个键，写成字符串：{"mul_nodes": ..., "x_grad": ...}。',
        "the number of MulBackward0 nodes": "MulBackward0 节点的个数",
        "a whole number of MulBackward0 nodes": "MulBackward0 节点的个数是一个整数",
        "count nodes: 0, 1, 2, ...": "节点是一个一个数的：0、1、2……",
        "a count is one whole number.": "个数是单个整数。",
        "the number of MulBackward0 nodes in y's graph": "y 的计算图里 MulBackward0 节点的个数",
        "count only the MulBackward0 nodes: y.sum() adds a SumBackward0, and x is an AccumulateGrad.": "只数 MulBackward0 节点：y.sum() 会再添一个 SumBackward0，x 则对应一个 AccumulateGrad。",
        "count only the MulBackward0 nodes, and follow y.norm(): the loop tests it before each multiplication, "
        "starting from x's norm, 0.5, and stops at the first norm that is not below 5.": "只数 MulBackward0 节点，并跟着 y.norm() 走：循环在每次乘法之前检查它，从 x 的范数 0.5 开始，第一次遇到不小于 5 的范数时就停下。",
        "each pass through the loop's body records one MulBackward0; the test y.norm() < 5 records no MulBackward0.": "循环体每执行一次就记录一个 MulBackward0；判断 y.norm() < 5 不会记录 MulBackward0。",
        "your x.grad": "你的 x.grad",
        # the shared templates put {what} right against Chinese: where it begins or ends in code, the
        # whole message, with a space between the code and the Chinese
        "not attempted: the number of MulBackward0 nodes is still the placeholder. Replace it with your answer.": "尚未作答：这里还是占位符，请换成 MulBackward0 节点的个数。",
        "your x.grad with shape {shape}": "你的 x.grad 的形状为 {shape}",
        "your x.grad as numbers": "你的 x.grad 是数字",
        "your x.grad with finite values": "你的 x.grad 全是有限值",
        "x.grad has x's shape: two numbers.": "x.grad 的形状和 x 相同：两个数。",
        "x.grad after y.sum().backward()": "y.sum().backward() 之后的 x.grad",
        "that is y itself; x.grad is ∂(y.sum())/∂x, the product of the factors the loop multiplied by.": "这是 y 本身；x.grad 是 ∂(y.sum())/∂x，也就是循环乘上的那些因子之积。",
        "y.sum() sends 1 to every element of y: x's values decided only how often the loop ran.": "y.sum() 给 y 的每个元素都传回 1：x 的取值只决定了循环运行了几次。",
        "one factor of 3 for each MulBackward0 you counted, no more and no less.": "你数出的每个 MulBackward0 对应一个因子 3，不多也不少。",
        "y.sum() is the sum of x's elements times the product of the loop's factors: differentiate that.": "y.sum() 等于 x 各元素之和乘以循环里那些因子之积：对它求导。",
        "Right: the input decided how often the loop ran, and the graph holds just those products.": "正确：输入决定了循环运行几次，计算图里恰好记录了这几次乘法。",
        # ---- check_array_sum (build)
        "your ArrayValue class": "你的 ArrayValue 类",
        "the ArrayValue class itself": "ArrayValue 类本身",
        "pass the class: check_array_sum(ArrayValue).": "传入这个类：check_array_sum(ArrayValue)。",
        "your sum's backward": "你的 sum 的反向传播",
        "{raw_expr}.backward() to run": "能顺利运行 {raw_expr}.backward()",
        "your ArrayValue on {raw_expr}": "你的 ArrayValue 对 {raw_expr} 的计算",
        "{raw_expr} to give an ArrayValue": "{raw_expr} 得到一个 ArrayValue",
        "pass the lesson's ArrayValue class, with sum.": "传入课程里的 ArrayValue 类，并给它加上 sum。",
        "keep the forward line: self.data.sum(axis=axis).": "保留前向计算那一行：self.data.sum(axis=axis)。",
        "{raw_leaf}.grad after {raw_expr}.backward()": "{raw_expr}.backward() 之后的 {raw_leaf}.grad",
        "{raw_leaf}.grad after {raw_expr}.backward() with shape {shape}": "{raw_expr}.backward() 之后的 {raw_leaf}.grad 的形状为 {shape}",
        "{raw_leaf}.grad after {raw_expr}.backward() as numbers": "{raw_expr}.backward() 之后的 {raw_leaf}.grad 是数字",
        "{raw_leaf}.grad after {raw_expr}.backward() with finite values": "{raw_expr}.backward() 之后的 {raw_leaf}.grad 全是有限值",
        "start grad at zeros, as ArrayValue does, and add into it.": "像 ArrayValue 那样让 grad 从全零开始，再往里累加。",
        "a gradient has the shape of its tensor, here {raw_shape}.": "梯度的形状和它所属的张量相同，这里是 {raw_shape}。",
        "out.grad has the sum's shape: the summed axis is gone from it, so it does not line up with x. Every "
        "element along that axis went into the same sum: out.grad must broadcast back along the summed axis.": "out.grad 的形状是求和结果的形状：被求和的那一维已经不在其中，所以它和 x 对不齐。沿这一维的每个元素都进了同一个和："
        "out.grad 必须沿着被求和的那一维广播回去。",
        "axis may be negative, as in NumPy (-1 is the last axis): the gradient goes back along the axis that "
        "was summed, whichever way it was named.": "和 NumPy 一样，axis 可以是负数（-1 是最后一维）：无论这一维是怎么指定的，梯度都要沿着被求和的那一维传回去。",
        "use out.grad, the gradient arriving from above (here it is not 1), for every element of that sum.": "对参与这个求和的每个元素都要用 out.grad，也就是从上游传来的梯度（这里它不是 1）。",
        "x goes into two sums here: each sum's backward must add into self.grad (+=), not overwrite it.": "这里 x 参与了两个求和：每个求和的反向传播都必须累加到 self.grad 上（+=），而不是覆盖它。",
        "for axis=None every element went into the one sum: each gets out.grad, broadcast to x's shape.": "axis=None 时所有元素都进了同一个和：每个元素都得到 out.grad，广播成 x 的形状。",
        "Right: a sum's backward spreads out.grad back along the summed axis, and adds into self.grad.": "正确：求和的反向传播把 out.grad 沿着被求和的那一维铺开，再累加到 self.grad 上。",
        # ---- the exercises' hints
        "Follow y.norm(): the loop tests it before each multiplication.": "跟着 y.norm() 走：循环在每次乘法之前检查它。",
        "x.grad is the product of the factors the recorded nodes multiply by.": "x.grad 是记录下来的那些节点所乘因子之积。",
        "Each element of x went into one sum: its gradient is that sum's out.grad.": "x 的每个元素都只进了一个和：它的梯度就是那个和的 out.grad。",
        "out.grad lost the summed axis: give it back with size 1, and let += broadcast it.": "out.grad 少了被求和的那一维：把这一维以大小 1 补回来，再让 += 去广播它。",
    }
)

"""The Chinese words of lesson 14's self-checks, in the format of ``_zh.ZH`` (``{English text or
template: 中文}``), kept apart until they are merged into it. Terms: 梯度, 形状, 上游梯度, 节点; code
stays code.
"""

from ..language import prepare

ZH_14: dict[str, str] = prepare(
    {
        # ---- check_softmax_ce_grad (derive)
        "your z.grad": "你的 z.grad",
        "z.grad has z's shape: 2 rows of 3.": "z.grad 的形状和 z 相同：2 行，每行 3 个。",
        "z.grad after loss.backward()": "loss.backward() 之后的 z.grad",
        "cross_entropy averages over the N = 2 rows: divide by N.": "cross_entropy 对 N = 2 行取平均：要除以 N。",
        "the sign: softmax(z) minus the one-hot of the label, not the other way round.": "注意符号：是 softmax(z) 减去标签的 one-hot，而不是反过来。",
        "subtract the one-hot of each row's label from the softmax.": "从 softmax 中减去每一行标签的 one-hot。",
        "for each row, softmax(z) − one-hot(y): softmax of (log 2, 0, 0) is (1/2, 1/4, 1/4); then divide by N.": "对每一行算 softmax(z) − one-hot(y)：(log 2, 0, 0) 的 softmax 是 (1/2, 1/4, 1/4)；然后除以 N。",
        "Right: (softmax(z) − one-hot(y)) / N, a row per example.": "正确：(softmax(z) − one-hot(y)) / N，每个样本一行。",
        # ---- check_linear_function (build)
        "your LinearFunction": "你的 LinearFunction",
        "a subclass of torch.autograd.Function": "torch.autograd.Function 的一个子类",
        "define class LinearFunction(torch.autograd.Function) with forward and backward.": "定义 class LinearFunction(torch.autograd.Function)，并写出 forward 和 backward。",
        "the output of apply(x, weight, bias)": "apply(x, weight, bias) 的输出",
        "x @ weightᵀ + bias is (N, out).": "x @ weightᵀ + bias 的形状是 (N, out)。",
        "the output x @ weightᵀ + bias": "输出 x @ weightᵀ + bias",
        "weight is (out, in): use x @ weight.T.": "weight 的形状是 (out, in)：要用 x @ weight.T。",
        "the output's node to be {raw_name}Backward": "输出的节点是 {raw_name}Backward",
        "another node": "另一个节点",
        "no node": "没有节点",
        "return the result of forward; apply puts your Function's node on it.": "返回 forward 的结果；apply 会给它挂上你的 Function 的节点。",
        "a gradient for {raw_name}": "{raw_name} 的梯度",
        "the gradient of {raw_name}": "{raw_name} 的梯度",
        "grad_x has x's shape (N, in): grad_output (N, out) times weight (out, in).": "grad_x 的形状和 x 相同，是 (N, in)：grad_output (N, out) 乘以 weight (out, in)。",
        "grad_weight has weight's shape (out, in): grad_outputᵀ (out, N) times x (N, in).": "grad_weight 的形状和 weight 相同，是 (out, in)：grad_outputᵀ (out, N) 乘以 x (N, in)。",
        "grad_bias has bias's shape (out,): sum grad_output over the N rows.": "grad_bias 的形状和 bias 相同，是 (out,)：把 grad_output 在 N 行上求和。",
        "Right: the three gradients have their tensors' shapes, and the shapes told you the products.": "正确：三个梯度的形状都和各自的张量相同，而正是这些形状告诉了你该怎么相乘。",
        # ---- the exercises' hints
        "Each gradient has the shape of its tensor.": "每个梯度的形状都和它对应的张量相同。",
        "grad_weight = grad_outputᵀ @ x; grad_bias sums over rows.": "grad_weight = grad_outputᵀ @ x；grad_bias 按行求和。",
        "dL/dz = (softmax(z) − one-hot(y)) / N.": "dL/dz = (softmax(z) − one-hot(y)) / N。",
        "softmax of (log 2, 0, 0) is (1/2, 1/4, 1/4).": "(log 2, 0, 0) 的 softmax 是 (1/2, 1/4, 1/4)。",
    }
)

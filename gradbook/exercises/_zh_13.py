"""The Chinese words of lesson 13's self-checks, in the format of ``_zh.ZH`` (``{English text or
template: 中文}``), kept apart until they are merged into it. Terms: 微批次 (micro-batch), 梯度,
累加, 全批次; code stays code.
"""

from ..language import prepare

ZH_13: dict[str, str] = prepare(
    {
        # ---- check_grad_without_division (predict)
        "your prediction of w.grad": "你对 w.grad 的预测",
        "w.grad without the division": "不做除法时的 w.grad",
        "{value}, the full batch's gradient": "{value}，这是整个批次的梯度",
        "each micro-batch's mean counts fully here: nothing divides by the number of micro-batches.": "这里每个微批次的均值都完整地计入：没有任何地方除以微批次的个数。",
        "w.grad after the two backward() calls": "两次 backward() 调用之后的 w.grad",
        "d/dw mean((w·x − y)²) = mean(2(w·x − y)·x) for each micro-batch; the two calls add up.": "对每个微批次，d/dw mean((w·x − y)²) = mean(2(w·x − y)·x)；两次调用的结果相加。",
        "Right: without / 2 the two micro-batches add up to twice the full batch's gradient.": "正确：不除以 2 时，两个微批次加起来是整个批次梯度的两倍。",
        # ---- check_accumulation_step (debug)
        "your accumulation_step": "你的 accumulation_step",
        "a function accumulation_step(model, optimizer, loss_fn, batches)": "一个函数 accumulation_step(model, optimizer, loss_fn, batches)",
        "define it with def accumulation_step(model, optimizer, loss_fn, batches):": "用 def accumulation_step(model, optimizer, loss_fn, batches): 来定义它。",
        "the parameters to move in each step": "参数在每一步都会移动",
        "parameters that never changed": "参数一直没有变",
        "after the micro-batches' backward() calls, call optimizer.step() once.": "在各个微批次的 backward() 调用之后，调用一次 optimizer.step()。",
        "the parameters after two full-batch steps": "两次全批次更新之后的参数",
        "different parameters": "不同的参数",
        "zero_grad() once before the micro-batches, backward() of loss / k for each of the k, then one step(): "
        "zeroing inside the loop keeps only the last micro-batch, and without / k the step is k times too long.": "先在所有微批次之前调用一次 zero_grad()，再对 k 个微批次各调用一次 loss / k 的 backward()，最后调用一次 step()："
        "在循环里清零只会留下最后一个微批次，而不除以 k 会让这一步长了 k 倍。",
        "Right: k backward passes of loss / k, then one step, are one full-batch step.": "正确：k 次 loss / k 的反向传播，再加一次 step()，就是一次全批次的更新。",
        # ---- the exercises' hints
        "Compute each micro-batch's gradient of its mean loss.": "算出每个微批次的平均损失的梯度。",
        "The two backward() calls add.": "两次 backward() 调用的结果会相加。",
        "zero_grad() once, before the first micro-batch.": "在第一个微批次之前调用一次 zero_grad()。",
        "Divide each micro-batch's loss by k.": "把每个微批次的损失除以 k。",
    }
)

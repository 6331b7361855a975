"""The Chinese words of the self-checks of lessons 05-07, in the format of ``_zh.ZH``
(``{English text or template: 中文}``), kept apart until they are merged into it.

Fields in braces are filled with the message's own values, themselves translated when they are
phrases of the catalogue (``{raw_...}`` fields are kept as they are). Terms: 梯度, 反向传播, 计算图,
叶子节点, 累加, 张量, 二阶导数, 原地操作; code stays code.
"""

from ..language import prepare

ZH_05_07: dict[str, str] = prepare({
    # ---- lesson 05: higher-order gradients
    "your prediction of d2y": "你对 d2y 的预测",
    "d2y, the second derivative of y at x = 1": "d2y，也就是 y 在 x = 1 处的二阶导数",
    "{value}, the first derivative dy": "{value}，这是一阶导数 dy",
    "d2y is the derivative of dy: differentiate 4x³ + 6x² once more.": "d2y 是 dy 的导数：把 4x³ + 6x² 再求一次导。",
    "{value}, a third derivative": "{value}，这是三阶导数",
    "the program calls autograd.grad twice: differentiate y two times, not three.":
        "程序调用了两次 autograd.grad：对 y 求两次导，而不是三次。",
    "the derivative of xⁿ is n·xⁿ⁻¹; apply it twice to each term, then set x = 1.":
        "xⁿ 的导数是 n·xⁿ⁻¹；对每一项用两次，然后代入 x = 1。",
    "Right: the second grad differentiated the graph that create_graph=True recorded.":
        "正确：第二次 grad 对 create_graph=True 记录下来的计算图又求了一次导。",
    "your nth_derivative": "你的 nth_derivative",
    "the result of your nth_derivative": "你的 nth_derivative 的返回值",
    "every derivative but the last to have a graph of its own": "除了最后一个，每个导数都带有自己的计算图",
    "pass create_graph=True to autograd.grad, so that its result can be differentiated again.":
        "给 autograd.grad 传入 create_graph=True，这样它的结果才能再次求导。",
    "f evaluated at x only, and differentiated by autograd": "只在 x 处计算 f，并由 autograd 求导",
    "a function that evaluates f at other points (finite differences?)": "一个在其他点上计算 f 的函数（有限差分？）",
    "call f(x) once, then differentiate its graph with torch.autograd.grad.":
        "调用一次 f(x)，然后用 torch.autograd.grad 对它的计算图求导。",
    "a function nth_derivative(f, x, n)": "一个函数 nth_derivative(f, x, n)",
    "define it with def nth_derivative(f, x, n):": "用 def nth_derivative(f, x, n): 来定义它",
    "a tensor holding one number": "一个只含一个数的张量",
    "return what autograd.grad gave, unpacked.": "返回 autograd.grad 给出的结果（从元组里取出来）。",
    "your derivative for n = {n}": "你在 n = {n} 时求出的导数",
    "the derivative of order {n}": "{n} 阶导数",
    "the derivative of order {n} at x": "x 处的 {n} 阶导数",
    "f(x) itself": "f(x) 本身",
    "differentiate f(x) with autograd.grad.": "用 autograd.grad 对 f(x) 求导。",
    "the first derivative": "一阶导数",
    "call autograd.grad again on its own result, n times in all.":
        "对 autograd.grad 的结果再调用 autograd.grad，一共 n 次。",
    "a derivative of another order": "另一个阶数的导数",
    "count the calls to autograd.grad: exactly n of them.": "数一数 autograd.grad 的调用次数：应该正好 n 次。",
    "a different value": "不一样的值",
    "differentiate the result of the previous call each time, with respect to the same x.":
        "每次都对上一次调用的结果求导，而且都是对同一个 x 求导。",
    "Right: n calls of autograd.grad, each on a graph the previous one recorded.":
        "正确：调用了 n 次 autograd.grad，每次都作用在上一次记录下来的计算图上。",
    "dy is f'(x) as a tensor with a graph; d2y differentiates it.": "dy 是带计算图的张量 f'(x)；d2y 是对它再求导。",
    "f'(x) = 4x³ + 6x²: differentiate it once more.": "f'(x) = 4x³ + 6x²：再对它求一次导。",
    "Start from out = f(x), and replace out by its derivative n times.":
        "从 out = f(x) 开始，把 out 换成它的导数，重复 n 次。",
    "Without create_graph=True the result has no graph, and the next grad cannot differentiate it.":
        "没有 create_graph=True，结果就没有计算图，下一次 grad 就无法对它求导。",
    # ---- lesson 06: no_grad, detach and in-place operations
    "x.grad through the recorded paths only": "只沿被记录下来的路径得到的 x.grad",
    "{value}, as if nothing had been cut": "{value}，就好像计算图没有被切断一样",
    "{value}, as if a.detach() were a": "{value}，就好像 a.detach() 就是 a 一样",
    "{value}, as if c had been recorded": "{value}，就好像 c 也被记录进了计算图一样",
    "a.detach() is a constant with a's value, and c, computed under no_grad(), is a constant too.":
        "a.detach() 是一个取值等于 a 的常量；在 no_grad() 下算出的 c 也是常量。",
    "d = a + b + c: differentiate a = x·x, and b = (a constant) · x, at x = 2; c adds nothing.":
        "d = a + b + c：在 x = 2 处对 a = x·x 和 b = （一个常量）· x 求导；c 不贡献梯度。",
    "Right: backward followed only what was recorded; detach() and no_grad() made constants.":
        "正确：反向传播只沿记录下来的运算进行；detach() 和 no_grad() 得到的都是常量。",
    "your round_ste": "你的 round_ste",
    "the result of your round_ste": "你的 round_ste 的返回值",
    "a function round_ste(x)": "一个函数 round_ste(x)",
    "define it with def round_ste(x):": "用 def round_ste(x): 来定义它",
    "a tensor": "一个张量",
    "return a tensor computed from x.": "返回一个由 x 计算得到的张量。",
    "your round_ste(x)": "你的 round_ste(x)",
    "round_ste to leave its input x as it was": "round_ste 不改动它的输入 x",
    "a function that changed x in place": "一个原地修改了 x 的函数",
    "compute a new tensor from x (x.round() returns one) instead of rounding x itself.":
        "由 x 计算出一个新张量（x.round() 返回的就是新张量），而不是对 x 本身取整。",
    "the values of x.round()": "x.round() 的值",
    "the values of x itself, not rounded": "x 本身的值，没有取整",
    "the forward value must be rounded; only the gradient behaves like the identity.":
        "前向的值必须取整；只有梯度表现得像恒等函数。",
    "other values": "别的值",
    "round x in the forward pass.": "在前向计算中对 x 取整。",
    "a result that backward can go through, back to x": "一个反向传播能穿过、一直回到 x 的结果",
    "a result with no graph": "一个没有计算图的结果",
    "detach only the part that should not be differentiated, not the whole result.":
        "只 detach 不该求导的那一部分，而不是整个结果。",
    "backward through your result": "沿你的结果做反向传播",
    "the gradient that reached x": "到达 x 的梯度",
    "the gradient of the identity: the seed, unchanged": "恒等函数的梯度：原样传回的初始梯度",
    "a gradient of zero (round() has derivative 0)": "零梯度（round() 的导数是 0）",
    "write the result as x plus a correction that backward treats as a constant.":
        "把结果写成 x 加上一个修正项，而反向传播把这个修正项当作常量。",
    "a gradient that changes the seed": "一个改变了初始梯度的梯度",
    "the part of your result that backward sees must be x itself, with coefficient 1.":
        "结果中反向传播能看到的那一部分必须就是 x 本身，系数为 1。",
    "Right: rounded forward, identity backward; the detached correction is a constant.":
        "正确：前向取整，反向恒等；detach 之后的修正项是常量。",
    "Which of a, b, c reach x through recorded ops?": "a、b、c 中哪些能通过被记录的运算到达 x？",
    "b = (a constant) · x: its derivative is that constant.": "b = （一个常量）· x：它的导数就是那个常量。",
    "The forward value and the gradient can come from different terms.": "前向的值和梯度可以来自不同的项。",
    "A term that backward sees as a constant changes the value and adds nothing to the gradient.":
        "反向传播视为常量的项会改变值，但不给梯度增加任何东西。",
    # ---- lesson 07: a training loop
    "your prediction of w": "你对 w 的预测",
    "w after two steps without zero_grad()": "没有 zero_grad() 时两步之后的 w",
    "{value}, which is w if the gradient were zeroed between the steps": "{value}，这是两步之间把梯度清零时 w 的值",
    "nothing empties w.grad here: the second step uses the first gradient plus the second.":
        "这里没有任何操作清空 w.grad：第二步用的是第一次的梯度加上第二次的梯度。",
    "w after both steps": "两步都做完之后的 w",
    "{value}, w after the first step": "{value}，这是第一步之后的 w",
    "the loop runs twice.": "循环运行了两次。",
    "step 1: w.grad = 2w, then w moves; step 2: w.grad adds 2w at the new w, and w moves by lr times the sum.":
        "第 1 步：w.grad = 2w，然后 w 移动；第 2 步：w.grad 再累加新 w 处的 2w，w 移动 lr 乘以这个和。",
    "Right: without zero_grad() the second step used the sum of both gradients.":
        "正确：没有 zero_grad()，第二步用的是两次梯度之和。",
    "a list of {n} losses, one per step": "一个含 {n} 个损失值的列表，每步一个",
    "append loss.item() to a list in every step, and return the list.":
        "每一步把 loss.item() 追加到列表里，最后返回这个列表。",
    "a list of {n}": "一个含 {n} 个元素的列表",
    "append one loss per step, steps times.": "每步追加一个损失值，一共 steps 次。",
    "the losses as plain numbers": "普通数字形式的损失值",
    "tensors that require grad": "需要梯度的张量",
    "store loss.item(): a loss tensor keeps its whole graph alive, step after step.":
        "保存 loss.item()：损失张量会让它整个计算图一直留在内存里，一步接一步越积越多。",
    "each loss": "每个损失值",
    "your training_loop": "你的 training_loop",
    "a function training_loop(model, optimizer, loss_fn, inputs, targets, steps)":
        "一个函数 training_loop(model, optimizer, loss_fn, inputs, targets, steps)",
    "define it with def training_loop(model, optimizer, loss_fn, inputs, targets, steps):":
        "用 def training_loop(model, optimizer, loss_fn, inputs, targets, steps): 来定义它",
    "the parameters to stay leaf tensors that require grad": "参数仍然是需要梯度的叶子节点",
    "a parameter that lost requires_grad or became the result of an operation":
        "某个参数丢掉了 requires_grad，或者变成了某个运算的结果",
    "let optimizer.step() update the parameters (it works under no_grad).":
        "让 optimizer.step() 来更新参数（它在 no_grad 下进行原地操作）。",
    "the parameters after training": "训练之后的参数",
    "the parameters to move in every step": "参数每一步都在移动",
    "parameters that never changed": "从没变过的参数",
    "call optimizer.step() after loss.backward(); zero_grad() between them erases the gradient it needs.":
        "在 loss.backward() 之后调用 optimizer.step()；在两者之间调用 zero_grad() 会抹掉它需要的梯度。",
    "each step to use only the gradient of its own loss": "每一步只用到它自己这一步损失的梯度",
    "steps that used the sum of all the gradients so far": "每一步用的都是到目前为止所有梯度的累加和",
    "backward() adds into .grad: call optimizer.zero_grad() in every step, before backward().":
        "backward() 会累加到 .grad 上：每一步在 backward() 之前调用 optimizer.zero_grad()。",
    "the parameters after {n} steps of gradient descent": "{n} 步梯度下降之后的参数",
    "different parameters": "不一样的参数",
    "in each step: zero_grad(), forward, loss, backward(), step(), in this order, steps times.":
        "每一步按顺序做：zero_grad()、前向计算、损失、backward()、step()，一共 steps 次。",
    "the loss of each step, computed before its update": "每一步在更新之前算出的损失",
    "other losses": "别的损失值",
    "append loss.item() for the loss you called backward() on, in the same step.":
        "在同一步里，追加你调用了 backward() 的那个损失的 loss.item()。",
    "Right: every step zeroed, computed a new graph, went backward and stepped.":
        "正确：每一步都清零梯度、构建新的计算图、反向传播，然后更新参数。",
    "Write down w.grad and w after each step.": "把每一步之后的 w.grad 和 w 写下来。",
    "The second backward() adds to the gradient of the first.": "第二次 backward() 会累加到第一次的梯度上。",
    "One step: zero the gradients, forward, loss, backward, step.": "一步：梯度清零、前向计算、损失、反向传播、更新。",
    "Return a list of numbers: loss.item(), not the loss tensor.": "返回一个数字列表：loss.item()，而不是损失张量。",
})  # fmt: skip

"""The self-checks' words in Chinese: ``{English text or template: 中文}`` (see ``gradbook.language``).

Fields in braces are filled with the message's own values, themselves translated when they are
phrases of this table (``{raw_...}`` fields, an error's own text, are kept as they are). Terms as
the Chinese PyTorch community writes them: 梯度, 反向传播, 计算图, 叶子节点, 累加, 张量, 形状;
code (``x.grad``, ``zero_()``, ``retain_graph=True``, op names) stays code.
"""

from ..language import prepare
from ._zh_05_07 import ZH_05_07
from ._zh_08_10 import ZH_08_10
from ._zh_11 import ZH_11
from ._zh_12 import ZH_12
from ._zh_13 import ZH_13
from ._zh_14 import ZH_14
from ._zh_15 import ZH_15
from ._zh_16 import ZH_16
from ._zh_17 import ZH_17

ZH: dict[str, str] = prepare({
    # ---- _checking: the three parts of every message, and what every check shares
    "Expected": "期望",
    "You gave": "你的答案",
    "Hint": "提示",
    "not attempted: {what} is still the placeholder. Replace it with your answer.":
        "尚未作答：这里还是占位符，请换成{what}。",
    "No hint for this one: reread the question and the worked example before it.":
        "这道题没有提示：把题目和它前面的示例再读一遍吧。",
    "the checking tools as gradbook imported them": "检查用到的工具保持 gradbook 导入时的原样",
    "a notebook in which {what} was replaced": "一个替换了 {what} 的 notebook",
    "restart the kernel, remove the code that replaces it, and answer the question itself.":
        "重启内核，删掉替换它的代码，然后直接回答题目本身。",
    "{what} to run without an error": "能顺利运行{what}，不报错",
    "it raised {raw_error}": "它抛出了 {raw_error}",
    "call your code on its own in a cell: the traceback names the line and the operation that failed.":
        "在一个单独的单元格里调用你的代码：报错信息（traceback）会指出出错的那一行和那个操作。",
    "a tensor of shape {shape} and dtype {dtype}": "形状为 {shape}、dtype 为 {dtype} 的张量",
    "a NumPy array of shape {shape} and dtype {dtype}": "形状为 {shape}、dtype 为 {dtype} 的 NumPy 数组",
    "an object of type {type} (its repr raised {error})": "类型为 {type} 的对象（它的 repr 抛出了 {error}）",
    "{what} as numbers": "{what}是数字",
    "{what} as real numbers": "{what}是实数",
    "{what} with a single number": "{what}是单个数字",
    "{what} with shape {shape}": "{what}的形状为 {shape}",
    "shape {shape}": "形状为 {shape}",
    "{what} with finite values": "{what}全是有限值",
    "NaN or inf in your answer": "你的答案里有 NaN 或 inf",
    "give a number or a tensor, not text or True/False.": "请给出一个数字或张量，而不是文本或 True/False。",
    "give a tensor of real numbers.": "请给出由实数组成的张量。",
    "give a number, a list of numbers, or a tensor.": "请给出一个数字、一个数字列表或一个张量。",
    "a gradient has the same shape as the tensor it belongs to.": "梯度的形状和它所属的张量相同。",
    "look for a division by zero or log(0).": "检查一下有没有除以零或 log(0)。",
    # ---- what the checks call the learner's answers
    "your prediction of x.grad": "你对 x.grad 的预测",
    "your training step": "你的训练函数 step",
    "w after step {k}": "第 {k} 步之后 w 的值",
    "your Jacobian": "你的雅可比矩阵",
    "your Function": "你的 Function",
    "your backward": "你的 backward",
    "your forward's output": "你的 forward 的输出",
    "your backward_twice": "你的 backward_twice",
    "x.grad after your function": "你的函数运行之后 x.grad 的值",
    "your build function": "你的 build 函数",
    "the result of your build function": "你的 build 函数的返回值",
    "your set of names": "你给出的名字集合",
    # ---- lesson 01: gradients accumulate
    "x.grad after the last line: what was left after zero_(), plus what each later backward() added":
        "最后一行之后的 x.grad：zero_() 之后剩下的值，加上之后每次 backward() 累加进去的梯度",
    "zero_() sets x.grad to 0 but keeps accumulating afterwards; add up 3x² and 5 at x = 3.":
        "zero_() 把 x.grad 清零，但之后的梯度照样累加；把 x = 3 处的 3x² 和 5 加起来。",
    "Right: zero_() cleared the first three calls, then the next two accumulated again.":
        "正确：zero_() 清掉了前三次调用的梯度，之后的两次调用又重新累加。",
    "x.grad after all three calls": "三次调用之后的 x.grad",
    "{value}, the gradient of one call": "{value}，这只是一次调用的梯度",
    "backward() does not overwrite x.grad: each call adds its gradient to what is already there.":
        "backward() 不会覆盖 x.grad：每次调用都会把梯度累加到已有的值上。",
    "x.grad after all three calls at x = 3": "x = 3 时三次调用之后的 x.grad",
    "{value}, what the seed program printed at x = 2": "{value}，这是种子程序在 x = 2 时打印的值",
    "here x = 3: work out dy/dx = 2x at x = 3 for one call first.": "这里 x = 3：先算出一次调用在 x = 3 处的 dy/dx = 2x。",
    "work out dy/dx = 2x at x = 3 for one call, then think about what three calls leave behind.":
        "先算出一次调用在 x = 3 处的 dy/dx = 2x，再想想三次调用之后 x.grad 里留下了什么。",
    "Right: three backward() calls added their gradients together.":
        "正确：三次 backward() 调用把各自的梯度累加在了一起。",
    "a function step(w, x, y, lr)": "一个函数 step(w, x, y, lr)",
    "define it with def step(w, x, y, lr):": "用 def step(w, x, y, lr): 来定义它",
    "w to stay a leaf tensor that requires grad": "w 仍然是需要梯度的叶子节点",
    "w lost requires_grad or became the result of an operation": "w 丢掉了 requires_grad，或者变成了某个运算的结果",
    "update w in place (w -= ...) inside `with torch.no_grad():`.":
        "在 `with torch.no_grad():` 里原地更新 w（w -= ...）。",
    "w to move by -lr times the gradient of the loss after one step": "一步之后，w 移动了 -lr 乘以损失的梯度",
    "a different w after the first step": "第一步之后的 w 不一样",
    "call loss.backward() before the update, and subtract lr * w.grad (note the minus sign).":
        "更新之前先调用 loss.backward()，然后减去 lr * w.grad（注意是减号）。",
    "step {k} to use only the gradient of its own loss": "第 {k} 步只用到它自己这一步损失的梯度",
    "the first step is right, but a later one is not": "第一步是对的，但后面的某一步不对",
    "gradients accumulate: set w.grad = None (or w.grad.zero_()) after each update.":
        "梯度会累加：每次更新之后设置 w.grad = None（或者调用 w.grad.zero_()）。",
    "Right: your step follows the gradient and starts each step from a zero gradient.":
        "正确：你的 step 沿梯度下降，并且每一步都从零梯度开始。",
    "What does one backward() put into x.grad? dy/dx of x·x is 2x.":
        "一次 backward() 往 x.grad 里放了什么？x·x 的 dy/dx 是 2x。",
    "backward() adds to x.grad.": "backward() 是在 x.grad 上累加。",
    "Only what happens after zero_() is left.": "只有 zero_() 之后发生的事会留下来。",
    "Add d(x³)/dx and d(5x)/dx, both at x = 3.": "把 d(x³)/dx 和 d(5x)/dx 加起来，都在 x = 3 处取值。",
    "Update w under torch.no_grad(), in place.": "在 torch.no_grad() 下原地更新 w。",
    "Zero the gradient after the update, or the next step adds to it.":
        "更新之后把梯度清零，否则下一步会在它上面继续累加。",
    # ---- lesson 02: vector-Jacobian products, a backward rule of your own
    "x.grad weighted by the seed v": "按 v 加权之后的 x.grad",
    "the diagonal of J, without v": "J 的对角线，没有乘上 v",
    "backward(v) multiplies each row of J by the matching entry of v.":
        "backward(v) 会把 J 的每一行乘以 v 中对应的元素。",
    "vᵀJ for this v": "这个 v 对应的 vᵀJ",
    "compute 2xᵢ + 3 for each i, then multiply by vᵢ.": "对每个 i 算出 2xᵢ + 3，再乘以 vᵢ。",
    "Right: backward(v) gave the vector-Jacobian product vᵀJ.": "正确：backward(v) 给出的是向量-雅可比积 vᵀJ。",
    "row i to be the gradient of yᵢ": "第 i 行是 yᵢ 的梯度",
    "a transposed layout": "行和列转置了",
    "J[i, j] = ∂yᵢ/∂xⱼ at x = (2, 3)": "在 x = (2, 3) 处 J[i, j] = ∂yᵢ/∂xⱼ",
    "a Jacobian whose row(s) {rows} are off": "一个第 {rows} 行不对的雅可比矩阵",
    "differentiate each yᵢ with respect to x₀ and to x₁; you can check a row with y.backward(eᵢ).":
        "把每个 yᵢ 分别对 x₀ 和 x₁ 求导；可以用 y.backward(eᵢ) 检查其中一行。",
    "Right: that is the Jacobian, one row per output.": "正确：这就是雅可比矩阵，每个输出对应一行。",
    "a class that subclasses torch.autograd.Function": "一个继承 torch.autograd.Function 的类",
    "write class XSinX(torch.autograd.Function): with static forward and backward methods.":
        "写 class XSinX(torch.autograd.Function):，并给它定义静态方法 forward 和 backward。",
    "a plain subclass of torch.autograd.Function": "一个普通的 torch.autograd.Function 子类",
    "a class that cannot be extended ({raw_error})": "一个不能被继承的类（{raw_error}）",
    "define it with class.": "用 class 来定义它。",
    "forward to return a tensor": "forward 返回一个张量",
    "return x * x.sin() from forward.": "在 forward 里返回 x * x.sin()。",
    "forward to compute x · sin(x)": "forward 计算的是 x · sin(x)",
    "different values": "不一样的值",
    "forward returns x * x.sin().": "forward 应该返回 x * x.sin()。",
    "an output with a grad_fn": "一个带 grad_fn 的输出",
    "no graph": "没有计算图",
    "call YourFunction.apply(x), not forward directly.": "调用 YourFunction.apply(x)，不要直接调用 forward。",
    "the output's grad_fn to be your Function's own backward node": "输出的 grad_fn 是你的 Function 自己的反向节点",
    "a {node} made by built-in operations": "一个由内置运算生成的 {node}",
    "keep apply as torch.autograd.Function defines it, and compute in forward without autograd.":
        "apply 保持 torch.autograd.Function 原本的定义，在 forward 里直接计算，不借助 autograd。",
    "backward to return grad_output times f'(x) = sin(x) + x·cos(x)":
        "backward 返回 grad_output 乘以 f'(x) = sin(x) + x·cos(x)",
    "a backward that disagrees with finite differences": "一个和有限差分结果对不上的 backward",
    "apply the product rule, and multiply by grad_output: it is the v of vᵀJ.":
        "用乘积法则求导，再乘以 grad_output：它就是 vᵀJ 里的 v。",
    "backward to run without an error": "backward 能顺利运行，不报错",
    "read x back with (x,) = ctx.saved_tensors, and return one gradient per input.":
        "用 (x,) = ctx.saved_tensors 取回 x，并为每个输入返回一个梯度。",
    "gradients computed by your backward method": "梯度由你的 backward 方法计算",
    "a check in which your backward was never called": "整个检查过程中你的 backward 一次都没有被调用",
    "write backward(ctx, grad_output) as a static method of your Function.":
        "把 backward(ctx, grad_output) 写成你的 Function 的静态方法。",
    "Right: forward and backward agree with finite differences on hidden inputs.":
        "正确：在隐藏的输入上，forward 和 backward 都与有限差分的结果一致。",
    "J is diagonal here.": "这里的 J 是对角矩阵。",
    "Row i is the gradient of y[i].": "第 i 行是 y[i] 的梯度。",
    "Save x in forward with ctx.save_for_backward(x).": "在 forward 里用 ctx.save_for_backward(x) 保存 x。",
    "Product rule: (x sin x)' = sin x + x cos x.": "乘积法则：(x sin x)' = sin x + x cos x。",
    # ---- lesson 03: retain_graph
    "the sum of everything the three backward() calls added to x.grad": "三次 backward() 调用累加到 x.grad 上的总和",
    "retain_graph=True keeps the graph, and each call still adds: 3x² twice, then d(x⁴)/dx = 4x³.":
        "retain_graph=True 会保留计算图，而每次调用照样累加：两次 3x²，再加上 d(x⁴)/dx = 4x³。",
    "Right: retained or not, every backward() adds into x.grad.":
        "正确：不管是否保留计算图，每次 backward() 都会累加到 x.grad 上。",
    "a function backward_twice(y)": "一个函数 backward_twice(y)",
    "define it with def.": "用 def 来定义它。",
    "both backward() calls to succeed": "两次 backward() 调用都成功",
    "the second call found the graph already freed": "第二次调用时，计算图已经被释放了",
    "the first call must keep the graph: pass retain_graph=True to it.":
        "第一次调用必须保留计算图：给它传入 retain_graph=True。",
    "two backward passes through y's graph, each starting from y itself (a seed of 1)":
        "沿 y 的计算图做两次反向传播，每次都从 y 本身开始（初始梯度为 1）",
    "{n} pass(es)": "{n} 次反向传播",
    "{n} pass(es), not all seeded with 1": "{n} 次反向传播，而且初始梯度不全是 1",
    "call y.backward() a second time, on y itself; the first call needs retain_graph=True.":
        "在 y 本身上再调用一次 y.backward()；第一次调用需要 retain_graph=True。",
    "x.grad filled by two backward() calls": "由两次 backward() 调用填入的 x.grad",
    "x.grad is None": "x.grad 是 None",
    "call y.backward() in the function.": "在函数里调用 y.backward()。",
    "two backward() calls": "两次 backward() 调用",
    "x.grad from one call only": "只来自一次调用的 x.grad",
    "call y.backward() a second time.": "再调用一次 y.backward()。",
    "x.grad equal to twice dy/dx": "x.grad 等于 dy/dx 的两倍",
    "a different x.grad": "不一样的 x.grad",
    "call y.backward exactly twice, on y itself, with no other changes to x.grad.":
        "在 y 本身上恰好调用两次 y.backward，不要用别的方式改动 x.grad。",
    "Right: the first backward kept the graph, so the second could use it.":
        "正确：第一次 backward 保留了计算图，所以第二次还能用它。",
    "retain_graph changes what is freed, not how .grad accumulates.":
        "retain_graph 改变的是哪些东西被释放，而不是 .grad 怎样累加。",
    "Read the error message of the second call.": "读一读第二次调用的报错信息。",
    "y.backward(retain_graph=True) keeps the saved tensors.": "y.backward(retain_graph=True) 会留住保存下来的张量。",
    # ---- lesson 04: reading the graph
    "a function build(x)": "一个函数 build(x)",
    "define it with def build(x):": "用 def build(x): 来定义它",
    "a tensor with the graph {chain}": "一个计算图为 {chain} 的张量",
    "{answer} with no grad_fn": "{answer}，没有 grad_fn",
    "compute the result from x with tensor operations, and return it.": "用张量运算从 x 算出结果，然后返回它。",
    "a single chain {chain}": "一条单链 {chain}",
    "a graph that branches: {branch}": "一个有分叉的计算图：{branch}",
    "{node} has {n} inputs in the graph": "{node} 在计算图中有 {n} 个输入",
    "use x only once, and combine it with plain numbers, not with other tensors that require grad.":
        "x 只用一次，只和普通数字组合，不要和其他需要梯度的张量组合。",
    "the last op you apply is the root of the graph; read the chain from x upwards.":
        "你最后做的那个运算就是计算图的根；从 x 开始往上读这条链。",
    "a node named {name} that is not gradbook's {reference}":
        "一个名叫 {name} 的节点，但它不是 gradbook 的 {reference}",
    "build the chain with the tensor operations themselves (x.exp(), *, .sum()).":
        "用张量运算本身（x.exp()、*、.sum()）来搭这条链。",
    "a graph that starts at the x passed to build": "从传给 build 的那个 x 开始的计算图",
    "a graph of another leaf": "另一个叶子节点的计算图",
    "use the argument x.": "使用参数 x。",
    "{chain}, computing sum(c · exp(x))": "{chain}，计算的是 sum(c · exp(x))",
    "a result or gradient that those ops do not give": "这些运算给不出的结果或梯度",
    "multiply exp(x) by a plain number, then sum.": "把 exp(x) 乘以一个普通数字，然后求和。",
    "Right: your graph is exactly the chain {chain}.": "正确：你的计算图正好是 {chain} 这条链。",
    "the names of the tensors, like {'x', 'y'}": "张量的名字，比如 {'x', 'y'}",
    "give a set (or list) of names as strings.": "请给出一个由名字（字符串）组成的集合或列表。",
    "{answer}, whose iteration raised {error}": "{answer}，对它迭代时抛出了 {error}",
    "names as strings, like 'a'": "字符串形式的名字，比如 'a'",
    "a tensor": "一个张量",
    "write the variable names in quotes.": "把变量名写在引号里。",
    "names among a, b, c, d, f": "a、b、c、d、f 中的名字",
    "use the variable names from the program.": "使用程序里的变量名。",
    "exactly the leaves that backward() reached through the graph of e":
        "恰好是 backward() 沿 e 的计算图到达的那些叶子节点",
    "{reasons}. Remember that .detach() and no_grad() cut the graph.":
        "{reasons}。记住：.detach() 和 no_grad() 会切断计算图。",
    "{first}; {rest}": "{first}；{rest}",
    "{name} does not require grad": "{name} 不需要梯度",
    "no path of grad_fn nodes leads from e back to {name}": "从 e 出发沿 grad_fn 节点走，到不了 {name}",
    "some leaf that e was computed from is missing from your set": "你的集合里少了某个参与计算 e 的叶子节点",
    "Right: only leaves that require grad and are reached through the graph get a .grad.":
        "正确：只有需要梯度、并且能沿计算图到达的叶子节点才会得到 .grad。",
    "The root's grad_fn is the last op.": "根节点的 grad_fn 就是最后一个运算。",
    "Multiplying by a plain number does not add a leaf.": "乘以一个普通数字不会增加叶子节点。",
    "Follow next_functions from e.grad_fn.": "从 e.grad_fn 出发，沿着 next_functions 往下走。",
    "A detached tensor is a new leaf that does not require grad.":
        "detach 出来的张量是一个新的叶子节点，它不需要梯度。",
})  # fmt: skip

# the later lessons' words, kept in their own files (one per group of lessons)
ZH.update(ZH_05_07)
ZH.update(ZH_08_10)
ZH.update(ZH_11)
ZH.update(ZH_12)
ZH.update(ZH_13)
ZH.update(ZH_14)
ZH.update(ZH_15)
ZH.update(ZH_16)
ZH.update(ZH_17)
prepare(ZH)

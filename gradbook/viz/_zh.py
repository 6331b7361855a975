"""The drawings' words in Chinese: ``{English text or template: 中文}`` (see ``gradbook.language``).

A node's row names (data, grad, shape, saved, freed, refused), its small titles, the legend and
the note over a collapsed large graph. What the drawing shows of the program stays as it is:
tensor values, torch's class names (``MulBackward0``, ``AccumulateGrad``), the variables' names,
the arguments' names on the edges and code (``grad_fn``, ``retain_grad()``, ``max_nodes=``).
"""

from ..language import prepare

ZH: dict[str, str] = prepare({
    # ---- a node's rows and titles
    "data": "数值",
    "grad": "梯度",
    "shape": "形状",
    "saved": "已保存",
    "freed": "已释放",
    "refused": "报错",
    "Tensor (no grad_fn)": "张量（没有 grad_fn）",
    "constant": "常量",
    # ---- an animation's captions, one per frame (the player's line above the graph, a GIF's band)
    "before backward()": "backward() 之前",
    "step {n}: {node}": "第 {n} 步：{node}",
    "refused at {node}: {raw_message}": "在 {node} 处报错：{raw_message}",
    "autograd graph of {n} nodes": "含 {n} 个节点的 autograd 计算图",
    # ---- the legend (draw.ROLE_COLOURS's texts)
    "legend": "图例",
    "leaf that requires grad (AccumulateGrad)": "需要梯度的叶子节点（AccumulateGrad）",
    "output: a tensor passed to draw()": "输出：传给 draw() 的张量",
    "non-leaf that called retain_grad()": "调用过 retain_grad() 的非叶子节点",
    "op: a grad_fn": "运算：一个 grad_fn",
    "constant: an input that needs no grad": "常量：不需要梯度的输入",
    "saved tensors, kept for backward": "已保存：为反向传播保留的张量",
    "freed: saved tensors released by backward()": "已释放：被 backward() 释放掉的保存张量",
    "running: the node this step of backward() runs": "运行中：backward() 这一步运行的节点",
    "a gradient sent along this edge (its value)": "沿这条边传出的梯度（标出它的值）",
    "refused: the node a refused backward() stopped at": "报错：backward() 报错时停下的那个节点",
    "dashed border: a constant, or a node whose saved tensors were freed": "虚线边框：常量，或保存的张量已被释放的节点",
    # ---- a large graph, collapsed
    "Large graph: {n} nodes, at least max_nodes={max_nodes}. {hidden} of them are hidden in {boxes}; "
    "shown: {near} nodes nearest the outputs and {leaves}. Pass max_nodes={all} to draw them all.":
        "大计算图：{n} 个节点，不少于 max_nodes={max_nodes}。其中 {hidden} 个藏在 {boxes}里；"
        "显示的是离输出最近的 {near} 个节点和 {leaves}。传入 max_nodes={all} 可以全部画出来。",
    "{n} grey box": "{n} 个灰色方框",
    "{n} grey boxes": "{n} 个灰色方框",
    "{n} leaf": "{n} 个叶子节点",
    "{n} leaves": "{n} 个叶子节点",
    "{n} hidden node": "{n} 个隐藏节点",
    "{n} hidden nodes": "{n} 个隐藏节点",
    "and {n} more kinds": "还有另外 {n} 种",
})  # fmt: skip

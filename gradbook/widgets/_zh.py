"""The widgets' words in Chinese: ``{English text or template: 中文}`` (see ``gradbook.language``).

Buttons, tooltips, status lines, the chain-rule ledger and the player's controls. Code on the
controls (``backward()``, ``zero_()``, ``retain_graph``, ``gradient=``) stays code, and torch's
error texts stay as torch prints them (``{raw_...}`` fields are kept as they are).
"""

from ..language import prepare

ZH: dict[str, str] = prepare({
    # ---- _common: the status line, pictures
    "ready": "就绪",
    "(raised inside the widget's callback)": "（在控件的回调函数里抛出）",
    "no Graphviz renderer ({raw_error})": "没有可用的 Graphviz 渲染器（{raw_error}）",
    "no static view ({raw_error})": "没有静态视图（{raw_error}）",
    "gradbook picture": "gradbook 图",
    # ---- the player (player.js's labels, and the captions above the graph)
    "drag: pan · ctrl+wheel or pinch: zoom · click a node: focus":
        "拖动：平移 · ctrl+滚轮或双指捏合：缩放 · 点击节点：聚焦",
    "first frame": "第一帧",
    "one step back": "后退一步",
    "play": "播放",
    "pause": "暂停",
    "one step forward": "前进一步",
    "last frame": "最后一帧",
    "step": "步骤",
    "fit": "适应",
    "fit the graph to the box (text kept readable)": "让计算图适应窗口（文字保持可读）",
    "all": "全图",
    "the whole graph": "显示整个计算图",
    "zoom in": "放大",
    "zoom out": "缩小",
    "✕ focus": "✕ 聚焦",
    "show the whole graph again": "重新显示整个计算图",
    # the frames' titles (the same words as the animation's captions, in the drawings' catalogue)
    "before backward()": "backward() 之前",
    "step {n}: {node}": "第 {n} 步：{node}",
    "refused at {node}": "在 {node} 处报错",
    # ---- BackwardPlayer: the chain-rule ledger
    "constant": "常量",
    "<p>The output receives the gradient <code>{seed}</code> (<code>gradient=</code>, or 1 for a scalar). "
    "Each step runs one node: <b>upstream × local = contribution</b> for each of its inputs.</p>":
        "<p>输出收到的梯度是 <code>{seed}</code>（即 <code>gradient=</code>，标量则为 1）。"
        "每一步运行一个节点：对它的每个输入，<b>上游梯度 × 局部导数 = 贡献</b>。</p>",
    "no gradient sent": "没有传出梯度",
    "local": "局部导数",
    "Σ at {node}": "{node} 处求和 Σ",
    "freed": "已释放",
    "saved {tensors}": "保存的 {tensors}",
    "upstream gradient": "上游梯度",
    "{n} nodes: too many to animate here (see gradbook.draw)": "{n} 个节点：太多了，这里不做动画（见 gradbook.draw）",
    # ---- AccumulationLab
    "new graph": "新建计算图",
    "y = f(x): a new graph": "y = f(x)：新建一个计算图",
    "what optimizer.zero_grad() does": "optimizer.zero_grad() 做的就是这个",
    "zero it in place": "原地清零",
    "backward() call": "backward() 调用次数",
    "call": "调用",
    "graph": "计算图",
    "added": "本次累加",
    "x.grad after": "调用后的 x.grad",
    "error": "报错",
    "{grad} (unchanged)": "{grad}（不变）",
    "… {n} earlier rows (lab.history)": "… 更早的 {n} 行（见 lab.history）",
    "x.grad after the call": "调用后的 x.grad",
    "added by the call": "本次调用累加的量",
    "x.grad is now {grad}": "x.grad 现在是 {grad}",
    "f(x) raised; fix f and press new graph.": "f(x) 报错了；改好 f 之后再点“新建计算图”。",
    "f(x) returned {type}, not a tensor": "f(x) 返回的是 {type}，不是张量",
    "f must build its output from x.": "f 必须由 x 计算出它的输出。",
    "gradient= could not be read: {raw_error}": "无法读取 gradient=：{raw_error}",
    "Write the gradient as numbers in brackets, shaped like y, e.g. [1.0, 1.0, 1.0].":
        "把梯度写成方括号里的数字，形状和 y 一样，例如 [1.0, 1.0, 1.0]。",
    "y is not a scalar: backward() needs gradient=, the v of the vector-Jacobian product vᵀJ. "
    "The gradient editor is now open with ones_like(y); edit it and press backward() again.":
        "y 不是标量：backward() 需要 gradient=，也就是向量-雅可比积 vᵀJ 里的 v。"
        "梯度编辑框已经打开，填好了 ones_like(y)；改一改，再点一次 backward()。",
    "{node} (drawn freed, then refused) lost {saved} to the first backward(). ":
        "{node}（图中标为已释放，随后报错）在第一次 backward() 时已经释放了：{saved}。",
    "its saved tensors": "它保存的张量",
    "Build a new graph (new graph), or tick retain_graph before the first backward() to keep it.":
        "点“新建计算图”按钮，或者在第一次 backward() 之前勾选 retain_graph 来保留计算图。",
    # ---- GraphView
    "data": "数值",
    "grad": "梯度",
    "shape": "形状",
    "names": "变量名",
    "legend": "图例",
    "refresh": "刷新",
    "redraw after further computation": "继续计算之后重新绘制",
    # ---- TangentExplorer
    "tangent, slope x.grad": "切线，斜率为 x.grad",
    "(the tangent's slope)": "（切线的斜率）",
    "tangent parabola": "切抛物线",
    "J·v, v =": "J·v，v =",
    "vᵀJ, v =": "vᵀJ，v =",
    "column {n}": "第 {n} 列",
    "row {n}": "第 {n} 行",
    "at x = {x}: {raw_error}": "在 x = {x} 处：{raw_error}",
    "the plot shows the last x where f worked": "图中显示的是 f 最后一次能正常计算的那个 x",
    "f must return a tensor computed from x, but it returned {type}": "f 必须返回由 x 计算出的张量，但它返回了 {type}",
    "f(x) must be one number (a one-element tensor), but it has shape {shape}":
        "f(x) 必须是一个数（只有一个元素的张量），但它的形状是 {shape}",
    "f(x) does not depend on x (it has no grad_fn): there is no slope to show":
        "f(x) 不依赖于 x（它没有 grad_fn）：没有斜率可以显示",
})  # fmt: skip

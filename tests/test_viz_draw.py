"""gradbook.draw: the DOT it builds, checked without any Graphviz binary."""

import os
import re
import subprocess
import sys
from collections import Counter

import numpy as np
import pytest
from conftest import ROOT, chain

import gradbook
from gradbook import nn
from gradbook.viz.draw import DEFAULT_SHOW, ROLE_COLOURS, GraphDrawing, draw, value_text
from gradbook.viz.model import GraphModel

NODE = re.compile(r"^\t(\w+) \[(.*)\]$", re.S)
EDGE = re.compile(r"^\t(\w+) -> (\w+)(?: \[(.*)\])?$", re.S)
ATTR = re.compile(r'(\w+)=("(?:[^"\\]|\\.)*"|<.*>(?= \w+=|$)|[^ ]+)', re.S)

bias = gradbook.tensor([0.5, -0.5], requires_grad=True)  # a module global, found by name


def parse(g):
    """({node id: {attr: value}}, [(src, dst, {attr: value})]) from the drawing's DOT body."""
    nodes, edges = {}, []
    for line in g.body:
        line = line.rstrip("\n")
        if m := EDGE.match(line):
            edges.append((m[1], m[2], attrs(m[3] or "")))
        elif (m := NODE.match(line)) and m[1] not in ("graph", "node", "edge"):
            nodes[m[1]] = attrs(m[2])
    return nodes, edges


def attrs(text):
    return {k: v.strip('"') for k, v in ATTR.findall(text)}


def classes(node):
    return node.get("class", "").split()


def named(nodes, name):
    """The one node labelled with this variable name."""
    (node,) = [v for v in nodes.values() if f"<B>{name}</B>" in v["label"]]
    return node


def of_class(nodes, cls):
    return [k for k, v in nodes.items() if classes(v)[-1] == cls]


def seed_graph(lib):
    """The seed lesson's pieces in one graph: a leaf used twice, a constant, fan-in, retain_grad."""
    x = lib.tensor([2.0, 3.0], requires_grad=True)
    w = lib.tensor([[0.5, -1.0], [2.0, 0.25]], requires_grad=True)
    h = (w @ x).tanh()
    h.retain_grad()
    a = h * x + 2 * x.exp()
    loss = (a * 3).sum() + (h**2).mean() - (x + 1).sin().sum()
    return loss, x, w, h


# ---------------------------------------------------------------- nodes and edges


def test_x_times_x_draws_two_edges_into_mul_backward():
    x = gradbook.tensor(3.0, requires_grad=True)
    y = x * x
    nodes, edges = parse(draw(y))
    assert {k: classes(v)[-1] for k, v in nodes.items()} == {"n0": "MulBackward0", "n1": "AccumulateGrad"}
    assert [(s, d, a.get("label")) for s, d, a in edges] == [("n1", "n0", "self"), ("n1", "n0", "other")]


def test_one_node_per_grad_fn_and_one_edge_per_next_functions_entry():
    loss = seed_graph(gradbook)[0]
    model = GraphModel.from_roots(loss)
    nodes, edges = parse(draw(loss))
    graph_nodes = {k: v for k, v in nodes.items() if "constant" not in classes(v)}
    assert list(graph_nodes) == [n.key for n in model.nodes]
    assert [classes(v)[-1] for v in graph_nodes.values()] == [n.label for n in model.nodes]
    drawn = [(s, d) for s, d, _ in edges if s in graph_nodes]
    assert drawn == [(s, d) for s, d, _ in model.edges]
    constants = [d for s, d, _ in edges if s not in graph_nodes]
    assert len(constants) == sum(src is None for n in model.nodes for src, _ in n.inputs)


def torch_edges(root):
    """torch's graph by walking next_functions: node class names and (consumer, input) class pairs."""
    seen, stack, names, pairs = set(), [root.grad_fn], Counter(), Counter()
    while stack:
        fn = stack.pop()
        if fn in seen:
            continue
        seen.add(fn)
        names[type(fn).__name__] += 1
        for child, _ in fn.next_functions:
            pairs[(type(fn).__name__, "constant" if child is None else type(child).__name__)] += 1
            if child is not None:
                stack.append(child)
    return names, pairs


def drawn_edges(g):
    nodes, edges = parse(g)
    names = Counter(classes(v)[-1] for v in nodes.values() if "constant" not in classes(v))
    pairs = Counter((classes(nodes[d])[-1], classes(nodes[s])[-1]) for s, d, _ in edges)
    return names, pairs


@pytest.mark.oracle
@pytest.mark.parametrize("program", ["seed", "mlp", "square"])
def test_nodes_and_edges_match_torchs_next_functions_walk(program):
    torch = pytest.importorskip("torch")

    def build(lib):
        if program == "seed":
            return seed_graph(lib)[0]
        if program == "square":
            x = lib.tensor(3.0, requires_grad=True)
            return x * x + 2 * x
        lib.manual_seed(0)
        net = lib.nn.Sequential(lib.nn.Linear(3, 4), lib.nn.ReLU(), lib.nn.Linear(4, 1), lib.nn.Tanh())
        return lib.nn.functional.mse_loss(net(lib.ones(5, 3)), lib.zeros(5, 1))

    assert drawn_edges(draw(build(gradbook))) == torch_edges(build(torch))


# ---------------------------------------------------------------- roles and colours


def test_roles_colour_leaves_outputs_retain_grad_constants_and_saved():
    loss, x, w, h = seed_graph(gradbook)
    nodes, edges = parse(draw(loss))
    by_name = {re.search(r"<B>(\w+)</B>", v["label"])[1]: v for v in nodes.values() if "<B>" in v["label"]}
    assert by_name["x"]["fillcolor"] == ROLE_COLOURS["leaf"][0] and "leaf" in classes(by_name["x"])
    assert by_name["w"]["fillcolor"] == ROLE_COLOURS["leaf"][0]
    assert by_name["h"]["fillcolor"] == ROLE_COLOURS["retain_grad"][0] and "retain_grad" in classes(by_name["h"])
    assert by_name["loss"]["fillcolor"] == ROLE_COLOURS["output"][0] and by_name["loss"]["penwidth"] == "2"
    saved = [v for v in nodes.values() if "saved" in classes(v)]
    assert saved and all(ROLE_COLOURS["saved"][0] in v["label"] for v in saved)
    constants = [v for v in nodes.values() if classes(v) == ["constant"]]
    assert constants and all(
        v["fillcolor"] == ROLE_COLOURS["constant"][0] and "dashed" in v["style"] for v in constants
    )
    assert all(a.get("style") == "dashed" for s, d, a in edges if s in [k for k, v in nodes.items() if v in constants])


def test_backward_frees_saved_tensors_and_the_drawing_shows_it():
    loss, x, w, h = seed_graph(gradbook)
    before, _ = parse(draw(loss))
    loss.backward()
    after, _ = parse(draw(loss))
    assert list(before) == list(after)  # the same nodes, restyled
    freed = [k for k, v in after.items() if "freed" in classes(v)]
    assert freed == [k for k, v in before.items() if "saved" in classes(v)]
    for k in freed:
        assert "dashed" in after[k]["style"] and ROLE_COLOURS["freed"][0] in after[k]["label"]
        assert ">freed<" in after[k]["label"]
    # grads are shown once they exist
    assert ">grad<" in named(after, "x")["label"] and "None" not in named(after, "x")["label"]


def test_retain_grad_node_shows_its_grad_after_backward():
    x = gradbook.tensor(2.0, requires_grad=True)
    y = x * x
    y.retain_grad()
    z = y * 3
    z.backward()
    nodes, _ = parse(draw(z))
    (key,) = [k for k, v in nodes.items() if "retain_grad" in classes(v)]
    assert "<B>y</B>" in nodes[key]["label"] and "3." in nodes[key]["label"]  # dz/dy = 3


def test_legend_is_a_table_of_every_role():
    x = gradbook.tensor(2.0, requires_grad=True)
    nodes, _ = parse(draw(x * 2, legend=True))
    assert "legend" in nodes
    for role in ("leaf", "output", "retain_grad", "constant", "saved", "freed"):
        assert ROLE_COLOURS[role][0] in nodes["legend"]["label"]
    assert "legend" not in parse(draw(x * 2))[0]


# ---------------------------------------------------------------- constants


def test_constant_shows_its_value_when_the_consumer_saved_it():
    x = gradbook.tensor(2.0, requires_grad=True)
    nodes, edges = parse(draw(2 * x))
    assert classes(nodes["n0c1"]) == ["constant"] and ">2<BR" in nodes["n0c1"]["label"]  # tensor(2), an int64 as torch
    assert ("n0c1", "n0", {"label": "other", "style": "dashed"}) in edges


def test_constant_without_saved_value_is_just_constant():
    x = gradbook.tensor(2.0, requires_grad=True)
    nodes, _ = parse(draw(x + 3))  # AddBackward0 saves nothing
    assert "constant" in nodes["n0c1"]["label"] and "data" not in nodes["n0c1"]["label"]


def test_constant_tensor_is_named_after_its_variable():
    x = gradbook.tensor([1.0, 2.0], requires_grad=True)
    target = gradbook.tensor([0.0, 1.0])
    nodes, _ = parse(draw(nn.functional.mse_loss(x, target)))
    assert "<B>target</B>" in nodes["n0c1"]["label"]


# ---------------------------------------------------------------- names


def test_names_come_from_the_calling_functions_locals():
    weight = gradbook.tensor([1.0, 2.0], requires_grad=True)
    hidden = weight * bias
    out = hidden.sum()
    label = " ".join(v["label"] for v in parse(draw(out))[0].values())
    for name in ("weight", "bias", "hidden", "out"):
        assert f"<B>{name}</B>" in label


def test_names_come_from_module_globals():
    nodes, _ = parse(draw(bias * 2))
    assert classes(named(nodes, "bias"))[-1] == "AccumulateGrad"


def test_names_argument_overrides_and_adds():
    x = gradbook.tensor(2.0, requires_grad=True)
    nodes, _ = parse(draw((x * 3).exp(), names={"w": x}))
    assert classes(named(nodes, "w"))[-1] == "AccumulateGrad" and "<B>x</B>" not in str(nodes)
    with pytest.raises(TypeError, match="names maps each name to a tensor"):
        draw(x * 3, names={"w": 3.0})


def test_gradbook_draw_finds_the_callers_names_too():
    u = gradbook.tensor(2.0, requires_grad=True)
    v = u.exp()
    g = gradbook.draw(v)
    assert isinstance(g, GraphDrawing) and "<B>u</B>" in g.source and "<B>v</B>" in g.source


def test_stacklevel_looks_at_the_helpers_caller():
    def show(t):
        return gradbook.draw(t, stacklevel=2)

    lesson_input = gradbook.tensor(2.0, requires_grad=True)
    assert "<B>lesson_input</B>" in show(lesson_input * 2).source
    assert "<B>lesson_input</B>" not in draw(lesson_input * 2, stacklevel=0).source
    assert "<B>lesson_input</B>" not in gradbook.draw(lesson_input * 2, stacklevel=0).source


def test_module_parameters_are_named_after_the_module():
    gradbook.manual_seed(0)
    model = nn.Sequential(nn.Linear(2, 3), nn.Tanh())
    source = draw(model(gradbook.ones(1, 2)).sum()).source
    assert "<B>model.0.weight</B>" in source and "<B>model.0.bias</B>" in source


def test_names_in_a_notebook_cell():
    interactiveshell = pytest.importorskip("IPython.core.interactiveshell")
    shell = interactiveshell.InteractiveShell.instance()
    result = shell.run_cell(
        "import gradbook as torch\nx = torch.tensor(2.0, requires_grad=True)\ny = x * x\ng = torch.draw(y)\n"
    )
    result.raise_error()
    source = shell.user_ns["g"].source
    assert "<B>x</B>" in source and "<B>y</B>" in source


# ---------------------------------------------------------------- values and show


def test_values_print_in_torchs_format():
    assert value_text(np.array(2.0, dtype=np.float32)) == ("2.", False)
    assert value_text(np.array(1.001, dtype=np.float32)) == ("1.0010", False)
    assert value_text(np.array([[1.0, -2.5], [0.0, 3.0]], dtype=np.float64)) == (
        "[[ 1.0000, -2.5000],\n [ 0.0000,  3.0000]]",
        False,
    )
    assert value_text(np.arange(6, dtype=np.int64)) == ("[0, 1, 2, 3, 4, 5]", False)
    text, summarised = value_text(np.linspace(-1, 1, 50, dtype=np.float32))
    assert summarised and text == "mean 0.  min -1.  max 1."


def test_large_tensor_shows_shape_and_summary():
    x = gradbook.ones(16, 4, requires_grad=True)
    label = named(parse(draw(x.sum()))[0], "x")["label"]
    assert "mean 1.  min 1.  max 1." in label and "(16, 4)" in label


def test_show_toggles_rows():
    x = gradbook.tensor([1.0, 2.0], requires_grad=True)
    y = (x * x).sum()
    (leaf,) = of_class(parse(draw(y))[0], "AccumulateGrad")
    full = parse(draw(y))[0][leaf]["label"]
    assert all(word in full for word in ("<B>x</B>", ">data<", ">grad<", ">shape<"))
    bare = parse(draw(y, show=()))[0][leaf]["label"]
    assert not any(word in bare for word in ("<B>x</B>", ">data<", ">grad<", ">shape<"))
    assert ">saved<" in draw(y).source and ">saved<" not in draw(y, show=("data",)).source
    with pytest.raises(ValueError, match="unknown"):
        draw(y, show=("values",))
    assert set(DEFAULT_SHOW) == {"names", "data", "grad", "shape", "saved"}


def test_rankdir_and_restyling_with_the_graphviz_api():
    x = gradbook.tensor(2.0, requires_grad=True)
    g = draw(x * x, rankdir="LR")
    assert "rankdir=LR" in g.source
    g.attr("node", fontname="Courier")
    assert "fontname=Courier" in g.source
    with pytest.raises(ValueError, match="rankdir"):
        draw(x * x, rankdir="up")


def test_roots_without_a_graph():
    x = gradbook.tensor(2.0, requires_grad=True)
    c = gradbook.tensor([1.0, 2.0])
    nodes, edges = parse(draw(x, c))
    assert [classes(v) for v in nodes.values()] == [
        ["leaf", "output", "AccumulateGrad"],
        ["tensor", "output", "Tensor"],
    ]
    assert edges == []
    with pytest.raises(TypeError):
        draw()
    with pytest.raises(TypeError):
        draw(3.0)


# ---------------------------------------------------------------- determinism

PROGRAM = """
import gradbook as torch
from gradbook.viz.draw import draw
torch.manual_seed(0)
x = torch.randn(3, requires_grad=True)
w = torch.randn(3, 3, requires_grad=True)
h = (w @ x).relu()
h.retain_grad()
loss = (h * x + 2).sum() + (x * x).mean()
first = draw(loss, legend=True).source
loss.backward()
print(first + draw(loss).source, end="")
"""


def test_same_program_same_dot_bytes_in_one_process():
    sources = []
    for _ in range(2):
        loss, x, w, h = seed_graph(gradbook)
        sources.append(draw(loss, legend=True).source)
    assert sources[0] == sources[1]
    assert "0x" not in sources[0]  # no addresses


def test_same_program_same_dot_bytes_across_processes():
    outs = []
    for seed in ("1", "2"):  # different hash seeds: no dict/set-order surprises
        env = dict(os.environ, PYTHONPATH=str(ROOT), PYTHONHASHSEED=seed)
        run = subprocess.run([sys.executable, "-c", PROGRAM], capture_output=True, env=env, check=True)
        outs.append(run.stdout)
    assert outs[0] == outs[1] and b"MulBackward0" in outs[0]


# ---------------------------------------------------------------- large graphs


def test_graph_below_max_nodes_is_drawn_in_full():
    y = chain(498)  # 498 ops + the leaf: 499 nodes
    nodes, _ = parse(draw(y))
    assert len([v for v in nodes.values() if "constant" not in classes(v)]) == 499
    assert "hidden" not in draw(y).source


def test_large_graph_collapses_with_a_note_on_what_is_hidden():
    y = chain(5000)
    g = draw(y)
    nodes, edges = parse(g)
    assert len(nodes) < 150  # a summary (benchmarks/viz_draw.py times it)
    note = re.search(r'label="(Large graph[^"]*)"', g.source)[1]
    assert "5,001 nodes" in note and "4,950 of them are hidden in 1 grey box;" in note
    (box,) = [v for v in nodes.values() if "hidden" in classes(v)]
    assert "4,950 hidden nodes" in box["label"]
    assert "2,475 × AddBackward0" in box["label"] and "2,475 × MulBackward0" in box["label"]
    assert of_class(nodes, "AccumulateGrad")  # the leaf stays
    assert [k for k, v in nodes.items() if "output" in classes(v)] == ["n5000"]  # and the output


def test_max_nodes_sets_the_threshold():
    y = chain(40)
    assert "Large graph" in draw(y, max_nodes=41).source
    assert "Large graph" not in draw(y, max_nodes=42).source
    with pytest.raises(ValueError, match="max_nodes"):
        draw(y, max_nodes=0)


def test_wide_graph_collapses_into_a_few_boxes():
    leaves = [gradbook.tensor([float(i)], requires_grad=True) for i in range(400)]
    total = leaves[0] * 2
    for t in leaves[1:]:
        total = total + t * 2
    g = draw(total.sum())
    nodes, _ = parse(g)
    boxes = [v for v in nodes.values() if "hidden" in classes(v)]
    assert 1 <= len(boxes) <= 12 and len(nodes) < 150
    hidden = sum(int(re.search(r"<B>([\d,]+) hidden node", v["label"])[1].replace(",", "")) for v in boxes)
    assert f"{hidden:,} of them are hidden" in g.source

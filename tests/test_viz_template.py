# ruff: noqa: E501  (the hand-written SVGs are data, one case a line)
"""The animation's template made from the SVG's text (``_written``, ``_groups``) against the same
template made with ElementTree (read, links unwrapped, written back): the frames, slots, live SVG and
targets must be equal, or both ways must raise the same error. Real SVGs from both renderers, SVGs
written by hand with what a renderer might vary (quotes, references, comments, links, foreign
namespaces...), and a few hundred seeded random edits of real ones."""

from __future__ import annotations

import importlib
import random
import re
import xml.etree.ElementTree as ET

import pytest

import gradbook
from gradbook.viz import record_backward
from gradbook.viz.render import find_renderer

am = importlib.import_module("gradbook.viz.animate")


def outcome(svg, first, quick=True):
    """``_template``'s result, or the type of what it raised; ``quick=False``: ElementTree's way."""
    written = am._written
    if not quick:
        am._written = lambda svg: None  # every SVG read into a tree, as before the quick path
    try:
        return ("ok", am._template(svg, first))
    except Exception as error:  # noqa: BLE001 - compared, not hidden
        return ("raise", type(error).__name__)
    finally:
        am._written = written


def first_for(svg):
    """Slots for every id in the SVG, as draw's would be (and some that are missing)."""
    first = {}
    for gid in re.findall(r'id=["\']([^"\']*)["\']', svg):
        if gid.startswith("n"):
            first[f"{gid}.fill"] = "#ff0000"
        if gid.startswith("e"):
            first[f"{gid}.stroke"] = "#00ff00"
            first[f"{gid}.width"] = "2"
            first[f"{gid}#0"] = "v<&>\"'"
        if gid.startswith("a_"):
            base = gid[2:].rsplit("_", 1)[0]
            first[f"{base}.bg"] = "#0000ff"
            for i in range(3):
                first[f"{gid[2:]}#{i}"] = f"line{i}"
                first[f"{gid[2 : -len('_value')]}#{i}"] = f"g{i}"
    return first


HEAD = '<svg width="10pt" height="10pt"\n viewBox="0 0 10 10" xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink">\n'
NODE = (
    '<!-- n0 -->\n<g id="n0" class="node op">\n<title>n0</title>\n<path fill="#fff" stroke="black" d="M0,0"/>\n'
    '<text x="1" y="2">MulBackward0</text>\n<g id="a_n0_saved_name"><a xlink:href="#" xlink:title="&lt;TABLE&gt;">\n'
    '<polygon fill="#fdae6b" stroke="transparent" points="1,2"/>\n<text x="1">saved</text>\n</a>\n</g>\n'
    '<g id="a_n0_grad_value"><a xlink:href="#" xlink:title="&lt;TABLE&gt;">\n<text x="1">1.</text>\n<text x="2">2.</text>\n</a>\n</g>\n</g>\n'
)
EDGE = (
    '<!-- n0&#45;&gt;n1 -->\n<g id="e0" class="edge">\n<title>n0&#45;&gt;n1</title>\n<path fill="none" stroke="black" d="M1,2"/>\n'
    '<polygon fill="black" stroke="black" points="1,2"/>\n<text x="1">self</text>\n<text x="1">2.</text>\n</g>\n'
)
BASE = (
    HEAD + '<g id="graph0" class="graph" transform="scale(1 1)">\n<title>%3</title>\n' + NODE + EDGE + "</g>\n</svg>\n"
)

CRAFTED = {
    "base": BASE,
    "prolog": '<?xml version="1.0"?>\n' + BASE,
    "doctype": "<!DOCTYPE svg>\n" + BASE,
    "leading space": "  " + BASE,
    "trailing comment": BASE + "<!-- end -->\n",
    "crlf": BASE.replace("\n", "\r\n"),
    "single quotes": BASE.replace('fill="#fff"', "fill='#fff'"),
    "spaces around =": BASE.replace('stroke="black" d', 'stroke = "black" d'),
    "double space": BASE.replace('fill="#fff" stroke', 'fill="#fff"  stroke'),
    "space before />": BASE.replace('d="M0,0"/>', 'd="M0,0" />'),
    "newline in tag": BASE.replace('fill="#fff" stroke', 'fill="#fff"\nstroke'),
    "tab in tag": BASE.replace('fill="#fff" stroke', 'fill="#fff"\tstroke'),
    "tab in value": BASE.replace('d="M0,0"', 'd="M0,\t0"'),
    "newline in value": BASE.replace('d="M0,0"', 'd="M0,\n0"'),
    "gt in value": BASE.replace('d="M0,0"', 'd="M0>0"'),
    "gt in text": BASE.replace(">saved<", ">sa>ved<"),
    "gt in edge text": BASE.replace(">self<", ">se>lf<"),
    "quote in text": BASE.replace(">saved<", ">sa\"ved'<"),
    "refs text": BASE.replace(">saved<", ">&#160;&quot;&apos;&#39;&#x41;&#10;&#9;&#13;&amp;&lt;&gt;&#38;&#60;&#62;<"),
    "refs attr": BASE.replace('d="M0,0"', 'd="&#160;&quot;&apos;&#x41;&#10;&#9;&#13;&amp;&#38;&#34;"'),
    "ref in id": BASE.replace('id="e0"', 'id="&#101;0"'),
    "amp id": BASE.replace('id="n0"', 'id="n&amp;0"'),
    "undefined entity": BASE.replace(">saved<", ">&nbsp;<"),
    "bad char ref": BASE.replace(">saved<", ">&#1;<"),
    "cdata": BASE.replace(">saved<", "><![CDATA[s<a>ved]]><"),
    "pi": BASE.replace("<title>n0</title>", "<title>n0</title><?pi x?>"),
    "comment in text": BASE.replace(">saved<", ">sa<!-- c -->ved<"),
    "comment after link": BASE.replace(
        '</a>\n</g>\n<g id="a_n0_grad_value">', '</a>\n<!-- c -->\nx\n</g>\n<g id="a_n0_grad_value">'
    ),
    "comment in link": BASE.replace(
        '<a xlink:href="#" xlink:title="&lt;TABLE&gt;">\n<polygon', '<a xlink:href="#">\n<!-- </a> -->\n<polygon'
    ),
    "nested link": BASE.replace('<text x="1">saved</text>', '<a xlink:href="#"><text x="1">saved</text></a>'),
    "link via g": BASE.replace(
        '<text x="1">saved</text>', '<g id="inner"><a xlink:href="#"><text x="1">saved</text></a></g>'
    ),
    "empty link": BASE.replace('<text x="1">saved</text>', '<a xlink:href="#"/><text x="1">saved</text>'),
    "empty link 2": BASE.replace('<text x="1">saved</text>', '<a xlink:href="#"></a><text x="1">saved</text>'),
    "link text": BASE.replace(
        '<a xlink:href="#" xlink:title="&lt;TABLE&gt;">\n<polygon', '<a xlink:href="#">hello<polygon'
    ),
    "empty text": BASE.replace(">self<", "><"),
    "empty text self-closing": BASE.replace('<text x="1">self</text>', '<text x="1"/>'),
    "empty text closing tag": BASE.replace('<text x="1">2.</text>', '<text x="1"></text>'),
    "empty group": BASE.replace("<title>%3</title>", '<title>%3</title><g id="x"></g>'),
    "empty cell": BASE.replace('<text x="1">1.</text>\n<text x="2">2.</text>\n', ""),
    "tspan": BASE.replace('<text x="1">2.</text>', '<text x="1">2<tspan>.</tspan>x</text>'),
    "switch path": BASE.replace(
        "<title>n0</title>\n", '<title>n0</title>\n<switch><path fill="red" d="M"/></switch>\n'
    ),
    "shape after cell": BASE.replace(
        '<path fill="#fff" stroke="black" d="M0,0"/>\n<text x="1" y="2">MulBackward0</text>\n', ""
    ).replace("</a>\n</g>\n</g>\n<!-- n0&#45;", '</a>\n</g>\n<path fill="#fff" d="M"/>\n</g>\n<!-- n0&#45;'),
    "text before polygon": BASE.replace(
        '<polygon fill="#fdae6b" stroke="transparent" points="1,2"/>\n<text x="1">saved</text>',
        '<text x="1">saved</text>\n<polygon fill="#fdae6b" points="1,2"/>',
    ),
    "no fill": BASE.replace('<path fill="#fff" stroke="black"', '<path stroke="black"'),
    "stroke-width present": BASE.replace(
        '<path fill="none" stroke="black"', '<path fill="none" stroke="black" stroke-width="3"'
    ),
    "polygon no stroke": BASE.replace('<polygon fill="black" stroke="black"', '<polygon fill="black"'),
    "class first": BASE.replace('<g id="e0" class="edge">', '<g class="edge" id="e0">'),
    "extra attr": BASE.replace('<g id="e0" class="edge">', '<g id="e0" class="edge" style="x">'),
    "class later": BASE.replace('<g id="e0" class="edge">', '<g id="e0" style="x" class="edge">'),
    "no class": BASE.replace('<g id="e0" class="edge">', '<g id="e0">'),
    "data-gb present": BASE.replace(
        '<path fill="#fff" stroke="black"', '<path data-gb="77" fill="#fff" stroke="black"'
    ),
    "data-gb text": BASE.replace(">saved<", '> data-gb="5"<'),
    "xml space": BASE.replace('<text x="1">self</text>', '<text xml:space="preserve" x="1">self</text>'),
    "xlink outside": BASE.replace('<text x="1">self</text>', '<text xlink:href="#" x="1">self</text>'),
    "xlink word": BASE.replace(">self<", ">xlink<"),
    "foreign ns": BASE.replace("<title>%3</title>", '<title>%3</title><foo:bar xmlns:foo="urn:x" foo:a="1"/>'),
    "foreign text": BASE.replace('<text x="1">self</text>', '<foo:text xmlns:foo="urn:x" x="1">self</foo:text>'),
    "foreign prefix root": BASE.replace("xmlns:xlink=", 'xmlns:foo="urn:x" xmlns:xlink='),
    "xlink prefix other": BASE.replace(
        'xmlns:xlink="http://www.w3.org/1999/xlink"', 'xmlns:xl="http://www.w3.org/1999/xlink"'
    ).replace("xlink:", "xl:"),
    "no xlink decl": BASE.replace(' xmlns:xlink="http://www.w3.org/1999/xlink"', "").replace(
        ' xlink:href="#" xlink:title="&lt;TABLE&gt;"', ""
    ),
    "no default ns": BASE.replace(' xmlns="http://www.w3.org/2000/svg"', ""),
    "root single quotes": BASE.replace('width="10pt"', "width='10pt'"),
    "root ref": BASE.replace('width="10pt"', 'width="1&#48;pt" title="a&quot;b&#10;c"'),
    "root tab": BASE.replace('width="10pt" height', 'width="10pt"\theight'),
    "chinese": BASE.replace(">saved<", ">已保存<").replace(">self<", ">自己𝔘<"),
    "default ns redeclared": BASE.replace(
        '<g id="e0" class="edge">', '<g id="e0" class="edge" xmlns="http://www.w3.org/2000/svg">'
    ),
    "ellipse": BASE.replace(
        '<path fill="#fff" stroke="black" d="M0,0"/>', '<ellipse fill="#fff" stroke="black" cx="1"/>'
    ),
    "mismatched": BASE.replace('</title>\n<path fill="#fff"', '</titl>\n<path fill="#fff"'),
    "unclosed": BASE[:-8],
    "attr fill= in value": BASE.replace(
        '<polygon fill="black" stroke="black"', '<polygon data-x="a fill=" fill="black" stroke="black"'
    ),
    "attr stroke= in value end": BASE.replace(
        '<path fill="none" stroke="black"', '<path fill="none" data-y="q stroke=" stroke="black"'
    ),
    "two paths": BASE.replace(
        '<path fill="none" stroke="black" d="M1,2"/>',
        '<path fill="none" stroke="black" d="M1,2"/>\n<path stroke="red" d="M3"/>',
    ),
    "ns0 svg prefix": BASE.replace("<svg width", '<svg:svg xmlns:svg="http://www.w3.org/2000/svg" width').replace(
        "</svg>", "</svg:svg>"
    ),
    "empty root": HEAD + "</svg>",
    "cell with node class": BASE.replace('<g id="a_n0_grad_value">', '<g id="a_n0_grad_value" class="node">'),
    "cell with edge class": BASE.replace('<g id="a_n0_saved_name">', '<g id="a_n0_saved_name" class="edge x">'),
    "node without shape": BASE.replace('<path fill="#fff" stroke="black" d="M0,0"/>', ""),
    "node with text shape only": BASE.replace('<path fill="#fff" stroke="black" d="M0,0"/>', '<rect fill="#fff"/>'),
    "nested cell with shape": BASE.replace(
        '<g id="a_n0_saved_name">', '<g id="a_n0_saved_name"><g id="n9" class="node"><polygon fill="#1"/></g>'
    ),
    "group in text": BASE.replace(
        '<text x="1">self</text>', '<text x="1">self<g id="n7" class="node"><path fill="x"/></g></text>'
    ),
    "graph class node": BASE.replace('<g id="graph0" class="graph"', '<g id="n5" class="node"'),
    "junk after root": BASE + "<svg/>",
    "root self closing": '<svg xmlns="http://www.w3.org/2000/svg"/>',
}


def mutate(svg, rng):
    """One random edit of a real SVG, of the kinds renderers might vary in."""
    tags = [m for m in re.finditer(r"<[^!/?][^>]*>", svg)]
    m = rng.choice(tags)
    tag = m[0]
    kind = rng.randrange(20)
    if kind >= 12:
        return mutate_more(svg, rng, m, kind)
    if kind == 0:  # a comment after the tag
        return svg[: m.end()] + "<!-- c -->" + svg[m.end() :]
    if kind == 1:  # single quotes on one attribute
        new_tag = re.sub(r'="([^"]*)"', r"='\1'", tag, count=1)
    elif kind == 2:  # two spaces before an attribute
        new_tag = tag.replace(" ", "  ", 1)
    elif kind == 3:  # a newline before an attribute
        new_tag = tag.replace(" ", "\n", 1) if tag.count(" ") > 0 else tag
    elif kind == 4:  # a space before > or />
        new_tag = tag[:-2] + " />" if tag.endswith("/>") else tag[:-1] + " >"
    elif kind == 5:  # a character reference in a value
        new_tag = tag.replace('="', '="&#65;', 1)
    elif kind == 6:  # a quote reference in a value
        new_tag = tag.replace('="', '="&quot;', 1)
    elif kind == 7:  # a raw > in a value
        new_tag = tag.replace('="', '=">', 1)
    elif kind == 8:  # a new attribute
        new_tag = tag[:-2] + ' data-q="1"/>' if tag.endswith("/>") else tag[:-1] + ' data-q="1">'
    elif kind == 9:  # a reference in the text after the tag
        return svg[: m.end()] + "&#160;&quot;" + svg[m.end() :]
    elif kind == 10:  # a tab in a value
        new_tag = tag.replace('="', '="\t', 1)
    else:  # the text after the tag: a raw >
        return svg[: m.end()] + ">" + svg[m.end() :]
    return svg[: m.start()] + new_tag + svg[m.end() :]


def mutate_more(svg, rng, m, kind):
    """Edits around the text and the structure."""
    if kind == 12:  # a comment inside the text after the tag
        return svg[: m.end()] + "a<!-- x -->b" + svg[m.end() :]
    if kind == 13:  # a link around the element
        end = svg.find(">", m.start()) + 1
        if svg[end - 2] != "/":
            return svg
        return svg[: m.start()] + '<a xlink:href="#">' + svg[m.start() : end] + "</a>\n" + svg[end:]
    if kind == 14:  # an empty element written with its end tag
        tag = m[0]
        if not tag.endswith("/>"):
            return svg
        name = tag[1:].split(" ")[0].rstrip("/>")
        return svg[: m.start()] + tag[:-2] + "></" + name + ">" + svg[m.end() :]
    if kind == 15:  # an element with nothing inside written short
        i = svg.find("></", m.start())
        j = svg.find(">", i + 1)
        if i < 0 or svg.rfind("<", 0, i) != m.start():
            return svg
        return svg[:i] + "/>" + svg[j + 1 :]
    if kind == 16:  # a character outside XML
        return svg[: m.end()] + "\x01" + svg[m.end() :]
    if kind == 17:  # a numeric reference to a quote in a value, or a tab reference
        return svg[: m.start()] + m[0].replace('="', '="&#34;&#9;', 1) + svg[m.end() :]
    if kind == 18:  # a data-gb attribute
        tag = m[0]
        new_tag = tag[:-2] + ' data-gb="3"/>' if tag.endswith("/>") else tag[:-1] + ' data-gb="x"' + ">"
        return svg[: m.start()] + new_tag + svg[m.end() :]
    # a DOCTYPE-like or PI inside
    return svg[: m.end()] + "<?pi ?>" + svg[m.end() :]


def chain(n):
    x = gradbook.tensor(0.5, requires_grad=True)
    for _ in range(n):
        x = (x * 1.01).tanh()
    return 2 * x


def refused():
    x = gradbook.tensor([1.0, 2.0], requires_grad=True)
    y = (x * x).sum()
    record_backward(y)
    with pytest.raises(RuntimeError) as caught:
        record_backward(y)
    return caught.value.recording


def mlp():
    gradbook.manual_seed(0)
    net = gradbook.nn.Sequential(gradbook.nn.Linear(3, 4), gradbook.nn.ReLU(), gradbook.nn.Linear(4, 2))
    return record_backward(net(gradbook.randn(5, 3)).sum())


def real_inputs(recording, renderer, legend=False):
    """``(svg, first)`` exactly as ``Animation`` passes them to ``_template``."""
    seen = []
    real = am._template
    am._template = lambda svg, first: seen.append((svg, dict(first))) or real(svg, first)
    try:
        am.Animation(recording, renderer, legend)
    finally:
        am._template = real
    return seen[0]


def spelled_out(found):
    """``(groups, children)`` as [(id, class, its children's (start, name) in order), ...]."""
    groups, children = found
    return [(g[0], g[1], children[g[2] : g[3]]) for g in zip(*[iter(groups)] * 4)]


RENDERERS = ["layered"] + (["dot"] if find_renderer("dot") else [])


@pytest.fixture(scope="module")
def real():
    cases = {}
    for renderer in RENDERERS:
        cases[f"chain {renderer}"] = real_inputs(record_backward(chain(12)), renderer)
        cases[f"mlp {renderer} legend"] = real_inputs(mlp(), renderer, legend=True)
        cases[f"refused {renderer}"] = real_inputs(refused(), renderer)
    gradbook.set_language("zh")
    try:
        cases["mlp zh layered"] = real_inputs(mlp(), "layered")
    finally:
        gradbook.set_language("en")
    return cases


def test_real_svgs_take_the_quick_path_and_give_elementtrees_template(real):
    for name, (svg, first) in real.items():
        root = ET.fromstring(svg)
        am._unwrap_links(root)
        text = ET.tostring(root, encoding="unicode")
        assert am._written(svg) == text, name  # the quick path covers what the renderers write
        assert spelled_out(am._groups(text)) == spelled_out(am._groups_of_tree(root, text)), name
        quick, tree = outcome(svg, first), outcome(svg, first, quick=False)
        assert quick[0] == "ok" and quick == tree, name


@pytest.mark.parametrize("name", sorted(CRAFTED))
def test_hand_written_svgs_give_elementtrees_template_or_its_error(name):
    svg = CRAFTED[name]
    first = first_for(svg)
    assert outcome(svg, first) == outcome(svg, first, quick=False)


def test_random_edits_of_real_svgs_give_elementtrees_template_or_its_error(real):
    rng = random.Random(20261207)
    cases = list(real.values())
    for i in range(300):
        svg, first = rng.choice(cases)
        for _ in range(rng.randint(1, 3)):
            svg = mutate(svg, rng)
        assert outcome(svg, first) == outcome(svg, first, quick=False), i

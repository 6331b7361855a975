"""A new user's first hour, in JupyterLab in Debian's chromium, English and Chinese, on a projector
(1024×768) and a laptop (1600×1000): every lesson opened as after a clone (untrusted, not run) shows
each saved drawing and widget as a picture and is not marked changed by opening it; lesson 01 run,
``backward()`` pressed twice on one graph shows the graph with the refused node and torch's message
wrapped inside the box; Play on the last frame plays again from the first.

Skipped without /usr/bin/chromium or playwright. The server and kernels run in a temporary folder;
a watchdog stops them if a case runs past ``DEADLINE`` seconds. Screenshots are kept in the test's
temporary folder (look at them).
"""

from __future__ import annotations

import base64
import json
import platform
import shutil
import time
from pathlib import Path

import pytest
from _lab_server import lab_home, serving

CHROMIUM = "/usr/bin/chromium"
ROOT = Path(__file__).resolve().parent.parent
DEADLINE = 420  # seconds per case, server start included (a loaded 2-core machine)
STEP = 90_000  # ms for any single wait in the page
SIZES = [(1024, 768), (1600, 1000)]

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not Path(CHROMIUM).exists(), reason=f"no {CHROMIUM} (apt-get install chromium)"),
]


def _lessons(language: str) -> list[Path]:
    folder = ROOT / "notebooks" / ("zh" if language == "zh" else "")
    return sorted(folder.glob("[0-9][0-9]_*.ipynb"))


@pytest.fixture
def lab(tmp_path, request):
    """JupyterLab on a copy of one language's lessons (untrusted, as cloned); yields its URL."""
    language = request.param
    work = tmp_path / "work"
    work.mkdir()
    for lesson in _lessons(language):
        shutil.copy(lesson, work / lesson.name)
    shutil.copy(ROOT / "notebooks" / "matplotlibrc", work / "matplotlibrc")
    env = lab_home(tmp_path / "home", render_all=True)
    with serving(work, env, tmp_path / "jupyterlab.log", DEADLINE) as (url, _):
        yield url, work, language


def _open(page, url: str, name: str) -> None:
    page.goto(f"{url}/lab/tree/{name}")
    page.wait_for_function(
        "name => { const w = window.jupyterapp && window.jupyterapp.shell.currentWidget;"
        " return w && w.title.label === name && w.context && w.context.isReady"
        " && w.sessionContext.session && w.sessionContext.session.kernel"
        " && w.sessionContext.session.kernel.status === 'idle'; }",
        arg=name,
    )


def _dirty(page) -> bool:
    return page.evaluate("() => window.jupyterapp.shell.currentWidget.context.model.dirty")


def _check_opening_changes_nothing_but_the_python_version(page, lesson) -> None:
    """Opening a lesson changes nothing when the kernel's Python is the one the lessons were built
    with (3.11.7). On any other Python, JupyterLab writes that Python's version into the notebook's
    language_info and marks it changed, as it does for every notebook: then that must be the only
    difference (the README says so), and the test marks it clean to go on."""
    saved = json.loads(lesson.read_text())["metadata"]
    if platform.python_version() == saved["language_info"]["version"]:
        assert not _dirty(page), f"{lesson.name}: opening it marked it changed"
        return
    now = page.evaluate("() => window.jupyterapp.shell.currentWidget.context.model.toJSON().metadata")
    assert now["language_info"]["version"] == platform.python_version()
    for metadata in (saved, now):
        metadata["language_info"].pop("version")
    assert now == saved, f"{lesson.name}: opening it changed more than the Python version"
    page.evaluate("() => { window.jupyterapp.shell.currentWidget.context.model.dirty = false; }")


def _pictures(page) -> list[dict]:
    """Each output of the open notebook that should be a picture: its images (decoded) and text."""
    return page.evaluate(
        """() => [...document.querySelectorAll('.jp-OutputArea-output')].map(o => ({
            mime: o.dataset.mimeType || '',
            text: o.innerText.slice(0, 200),
            column: o.getBoundingClientRect().width,
            images: [...o.querySelectorAll('img')].map(i => ({
                src: i.src.slice(0, 40), natural: i.naturalWidth, shown: i.getBoundingClientRect().width,
                visible: i.offsetParent !== null, nh: i.naturalHeight })),
        }))"""
    )


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("lab", ["en", "zh"], indirect=True)
def test_a_new_user_opens_every_lesson_and_runs_lesson_01(lab, size, tmp_path):
    sync_api = pytest.importorskip("playwright.sync_api")
    url, work, language = lab
    expect = sync_api.expect
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=["--no-sandbox", "--disable-gpu"])
        try:
            page = browser.new_page(viewport={"width": size[0], "height": size[1]})
            page.set_default_timeout(STEP)
            drawings = 0
            for lesson in _lessons(language):
                _open(page, url, lesson.name)
                time.sleep(1.5)  # the kernel's info reply has come: what JupyterLab would write back is in
                _check_opening_changes_nothing_but_the_python_version(page, lesson)
                for output in _pictures(page):
                    assert "<gradbook graph drawing" not in output["text"], (lesson.name, output)
                    assert "Matplotlib v" not in output["text"] and "AccumulateGrad grad" not in output["text"]
                    for image in output["images"]:
                        assert image["src"].startswith("data:image/"), (lesson.name, image)
                        assert image["natural"] > 0, (lesson.name, image)  # it decoded
                        # every picture fits its output column, a drawing shrunk to no less than 3/4
                        # (its 10 pt text stays ≥ 10 px), a plot not at all (an image in a closed
                        # <details>, a worked answer, is not laid out)
                        if image["visible"]:
                            assert image["shown"] <= output["column"] + 1, (lesson.name, output["column"], image)
                            least = 0.75 if image["src"].startswith("data:image/svg+xml") else 1
                            assert image["shown"] >= least * image["natural"] - 1, (lesson.name, image)
                    drawings += bool(output["images"])
                assert page.locator(".jp-Notebook .gb-player").count() == 0  # untrusted: no script ran
                page.screenshot(path=str(tmp_path / f"{lesson.stem}_untrusted.png"))
                page.evaluate(
                    "() => { window.gbClosing = window.jupyterapp.shell.currentWidget; window.gbClosing.close(); }"
                )
                time.sleep(1)  # closing a changed notebook would ask to save, in a dialog
                assert page.locator(".jp-Dialog").count() == 0, f"{lesson.name}: closing asked to save"
                assert page.evaluate("() => window.gbClosing.isDisposed"), f"{lesson.name}: it did not close"
            assert drawings >= 20  # every lesson has saved graphs, plots and widgets

            # lesson 01, run: backward() twice on one graph is refused, and the graph stays in view
            first = _lessons(language)[0].name
            _open(page, url, first)
            page.evaluate("() => window.jupyterapp.commands.execute('notebook:run-all-cells')")
            accumulation = page.locator(".gradbook-accumulation-lab").first
            accumulation.locator(".gb-player[data-ready='1']").wait_for(state="attached")
            accumulation.scroll_into_view_if_needed()
            press = accumulation.locator("button").nth(1)  # new graph, backward(), ...
            assert press.inner_text() == "backward()"
            press.click()
            expect(accumulation.locator(".gradbook-history")).to_contain_text("+4.")
            press.click()
            player = accumulation.locator(".gb-player")
            refused = (  # the refused node is filled with draw()'s "refused" colour
                "e => [...e.querySelectorAll('.gb-graph [fill]')]"
                ".some(n => n.getAttribute('fill').toLowerCase() === '#ff8a80')"
            )
            page.wait_for_function(
                f"() => ({refused})(document.querySelector('.gradbook-accumulation-lab .gb-player'))"
            )
            box = page.evaluate(
                "() => window.jupyterapp.shell.currentWidget.content.node.getBoundingClientRect().toJSON()"
            )
            shown = player.bounding_box()
            assert shown["width"] <= box["width"], (shown, box)  # the refusal never widens the box
            caption = player.locator(".gb-caption")
            assert "MulBackward0" in caption.inner_text()
            assert caption.bounding_box()["height"] > 20 and caption.bounding_box()["width"] <= shown["width"]
            graph = player.locator(".gb-graph").bounding_box()
            nodes = player.locator(".gb-graph g.node")
            assert nodes.count() >= 2
            for k in range(nodes.count()):  # every node inside the box: the graph did not vanish
                node = nodes.nth(k).bounding_box()
                assert (
                    node
                    and graph["x"] - 1 <= node["x"]
                    and node["x"] + node["width"] <= graph["x"] + graph["width"] + 1
                )
            accumulation.screenshot(path=str(tmp_path / f"refused_{language}_{size[0]}.png"))

            # Play on the last frame plays again from the first, then stops at the last
            bar = player.locator(".gb-bar button")  # |◀ ◀ play ▶ ▶| (titles are in the lesson's language)
            accumulation.locator("button").nth(0).click()  # new graph
            press.click()
            at_end = (  # the new pass is at its end (3 frames: the refused pass before it had 2)
                "e => { const last = e.querySelector('input[type=range]').max;"
                " return +last >= 2 && e.dataset.frame === last; }"
            )
            page.wait_for_function(f"() => ({at_end})(document.querySelector('.gradbook-accumulation-lab .gb-player'))")
            frames = int(player.locator("input[type=range]").get_attribute("max"))
            assert frames >= 2
            bar.nth(4).click()  # the last frame (already there)
            bar.nth(2).click()  # play
            expect(player).to_have_attribute("data-frame", "0", timeout=5_000)
            expect(player).to_have_attribute("data-frame", str(frames), timeout=20_000)
            shot = accumulation.screenshot()
            assert base64.b64encode(shot)  # a picture was taken (kept for looking at)
            (tmp_path / f"played_{language}_{size[0]}.png").write_bytes(shot)

            # lesson 02, run: backward() on a vector y is refused with torch's text, x.grad is kept,
            # the lab ticks gradient= (ones), and the next press goes through
            _open(page, url, _lessons(language)[1].name)
            page.evaluate("() => window.jupyterapp.commands.execute('notebook:run-all-cells')")
            current = page.evaluate("() => window.jupyterapp.shell.currentWidget.id")  # (lesson 01 is open too)
            vector = page.locator(f"[id='{current}'] .gradbook-accumulation-lab").first
            vector.locator(".gb-player[data-ready='1']").wait_for(state="attached")
            vector.scroll_into_view_if_needed()
            expect(vector.locator(".gradbook-history")).to_contain_text("8.")  # the lesson's own call: 2x
            vector.locator("button").nth(1).click()  # backward() again on the graph the lesson's call freed
            expect(vector.locator(".gradbook-status")).to_contain_text("a second time")
            page.wait_for_function(
                f"id => ({refused})(document.getElementById(id).querySelector('.gradbook-accumulation-lab "
                ".gb-player'))",
                arg=current,
            )
            assert "MulBackward0" in vector.locator(".gb-caption").inner_text()
            vector.locator("button").nth(0).click()  # new graph
            ticks = vector.locator(".widget-checkbox input")  # retain_graph, gradient=
            ticks.nth(1).uncheck()
            vector.locator("button").nth(1).click()  # backward() without gradient=
            status = vector.locator(".gradbook-status")
            expect(status).to_contain_text("grad can be implicitly created only for scalar outputs")
            expect(ticks.nth(1)).to_be_checked()
            refused_row = vector.locator(".gradbook-history tr").last
            expect(refused_row).to_contain_text("8.")  # x.grad unchanged
            nodes = vector.locator(".gb-graph g.node")
            assert nodes.count() >= 2  # the graph stays drawn
            vector.screenshot(path=str(tmp_path / f"refused_02_{language}_{size[0]}.png"))
            vector.locator("button").nth(1).click()  # with gradient= ones: x.grad += 2x = [4, 6, 8]
            expect(vector.locator(".gradbook-history tr").last).to_contain_text("16.")
        finally:
            browser.close()

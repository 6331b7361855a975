"""The widgets in a real browser: JupyterLab on localhost, Debian's chromium driven by Playwright.

Skipped when /usr/bin/chromium or the playwright package is missing (``.ci/run`` installs
chromium with apt). The server runs in a temporary directory with all Jupyter config, data and
runtime directories inside it, no token and no network; it is stopped whatever happens, and a
watchdog kills it and the browser if the test runs longer than ``DEADLINE`` seconds.
Screenshots go to the test's temporary directory; set GRADBOOK_SCREENSHOTS=docs/screenshots to
refresh the README's (the test never changes the work tree otherwise).
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from _lab_server import lab_home, serving

CHROMIUM = "/usr/bin/chromium"
ROOT = Path(__file__).resolve().parent.parent
DEADLINE = 150  # seconds for the whole test, server start included
STEP = 45_000  # ms for any single wait in the page

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not Path(CHROMIUM).exists(), reason=f"no {CHROMIUM} (apt-get install chromium)"),
]

CELLS = [
    "import gradbook as torch\nfrom gradbook.widgets import *",
    "lab = AccumulationLab(lambda x: x * x, x=2.0, retain_graph=True)\nlab",
    "x = torch.tensor(2.0, requires_grad=True)\ny = x * x + 3 * x\nplayer = BackwardPlayer(y)\nplayer",
    "w = torch.tensor([1.0, -2.0], requires_grad=True)\nloss = (w * w).sum()\nview = GraphView(loss)\nview",
    "explorer = TangentExplorer(lambda t: t.sin() * t, (-3, 3), x=1.0)\nexplorer",
]


def _notebook(path: Path) -> None:
    cells = [
        {"cell_type": "code", "metadata": {}, "source": src, "outputs": [], "execution_count": None} for src in CELLS
    ]
    kernel = {"name": "python3", "display_name": "Python 3", "language": "python"}
    notebook = {"cells": cells, "metadata": {"kernelspec": kernel}, "nbformat": 4, "nbformat_minor": 5}
    path.write_text(json.dumps(notebook))


@pytest.fixture
def jupyterlab(tmp_path):
    """A JupyterLab server in tmp_path; yields its base URL and the watchdog, and stops it in all cases."""
    home = tmp_path / "home"
    env = lab_home(home)
    (home / "work").mkdir()
    _notebook(home / "work" / "widgets.ipynb")
    shutil.copy(ROOT / "notebooks" / "01_backward_and_accumulation.ipynb", home / "work" / "lesson01.ipynb")
    # as after a teacher's `jupyter trust`; trust goes by content, so this copy differs (its metadata)
    lesson = json.loads((ROOT / "notebooks" / "01_backward_and_accumulation.ipynb").read_text())
    lesson["metadata"]["title"] = "trusted copy"
    trusted = home / "work" / "lesson01_trusted.ipynb"
    trusted.write_text(json.dumps(lesson))
    subprocess.run([sys.executable, "-m", "jupyter", "trust", str(trusted)], env=env, check=True, capture_output=True)
    with serving(home / "work", env, tmp_path / "jupyterlab.log", DEADLINE) as running:
        yield running


def _highlighted(widget) -> str | None:
    """The id of the node drawn as running in the frame the widget shows now."""
    return widget.evaluate(
        """el => {
            for (const g of el.querySelectorAll('.gb-graph svg g.node')) {
                const shape = g.querySelector('polygon, ellipse, path');
                if (shape && shape.getAttribute('fill') === '#ffd54f') return g.id;
            }
            return null;
        }"""
    )


def test_widgets_run_and_play_in_chromium(jupyterlab, tmp_path):
    sync_api = pytest.importorskip("playwright.sync_api")
    expect = sync_api.expect
    url, watchdog = jupyterlab
    SHOTS = Path(os.environ.get("GRADBOOK_SCREENSHOTS") or tmp_path / "screenshots")  # noqa: N806
    SHOTS.mkdir(parents=True, exist_ok=True)
    args = [
        "--no-sandbox",
        "--disable-gpu",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
    ]
    with sync_api.sync_playwright() as p:
        context = p.chromium.launch_persistent_context(
            str(tmp_path / "chromium-profile"),  # a fresh profile, deleted with tmp_path
            executable_path=CHROMIUM,
            headless=True,
            args=args,
            viewport={"width": 1280, "height": 900},
        )
        killer = threading.Timer(DEADLINE - 5, context.close)
        killer.daemon = True
        killer.start()
        try:
            page = context.pages[0] if context.pages else context.new_page()
            page.set_default_timeout(STEP)
            console: list[str] = []
            page.on("console", lambda message: console.append(f"{message.type}: {message.text}"))
            page.goto(f"{url}/lab/tree/widgets.ipynb")
            page.wait_for_function(
                "() => window.jupyterapp && document.querySelector('.jp-Notebook .jp-Cell')", timeout=STEP
            )
            page.wait_for_function(
                "() => { const p = window.jupyterapp.shell.currentWidget;"
                " return p && p.sessionContext && p.sessionContext.session &&"
                " p.sessionContext.session.kernel && p.sessionContext.session.kernel.status === 'idle'; }",
                timeout=STEP,
            )
            page.evaluate("() => window.jupyterapp.commands.execute('notebook:run-all-cells')")

            lab = page.locator(".gradbook-accumulation-lab")
            player = page.locator(".gradbook-backward-player")
            view = page.locator(".gradbook-graph-view")
            explorer = page.locator(".gradbook-tangent-explorer")
            for widget in (lab, player, view, explorer):
                widget.wait_for(state="visible")
            for widget in (lab, player, view):  # Graphviz SVG with nodes in each graph widget
                widget.locator(".gb-graph svg g.node").first.wait_for(state="visible")
            explorer.locator(".gradbook-plot svg").wait_for(state="visible")

            # AccumulationLab: backward() three times (retain_graph is ticked): 4, 8, 12
            table = lab.locator(".gradbook-history")
            plot = lab.locator(".gradbook-plot")
            plots = [plot.inner_html()]
            for calls, grad in enumerate(("4.", "8.", "12."), start=1):
                lab.get_by_role("button", name="backward()").click()
                expect(table.locator("tr")).to_have_count(calls + 1)  # the header and one row per call
                expect(table.locator("tr").last).to_contain_text(grad)
                page.wait_for_function(
                    "old => document.querySelector('.gradbook-accumulation-lab .gradbook-plot').innerHTML !== old",
                    arg=plots[-1],
                )
                plots.append(plot.inner_html())
            assert len(set(plots)) == 4  # the plot was redrawn after every call
            # the last click's pass plays in the browser by itself, ending on x.grad = 12
            expect(lab.locator(".gb-graph")).to_contain_text("grad 12.")
            lab_player = lab.locator(".gb-player")
            expect(lab_player.locator("button", has_text="play")).to_be_visible()  # it has finished playing
            lab.screenshot(path=str(SHOTS / "accumulation_lab.png"))

            # BackwardPlayer: every control runs in the browser, no kernel round trip
            handle = player.element_handle()
            root = player.locator(".gb-player")
            assert _highlighted(handle) is None  # frame 0: before backward
            seen = []
            for i in range(1, 3):
                player.get_by_role("button", name="▶", exact=True).click()
                expect(root).to_have_attribute("data-frame", str(i))
                seen.append(_highlighted(handle))
            assert seen[0] and seen[1] and seen[0] != seen[1]
            assert float(root.get_attribute("data-apply-ms")) < 50  # one step: a few attributes changed
            assert "MulBackward0" in player.locator(".gb-ledger").inner_text() or seen[1]
            player.screenshot(path=str(SHOTS / "backward_player.png"))
            player.get_by_role("button", name="|◀").click()
            expect(root).to_have_attribute("data-frame", "0")
            assert _highlighted(handle) is None
            player.get_by_role("button", name="play").click()  # Play: frames change in the browser
            last = str(int(root.locator("input[type=range]").get_attribute("max")))
            expect(root).to_have_attribute("data-frame", last)
            expect(player.locator(".gradbook-leaf-grads")).to_contain_text("7.")  # dy/dx = 2x + 3 at x = 2
            # zoom, focus on a clicked node, back to the whole graph
            svg = root.locator(".gb-graph svg")
            width = lambda: float(svg.get_attribute("viewBox").split()[2])  # noqa: E731
            before = width()
            player.get_by_role("button", name="+").click()
            assert width() < before
            player.get_by_role("button", name="fit").click()
            assert width() == pytest.approx(before)
            root.locator(".gb-graph svg g.node").first.click()
            expect(root).to_have_attribute("data-focus", root.locator(".gb-graph svg g.node").first.get_attribute("id"))
            assert root.locator(".gb-graph .gb-dim").count() > 0
            player.get_by_role("button", name="✕ focus").click()
            assert root.locator(".gb-graph .gb-dim").count() == 0

            view.screenshot(path=str(SHOTS / "graph_view.png"))
            explorer.screenshot(path=str(SHOTS / "tangent_explorer.png"))
            for width, height in ((1024, 768), (1600, 1000)):  # a projector, a large screen
                page.set_viewport_size({"width": width, "height": height})
                page.wait_for_timeout(300)
                for name, widget in (("accumulation_lab", lab), ("backward_player", player)):
                    widget.scroll_into_view_if_needed()
                    widget.screenshot(path=str(SHOTS / f"{name}_{width}x{height}.png"))
                    buttons = widget.locator("button")
                    for k in range(buttons.count()):  # every button keeps its whole text
                        assert buttons.nth(k).evaluate("b => b.scrollWidth <= b.clientWidth + 1"), buttons.nth(k)

            errors = page.locator(
                ".jp-OutputArea-output[data-mime-type='application/vnd.jupyter.stderr'], "
                ".jp-OutputArea-output[data-mime-type='application/vnd.jupyter.error'], .gradbook-error"
            )
            assert errors.count() == 0, errors.all_inner_texts()
            assert "Error displaying widget" not in page.content()
        except Exception:
            print("\n".join(console[-40:]))
            page.screenshot(path=str(tmp_path / "failure.png"))
            print(f"screenshot of the failure: {tmp_path / 'failure.png'}")
            raise
        finally:
            killer.cancel()
            context.close()
    assert watchdog.is_alive()  # the test finished before the watchdog fired


def test_a_cloned_lesson_shows_pictures_before_anything_runs(jupyterlab, tmp_path):
    """A fresh clone's notebook is untrusted: JupyterLab sanitises its HTML outputs. The widgets'
    saved views must still be pictures (data: URI images), not the bare text of stripped SVG."""
    sync_api = pytest.importorskip("playwright.sync_api")
    url, watchdog = jupyterlab
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=["--no-sandbox", "--disable-gpu"])
        try:
            page = browser.new_page(viewport={"width": 1024, "height": 768})  # a projector
            page.set_default_timeout(STEP)
            page.goto(f"{url}/lab/tree/lesson01.ipynb")
            page.wait_for_function("() => document.querySelectorAll('.jp-OutputArea-output').length > 3")
            images = page.locator(".jp-OutputArea-output img[src^='data:image/svg+xml']")
            images.first.wait_for(state="attached")
            assert images.count() >= 2  # the lab's graph and plot, at least
            text = page.locator(".jp-Notebook").inner_text()
            assert "Matplotlib v" not in text and "AccumulateGrad grad" not in text  # no stripped-SVG text
            images.first.scroll_into_view_if_needed()
            page.screenshot(path=str(tmp_path / "lesson01_untrusted.png"))  # look at it: a picture, not text
            assert page.locator(".gb-player").count() == 0  # no script ran: the sanitiser removed it

            # trusted, and still not run: the saved views' scripts build working players, no kernel involved
            page.goto(f"{url}/lab/tree/lesson01_trusted.ipynb")
            players = page.locator(".jp-OutputArea-output .gb-player[data-ready='1']")
            players.first.wait_for(state="attached")
            player = players.first
            player.evaluate("e => e.scrollIntoView()")  # Lab renders cells out of view lazily
            player.wait_for(state="visible")
            frame = int(player.get_attribute("data-frame"))
            assert frame > 0  # saved at the last frame, as the history table says
            player.locator("button[title='first frame']").click()
            sync_api.expect(player).to_have_attribute("data-frame", "0")
            player.locator("button[title='one step forward']").click()
            sync_api.expect(player).to_have_attribute("data-frame", "1")
            page.screenshot(path=str(tmp_path / "lesson01_trusted.png"))
        finally:
            browser.close()


@contextlib.contextmanager
def _offline_page(sync_api):
    """A page of Debian's chromium at 1024×768 with the network cut off (files only)."""
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=["--no-sandbox", "--disable-gpu"])
        try:
            page = browser.new_context(offline=True, viewport={"width": 1024, "height": 768}).new_page()
            page.set_default_timeout(STEP)
            yield page
        finally:
            browser.close()


@pytest.mark.parametrize("renderer", [None, "layered"])
def test_an_exported_animation_plays_offline_from_a_file(tmp_path, renderer):
    """animation.to_html(path): one file, nothing fetched; in Chromium with the network cut off,
    the buttons step through the frames and Play runs to the end (laid out by dot, or by
    gradbook's own layered layout, as graphs of more than 1,000 nodes are)."""
    sync_api = pytest.importorskip("playwright.sync_api")
    import gradbook as torch
    from gradbook.viz import animate, record_backward

    x = torch.tensor(2.0, requires_grad=True)
    page_file = tmp_path / "backward.html"
    animation = animate(record_backward(x * x + 3 * x), renderer=renderer)
    animation.to_html(str(page_file))
    requests: list[str] = []
    with _offline_page(sync_api) as page:
        page.on("request", lambda r: requests.append(r.url))
        page.goto(page_file.as_uri())
        root = page.locator(".gb-player")
        sync_api.expect(root).to_have_attribute("data-ready", "1")
        assert root.get_attribute("data-frame") == "0" and page.locator(".gb-graph svg").count() == 1
        page.click("button[title='one step forward']")
        page.click("button[title='one step forward']")
        assert root.get_attribute("data-frame") == "2" and page.inner_text(".gb-caption").startswith("step 2:")
        page.click("button[title='play']")
        sync_api.expect(root).to_have_attribute("data-frame", str(len(animation) - 1))
        assert "grad\n7." in page.inner_text(".gb-graph")  # dy/dx = 2x + 3 at x = 2, at the end
        page.screenshot(path=str(tmp_path / f"exported_{renderer}.png"))
    assert all(url.startswith("file:") for url in requests)  # the page fetched nothing else


def test_an_html_export_of_a_lesson_plays_offline(tmp_path):
    """``jupyter nbconvert --to html`` of a saved lesson, opened from a file with the network cut
    off: each widget is a working player (nbconvert's template may ask for its CDN scripts; they
    fail offline and nothing depends on them)."""
    sync_api = pytest.importorskip("playwright.sync_api")
    lesson = tmp_path / "lesson01.ipynb"
    shutil.copy(ROOT / "notebooks" / "01_backward_and_accumulation.ipynb", lesson)
    subprocess.run(
        [sys.executable, "-m", "jupyter", "nbconvert", "--to", "html", str(lesson)], check=True, capture_output=True
    )
    with _offline_page(sync_api) as page:
        page.goto((tmp_path / "lesson01.html").as_uri())
        players = page.locator(".gb-player[data-ready='1']")
        players.first.wait_for(state="attached")
        assert players.count() >= 2
        player = players.first
        player.scroll_into_view_if_needed()
        player.locator("button[title='first frame']").click()
        player.locator("button[title='play']").click()
        last = player.locator("input[type=range]").get_attribute("max")
        sync_api.expect(player).to_have_attribute("data-frame", last)
        page.screenshot(path=str(tmp_path / "lesson01_export.png"))


def test_the_widgets_run_in_notebook_7(jupyterlab, tmp_path):
    """The same notebook in Notebook 7 (the `notebook` package's UI, served by the same server):
    the anywidget front end loads there too, and its controls run in the browser."""
    sync_api = pytest.importorskip("playwright.sync_api")
    pytest.importorskip("notebook")  # Notebook 7 (nbgrader, a test dependency, brings it)
    url, watchdog = jupyterlab
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=["--no-sandbox", "--disable-gpu"])
        try:
            page = browser.new_page(viewport={"width": 1024, "height": 768})
            page.set_default_timeout(STEP)
            page.goto(f"{url}/notebooks/widgets.ipynb")
            page.wait_for_function(
                "() => { const a = window.jupyterapp, p = a && a.shell.currentWidget;"
                " return p && p.sessionContext && p.sessionContext.session &&"
                " p.sessionContext.session.kernel && p.sessionContext.session.kernel.status === 'idle'; }"
            )
            page.evaluate("() => window.jupyterapp.commands.execute('notebook:run-all-cells')")
            root = page.locator(".gradbook-backward-player .gb-player[data-ready='1']")
            root.wait_for(state="attached")
            root.evaluate("e => e.scrollIntoView()")
            root.get_by_role("button", name="▶", exact=True).click()
            sync_api.expect(root).to_have_attribute("data-frame", "1")
            assert page.locator(".gb-player[data-ready='1'] .gb-graph svg g.node").count() > 3
            page.screenshot(path=str(tmp_path / "notebook7.png"))
        finally:
            browser.close()

// gradbook's player: a recorded backward pass, played in the browser with no kernel round trip.
//
// The kernel sends one payload (JSON, gzipped in a widget): the graph laid out once as SVG, its
// elements that change marked data-gb="k", and per frame only the slots that change (running
// node, edge colours and values, .grad rows, freed saved tensors). A step restyles those elements;
// nothing is laid out again. The same function runs inside the anywidget (model = the widget's
// model) and in a saved notebook or exported page (model = a stand-in holding the payload).
//
// Payload: {svg, targets: [[[k, where], ...] per slot], base: [value per slot],
//           diffs: [[slot, value, slot, value, ...] per frame], captions, running,
//           ledger: [html per frame] | null, leaves: [[name, value]], leaf_diffs, height,
//           labels: {key: text} (optional: the controls' words in another language; LABELS below
//           are the English ones, which a payload without labels keeps)}

const CSS = `
.gb-player { font-family: var(--jp-ui-font-family, sans-serif); font-size: 12px; color: #212121; }
.gb-player .gb-bar { display: flex; flex-wrap: wrap; gap: 4px; align-items: center; margin: 2px 0 4px; }
.gb-player button { font-size: 12px; padding: 2px 8px; white-space: nowrap; min-width: 2.4em; cursor: pointer;
  border: 1px solid #bdbdbd; border-radius: 3px; background: #fafafa; color: #212121; }
.gb-player button:hover { background: #eeeeee; }
.gb-player button.gb-on { background: #1e88e5; color: #fff; border-color: #1565c0; }
.gb-player input[type=range] { width: 180px; }
.gb-player { min-width: 0; max-width: 100%; }
.gb-player .gb-caption { font-weight: bold; white-space: normal; overflow-wrap: anywhere; min-height: 1.4em;
  margin: 0 0 4px; }
.gb-player .gb-body { display: flex; flex-wrap: wrap; gap: 8px; align-items: flex-start; }
.gb-player .gb-graph { flex: 1 1 420px; min-width: 280px; position: relative; overflow: hidden; border: 1px solid #e0e0e0;
  border-radius: 3px; background: #fff; touch-action: none; cursor: grab; resize: vertical; }
.gb-player .gb-graph.gb-dragging { cursor: grabbing; }
.gb-player .gb-graph > svg { width: 100%; height: 100%; display: block; user-select: none; }
.gb-player .gb-side { flex: 0 1 330px; min-width: 240px; max-height: var(--gb-height); overflow: auto; }
.gb-player .gb-side:empty { display: none; }
.gb-player .gb-dim { opacity: 0.12; }
.gb-player .gb-side table { border-collapse: collapse; }
.gb-player .gb-side td { padding: 1px 6px; border-bottom: 1px solid #eee; vertical-align: top; }
`;

const LABELS = {
  hint: "drag: pan · ctrl+wheel or pinch: zoom · click a node: focus",
  first: "first frame", back: "one step back", play: "play", pause: "pause", next: "one step forward",
  last: "last frame", step: "step", fit: "fit", fitTitle: "fit the graph to the box (text kept readable)",
  all: "all", allTitle: "the whole graph", zoomIn: "zoom in", zoomOut: "zoom out",
  unfocus: "✕ focus", unfocusTitle: "show the whole graph again",
};

const READABLE = 1.0; // svg units are pt and node text is 10pt: at fit, text is never below 10 px

function gradbookStyle(doc) {
  if (doc.getElementById("gradbook-player-css")) return;
  const style = doc.createElement("style");
  style.id = "gradbook-player-css";
  style.textContent = CSS;
  doc.head.appendChild(style);
}

async function gradbookUnpack(data) {
  if (data && data.svg !== undefined) return data; // a payload given as it is (an exported page)
  if (!data || data.byteLength === 0) return null;
  const bytes = data instanceof DataView ? new Uint8Array(data.buffer, data.byteOffset, data.byteLength)
    : new Uint8Array(data.buffer || data);
  const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
  return JSON.parse(await new Response(stream).text());
}

function gradbookPlayer(model, el) {
  const doc = el.ownerDocument;
  gradbookStyle(doc);
  const make = (tag, cls, text) => {
    const e = doc.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  };
  const root = make("div", "gb-player gradbook-player");
  const bar = make("div", "gb-bar"), body = make("div", "gb-body");
  const graph = make("div", "gb-graph"), side = make("div", "gb-side");
  let labels = LABELS;
  const button = (label, title) => {
    const b = make("button", "gb-button", label);
    b.title = title;
    b.type = "button";
    bar.appendChild(b);
    return b;
  };
  const first = button("|◀", labels.first), back = button("◀", labels.back), play = button(labels.play, labels.play);
  const next = button("▶", labels.next), last = button("▶|", labels.last);
  const slider = make("input");
  slider.type = "range";
  slider.min = 0;
  slider.title = labels.step;
  bar.appendChild(slider);
  const caption = make("div", "gb-caption"); // its own line, wrapped: a refusal is long, and the box keeps its width
  const fit = button(labels.fit, labels.fitTitle);
  const all = button(labels.all, labels.allTitle);
  const zoomIn = button("+", labels.zoomIn), zoomOut = button("−", labels.zoomOut);
  const unfocus = button(labels.unfocus, labels.unfocusTitle);
  unfocus.style.display = "none";
  function relabel(given) { // the payload's words for the controls (English when it has none)
    labels = Object.assign({}, LABELS, given || {});
    graph.title = labels.hint; // the browser's tooltip: an overlay in the box covered node text
    [[first, labels.first], [back, labels.back], [play, labels.play], [next, labels.next], [last, labels.last],
      [slider, labels.step], [fit, labels.fitTitle], [all, labels.allTitle], [zoomIn, labels.zoomIn],
      [zoomOut, labels.zoomOut], [unfocus, labels.unfocusTitle]].forEach(([e, title]) => { e.title = title; });
    fit.textContent = labels.fit;
    all.textContent = labels.all;
    unfocus.textContent = labels.unfocus;
    play.textContent = timer ? labels.pause : labels.play;
  }
  body.append(graph, side);
  root.append(bar, caption, body);
  el.replaceChildren(root);
  el.style.flex = "1 1 auto"; // fill the box it is given (an ipywidgets HBox is a flex row)
  el.style.minWidth = "0";

  let p = null, svg = null, els = [], frame = 0, shownFrame = 0, state = [], shown = [], at = 0;
  let leafState = [], leafCells = [], timer = null, pendingPlay = false, view = null, full = null;
  let ledger = null, focused = null;
  const interval = () => +(model.get("interval") || 600);

  function setView(v) {
    view = v;
    if (svg) svg.setAttribute("viewBox", `${v.x} ${v.y} ${v.w} ${v.h}`);
  }
  function box() {
    const r = graph.getBoundingClientRect();
    return { w: r.width || 600, h: r.height || 360 };
  }
  function zoomTo(rect, anchorTop) { // show rect (svg units) as large as fits, text readable
    const b = box();
    let s = Math.min(b.w / rect.w, b.h / rect.h, 1.6);
    s = Math.max(s, READABLE);
    const w = b.w / s, h = b.h / s;
    let x = rect.x + rect.w / 2 - w / 2;
    if (anchorTop && w < rect.w) { // wider than the box: the output in view, no margin beyond the edges
      const out = svg && svg.querySelector("g.node.output");
      if (out) { const o = bboxOf(out); x = o.x + o.w / 2 - w / 2; }
      x = Math.min(Math.max(x, rect.x), rect.x + rect.w - w);
    }
    const y = anchorTop && h < rect.h ? rect.y : rect.y + rect.h / 2 - h / 2;
    setView({ x, y, w, h });
  }
  function showAll() {
    const b = box(), s = Math.min(b.w / full.w, b.h / full.h);
    const w = b.w / s, h = b.h / s;
    setView({ x: full.x + full.w / 2 - w / 2, y: full.y + full.h / 2 - h / 2, w, h });
  }
  function zoomBy(f, cx, cy) {
    if (!view) return;
    const w = view.w / f, h = view.h / f;
    if (cx === undefined) { cx = view.x + view.w / 2; cy = view.y + view.h / 2; }
    setView({ x: cx - (cx - view.x) / f, y: cy - (cy - view.y) / f, w, h });
  }
  function toSvg(clientX, clientY) {
    const r = graph.getBoundingClientRect();
    return { x: view.x + (clientX - r.left) / r.width * view.w, y: view.y + (clientY - r.top) / r.height * view.h };
  }
  function bboxOf(node) {
    const b = node.getBBox(); // in the coordinates of graphviz's one group, translated in the svg
    const g = svg.querySelector("g.graph"), t = g && g.transform.baseVal.consolidate();
    const dx = t ? t.matrix.e : 0, dy = t ? t.matrix.f : 0;
    return { x: b.x + dx, y: b.y + dy, w: b.width, h: b.height };
  }
  function follow(key) { // keep the running node in view while a large graph plays
    if (!key || !svg || !view) return;
    const node = svg.getElementById ? svg.getElementById(key) : svg.querySelector(`#${key}`);
    if (!node) return;
    const b = bboxOf(node);
    if (b.x >= view.x && b.y >= view.y && b.x + b.w <= view.x + view.w && b.y + b.h <= view.y + view.h) return;
    setView({ x: b.x + b.w / 2 - view.w / 2, y: b.y + b.h / 2 - view.h / 2, w: view.w, h: view.h });
  }

  function apply(slot, value) {
    for (const [k, where] of p.targets[slot]) {
      const e = els[k];
      if (!e) continue;
      if (where === "text") e.textContent = value;
      else e.setAttribute(where, value);
    }
  }
  function show(i) {
    if (!p) return;
    const t0 = performance.now();
    i = Math.max(0, Math.min(p.diffs.length - 1, i | 0));
    const touched = new Set();
    if (i < at) { // back: from frame 0 again (graph slots and leaf .grads alike)
      state = p.base.slice();
      leafState = leafBase();
      at = 0;
      p.base.forEach((_, s) => touched.add(s));
    }
    while (at < i) { // forward: only the changes of the frames passed
      at += 1;
      const d = p.diffs[at];
      for (let k = 0; k < d.length; k += 2) { state[d[k]] = d[k + 1]; touched.add(d[k]); }
      const l = (p.leaf_diffs && p.leaf_diffs[at]) || [];
      for (let k = 0; k < l.length; k += 2) leafState[l[k]] = l[k + 1];
    }
    for (const s of touched) if (state[s] !== shown[s]) { apply(s, state[s]); shown[s] = state[s]; }
    leafState.forEach((v, k) => { if (leafCells[k].textContent !== v) leafCells[k].textContent = v; });
    if (ledger) ledger.innerHTML = p.ledger[Math.min(i, p.ledger.length - 1)];
    caption.textContent = (p.captions && p.captions[Math.min(i, p.captions.length - 1)]) || "";
    slider.value = i;
    frame = shownFrame = i;
    root.dataset.frame = i;
    root.dataset.applyMs = (performance.now() - t0).toFixed(3);
    if (p.running) follow(p.running[i]);
  }
  const leafBase = () => (p.leaves || []).map((l) => l[1]);
  function go(i, fromUser) {
    show(i);
    if (fromUser && model.get("frame") !== frame) { model.set("frame", frame); model.save_changes(); }
  }
  function stop() {
    if (timer) clearInterval(timer);
    timer = null;
    play.textContent = labels.play;
    play.classList.remove("gb-on");
  }
  function start() {
    if (!p || p.diffs.length < 2) return;
    stop();
    if (frame >= p.diffs.length - 1) go(0, true);
    play.textContent = labels.pause;
    play.classList.add("gb-on");
    timer = setInterval(() => {
      if (frame < p.diffs.length - 1) go(frame + 1, true);
      if (frame >= p.diffs.length - 1) stop(); // at the end: "play" again at once
    }, interval());
  }

  function focus(key) {
    if (!svg) return;
    const keep = new Set([key]);
    for (const e of svg.querySelectorAll("g.edge")) {
      const t = e.querySelector("title"), ends = t ? t.textContent.split("->") : [];
      if (ends.includes(key)) ends.forEach((k) => keep.add(k));
    }
    let rect = null;
    for (const g of svg.querySelectorAll("g.node, g.edge")) {
      const t = g.querySelector("title"), id = t ? t.textContent : "";
      const ends = g.classList.contains("edge") ? id.split("->") : [id];
      const inside = g.classList.contains("edge") ? ends.includes(key) : keep.has(id);
      g.classList.toggle("gb-dim", !inside);
      if (inside && g.classList.contains("node")) {
        const b = bboxOf(g);
        rect = rect ? { x: Math.min(rect.x, b.x), y: Math.min(rect.y, b.y),
          w: Math.max(rect.x + rect.w, b.x + b.w) - Math.min(rect.x, b.x),
          h: Math.max(rect.y + rect.h, b.y + b.h) - Math.min(rect.y, b.y) } : b;
      }
    }
    focused = key;
    root.dataset.focus = key;
    unfocus.style.display = "";
    if (rect) zoomTo({ x: rect.x - 10, y: rect.y - 10, w: rect.w + 20, h: rect.h + 20 }, false);
  }
  function clearFocus() {
    if (!svg) return;
    for (const g of svg.querySelectorAll(".gb-dim")) g.classList.remove("gb-dim");
    focused = null;
    delete root.dataset.focus;
    unfocus.style.display = "none";
  }

  function load(payload) {
    stop();
    p = payload;
    if (!p) return;
    relabel(p.labels);
    const height = p.height || 360;
    graph.style.height = height + "px";
    root.style.setProperty("--gb-height", height + "px");
    graph.innerHTML = p.svg;
    svg = graph.querySelector("svg");
    svg.removeAttribute("width");
    svg.removeAttribute("height");
    svg.setAttribute("preserveAspectRatio", "xMidYMid meet");
    const vb = (svg.getAttribute("viewBox") || "0 0 100 100").split(/[ ,]+/).map(Number);
    full = { x: vb[0], y: vb[1], w: vb[2], h: vb[3] };
    els = [];
    for (const e of svg.querySelectorAll("[data-gb]")) els[+e.getAttribute("data-gb")] = e;
    state = p.base.slice();
    shown = p.base.slice();
    leafState = leafBase();
    at = 0;
    focused = null;
    unfocus.style.display = "none";
    side.replaceChildren();
    ledger = null;
    if (p.ledger) { ledger = make("div", "gb-ledger"); side.appendChild(ledger); }
    leafCells = [];
    if (p.leaves && p.leaves.length) {
      const table = make("table", "gb-leaves gradbook-leaf-grads");
      for (const [name, value] of p.leaves) {
        const tr = make("tr"), code = make("code", "", value);
        const td = make("td"), b = make("b", "", name);
        td.append(b, ".grad");
        const cell = make("td");
        cell.appendChild(code);
        tr.append(td, cell);
        table.appendChild(tr);
        leafCells.push(code);
      }
      side.appendChild(table);
    }
    slider.max = p.diffs.length - 1;
    const single = p.diffs.length < 2;
    for (const b of [first, back, play, next, last, slider]) b.style.display = single ? "none" : "";
    zoomTo(full, true);
    show(Math.min(model.get("frame") || 0, p.diffs.length - 1));
    root.dataset.ready = "1";
    if (pendingPlay) { pendingPlay = false; start(); }
  }

  first.onclick = () => { stop(); go(0, true); };
  back.onclick = () => { stop(); go(frame - 1, true); };
  next.onclick = () => { stop(); go(frame + 1, true); };
  last.onclick = () => { stop(); go(p ? p.diffs.length - 1 : 0, true); };
  play.onclick = () => (timer ? stop() : start());
  slider.oninput = () => { stop(); go(+slider.value, true); };
  fit.onclick = () => { if (full) zoomTo(full, true); };
  all.onclick = () => { if (full) showAll(); };
  zoomIn.onclick = () => zoomBy(1.25);
  zoomOut.onclick = () => zoomBy(0.8);
  unfocus.onclick = () => { clearFocus(); if (full) zoomTo(full, true); };

  let drag = null;
  graph.addEventListener("pointerdown", (e) => {
    if (!view || e.button !== 0) return;
    drag = { x: e.clientX, y: e.clientY, view: { ...view }, moved: false, target: e.target }; // captured: later
    // events are the graph's, so the node clicked is the one under pointerdown
    graph.setPointerCapture(e.pointerId);
  });
  graph.addEventListener("pointermove", (e) => {
    if (!drag) return;
    const r = graph.getBoundingClientRect(), dx = e.clientX - drag.x, dy = e.clientY - drag.y;
    if (Math.abs(dx) + Math.abs(dy) > 3) { drag.moved = true; graph.classList.add("gb-dragging"); }
    if (drag.moved) {
      setView({ ...drag.view, x: drag.view.x - dx / r.width * view.w, y: drag.view.y - dy / r.height * view.h });
    }
  });
  graph.addEventListener("pointerup", (e) => {
    const d = drag;
    drag = null;
    graph.classList.remove("gb-dragging");
    if (!d || d.moved) return;
    const node = d.target.closest && d.target.closest("g.node");
    const key = node && node.querySelector("title") ? node.querySelector("title").textContent : null;
    if (key && key !== focused) focus(key);
    else if (focused) clearFocus();
  });
  graph.addEventListener("wheel", (e) => {
    if (!view || !(e.ctrlKey || e.metaKey)) return; // a plain wheel scrolls the notebook
    e.preventDefault();
    const c = toSvg(e.clientX, e.clientY);
    zoomBy(Math.exp(-e.deltaY * 0.002), c.x, c.y);
  }, { passive: false });

  let loading = Promise.resolve();
  const reload = () => { loading = gradbookUnpack(model.get("data")).then(load); return loading; };
  model.on("change:data", reload);
  model.on("change:frame", () => { const f = model.get("frame"); if (f !== shownFrame) { stop(); show(f); } });
  model.on("change:autoplay", () => setTimeout(() => loading.then(() => (p ? start() : (pendingPlay = true))), 0));
  model.on("change:interval", () => { if (timer) start(); });
  root.gradbook = { show, go, start, stop, focus, clearFocus, get frame() { return frame; } };
  reload();
  return () => stop();
}

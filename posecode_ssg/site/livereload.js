// posecode-ssg live preview client. Injected by `posecode-ssg serve` into the
// HTML it serves, never written into a built site.
//
// Listens to the dev server's Server-Sent Events stream (/__posecode/events):
//   "hello"  {instance, version, errors}: sent on (re)connect; a different
//            instance means the server restarted, so the page reloads.
//   "build"  {version, errors, changes: {reloadAll, pages, figures, patch}}:
//            sent once per finished build. Figures whose motion changed are
//            swapped in place (scroll and play state kept); a page whose prose
//            changed around unchanged figures ("patch": its new HTML comes
//            with the event) has its <main> updated in place (figures, scroll
//            and play state kept);
//            pages that changed otherwise reload with their scroll restored.
// Errors are drawn in an overlay (file:line:col, the source line with a caret,
// the hint); the next clean build removes it.
(() => {
  "use strict";
  if (window.posecodeLive) return;

  const EVENTS_URL = "/__posecode/events";
  const SCROLL_KEY = "posecode-live:scroll:" + location.pathname;
  const live = (window.posecodeLive = {
    instance: null,
    version: 0,
    errors: [],
    lastAction: null, // "reload" | "figures" | "patch" | "none"
    appliedAt: 0, // epoch ms when the last update was applied
    updates: 0,
    lastEvent: null, // {version, timing (server epoch ms), receivedAt}; survives a reload
  });
  const EVENT_KEY = "posecode-live:event";
  try {
    live.lastEvent = JSON.parse(sessionStorage.getItem(EVENT_KEY) || "null");
    sessionStorage.removeItem(EVENT_KEY);
  } catch (_) {
    /* storage disabled */
  }

  // ---- scroll position across reloads -----------------------------------
  function saveScroll() {
    try {
      sessionStorage.setItem(SCROLL_KEY, JSON.stringify([window.scrollX, window.scrollY]));
    } catch (_) {
      /* storage disabled: the browser's own restoration still applies */
    }
  }
  function restoreScroll(final) {
    let saved = null;
    try {
      saved = JSON.parse(sessionStorage.getItem(SCROLL_KEY) || "null");
      if (final) sessionStorage.removeItem(SCROLL_KEY);
    } catch (_) {
      return;
    }
    if (Array.isArray(saved)) window.scrollTo(saved[0], saved[1]);
  }
  restoreScroll(false);
  window.addEventListener("load", () => restoreScroll(true), { once: true });

  function reloadPage() {
    live.lastAction = "reload";
    saveScroll();
    try {
      if (live.lastEvent) sessionStorage.setItem(EVENT_KEY, JSON.stringify(live.lastEvent));
    } catch (_) {
      /* storage disabled */
    }
    location.reload();
  }

  // ---- which output file is this tab showing --------------------------------
  function pageCandidates() {
    let path = location.pathname;
    try {
      path = decodeURIComponent(path);
    } catch (_) {
      /* keep the raw path */
    }
    path = path.normalize("NFC").replace(/^\/+/, "");
    if (path === "" || path.endsWith("/")) return [path + "index.html"];
    return [path, path + "/index.html", path + ".html"];
  }
  function pick(list) {
    for (const candidate of pageCandidates()) if (candidate in list) return list[candidate];
    return undefined;
  }

  // ---- in-place figure swap ----------------------------------------------
  // The runtime's <posecode-figure> (posecode_ssg/runtime/posecode-figure.js)
  // reads its motion from an inline <script type="application/json"> child
  // (or a src attribute) and offers `load(motion)`: validate, rebuild the
  // player, keep the element; it resolves to false after showing an error in
  // place. We replace the data and the static fallbacks (poster, phase list),
  // call load(), then put back the play state and time the author had (load
  // resets them to the autoplay default). An element without load() gets a
  // cancelable "posecode:update" event it acknowledges with preventDefault().
  // Resolves to false when the element cannot update itself (page reloads).
  function playState(el) {
    let t = null;
    try {
      const sample = typeof el.sample === "function" ? el.sample() : null;
      if (sample && Number.isFinite(sample.t)) t = sample.t;
    } catch (_) {
      /* no sample before ready */
    }
    return { playing: el.playing === true, t };
  }

  function restorePlayState(el, state) {
    if (state.t !== null && typeof el.seek === "function" && Number.isFinite(el.duration) && el.duration > 0) {
      el.seek(state.t % el.duration);
    }
    if (state.playing && typeof el.play === "function") el.play();
    else if (!state.playing && typeof el.pause === "function") el.pause();
  }

  async function swapFigure(el, html) {
    const template = document.createElement("template");
    template.innerHTML = html.trim();
    const fresh = template.content.querySelector("posecode-figure");
    if (!fresh) return false;
    for (const selector of ["figure.posecode-poster", "ol.posecode-phases"]) {
      const current = el.querySelector(selector);
      const next = fresh.querySelector(selector);
      if (current && next) current.innerHTML = next.innerHTML;
    }
    let motion;
    const nextData = fresh.querySelector(':scope > script[type="application/json"]');
    if (nextData) {
      const data = el.querySelector(':scope > script[type="application/json"]');
      if (data) data.textContent = nextData.textContent;
      else el.prepend(nextData.cloneNode(true));
      try {
        motion = JSON.parse(nextData.textContent);
      } catch (_) {
        return false;
      }
    }
    const src = fresh.getAttribute("src");
    if (src !== el.getAttribute("src")) {
      if (src === null) el.removeAttribute("src");
      else el.setAttribute("src", src);
    }
    if (typeof el.load === "function" && motion !== undefined) {
      const state = playState(el);
      const ok = await el.load(motion);
      if (ok !== false) restorePlayState(el, state);
      return true; // on false the element shows the problem in place itself
    }
    const event = new CustomEvent("posecode:update", { detail: { motion }, cancelable: true, bubbles: false });
    el.dispatchEvent(event);
    return event.defaultPrevented;
  }

  const shown = new Map(); // figure id -> the markup last swapped in

  async function swapFigures(list) {
    for (const item of list) {
      const el = document.getElementById(item.id);
      if (!el || el.localName !== "posecode-figure") return false;
      if (shown.get(item.id) === item.html) continue; // already showing it (fast path, then build)
      shown.set(item.id, item.html);
      // Bounded: a runtime that never settles must not hold the page hostage.
      const done = await Promise.race([swapFigure(el, item.html), new Promise((r) => setTimeout(() => r(false), 5000))]);
      if (!done) {
        shown.delete(item.id);
        return false;
      }
    }
    return true;
  }

  // ---- in-place page update (prose edits) ---------------------------------
  // The server sends a page's new HTML under "patch" when its figures are
  // exactly as before and only the text around them changed. A reload would
  // tear down and rebuild every figure (WebGL contexts, runtime start-up:
  // ~90 ms here); instead <main> is brought up to date node by node, the
  // live <posecode-figure> elements staying where they are. Any
  // doubt (different head assets, header or footer, figures that do not line
  // up, a page with the library filters, whose script holds references to its
  // elements) and the caller reloads.
  const hasFigure = (node) =>
    node.nodeType === 1 && (node.localName === "posecode-figure" || node.querySelector("posecode-figure") !== null);

  function headKey(doc) {
    return [...doc.head.querySelectorAll("link, script, meta, base")]
      .filter((el) => !(el.localName === "meta" && el.getAttribute("name") === "description"))
      .map((el) => el.outerHTML)
      .join("\n");
  }

  function frameKey(doc) {
    return [...doc.body.children]
      .filter((el) => el.localName !== "main" && el.localName !== "script")
      .map((el) => el.outerHTML)
      .join("\n");
  }

  function syncAttributes(el, next) {
    for (const name of el.getAttributeNames()) if (!next.hasAttribute(name)) el.removeAttribute(name);
    for (const name of next.getAttributeNames()) {
      if (el.getAttribute(name) !== next.getAttribute(name)) el.setAttribute(name, next.getAttribute(name));
    }
  }

  // Bring the children of `el` (live) to those of `next` (parsed): the children that
  // hold figures are anchors, matched in order and updated recursively (a figure itself
  // is kept as it is); the runs of children between anchors are replaced where they differ.
  function morphChildren(el, next) {
    const current = [...el.childNodes];
    const wanted = [...next.childNodes];
    const currentAnchors = current.filter(hasFigure);
    const wantedAnchors = wanted.filter(hasFigure);
    if (currentAnchors.length !== wantedAnchors.length) return false;
    for (let k = 0; k < currentAnchors.length; k++) {
      const a = currentAnchors[k];
      const b = wantedAnchors[k];
      if (a.localName !== b.localName) return false;
      if (a.localName === "posecode-figure" && a.id !== b.id) return false;
    }
    let i = 0;
    let j = 0;
    for (let k = 0; k <= currentAnchors.length; k++) {
      const anchor = k < currentAnchors.length ? currentAnchors[k] : null;
      const iEnd = anchor ? current.indexOf(anchor) : current.length;
      const jEnd = k < wantedAnchors.length ? wanted.indexOf(wantedAnchors[k]) : wanted.length;
      if (iEnd - i === jEnd - j) {
        for (; i < iEnd; i++, j++) {
          if (!current[i].isEqualNode(wanted[j])) current[i].replaceWith(document.importNode(wanted[j], true));
        }
      } else {
        for (; i < iEnd; i++) current[i].remove();
        for (; j < jEnd; j++) el.insertBefore(document.importNode(wanted[j], true), anchor);
      }
      if (anchor) {
        const target = wantedAnchors[k];
        if (anchor.localName !== "posecode-figure") {
          syncAttributes(anchor, target);
          if (!morphChildren(anchor, target)) return false;
        }
        i += 1;
        j += 1;
      }
    }
    return true;
  }

  function patchPage(html) {
    if (typeof html !== "string" || document.querySelector("[data-library-filters]")) return false;
    const doc = new DOMParser().parseFromString(html, "text/html");
    const main = document.getElementById("main");
    const nextMain = doc.getElementById("main");
    if (!main || !nextMain || main.localName !== "main" || nextMain.localName !== "main") return false;
    if (headKey(document) !== headKey(doc) || frameKey(document) !== frameKey(doc)) return false;
    syncAttributes(main, nextMain);
    if (!morphChildren(main, nextMain)) return false;
    document.title = doc.title;
    const description = doc.head.querySelector('meta[name="description"]');
    const current = document.head.querySelector('meta[name="description"]');
    if (current && description) current.setAttribute("content", description.getAttribute("content") || "");
    else if (current) current.remove();
    else if (description) document.head.append(document.importNode(description, true));
    return true;
  }

  // ---- error overlay -------------------------------------------------------
  const OVERLAY_ID = "posecode-live-overlay";
  const OVERLAY_CSS = `
    :host { all: initial; }
    .backdrop { position: fixed; inset: 0; z-index: 2147483647; background: rgba(15, 17, 21, 0.86);
      overflow: auto; font: 14px/1.45 ui-monospace, "DejaVu Sans Mono", "Liberation Mono", monospace;
      color: #e8e6e3; }
    .panel { max-width: 960px; margin: 48px auto; padding: 20px 24px; background: #1c1f26;
      border-top: 4px solid #ff5c57; border-radius: 6px; box-shadow: 0 8px 40px rgba(0,0,0,.5); }
    h1 { font: 600 16px/1.3 system-ui, "DejaVu Sans", sans-serif; margin: 0 0 4px; color: #ff8a80; }
    .note { font: 13px/1.4 system-ui, "DejaVu Sans", sans-serif; color: #a9b1bd; margin: 0 0 16px; }
    .problem { margin: 0 0 18px; }
    .where { color: #8fd3ff; font-weight: 600; }
    .msg { color: #ffd1cc; }
    pre { margin: 6px 0; padding: 8px 10px; background: #12141a; border-radius: 4px; white-space: pre;
      overflow-x: auto; color: #e8e6e3; }
    .caret { color: #ff5c57; }
    .hint { color: #b5e48c; }
    button { position: absolute; top: 56px; right: calc(50% - 468px); font: 13px system-ui, sans-serif;
      background: #2a2f3a; color: #e8e6e3; border: 1px solid #444b59; border-radius: 4px; padding: 4px 10px;
      cursor: pointer; }
    @media (max-width: 1000px) { button { right: 32px; } }
  `;

  function removeOverlay() {
    const host = document.getElementById(OVERLAY_ID);
    if (host) host.remove();
  }

  function showOverlay(errors, crashed) {
    removeOverlay();
    const host = document.createElement("div");
    host.id = OVERLAY_ID;
    host.setAttribute("role", "alertdialog");
    host.setAttribute("aria-label", "Posecode build errors");
    const root = host.attachShadow({ mode: "open" });
    const style = document.createElement("style");
    style.textContent = OVERLAY_CSS;
    root.append(style);
    const backdrop = document.createElement("div");
    backdrop.className = "backdrop";
    const panel = document.createElement("div");
    panel.className = "panel";
    const title = document.createElement("h1");
    title.textContent = errors.length === 1 ? "1 error" : `${errors.length} errors`;
    const note = document.createElement("p");
    note.className = "note";
    note.textContent = crashed
      ? "The build failed; the preview keeps showing the last good version. Save a fix to continue."
      : "The preview keeps showing the last good version of the affected page. Save a fix and this closes.";
    panel.append(title, note);
    for (const problem of errors) panel.append(renderProblem(problem));
    const close = document.createElement("button");
    close.type = "button";
    close.textContent = "Dismiss (Esc)";
    close.addEventListener("click", removeOverlay);
    backdrop.append(panel, close);
    root.append(backdrop);
    document.documentElement.append(host);
  }

  function renderProblem(problem) {
    const box = document.createElement("div");
    box.className = "problem";
    const head = document.createElement("div");
    const where = document.createElement("span");
    where.className = "where";
    where.textContent = `${problem.file}:${problem.line}:${problem.column}`;
    const msg = document.createElement("span");
    msg.className = "msg";
    msg.textContent = `: ${problem.severity}[${problem.code}]: ${problem.message}`;
    head.append(where, msg);
    box.append(head);
    if (problem.source) {
      const gutter = `${problem.line} | `;
      const pre = document.createElement("pre");
      pre.append(document.createTextNode(gutter + problem.source + "\n"));
      const caret = document.createElement("span");
      caret.className = "caret";
      caret.textContent = " ".repeat(gutter.length + Math.max(problem.column - 1, 0)) + "^".repeat(problem.width || 1);
      pre.append(caret);
      box.append(pre);
    }
    if (problem.hint) {
      const hint = document.createElement("div");
      hint.className = "hint";
      hint.textContent = `hint: ${problem.hint}`;
      box.append(hint);
    }
    return box;
  }

  function renderErrors(message) {
    live.errors = message.errors || [];
    if (live.errors.length) showOverlay(live.errors, message.crashed);
    else removeOverlay();
  }
  document.addEventListener("keydown", (event) => {
    if (event.key === "Escape") removeOverlay();
  });

  // ---- the event stream ---------------------------------------------------
  function markApplied(action) {
    live.lastAction = action;
    live.appliedAt = performance.timeOrigin + performance.now();
    live.updates += 1;
    document.dispatchEvent(new CustomEvent("posecode:live-update", { detail: { action, version: live.version } }));
  }

  async function onBuild(message) {
    live.version = message.version;
    live.lastEvent = {
      version: message.version,
      timing: message.timing || null,
      receivedAt: performance.timeOrigin + performance.now(),
    };
    const changes = message.changes || {};
    const pages = Object.fromEntries((changes.pages || []).map((p) => [p, true]));
    if (changes.reloadAll) {
      reloadPage();
      return;
    }
    if (pick(pages)) {
      if (!patchPage(pick(changes.patch || {}))) {
        reloadPage();
        return;
      }
      renderErrors(message);
      markApplied("patch");
      return;
    }
    renderErrors(message);
    const figures = pick(changes.figures || {});
    if (figures) {
      if (!(await swapFigures(figures))) {
        reloadPage();
        return;
      }
      markApplied("figures");
      return;
    }
    markApplied("none");
  }

  const source = new EventSource(EVENTS_URL);
  source.addEventListener("hello", (event) => {
    const message = JSON.parse(event.data);
    if (live.instance && live.instance !== message.instance) {
      reloadPage(); // the server restarted: the site may have changed meanwhile
      return;
    }
    if (live.instance && message.version !== live.version) {
      reloadPage(); // reconnected after missing builds
      return;
    }
    live.instance = message.instance;
    live.version = message.version;
    renderErrors(message);
  });
  // Builds are applied one after the other: an in-place update fetches the page,
  // and a newer build's update must not land before an older one's.
  let applying = Promise.resolve();
  source.addEventListener("build", (event) => {
    const message = JSON.parse(event.data);
    applying = applying.then(() => onBuild(message)).catch(() => reloadPage());
  });
  // Sent before the build when only Posecode blocks changed: their figures,
  // compiled on their own. The build's own event follows.
  source.addEventListener("figures", async (event) => {
    const message = JSON.parse(event.data);
    const figures = pick((message.changes && message.changes.figures) || {});
    if (!figures) return;
    live.lastEvent = { version: message.version, timing: message.timing || null,
                       receivedAt: performance.timeOrigin + performance.now() };
    if (await swapFigures(figures)) markApplied("figures");
  });
})();

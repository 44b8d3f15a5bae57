/**
 * Loading a figure's JSON: the page's rig.json (once per page, URL from
 * `<meta name="posecode-rig">`) and a motion document inline or by URL. Failures are
 * {@link MotionDataError}s whose message the element shows in place of the figure.
 * @module loading
 */

import { MotionDataError } from "./validate.js";
import { STRINGS } from "./strings.js";

/** `text` parsed as JSON, or a {@link MotionDataError} naming `what`. */
export function parseJSON(text, what) {
  try { return JSON.parse(text); } catch (e) { throw new MotionDataError(STRINGS.notJSON(what, e.message)); }
}

/** Fetch and parse the JSON at `url` (`what` names it in error messages). */
export async function fetchJSON(url, what) {
  let res;
  try { res = await fetch(url); } catch (e) { throw new MotionDataError(STRINGS.notLoaded(what, e.message)); }
  if (!res.ok) throw new MotionDataError(STRINGS.notLoaded(what, STRINGS.httpStatus(res.status)));
  return parseJSON(await res.text(), what);
}

let rigPromise = null;
/** Fetch the page's rig.json once (URL from `<meta name="posecode-rig">`). */
export function loadRig() {
  return rigPromise || (rigPromise = (async () => {
    const meta = document.querySelector('meta[name="posecode-rig"]');
    const href = meta && meta.getAttribute("content");
    if (!href) throw new MotionDataError(STRINGS.noRigMeta);
    const url = new URL(href, document.baseURI);
    const rig = await fetchJSON(url, STRINGS.rig(url));
    if (!rig || rig.format !== "posecode-rig/1") throw new MotionDataError(STRINGS.notRig(url));
    return rig;
  })());
}

/** The motion JSON of element `fig`: its `src` URL, else its inline `<script type="application/json">` child. */
export function loadMotion(fig) {
  const src = fig.getAttribute("src");
  const script = fig.querySelector(':scope > script[type="application/json"]');
  return src ? fetchJSON(new URL(src, document.baseURI), src)
    : script ? parseJSON(script.textContent, STRINGS.motionData)
    : Promise.reject(new MotionDataError(STRINGS.noMotion));
}

/**
 * Entry point of the browser runtime bundle (posecode_ssg/runtime/dist/posecode-runtime.js):
 * defines `<posecode-figure>` and `window.posecode`. Loaded as
 * `<script type="module" src="…/posecode-runtime.js">`.
 * @module index
 */

import { PosecodeFigure } from "./posecode-figure.js";

export { PosecodeFigure };
export { Timeline } from "./timeline.js";

if (typeof customElements !== "undefined" && !customElements.get("posecode-figure")) {
  window.posecode = window.posecode || {};
  window.posecode.version = "0.1.0";
  customElements.define("posecode-figure", PosecodeFigure);
}

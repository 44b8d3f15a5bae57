/**
 * The player's stylesheet, inserted once per page at the top of <head> (so page CSS can
 * override it). Colours come from the `--pc-*` custom properties where a page sets them.
 * @module style
 */

const STYLE = `\
posecode-figure{display:block}\
.pc-player{display:flex;flex-direction:column;gap:.4rem;container-type:inline-size}\
.pc-view{position:relative;aspect-ratio:4/3;width:100%;max-height:80vh;overflow:hidden;border-radius:6px;background:var(--pc-view-bg,color-mix(in srgb,currentColor 7%,transparent));touch-action:pan-y;cursor:grab;outline-offset:2px}\
.pc-view:focus-visible{outline:3px solid var(--pc-accent,#1f6feb)}\
.pc-view>*{position:absolute}\
.pc-view>canvas{inset:0;width:100%;height:100%;display:block}\
.pc-view>.posecode-poster{inset:0;margin:0;display:flex;flex-direction:column;align-items:center;justify-content:center}\
.pc-view>.posecode-poster svg{max-width:100%;min-height:0;flex:1 1 auto;width:auto;height:100%}\
.pc-view>.posecode-poster figcaption{flex:none;padding:.2em .5em;font-size:.9em}\
.pc-view[data-state=live]>.posecode-poster{display:none}\
.pc-view[data-state=poster]>canvas{visibility:hidden}\
.pc-controls{display:flex;flex-wrap:wrap;align-items:center;gap:.4rem;font-size:.9em}\
.pc-controls button,.pc-controls select,.pc-reset{font:inherit;min-height:2.2rem;min-width:2.2rem;padding:0 .4rem}\
.pc-scrub{flex:1 1 4rem;min-width:4rem}\
@container (max-width:18rem){.pc-scrub{order:-1;flex-basis:100%}}\
.pc-time,.pc-rep{font-variant-numeric:tabular-nums;white-space:nowrap}\
.pc-reset,.pc-rep{background:#ffffffd9;color:#1b1b1b}\
.pc-reset{top:.4rem;right:.4rem;border-radius:50%;border:1px solid #00000040;padding:0;cursor:pointer}\
.pc-rep{top:.5rem;left:.5rem;padding:.1em .5em;border-radius:1em;font-size:.85em;pointer-events:none}\
.pc-phase-list{margin:0;padding-inline-start:1.6em;font-size:.9em}\
.pc-phase-list li{padding:.1em .3em;border-inline-start:3px solid transparent}\
.pc-phase-list button{font:inherit;background:none;border:0;padding:.1em 0;color:inherit;cursor:pointer;text-align:start}\
.pc-phase-list [aria-current]{border-inline-start-color:var(--pc-accent,#1f6feb);background:var(--pc-current-bg,#1f6feb14)}\
.pc-phase-list [aria-current] button{font-weight:700}\
.pc-phase-cue{display:block;font-style:italic;opacity:.7}\
.pc-phase-list [aria-current] .pc-phase-cue{opacity:1}\
.pc-phase-meta{opacity:.75;font-weight:400}\
.pc-error{border:2px solid #b3261e;color:#8c1d18;background:#fdecea;padding:.6em .8em;border-radius:6px;font:inherit}`;

/** Put the player's stylesheet into the page once. */
export function injectStyle() {
  if (document.getElementById("posecode-runtime-style")) return;
  const s = document.createElement("style");
  s.setAttribute("id", "posecode-runtime-style");
  s.textContent = STYLE;
  document.head.prepend(s);
}

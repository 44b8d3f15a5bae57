/**
 * Every text the player shows or announces (labels, aria-labels, titles, readouts, error
 * messages), in one table: the element and its controls read them from here.
 *
 * The texts are templates with `{name}` fields. English is built in (the same texts as the
 * `player.*` keys of posecode_ssg/i18n/locales/en.toml, tested equal); a page in another
 * language carries them in a strings block the theme writes once per page
 * (docs/runtime.md "Strings"):
 *
 *     <script type="application/json" id="posecode-strings">{"player": {...}, "mode": {...}}</script>
 *
 * read once, at the first text asked for. Numbers are formatted for the page's language
 * (`<html lang>`, `Intl.NumberFormat`: `1,5 s` in German); the timing words of the step list
 * (`settle`, `drive`) come from the block's `mode` table.
 * @module strings
 */

/** English, the fallback of every key. */
const EN = {
  // the player and its view
  player: "{title}: animated figure",
  viewRole: "3D figure",
  view: "{title}. Arrow keys turn the view, plus and minus zoom, Shift with the arrow keys or a drag pans, Home resets the view, Space plays or pauses.",
  // controls
  play: "Play",
  pause: "Pause",
  playIcon: "▶",
  pauseIcon: "❚❚",
  time: "Time",
  speed: "Speed",
  speedOption: "{s}×",
  resetView: "Reset view",
  resetIcon: "⟲",
  phases: "Phases",
  phaseMeta: "{d} s · {mode}",
  clock: "{t} / {d} s",
  scrubValue: "{t} of {d} seconds, {phase}",
  phaseOf: "phase {i} of {n}: {name}",
  backToStart: "back to start",
  rep: "Rep {i} of {n}",
  // errors shown in place of the figure
  error: "posecode-figure: {message}",
  internalError: "internal error ({message})",
  notJSON: "{what} is not valid JSON ({message})",
  notLoaded: "could not load {what} ({why})",
  httpStatus: "HTTP {status}",
  noRigMeta: 'the page has no <meta name="posecode-rig" content="…/rig.json">',
  rig: "the rig {url}",
  notRig: 'the rig {url} is not a "posecode-rig/1" file',
  motionData: "the motion data",
  noMotion: 'no motion data: add a <script type="application/json"> child or a src attribute',
};

let table = null, modes = null, numbers = null, plain = null;

/** The page's strings block over English (read once). */
function load() {
  table = { ...EN };
  modes = {};
  const doc = typeof document !== "undefined" ? document : null;
  const block = doc && doc.getElementById("posecode-strings");
  if (block) {
    try {
      const data = JSON.parse(block.textContent);
      for (const [k, v] of Object.entries(data.player || {})) if (typeof v === "string" && v) table[k] = v;
      for (const [k, v] of Object.entries(data.mode || {})) if (typeof v === "string" && v) modes[k] = v;
    } catch (e) { /* a broken block: English */ }
  }
  const lang = (doc && doc.documentElement && doc.documentElement.lang) || "en";
  const tenths = { minimumFractionDigits: 1, maximumFractionDigits: 1 };
  try { numbers = new Intl.NumberFormat(lang, tenths); plain = new Intl.NumberFormat(lang); }
  catch (e) { numbers = new Intl.NumberFormat("en", tenths); plain = new Intl.NumberFormat("en"); }
}

/** Template `key` with `{name}` fields filled from `values`. */
function fill(key, values) {
  if (!table) load();
  return table[key].replace(/\{(\w+)\}/g, (m, name) => (name in values ? String(values[name]) : m));
}

/** A number of seconds with one decimal, in the page's language (`1.5`, `1,5`). */
export function seconds(t) {
  if (!table) load();
  return numbers.format(t);
}

/** A number as the page's language writes it (`0,25` in German). */
export function number(x) {
  if (!table) load();
  return plain.format(x);
}

/** A step's timing word in the page's language. */
export function mode(word) {
  if (!table) load();
  return modes[word] || word;
}

/** Forget the strings read (a test that swaps the page's block). */
export function reset() { table = modes = numbers = plain = null; }

/**
 * The texts by key: a text without fields is a property (`STRINGS.play`), one with fields a
 * function of them in the order the English template names them (`STRINGS.clock(t, d)` for
 * "{t} / {d} s"); a step's timing word is put in its page-language form (`phaseMeta`).
 */
export const STRINGS = {};
for (const [key, text] of Object.entries(EN)) {
  const names = [...text.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
  if (!names.length) Object.defineProperty(STRINGS, key, { get: () => fill(key, {}) });
  else STRINGS[key] = (...args) => fill(key, Object.fromEntries(names.map((n, i) => [n, n === "mode" ? mode(args[i]) : args[i]])));
}

/** The English templates (a test compares them with the catalogue's `player.*`). */
export const ENGLISH = EN;

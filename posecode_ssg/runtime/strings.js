/**
 * Every text the player shows or announces (labels, aria-labels, titles, readouts, error
 * messages), in one table: the element and its controls read them from here. Templates are
 * functions of the values they name.
 * @module strings
 */

export const STRINGS = {
  // the player and its view
  player: (title) => `${title}: animated figure`,
  viewRole: "3D figure",
  view: (title) => `${title}. Arrow keys turn the view, plus and minus zoom, Shift with the arrow keys or a drag pans, Home resets the view, Space plays or pauses.`,
  // controls
  play: "Play",
  pause: "Pause",
  playIcon: "▶",
  pauseIcon: "❚❚",
  time: "Time",
  speed: "Speed",
  speedOption: (s) => `${s}×`,
  resetView: "Reset view",
  resetIcon: "⟲",
  phases: "Phases",
  phaseMeta: (d, mode) => `${d} s · ${mode}`,
  clock: (t, d) => `${t} / ${d} s`,
  scrubValue: (t, d, phase) => `${t} of ${d} seconds, ${phase}`,
  phaseOf: (i, n, name) => `phase ${i} of ${n}: ${name}`,
  backToStart: "back to start",
  rep: (i, n) => `Rep ${i} of ${n}`,
  // errors shown in place of the figure
  error: (message) => `posecode-figure: ${message}`,
  internalError: (message) => `internal error (${message})`,
  notJSON: (what, message) => `${what} is not valid JSON (${message})`,
  notLoaded: (what, why) => `could not load ${what} (${why})`,
  httpStatus: (status) => `HTTP ${status}`,
  noRigMeta: 'the page has no <meta name="posecode-rig" content="…/rig.json">',
  rig: (url) => `the rig ${url}`,
  notRig: (url) => `the rig ${url} is not a "posecode-rig/1" file`,
  motionData: "the motion data",
  noMotion: 'no motion data: add a <script type="application/json"> child or a src attribute',
};

// posecode-ssg default theme: library filters (muscle, equipment, level) and search over
// the build-time index (names, summaries, step names, cues). No server involved.
(function () {
  "use strict";
  document.documentElement.classList.add("js");
  // a handout's Print button
  document.addEventListener("click", function (event) {
    if (event.target.closest && event.target.closest("[data-print]")) window.print();
  });

  function words(text) {
    return (text || "").toLowerCase().normalize("NFKD").replace(/[\u0300-\u036f]/g, "").split(/[^a-z0-9]+/).filter(Boolean);
  }

  function setup() {
    var form = document.querySelector("[data-library-filters]");
    if (!form) return;
    var cards = Array.prototype.slice.call(document.querySelectorAll("[data-cards] > .card"));
    var count = form.querySelector("[data-result-count]");
    // "{count} exercises" in the page's language: the plural forms the theme wrote (CLDR
    // categories, chosen with the browser's Intl.PluralRules for the page's lang), numbers
    // formatted for it
    var lang = document.documentElement.lang || "en";
    var rules = new Intl.PluralRules(lang), numbers = new Intl.NumberFormat(lang);
    function counted(which, values) {
      var forms = JSON.parse(count.dataset[which] || "{}");
      var text = forms[rules.select(values.count)] || forms.other || "";
      return text.replace(/\{(\w+)\}/g, function (m, name) {
        return name in values ? numbers.format(values[name]) : m;
      });
    }
    var noResults = document.querySelector("[data-no-results]");
    var others = document.querySelector("[data-other-results]");
    var othersHeading = document.querySelector("[data-other-heading]");
    var input = form.querySelector("input[name=q]");
    var index = null, loading = null;

    function loadIndex() {
      if (loading) return loading;
      loading = fetch(form.getAttribute("data-search-index"))
        .then(function (r) { if (!r.ok) throw new Error("HTTP " + r.status); return r.json(); })
        .then(function (data) {
          index = data.pages.map(function (p) {
            return { t: p.t, u: p.u, s: p.s, text: " " + words(p.t + " " + p.s + " " + p.x).join(" ") + " " };
          });
        })
        .catch(function () { index = []; });
      return loading;
    }

    function matches(query) {
      var terms = words(query);
      if (!terms.length) return null;
      var hits = {};
      index.forEach(function (entry) {
        if (terms.every(function (t) { return entry.text.indexOf(" " + t) !== -1; })) hits[entry.u] = entry;
      });
      return hits;
    }

    function apply() {
      var value = function (name) { var el = form.elements[name]; return el ? el.value : ""; };
      var muscle = value("muscle"), equipment = value("equipment"), level = value("level");
      var query = input.value.trim();
      var hits = query && index ? matches(query) : null;
      var shown = 0;
      cards.forEach(function (card) {
        var ok = (!muscle || (" " + card.dataset.muscles + " ").indexOf(" " + muscle + " ") !== -1)
          && (!equipment || (" " + card.dataset.equipment + " ").indexOf(" " + equipment + " ") !== -1)
          && (!level || card.dataset.level === level)
          && (!hits || Object.prototype.hasOwnProperty.call(hits, card.dataset.url));
        card.hidden = !ok;
        if (ok) shown++;
      });
      count.textContent = shown === cards.length ? counted("forms", { count: cards.length })
        : counted("formsOf", { shown: shown, count: cards.length });
      noResults.hidden = shown !== 0;
      others.textContent = "";
      others.hidden = true;
      if (othersHeading) othersHeading.hidden = true;
      if (hits && !muscle && !equipment && !level) {
        var cardUrls = {};
        cards.forEach(function (c) { cardUrls[c.dataset.url] = true; });
        Object.keys(hits).sort().forEach(function (u) {
          if (cardUrls[u]) return;
          var li = document.createElement("li"), a = document.createElement("a");
          a.href = u; a.textContent = hits[u].t; li.appendChild(a);
          others.appendChild(li); others.hidden = false;
          if (othersHeading) othersHeading.hidden = false;
        });
      }
      remember({ q: query, muscle: muscle, equipment: equipment, level: level });
    }

    // The address keeps the search and filters (replaceState: no history entry per keystroke),
    // so a reload or a shared link shows the same list; the header search box follows.
    function remember(state) {
      var params = new URLSearchParams(window.location.search);
      Object.keys(state).forEach(function (k) { if (state[k]) params.set(k, state[k]); else params.delete(k); });
      var search = params.toString();
      var url = window.location.pathname + (search ? "?" + search : "") + window.location.hash;
      if (url !== window.location.pathname + window.location.search + window.location.hash) {
        window.history.replaceState(window.history.state, "", url);
      }
      var header = document.getElementById("site-search");
      if (header && header !== input) header.value = state.q;
    }

    form.addEventListener("input", function () {
      if (input.value.trim() && !index) loadIndex().then(apply); else apply();
    });
    form.addEventListener("change", apply);
    form.addEventListener("submit", function (event) { event.preventDefault(); apply(); });
    form.addEventListener("reset", function () { setTimeout(apply, 0); });
    // A link or the header search may carry the query and filters (?q=&muscle=&equipment=&level=):
    // they fill the form, and the page scrolls to the results so the reader sees them.
    var params = new URLSearchParams(window.location.search);
    var fromUrl = false;
    ["muscle", "equipment", "level"].forEach(function (name) {
      var el = form.elements[name], wanted = params.get(name);
      if (el && wanted && Array.prototype.some.call(el.options || [], function (o) { return o.value === wanted; })) {
        el.value = wanted;
        fromUrl = true;
      }
    });
    var reveal = function () { if (fromUrl) form.scrollIntoView({ block: "start" }); };
    if (params.get("q")) {
      fromUrl = true;
      input.value = params.get("q");
      var header = document.getElementById("site-search");
      if (header) header.value = params.get("q");
      loadIndex().then(apply).then(reveal);
    } else {
      apply();
      reveal();
    }
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", setup); else setup();
})();

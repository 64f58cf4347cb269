// Sortable tables and the failure gallery's filters; the page needs nothing else.
(function () {
  "use strict";
  function cellKey(td) {
    var s = td ? td.getAttribute("data-sort") : null;
    return s === null || s === "" ? null : parseFloat(s);
  }
  function sortBy(table, col, th) {
    var body = table.tBodies[0];
    if (!body) { return; }
    var asc = th.getAttribute("aria-sort") !== "ascending";
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (c) {
      c.removeAttribute("aria-sort");
    });
    th.setAttribute("aria-sort", asc ? "ascending" : "descending");
    var rows = Array.prototype.slice.call(body.rows);
    rows.sort(function (a, b) {
      var x = a.cells[col], y = b.cells[col];
      var nx = cellKey(x), ny = cellKey(y), r;
      if (nx !== null && ny !== null) { r = nx - ny; }
      else if (nx !== null) { r = -1; }
      else if (ny !== null) { r = 1; }
      else { r = (x ? x.textContent : "").localeCompare(y ? y.textContent : ""); }
      return asc ? r : -r;
    });
    rows.forEach(function (r) { body.appendChild(r); });
  }
  document.querySelectorAll("table.sortable").forEach(function (table) {
    if (!table.tHead) { return; }
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th, i) {
      th.addEventListener("click", function () { sortBy(table, i, th); });
      th.addEventListener("keydown", function (ev) {
        if (ev.key === "Enter" || ev.key === " ") { ev.preventDefault(); sortBy(table, i, th); }
      });
    });
  });
  // "#failure-gallery" shows the gallery alone, as a page of its own; filters may follow
  // the hash as a query ("#failure-gallery?task=C&kind=cf_accepted"), and are kept there.
  var gallery = document.getElementById("failure-gallery");
  var bar = document.getElementById("gallery-filters");
  var selects = bar ? bar.querySelectorAll("select[data-filter]") : [];
  var shown = document.getElementById("gallery-shown");
  var GALLERY = "#failure-gallery";
  function fromHash() {
    var hash = window.location.hash;
    var alone = hash === GALLERY || hash.indexOf(GALLERY + "?") === 0;
    document.body.classList.toggle("gallery-only", alone && gallery !== null);
    if (!alone) {
      var target = hash.length > 1 ? document.getElementById(decodeURIComponent(hash.slice(1))) : null;
      if (target) { target.scrollIntoView(); }
      return;
    }
    var query = new URLSearchParams(hash.slice(GALLERY.length + 1));
    selects.forEach(function (s) {
      var v = query.get(s.getAttribute("data-filter")) || "";
      s.value = Array.prototype.some.call(s.options, function (o) { return o.value === v; }) ? v : "";
    });
    window.scrollTo(0, 0);
  }
  function toHash() {
    var query = new URLSearchParams();
    selects.forEach(function (s) { if (s.value) { query.set(s.getAttribute("data-filter"), s.value); } });
    var q = query.toString();
    history.replaceState(null, "", GALLERY + (q ? "?" + q : ""));
    document.body.classList.add("gallery-only");
  }
  function apply() {
    if (!bar) { return; }
    var want = {};
    selects.forEach(function (s) { if (s.value) { want[s.getAttribute("data-filter")] = s.value; } });
    var n = 0, total = 0;
    document.querySelectorAll(".ggroup").forEach(function (group) {
      var visible = 0;
      group.querySelectorAll(".gitem").forEach(function (item) {
        var ok = Object.keys(want).every(function (k) {
          return item.getAttribute("data-" + k) === want[k];
        });
        item.classList.toggle("hidden", !ok);
        total += 1;
        if (ok) { visible += 1; }
      });
      group.classList.toggle("hidden", visible === 0);
      n += visible;
    });
    shown.textContent = n + " of " + total + " items shown";
  }
  selects.forEach(function (s) { s.addEventListener("change", function () { toHash(); apply(); }); });
  window.addEventListener("hashchange", function () { fromHash(); apply(); });
  fromHash();
  apply();
}());

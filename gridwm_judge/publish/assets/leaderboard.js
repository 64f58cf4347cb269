// The leaderboard's filters: per ranking, a config select (only that config's figures shown,
// the rows ranked by its first) and a family select (each figure over that environment family
// where published). Clicking a header sorts (the report's script, loaded before this one).
(function () {
  "use strict";
  function key(el) {
    var s = el ? el.getAttribute("data-sort") : null;
    return s === null || s === "" ? null : parseFloat(s);
  }
  function order(row) { return parseInt(row.getAttribute("data-order"), 10); }
  function showFamily(table, family) {
    table.querySelectorAll("td.fig").forEach(function (td) {
      var hit = null;
      td.querySelectorAll("span[data-family]").forEach(function (s) {
        var on = s.getAttribute("data-family") === family;
        s.hidden = !on;
        if (on) { hit = s; }
      });
      var none = td.querySelector("span.none");
      if (hit === null && none === null) {
        none = document.createElement("span");
        none.className = "none";
        none.textContent = "\u2013";
        td.appendChild(none);
      }
      if (none !== null) { none.hidden = hit !== null; }
      td.setAttribute("data-sort", hit ? hit.getAttribute("data-sort") : "");
    });
  }
  function showConfig(table, config) {
    table.querySelectorAll("[data-config]").forEach(function (el) {
      el.classList.toggle("hidden", config !== "" && el.getAttribute("data-config") !== config);
    });
  }
  // Highest first, cells without a value last; ties keep the ranking's order.
  function rankBy(table, col) {
    var heads = table.tHead.rows[0].cells, at = -1;
    Array.prototype.forEach.call(heads, function (th, i) {
      th.removeAttribute("aria-sort");
      if (at < 0 && th.getAttribute("data-col") === col) { at = i; }
    });
    if (at < 0) { return null; }
    heads[at].setAttribute("aria-sort", "descending");
    var body = table.tBodies[0];
    var rows = Array.prototype.slice.call(body.rows);
    rows.sort(function (a, b) {
      var x = key(a.cells[at]), y = key(b.cells[at]);
      if (x === null || y === null) { return (x === null) - (y === null) || order(a) - order(b); }
      return y - x || order(a) - order(b);
    });
    rows.forEach(function (r) { body.appendChild(r); });
    return heads[at].getAttribute("data-col");
  }
  document.querySelectorAll(".lb-filters").forEach(function (bar) {
    var table = document.getElementById(bar.getAttribute("data-table"));
    var config = bar.querySelector("select[data-lb=config]");
    var family = bar.querySelector("select[data-lb=family]");
    var shown = bar.querySelector(".lb-shown");
    function apply() {
      var cfg = config ? config.value : "", fam = family ? family.value : "";
      showConfig(table, cfg);
      showFamily(table, fam);
      // rank and group are the whole dataset's: hidden while one family's figures are shown
      if (fam !== "") {
        table.querySelectorAll(".overall").forEach(function (el) { el.classList.add("hidden"); });
      }
      var col = table.getAttribute("data-primary");
      if (cfg !== "") {
        var first = table.querySelector("th[data-col][data-config='" + cfg + "']");
        col = first ? first.getAttribute("data-col") : col;
      }
      var sorted = col ? rankBy(table, col) : null;
      shown.textContent = (sorted ? "sorted by " + sorted : "not sorted") +
        (fam ? "; figures over the " + fam + " family (\u2013: not published for it)" : "");
    }
    [config, family].forEach(function (s) { if (s) { s.addEventListener("change", apply); } });
    apply();
  });
}());

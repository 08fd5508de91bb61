// Sign-up: the time zone select starts at the browser's own zone (Intl), so a new account's session times are
// local from the first page. Only on a fresh form (the server marks it with data-browser-timezone), only when the
// browser's zone is one of the choices, and never over a choice already made: the field stays editable.
(function () {
  "use strict";
  function browserZone() {
    try {
      return Intl.DateTimeFormat().resolvedOptions().timeZone || "";
    } catch (e) {
      return "";
    }
  }
  function fill() {
    var zone = browserZone();
    if (!zone) return;
    document.querySelectorAll("select[data-browser-timezone]").forEach(function (select) {
      if (select.dataset.touched) return;
      var known = Array.prototype.some.call(select.options, function (o) { return o.value === zone; });
      if (known) select.value = zone;
    });
  }
  document.addEventListener("change", function (evt) {
    var el = evt.target;
    if (el instanceof HTMLSelectElement && el.hasAttribute("data-browser-timezone")) el.dataset.touched = "1";
  });
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", fill);
  else fill();
})();

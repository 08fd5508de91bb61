// Read-only address fields (invite link, calendar address): a tap selects the whole address for copying.
// Replaces inline onclick="this.select()" handlers, which the Content-Security-Policy forbids.
(function () {
  "use strict";
  document.addEventListener("click", function (evt) {
    var field = evt.target;
    if (field instanceof HTMLInputElement && field.classList.contains("copy")) field.select();
  });
})();

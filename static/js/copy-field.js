// Read-only fields to copy (invite link, calendar address, a session's recap): a tap selects all of it.
// Replaces inline onclick="this.select()" handlers, which the Content-Security-Policy forbids.
(function () {
  "use strict";
  document.addEventListener("click", function (evt) {
    var field = evt.target;
    if ((field instanceof HTMLInputElement || field instanceof HTMLTextAreaElement) && field.classList.contains("copy"))
      field.select();
  });
})();

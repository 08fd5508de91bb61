// The live table on a phone: buzz and announce "your turn" (the connection itself: connection.js).
(function () {
  "use strict";
  var live = document.getElementById("live");
  if (!live) return;
  var wasTurn = null, wasMay = null;

  function checkTurn() {
    var me = live.querySelector(".me");
    if (!me) return;
    var turn = me.dataset.yourTurn === "1", may = me.dataset.mayAct === "1";
    if ((turn && wasTurn === false) || (may && wasMay === false)) {
      if (navigator.vibrate) navigator.vibrate([120, 60, 120]);
    }
    wasTurn = turn; wasMay = may;
  }

  // A table as it would be drawn again: without the keys and CSRF tokens each render draws afresh, or the
  // marks htmx leaves on what it has processed.
  function drawn(el) {
    var copy = el.cloneNode(true);
    copy.removeAttribute("hx-swap-oob");  // htmx takes it off what it swaps in
    copy.querySelectorAll("input[name=csrfmiddlewaretoken]").forEach(function (i) { i.remove(); });
    copy.querySelectorAll("input[name=key]").forEach(function (i) { i.removeAttribute("value"); });
    copy.querySelectorAll("[data-htmx-powered]").forEach(function (f) { f.removeAttribute("data-htmx-powered"); });
    return copy.outerHTML.replace(/\s+/g, " ");
  }
  // The same fragment arrives twice (the action's response and the socket), from two connections that can
  // overtake each other, and the socket sends the page's own version again when it connects: never let an
  // older version replace a newer one, nor the same table again (it would only wipe what the viewer has typed
  // or picked since). An extension hook rather than a document listener: the form that posted may already
  // have been swapped out (its events no longer bubble to the document) by the time its response arrives.
  function dropStale(elt, detail) {
    var tasks = detail && detail.tasks;
    if (!tasks) return;
    for (var i = tasks.length - 1; i >= 0; i--) {
      var incoming = tasks[i].fragment && tasks[i].fragment.firstElementChild, target = tasks[i].target;
      if (typeof target === "string") target = document.querySelector(target);
      if (!incoming || !target || !target.dataset) continue;
      var have = parseInt(target.dataset.version, 10), got = parseInt(incoming.getAttribute("data-version"), 10);
      if (got < have || (got === have && drawn(target) === drawn(incoming))) tasks.splice(i, 1);
    }
  }
  // An action the server could not even read (over the upload limit, garbled) gets a page, not the table's
  // own notice: put that page's sentence on the notice line, so the phone says what happened.
  document.addEventListener("htmx:response:error", function (evt) {
    var ctx = evt.detail && evt.detail.ctx;
    var notice = document.getElementById("enc-" + live.dataset.encounter + "-notice");
    if (!ctx || !notice || (ctx.text && ctx.text.indexOf(notice.id) !== -1)) return;  // it carries its own
    var page = new DOMParser().parseFromString(ctx.text || "", "text/html");
    var parts = [page.querySelector("h1"), page.querySelector("main p")].filter(Boolean).map(function (el) {
      return el.textContent.trim().replace(/[.!]?$/, ".");
    });
    var status = ctx.response && ctx.response.status;
    notice.textContent = parts.length ? parts.join(" ")
      : "The server could not take that" + (status ? " (error " + status + ")" : "") + "; nothing was changed.";
    notice.classList.add("error-box");
  });
  if (window.htmx) htmx.registerExtension("fray-table", { htmx_before_swap: dropStale, htmx_after_swap: checkTurn });
  document.addEventListener("htmx:ws:after:message:incoming", checkTurn);
  checkTurn();

  // htmx starts on a timer once its deferred script has run; when hx-ws.js arrives after that timer fired,
  // htmx has already processed the page without the extension and the socket never opens. This script runs
  // after hx-ws.js (deferred scripts keep their order), so process the table again: both are idempotent.
  if (window.htmx) htmx.process(live);
})();

// Live notices on every page (campaigns.notices, base.html's #notices): keep the newest few, let the reader dismiss
// one, and raise a "your turn" as a browser notification when the tab is in the background, if the player allowed
// that with the button of their profile or their table (the browser asks only when it is pressed). The table's own
// "your turn" (table.js) goes through the same frayNotifyTurn below.
(function () {
  "use strict";
  var KEEP = 3;  // notices shown at once; older ones go
  var TAG = "fray-your-turn";  // one at a time: a new "your turn" replaces the last
  var supported = "Notification" in window;
  var worker = "serviceWorker" in navigator;  // HTTPS (or this machine) only
  var region = document.getElementById("notices");

  function allowed() { return supported && Notification.permission === "granted"; }

  // The service worker (static/js/sw.js, served at /sw.js), only for a player who allowed notifications: Chrome on
  // Android shows them through it alone.
  function register() {
    if (worker && allowed()) navigator.serviceWorker.register("/sw.js").catch(function () { /* shown without it */ });
  }

  // Show `title` (and `body`) as a browser notification whose tap opens `url`, if the tab is in the background and
  // the player allowed it: through the service worker where it runs, else with `new Notification`, which Chrome on
  // Android refuses ("Illegal constructor"). Never throws, so whatever called it carries on.
  function notifyTurn(title, body, url) {
    if (!document.hidden || !allowed()) return;
    var options = { tag: TAG, body: body || "", data: { url: url } };
    function direct() {
      try {
        var shown = new Notification(title, options);
        shown.onclick = function () {
          window.focus();
          if (url) window.location.href = url;
        };
      } catch (e) { /* no way to show one in this browser */ }
    }
    if (!worker) return direct();
    // register() hands back the registration there is, or makes it (a turn can come a moment after the player
    // allowed notifications, before the worker is in place); ready waits until it runs
    navigator.serviceWorker.register("/sw.js").then(function () {
      return navigator.serviceWorker.ready;
    }).then(function (ready) {
      return ready.showNotification(title, options);
    }).catch(direct);
  }
  window.frayNotifyTurn = notifyTurn;
  register();

  function arrived() {
    region.querySelectorAll("[data-browser-notify]:not([data-seen])").forEach(function (el) {
      el.dataset.seen = "1";
      var link = el.querySelector("a");
      notifyTurn(el.dataset.browserNotify, "", link ? link.href : "");
    });
    var items = region.querySelectorAll(".notice-item");
    for (var i = 0; i < items.length - KEEP; i++) items[i].remove();
  }

  if (region) {
    // Whichever socket brought it (this page's notice socket, or an encounter page's table), it lands here.
    new MutationObserver(arrived).observe(region, { childList: true });
    region.addEventListener("click", function (evt) {
      var dismiss = evt.target.closest && evt.target.closest(".notice-dismiss");
      if (dismiss) dismiss.closest(".notice-item").remove();
    });
  }

  // The notice socket's state, for whoever needs to know it is listening (data-state: live or closed).
  var socket = document.getElementById("notice-socket");
  if (socket) {
    socket.addEventListener("htmx:ws:after:connection", function () { socket.dataset.state = "live"; });
    socket.addEventListener("htmx:ws:close", function () { socket.dataset.state = "closed"; });
    // htmx opens the socket as it processes the page, if hx-ws had arrived by then: the scripts are deferred, and
    // htmx may start before the later ones run. If hx-ws missed it, have htmx process it again now (hx-ws skips an
    // element it has set up); if htmx opened it before this script came, start from the truth.
    var ws = socket._htmx && socket._htmx.ws;
    if (window.htmx && !(ws && ws.initialized)) htmx.process(socket);
    var early = socket._htmx && socket._htmx.ws && socket._htmx.ws.connection;
    if (early && early.socket) {
      if (early.socket.readyState === WebSocket.OPEN) socket.dataset.state = "live";
      else early.socket.addEventListener("open", function () { socket.dataset.state = "live"; });
    }
  }

  // The button of the profile page and of a player's table (partials/notify_turn.html): the only place Fray asks for
  // permission, and only when it is pressed.
  var button = document.getElementById("notify-turn");
  var state = document.getElementById("notify-turn-state");
  if (!button || !state) return;
  function show() {
    var permission = supported ? Notification.permission : "unsupported";
    button.hidden = permission !== "default";
    state.textContent = {
      granted: "This browser will notify you when your turn comes while Fray is in the background.",
      denied: "This browser blocks notifications from Fray; allow them in its site settings to get them.",
      unsupported: "This browser cannot show notifications.",
    }[permission] || "";
  }
  button.addEventListener("click", function () {
    Notification.requestPermission().then(function (permission) {
      register();
      show();
      if (permission === "granted") document.dispatchEvent(new Event("fray:notify-allowed"));  // table.js listens
    }, show);
  });
  show();
})();

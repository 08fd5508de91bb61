// Live notices on every page (campaigns.notices, base.html's #notices): keep the newest few, let the reader dismiss
// one, and raise a "your turn" as a browser notification when the tab is in the background, if the player allowed
// that with the profile page's button (the browser asks only when it is pressed).
(function () {
  "use strict";
  var KEEP = 3;  // notices shown at once; older ones go
  var supported = "Notification" in window;
  var region = document.getElementById("notices");

  function arrived() {
    region.querySelectorAll("[data-browser-notify]:not([data-seen])").forEach(function (el) {
      el.dataset.seen = "1";
      if (!document.hidden || !supported || Notification.permission !== "granted") return;
      var link = el.querySelector("a");
      var shown = new Notification(el.dataset.browserNotify, { tag: "fray-your-turn" });
      shown.onclick = function () {
        window.focus();
        if (link) window.location.href = link.href;
      };
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

  // The profile page's button: the only place Fray asks for permission, and only when it is pressed.
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
    Notification.requestPermission().then(show, show);
  });
  show();
})();

// The live table's link to the server, told honestly: the badge says live / reconnecting… / offline / closed, a
// heartbeat finds a socket that died without closing, the page catches up after the phone sleeps or comes back
// from the back-forward cache, and the log's open and closed parts stay as the viewer left them across live updates.
(function () {
  "use strict";
  var live = document.getElementById("live");
  if (!live) return;
  var status = document.getElementById("live-status");
  var PING_EVERY = 3000;  // ms between heartbeats while the socket is open
  var PONG_WAIT = 4000;  // ms without any frame after a ping (or a wake-up) before the socket counts as dead

  var connection = null;  // hx-ws's connection (from its events); .socket is the WebSocket of the moment
  var alive = false;  // the socket is open and answered lately
  var deadline = null, suspect = null;  // the timer that declares `suspect` (a socket) dead unless it answers
  // Why the server closed the socket for good: a code hx-ws does not reconnect after (combat/consumers.py), so only
  // a reload can bring the table back, and the badge says that rather than "reconnecting…" for ever.
  var closed = "";
  var WHY = {
    4400: "the server refused what this page sent",
    4401: "you are logged out",
    4404: "this table is no longer open to you",
    4429: "this page asked the server too often",
  };
  if (live.dataset.closedWhy) WHY[4404] = live.dataset.closedWhy;  // a spectator's page: its link was closed
  var pingOnly = "pingOnly" in live.dataset;  // a spectator's socket may send nothing but the heartbeat
  // The page was hidden or left since its socket opened: hx-ws closes the socket itself then (on pagehide and, to
  // pause, when the page is hidden), a close of the page's own that it does not reconnect after once the page shows.
  var away = false;

  function socket() { return connection && connection.socket; }
  function isOpen(ws) { return !!ws && ws.readyState === WebSocket.OPEN; }

  function show() {
    if (!status) return;
    // "connecting…" (as the page is drawn) until the first socket opens.
    var state = closed ? "closed" : !navigator.onLine ? "offline" : alive ? "live" : connection ? "reconnecting"
      : "connecting";
    if (status.dataset.state === state) return;  // the badge is read out (aria-live): only when it changes
    status.dataset.state = state;
    status.textContent = state === "closed" ? "closed: " + closed + (pingOnly ? "" : "; reload the page")
      : state === "reconnecting" || state === "connecting" ? state + "…" : state;
  }

  // Shown again (back from the back-forward cache, or woken) when hx-ws's close of the page's own socket only ended
  // after that: hx-ws reconnects when a hidden page is shown if its socket has closed by then, and otherwise lets
  // the connection go for good when the close comes. #live's hx-trigger has it open a new one (the snapshot on
  // connect catches the page up); while its connection still stands this does nothing.
  function reopen() {
    if (!away || document.hidden || closed || !window.htmx) return;
    htmx.trigger(live, "fray:reopen");
  }

  // Wait for a sign of life from the current socket: any frame. None by the deadline means it is dead.
  function awaitAnswer() {
    if (deadline) return;
    suspect = socket();
    deadline = setTimeout(dead, PONG_WAIT);
  }
  function answered() {
    clearTimeout(deadline);
    deadline = suspect = null;
  }
  function dead() {
    var ws = suspect;
    deadline = suspect = null;
    // Not the current socket any more, or already closed: hx-ws has it in hand. Hidden, unless the socket stays
    // open in the background (table.js): hx-ws closes it itself and opens a new one when the page is shown again.
    var pauses = !(connection && connection.config) || connection.config.pauseOnBackground;
    if (!ws || ws !== socket() || ws.readyState === WebSocket.CLOSED || (document.hidden && pauses)) return;
    alive = false;
    show();
    // A socket that went silent never closes by itself (the browser waits a minute for the server's goodbye), and
    // hx-ws reconnects, with backoff, only when its socket closes abnormally: tell it that this one did.
    ws.dispatchEvent(new CloseEvent("close", { code: 1006, reason: "no answer to the heartbeat" }));
  }

  function ping() {
    var ws = socket();
    if (!isOpen(ws) || deadline) return;
    ws.send("ping");
    awaitAnswer();
  }

  // Back from sleep or the background: ask for the whole table again, and make sure the socket still answers.
  // hx-ws opens a new socket itself when the old one was closed; one stuck closing gets the same deadline.
  function wake() {
    if (document.hidden || !connection) return;
    var ws = socket();
    if (isOpen(ws)) {
      if (!pingOnly) ws.send("hello");
      ping();
    } else if (ws && ws.readyState === WebSocket.CLOSING) {
      awaitAnswer();
    }
    show();
  }

  // hx-ws (htmx 4) names its events htmx:ws:after:connection / htmx:ws:close / htmx:ws:error.
  document.addEventListener("htmx:ws:after:connection", function (evt) {
    connection = evt.detail.connection;
    answered();
    alive = true;
    away = false;
    closed = "";
    show();
  });
  // Whether hx-ws lets `conn` go after its socket closed with `code`: it reconnects only after the codes its config
  // lists (abnormal closes, the server going away or restarting), never after the server's own 44xx nor a normal
  // close, except that a page hidden at the time gets a new socket when it is shown.
  function givesUp(conn, code) {
    var config = conn && conn.config;
    if (typeof code !== "number" || !config) return false;  // removed or cancelled: no socket closed
    if (config.pauseOnBackground && document.hidden) return false;
    return !(config.reconnect && config.reconnectCodes.indexOf(code) !== -1);
  }
  document.addEventListener("htmx:ws:close", function (evt) {
    var detail = evt.detail || {};
    answered();
    alive = false;
    if (givesUp(detail.connection, detail.code)) {
      if (away && !(detail.code in WHY)) setTimeout(reopen);  // the page's own close: once hx-ws has let it go
      else closed = WHY[detail.code] || "the server ended the connection (" + detail.code + ")";
    }
    show();
  });
  document.addEventListener("htmx:ws:error", function () {
    if (!isOpen(socket())) { alive = false; show(); }  // a bad frame on a live socket is not a drop
  });
  // Every frame shows the socket is alive; the heartbeat's answer is for this script only, not a table to swap.
  document.addEventListener("htmx:ws:before:message:incoming", function (evt) {
    answered();
    if (!alive) { alive = true; show(); }
    if (evt.detail.message.data === "pong") evt.preventDefault();
  });
  window.addEventListener("online", function () { show(); ping(); });
  window.addEventListener("offline", show);
  document.addEventListener("visibilitychange", function () { if (document.hidden) away = true; });
  document.addEventListener("visibilitychange", wake);
  window.addEventListener("pagehide", function () { away = true; });
  window.addEventListener("pageshow", function (evt) {
    if (!evt.persisted) return;
    reopen();
    wake();
  });
  setInterval(ping, PING_EVERY);

  // The log's <details> (the log itself, its earlier entries) keep what the viewer opened or closed: every live
  // update draws them afresh as the server sets them, so put the viewer's choice on the incoming copy.
  var chosen = {};  // id -> open
  document.addEventListener("toggle", function (evt) {
    var el = evt.target;
    if (el.matches && el.matches("details[data-keep-open][id]")) chosen[el.id] = el.open;
  }, true);  // toggle does not bubble
  function keepOpen(elt, detail) {
    (detail && detail.tasks || []).forEach(function (task) {
      if (!task.fragment || !task.fragment.querySelectorAll) return;
      task.fragment.querySelectorAll("details[data-keep-open][id]").forEach(function (el) {
        if (el.id in chosen) el.open = chosen[el.id];
      });
    });
  }
  if (window.htmx) htmx.registerExtension("fray-link", { htmx_before_swap: keepOpen });

  // On a slow link htmx may process the page, and its socket open, before this deferred script arrives: then
  // the "connected" event has come and gone. Take hx-ws's connection from the table itself (where hx-ws 4.0.1
  // keeps it) so the badge and the heartbeat start from the truth.
  // On a cold cache htmx may even process the page before hx-ws has arrived to register itself (htmx starts on a
  // timer once the document is parsed, and deferred scripts still loading do not hold it back): then nothing opened
  // the socket at all. hx-ws is here now (it runs before this script): have htmx process the table again.
  if (window.htmx && !(live._htmx && live._htmx.ws)) htmx.process(live);
  var early = live._htmx && live._htmx.ws && live._htmx.ws.connection;
  if (early && !connection) {
    connection = early;
    alive = isOpen(early.socket);  // still opening: its "connected" event is yet to come
  }
  show();
})();

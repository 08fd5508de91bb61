// The live table on a phone: buzz and announce "your turn" (the connection itself: connection.js).
(function () {
  "use strict";
  var live = document.getElementById("live");
  if (!live) return;
  var wasTurn = null, wasMay = null;

  // The moment my turn starts (or I may act out of turn): my first control comes into view, "Your turn" is said
  // once, in the page's one live region (#turn-say: the banner is only shown), in the model's words (data-say:
  // HERO says "Your phase."), the phone buzzes and, if the player turned it on, beeps; in a background tab, a
  // browser notification shows, if the player allowed them. A page opened during my turn only brings the controls
  // into view.
  function checkTurn() {
    var me = live.querySelector(".me");
    if (!me) return;
    var turn = me.dataset.yourTurn === "1", may = me.dataset.mayAct === "1";
    var started = (turn && wasTurn !== true) || (may && !turn && wasMay !== true);
    if (started) showControls(me);
    if (started && wasTurn !== null) {
      var words = me.dataset.say || (turn ? "Your turn." : "You may act now.");
      say(words);
      if (navigator.vibrate) navigator.vibrate([120, 60, 120]);
      beep();
      var fight = document.querySelector("h1");  // notices.js: only in a background tab, if the player allowed it
      if (window.frayNotifyTurn) window.frayNotifyTurn(words, fight ? fight.textContent.trim() : "", location.href);
    } else if (!turn && !may) {
      say("");  // emptied between turns, so the next "Your turn" is a change the screen reader reads
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
    copy.querySelectorAll(".notice").forEach(function (n) { n.remove(); });  // the answer to a tap, placed by it
    copy.querySelectorAll(".htmx-request").forEach(function (f) {  // a tap on its way: busy, its buttons disabled
      f.classList.remove("htmx-request");
      if (!f.classList.length) f.removeAttribute("class");
      f.querySelectorAll("button").forEach(function (b) {
        b.removeAttribute("disabled");
        b.removeAttribute("aria-busy");
      });
    });
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
  function pageError(elt, detail) {
    var ctx = detail && detail.ctx;
    var notice = answer();
    if (!ctx || !notice || (ctx.text && ctx.text.indexOf(notice.id) !== -1)) return;  // it carries its own
    var page = new DOMParser().parseFromString(ctx.text || "", "text/html");
    var parts = [page.querySelector("h1"), page.querySelector("main p")].filter(Boolean).map(function (el) {
      return el.textContent.trim().replace(/[.!]?$/, ".");
    });
    var status = ctx.response && ctx.response.status;
    notice.textContent = parts.length ? parts.join(" ")
      : "The server could not take that" + (status ? " (error " + status + ")" : "") + "; nothing was changed.";
    notice.classList.add("error-box");
  }

  // --- Every tap answered. The notice line is the answer to a tap: the server sends its sentence back into it
  // by id (a refusal, or nothing when the action was taken), so it is moved next to the tapped form before the
  // request leaves, and its role="alert" reads the sentence out there. While the request is on its way htmx
  // disables the form's buttons (#live's hx-disable); the tapped one is marked busy until the answer comes.
  var taps = new WeakSet(), tapped = null;  // the forms tapped; the signature of the last one
  function answer() { return document.getElementById("enc-" + live.dataset.encounter + "-notice"); }
  function quiet(notice) { notice.textContent = ""; notice.classList.remove("error-box"); }

  // What says which control a form is (its hidden command, actor, ...) and stays the same when it is redrawn.
  function signature(form) {
    return Array.prototype.filter.call(form.querySelectorAll("input[type=hidden]"), function (i) {
      return i.name !== "key" && i.name !== "csrfmiddlewaretoken";
    }).map(function (i) { return i.name + "=" + i.value; }).join("&");
  }

  function sending(elt, detail) {
    var notice = answer(), request = detail && detail.ctx && detail.ctx.request;
    if (!notice || !request || !elt.matches || !elt.matches("form") || !live.contains(elt)) return;
    taps.add(elt);
    Array.prototype.forEach.call(elt.elements, function (f) { edited.delete(f); });
    var busy = request.submitter || elt.querySelector("button");
    if (busy) busy.setAttribute("aria-busy", "true");
    if (notice.contains(elt)) return;  // a Retry: its answer comes back where it stands
    quiet(notice);
    tapped = signature(elt);
    elt.after(notice);
  }

  function settled(elt) {
    if (!elt.querySelectorAll) return;
    elt.querySelectorAll("[aria-busy]").forEach(function (b) { b.removeAttribute("aria-busy"); });
  }

  // No answer at all (offline, the server down, the timeout on #live): say so, with a Retry that sends the very
  // same fields, idempotency key included, so a retry after an answer that was lost on its way acts once.
  function notSent(elt, detail) {
    var ctx = detail && detail.ctx, notice = answer();
    if (!ctx || !ctx.request || !ctx.request.body || ctx.text !== undefined || !taps.has(elt) || !notice) return;
    var retry = document.createElement("form"), button = document.createElement("button");
    retry.method = "post";
    retry.action = ctx.request.action;
    retry.className = "retry";
    retry.setAttribute("hx-post", ctx.request.action);
    retry.setAttribute("hx-swap", "none");
    retry.setAttribute("hx-disable", "findAll button");
    ctx.request.body.forEach(function (value, name) {
      var field = document.createElement("input");
      field.type = "hidden"; field.name = name; field.value = value;
      retry.append(field);
    });
    button.type = "submit";
    button.textContent = "Retry";
    retry.append(button);
    notice.textContent = navigator.onLine === false ? "Not sent: the phone is offline. " : "Not sent: no answer. ";
    notice.append(retry);
    notice.classList.add("error-box");
    htmx.process(retry);
    notice.scrollIntoView({ block: "nearest" });
  }

  // A tap's answer outlives a redraw of the section it stands in: it steps out just before the swap and goes
  // back beside the redrawn form after it (placeAnswer). The table moving on (a newer version over the socket)
  // ends a refusal; a "Not sent" stays until it is retried.
  function keepAnswer(detail) {
    var notice = answer(), tasks = detail && detail.tasks;
    if (!notice || !tasks) return;
    var fromSocket = !(detail.ctx && detail.ctx.request);
    tasks.forEach(function (task) {
      var target = typeof task.target === "string" ? document.querySelector(task.target) : task.target;
      var incoming = task.fragment && task.fragment.firstElementChild;
      if (!target || target === notice || !target.contains || !incoming) return;
      if (task.swapSpec && task.swapSpec.style === "none") return;  // the answer's own main swap: nothing moves
      if (target.contains(notice)) target.before(notice);
      var newer = parseInt(incoming.getAttribute("data-version"), 10) > parseInt(target.dataset.version, 10);
      if (fromSocket && newer && !notice.querySelector("form")) quiet(notice);
    });
  }

  // After a swap: the answer back beside its form if that was redrawn, and in view if it answers this tap.
  function placeAnswer(detail) {
    var notice = answer();
    if (!notice || !tapped || !notice.textContent) return;
    var forms = live.querySelectorAll("form");
    for (var i = 0; i < forms.length; i++) {
      if (!notice.contains(forms[i]) && signature(forms[i]) === tapped) {
        if (forms[i].nextElementSibling !== notice) forms[i].after(notice);
        break;
      }
    }
    if (detail && detail.ctx && detail.ctx.request) notice.scrollIntoView({ block: "nearest" });
  }

  // --- What the viewer typed outlives a redraw. Another player's action redraws the table over the socket; a
  // field changed here and not yet sent gets its value back in the redrawn form (the same control: its hidden
  // fields, then the field's name and place), and the focus stays in it. A form sent gives its fields up.
  var edited = new WeakSet(), kept = null;
  function mark(event) { if (event.target.form) edited.add(event.target); }
  live.addEventListener("input", mark);
  live.addEventListener("change", mark);

  function fieldKey(field) {
    var twins = Array.prototype.filter.call(field.form.elements, function (f) { return f.name === field.name; });
    var key = signature(field.form) + "|" + field.name + "|" + twins.indexOf(field);
    return field.type === "checkbox" || field.type === "radio" ? key + "|" + field.value : key;
  }
  function fields(root) {
    return Array.prototype.filter.call(root.querySelectorAll("input, select, textarea"), function (f) {
      return f.form && f.name && f.type !== "hidden";
    });
  }

  function keepTyped(detail) {
    var tasks = detail && detail.tasks;
    if (!tasks) return;
    tasks.forEach(function (task) {
      var target = typeof task.target === "string" ? document.querySelector(task.target) : task.target;
      if (!target || !target.querySelectorAll || (task.swapSpec && task.swapSpec.style === "none")) return;
      fields(target).forEach(function (f) {
        var focused = f === document.activeElement;
        if (!edited.has(f) && !focused) return;
        kept = kept || {};
        kept[fieldKey(f)] = {
          value: f.value, checked: f.checked, edited: edited.has(f), focused: focused,
          start: focused && typeof f.selectionStart === "number" ? f.selectionStart : null,
        };
      });
    });
  }

  function giveBack() {
    if (!kept) return;
    var saved = kept;
    kept = null;
    fields(live).forEach(function (f) {
      var was = saved[fieldKey(f)];
      if (!was) return;
      if (was.edited && !edited.has(f)) {
        if (f.type === "checkbox" || f.type === "radio") f.checked = was.checked;
        else if (f.tagName !== "SELECT" || Array.prototype.some.call(f.options, function (o) {
          return o.value === was.value;
        })) f.value = was.value;
        edited.add(f);
      }
      if (was.focused && document.activeElement !== f) {
        f.focus({ preventScroll: true });
        if (was.start !== null && typeof f.setSelectionRange === "function") {
          try { f.setSelectionRange(was.start, was.start); } catch (e) { /* a field without a caret */ }
        }
      }
    });
  }

  // --- When it is my turn. The page's one live region for "Your turn"; my first usable control, scrolled to
  // the top of the screen (scroll-margin in fray.css leaves the banner above it in view), focus left alone.
  var sayer = document.getElementById("turn-say");
  function say(text) {
    if (sayer && sayer.textContent !== text) sayer.textContent = text;
  }

  function showControls(me) {
    var controls = me.querySelectorAll("button, select, textarea, input:not([type=hidden])");
    for (var i = 0; i < controls.length; i++) {
      if (controls[i].disabled || !controls[i].getClientRects().length) continue;
      var box = controls[i].getBoundingClientRect();
      if (box.top < 0 || box.bottom > window.innerHeight) controls[i].scrollIntoView({ block: "start" });
      return;
    }
  }

  // An optional beep when my turn starts: off until the player turns it on, a choice the phone remembers.
  var sound = document.getElementById("turn-sound"), audio = null;
  function beep() {
    var Audio = window.AudioContext || window.webkitAudioContext;
    if (!sound || !sound.checked || !Audio) return;
    audio = audio || new Audio();
    if (audio.state === "suspended") audio.resume();
    var tone = audio.createOscillator(), volume = audio.createGain();
    tone.frequency.value = 880;
    volume.gain.value = 0.2;
    tone.connect(volume);
    volume.connect(audio.destination);
    tone.start();
    tone.stop(audio.currentTime + 0.25);
  }
  if (sound) {
    try { sound.checked = localStorage.getItem("fray-turn-sound") === "on"; } catch (e) { /* storage blocked */ }
    sound.addEventListener("change", function () {
      try { localStorage.setItem("fray-turn-sound", sound.checked ? "on" : "off"); } catch (e) { /* this page only */ }
      beep();  // the tap that turns it on lets the page play sound, and lets the player hear it
    });
  }

  // A player who allowed turn notifications keeps the table's socket open while the tab is in the background, as
  // the notice socket of other pages does (base.html), so that their turn can reach them there; everyone else's
  // pauses (hx-ws's pauseOnBackground), sparing the phone. Set on each connection before hx-ws reads it; on one
  // opened before this script ran, or when the player allows them later (notices.js), hx-ws's pause is taken off.
  function listenInBackground(connection) {
    if (!connection || !connection.config) return;
    if (!("Notification" in window) || Notification.permission !== "granted") return;
    connection.config.pauseOnBackground = false;
    if (connection.visibilityHandler) document.removeEventListener("visibilitychange", connection.visibilityHandler);
    connection.visibilityHandler = null;
  }
  function current() { return live._htmx && live._htmx.ws && live._htmx.ws.connection; }
  document.addEventListener("htmx:ws:before:connection", function (evt) { listenInBackground(evt.detail.connection); });
  document.addEventListener("fray:notify-allowed", function () { listenInBackground(current()); });
  listenInBackground(current());

  if (window.htmx) htmx.registerExtension("fray-table", {
    htmx_before_request: sending,
    htmx_before_swap: function (elt, detail) { dropStale(elt, detail); keepAnswer(detail); keepTyped(detail); },
    htmx_after_swap: function (elt, detail) { giveBack(); placeAnswer(detail); checkTurn(); },
    htmx_response_error: pageError,
    htmx_error: notSent,
    htmx_finally_request: settled,
  });
  document.addEventListener("htmx:ws:after:message:incoming", checkTurn);
  checkTurn();

  // htmx starts on a timer once its deferred script has run; when hx-ws.js arrives after that timer fired,
  // htmx has already processed the page without the extension and the socket never opens. This script runs
  // after hx-ws.js (deferred scripts keep their order), so process the table again: both are idempotent.
  if (window.htmx) htmx.process(live);
})();

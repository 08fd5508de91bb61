// The live table on a phone: show the connection, buzz and announce "your turn", catch up after sleep.
(function () {
  "use strict";
  var live = document.getElementById("live");
  if (!live) return;
  var status = document.getElementById("live-status");
  var wasTurn = null, wasMay = null;

  function setStatus(state, text) {
    if (!status) return;
    status.dataset.state = state;
    status.textContent = text;
  }

  function checkTurn() {
    var me = live.querySelector(".me");
    if (!me) return;
    var turn = me.dataset.yourTurn === "1", may = me.dataset.mayAct === "1";
    if ((turn && wasTurn === false) || (may && wasMay === false)) {
      if (navigator.vibrate) navigator.vibrate([120, 60, 120]);
    }
    wasTurn = turn; wasMay = may;
  }

  document.addEventListener("htmx:ws:open", function () { setStatus("live", "live"); });
  document.addEventListener("htmx:ws:close", function () { setStatus("offline", "reconnecting…"); });
  document.addEventListener("htmx:ws:error", function () { setStatus("offline", "reconnecting…"); });
  document.addEventListener("htmx:after:swap", checkTurn);
  document.addEventListener("htmx:ws:after:message:incoming", checkTurn);
  checkTurn();
})();

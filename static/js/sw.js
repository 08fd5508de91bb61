// Fray's service worker, served at /sw.js (config/service_worker.py) so that its scope is the whole site. It only
// shows notifications: Chrome on Android has no `new Notification()`, just a registration's showNotification()
// (static/js/notices.js). It handles no fetch, so every request goes to the network as if it were not there.
"use strict";

self.addEventListener("install", function () {
  self.skipWaiting();  // nothing to cache: take over at once
});

self.addEventListener("activate", function (event) {
  event.waitUntil(self.clients.claim());  // so a tap can send an open Fray tab to the notice's link
});

// A tap on the notification: the tab already showing its link, else an open Fray tab sent there (a tab this worker
// does not control yet cannot be sent: it is only brought forward), else a new tab.
self.addEventListener("notificationclick", function (event) {
  event.notification.close();
  var link = (event.notification.data && event.notification.data.url) || "/";
  event.waitUntil(self.clients.matchAll({ type: "window", includeUncontrolled: true }).then(function (tabs) {
    var there = tabs.filter(function (tab) { return tab.url === link; })[0] || null;
    if (there) return there.focus();
    if (!tabs.length) return self.clients.openWindow(link);
    return tabs[0].focus().then(function (tab) {
      return tab.navigate(link).catch(function () { return tab; });
    });
  }));
});

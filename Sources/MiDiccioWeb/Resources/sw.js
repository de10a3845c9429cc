// MiDiccio's service worker: keeps the app shell (style, icon, the "not reachable" page)
// so a phone whose computer is off or away shows a page of MiDiccio's own instead of a
// browser error. Words are never cached: the library stays on the computer.
"use strict";

const SHELL = "midiccio-shell-v1";
const SHELL_FILES = ["/app.css", "/icon.svg", "/offline.html"];

self.addEventListener("install", (event) => {
  event.waitUntil(caches.open(SHELL).then((cache) => cache.addAll(SHELL_FILES)).then(() => self.skipWaiting()));
});

self.addEventListener("activate", (event) => {
  event.waitUntil(caches.keys()
    .then((names) => Promise.all(names.filter((name) => name !== SHELL).map((name) => caches.delete(name))))
    .then(() => self.clients.claim()));
});

self.addEventListener("fetch", (event) => {
  const url = new URL(event.request.url);
  if (event.request.method !== "GET" || url.origin !== self.location.origin) return;
  if (event.request.mode === "navigate") {
    // The page itself always comes from the computer (it carries the session's token);
    // only when the computer cannot be reached does the cached page stand in.
    event.respondWith(fetch(event.request).catch(() => caches.match("/offline.html")));
  } else if (SHELL_FILES.includes(url.pathname)) {
    event.respondWith(fetch(event.request).catch(() => caches.match(url.pathname)));
  }
});

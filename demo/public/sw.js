// Service worker of the demo: keeps the app shell (HTML, JS, CSS, worker
// scripts) so a reload with the network off still opens the page. Data under
// /data/ is never handled here: offline, samples must come from the disk tier.
const SHELL = 'medfusion-demo-shell';

self.addEventListener('install', (event) => {
  event.waitUntil(self.skipWaiting());
});

self.addEventListener('activate', (event) => {
  event.waitUntil(self.clients.claim());
});

function shellKey(request) {
  const url = new URL(request.url);
  url.search = '';
  url.hash = '';
  return url.href;
}

self.addEventListener('fetch', (event) => {
  const request = event.request;
  const url = new URL(request.url);
  if (request.method !== 'GET' || url.origin !== self.location.origin) return;
  if (url.pathname.startsWith('/data/') || url.pathname.startsWith('/orthanc/')) return;
  event.respondWith(
    (async () => {
      try {
        const response = await fetch(request);
        if (response.ok) {
          const cache = await caches.open(SHELL);
          await cache.put(shellKey(request), response.clone());
        }
        return response;
      } catch {
        const cached = await caches.match(shellKey(request));
        if (cached) return cached;
        // Not cached and the server cannot be reached (offline, or the server is gone while the
        // browser still says online): an answer the page handles, not a rejected respondWith
        // (Firefox reports that as an uncaught error on the page).
        return new Response('offline and not cached', {
          status: 503,
          headers: { 'Content-Type': 'text/plain' },
        });
      }
    })(),
  );
});

// Offline support for the built demo: a service worker serves the app shell
// from Cache Storage when the network is gone; the page fills that cache with
// every file of the build (listed in shell.json) right away, so the first
// visit is enough. Samples themselves come from the pipeline's disk tier.

const SHELL = 'medfusion-demo-shell';

/** Register the service worker and cache the shell (built demo only, not the dev server). */
export async function registerOffline(): Promise<void> {
  if (import.meta.hot || !('serviceWorker' in navigator)) return;
  try {
    await navigator.serviceWorker.register('/sw.js');
    if (!navigator.onLine) return; // the shell was cached on an earlier visit
    const res = await fetch('/shell.json', { cache: 'no-store' });
    if (!res.ok) return;
    const files = (await res.json()) as string[];
    const cache = await caches.open(SHELL);
    await cache.addAll(['/', ...files.map((f) => `/${f}`)]);
  } catch (err) {
    // Offline already, or storage refused: the page still works online.
    console.warn('[demo] offline shell not cached:', err);
  }
}

// The manifests are fetched from the network once per session and kept in Cache
// Storage, so a reload with the network off (page or worker) still has it.

const CACHE = 'medfusion-demo-data';
/** Where the data server publishes the manifest. */
export const MANIFEST_PATH = '/data/manifest.csv';
/** Where the data server publishes the images. */
export const IMAGES_PATH = '/data/images/';

/** The manifest text and whether it came from the network or the offline copy. */
export interface ManifestText {
  /** CSV text. */
  text: string;
  /** `network` when fetched now, `offline copy` when read from Cache Storage. */
  from: 'network' | 'offline copy';
}

/**
 * Fetch the manifest, falling back to (and refreshing) the copy in Cache Storage;
 * `online` false (the page's `navigator.onLine`, passed on to workers) reads the copy first.
 */
export function fetchManifest(origin: string, online = navigator.onLine): Promise<ManifestText> {
  return fetchWithOfflineCopy(new URL(MANIFEST_PATH, origin).href, 'text/csv', online);
}

/**
 * Fetch a small text file of the data set (a manifest), keeping a copy in
 * Cache Storage; with the network gone, the copy is returned instead.
 */
export async function fetchWithOfflineCopy(
  url: string,
  type: string,
  online = navigator.onLine,
): Promise<ManifestText> {
  if (!online) {
    // Known offline: read the copy without a doomed request (and its console error).
    const cached = await caches.match(url).catch(() => undefined);
    if (cached) return { text: await cached.text(), from: 'offline copy' };
  }
  try {
    const res = await fetch(url, { cache: 'no-store' });
    if (!res.ok) throw new Error(`HTTP ${res.status} for ${url}`);
    const text = await res.text();
    try {
      const cache = await caches.open(CACHE);
      await cache.put(url, new Response(text, { headers: { 'Content-Type': type } }));
    } catch {
      // Cache Storage unavailable: offline reloads will not find the file.
    }
    return { text, from: 'network' };
  } catch (err) {
    const cached = await caches.match(url).catch(() => undefined);
    if (cached) return { text: await cached.text(), from: 'offline copy' };
    throw err;
  }
}

/** A blob: URL holding `text`, to hand to `CsvImageDataset` (no second network fetch). */
export function manifestBlobUrl(text: string): string {
  return URL.createObjectURL(new Blob([text], { type: 'text/csv' }));
}

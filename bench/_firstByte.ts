// A Vite plugin for the benches that serve shards from Vite's static server: sirv (Vite's
// static file server) reads the end of `Range: bytes=0-0` as "no end" (`parseInt('0') ||
// size - 1`) and answers a 206 with the whole file, which RangeReader rightly refuses ("asked
// for bytes 0-0, got Content-Range bytes 0-…"). WebDatasetSource sends exactly that range to
// learn a shard's size before it trusts a sidecar under a sha256. This middleware answers that
// one range as sirv would answer any other (206, one byte, sirv's headers and weak ETag); every
// other request goes on to Vite.
import { createReadStream, existsSync, statSync } from 'node:fs';
import { join, normalize } from 'node:path';
import type { Plugin } from 'vite';

/** Answer `Range: bytes=0-0` for the files under `dir` (served at the site's root). */
export function firstByteRange(dir: string): Plugin {
  const root = normalize(dir);
  return {
    name: 'bench-first-byte-range',
    configureServer(server) {
      server.middlewares.use((req, res, next) => {
        if (req.headers.range !== 'bytes=0-0' || !req.url) return next();
        const path = normalize(join(root, decodeURIComponent(req.url.split('?')[0] as string)));
        if (!path.startsWith(root) || !existsSync(path)) return next();
        const stats = statSync(path);
        if (!stats.isFile() || stats.size === 0) return next();
        res.writeHead(206, {
          'Content-Length': 1,
          'Content-Range': `bytes 0-0/${stats.size}`,
          'Accept-Ranges': 'bytes',
          'Last-Modified': stats.mtime.toUTCString(),
          ETag: `W/"${stats.size}-${stats.mtime.getTime()}"`,
          'Cache-Control': 'no-cache',
        });
        createReadStream(path, { start: 0, end: 0 }).pipe(res);
      });
    },
  };
}

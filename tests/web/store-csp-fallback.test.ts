import { afterEach, describe, expect, inject, it } from 'vitest';

// A page whose Content Security Policy refuses WebAssembly (no 'wasm-unsafe-eval')
// imports the package: the stores fall back to xxHash32 on their own, entries sealed
// with xxHash64 elsewhere are still read back, checked, by the OPFS worker (which the
// page's policy does not cover here), and ParquetSource reads what needs no
// WebAssembly and names the reason for what does.

const frames: HTMLIFrameElement[] = [];
afterEach(() => {
  for (const f of frames.splice(0)) f.remove();
});

/**
 * Run `body` (an async module script body that fills `out` and may use `web`,
 * the package's entry) in a same-origin iframe whose CSP refuses WebAssembly;
 * resolves with `out`, `out.wasmRefused` and `out.error` (what it threw).
 */
function runInCspFrame(body: string): Promise<Record<string, unknown>> {
  const entry = new URL('../../packages/web/src/index.ts', import.meta.url).href;
  const script = `
    const out = { wasmRefused: false };
    // Instantiate, as the library does: WebKit refuses WebAssembly under this policy only
    // there (WebAssembly.compile resolves), Chromium and Firefox already at compile.
    try {
      await WebAssembly.instantiate(new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0]));
    } catch {
      out.wasmRefused = true;
    }
    // vitest's browser mode wraps the dynamic imports of the modules it serves with its
    // runner: lend the frame the test page's.
    window.__vitest_browser_runner__ = parent.__vitest_browser_runner__;
    try {
      const web = await import(${JSON.stringify(entry)});
      ${body}
    } catch (err) {
      out.error = String((err && \`\${err.message}\\n\${err.stack}\`) || err);
    }
    parent.postMessage({ cspFrame: out }, '*');
  `;
  const frame = document.createElement('iframe');
  frames.push(frame);
  // The page's origin by name, not 'self': in an about:srcdoc frame Chromium takes 'self' as
  // the parent's origin, Firefox does not (it refused the import of the package).
  frame.srcdoc = `<!doctype html><meta http-equiv="Content-Security-Policy" content="script-src ${location.origin} 'unsafe-inline'"><script type="module">${script}</script>`;
  return new Promise((resolve) => {
    const onMessage = (ev: MessageEvent) => {
      if (ev.source !== frame.contentWindow || !ev.data?.cspFrame) return;
      window.removeEventListener('message', onMessage);
      resolve(ev.data.cspFrame as Record<string, unknown>);
    };
    window.addEventListener('message', onMessage);
    document.body.append(frame);
  });
}

describe('stores on a page whose CSP refuses WebAssembly', () => {
  it('fall back to xxHash32 there and still read xxHash64 entries through the OPFS worker', async () => {
    const { OpfsStore } = await import('@medfusion/web');
    const dir = `test-csp-${Math.random().toString(36).slice(2)}`;
    const db = `test-csp-${Math.random().toString(36).slice(2)}`;
    const value = new Uint8Array(5000).map((_, i) => i % 251);
    // Written on this page (WebAssembly allowed): sealed with xxHash64.
    const writer = new OpfsStore({ dir });
    await writer.put('sealed-elsewhere', value);
    expect((await writer.usage()).checksumAlgorithm).toBe('xxh64');
    await writer.close();
    try {
      const r = await runInCspFrame(`
        const idb = new web.IdbStore({ name: ${JSON.stringify(db)} });
        await idb.put('k', new Uint8Array([1, 2, 3, 4]));
        out.idbAlgorithm = (await idb.usage()).checksumAlgorithm;
        out.idbBack = Array.from(await idb.get('k'));
        await idb.close();
        const opfs = new web.OpfsStore({ dir: ${JSON.stringify(dir)} });
        out.opfsBack = Array.from((await opfs.get('sealed-elsewhere')) ?? []);
        const usage = await opfs.usage();
        out.opfsAlgorithm = usage.checksumAlgorithm;
        out.opfsCorrupt = usage.corruptDropped;
        await opfs.close();
      `);
      expect(r.error).toBeUndefined();
      // The policy really refuses WebAssembly in the frame.
      expect(r.wasmRefused).toBe(true);
      expect(r.idbAlgorithm).toBe('xxh32');
      expect(r.idbBack).toEqual([1, 2, 3, 4]);
      // The worker's script is not under the frame's policy: it seals and checks xxHash64.
      expect(r.opfsAlgorithm).toBe('xxh64');
      expect(r.opfsBack).toEqual(Array.from(value));
      expect(r.opfsCorrupt).toBe(0);
    } finally {
      const root = await navigator.storage.getDirectory();
      await root.removeEntry(dir, { recursive: true }).catch(() => {});
      indexedDB.deleteDatabase(db);
    }
  });
});

describe('ParquetSource on a page whose CSP refuses WebAssembly', () => {
  it('reads SNAPPY pages and fails GZIP ones at open with UNSUPPORTED_CODEC giving the reason', async () => {
    const { nginx } = inject('shardServers');
    const r = await runInCspFrame(`
      const columns = { tabular: ['id', 'value'], label: 'label' };
      const snappy = await web.ParquetSource.open({ url: ${JSON.stringify(`${nginx}codec-snappy.parquet`)}, columns });
      out.snappyRows = snappy.length;
      out.snappyLabel = (await snappy.get(0)).label;
      snappy.close();
      const error = await web.ParquetSource.open({ url: ${JSON.stringify(`${nginx}codec-gzip.parquet`)}, columns })
        .then(() => undefined, (e) => e);
      out.gzipIsUnsupported = error instanceof web.UnsupportedCodecError;
      out.gzipMessage = String(error && error.message);
    `);
    const { CODEC_ROWS, codecRow } = await import('../fixtures-shards/parquetCodecRows.js');
    expect(r.error).toBeUndefined();
    expect(r.wasmRefused).toBe(true);
    expect(r.snappyRows).toBe(CODEC_ROWS);
    expect(r.snappyLabel).toBe(codecRow(0).label);
    expect(r.gzipIsUnsupported).toBe(true);
    expect(r.gzipMessage).toMatch(
      /compressed with GZIP.*could not load here: WebAssembly is refused/,
    );
  });
});

// Diagnostic for `pnpm bench tfjs`: where is the ceiling? Raw fetch rate (0 and 10 ms latency,
// several loads in flight, page vs worker, HTTP/1.1 one or several origins vs HTTP/2), decode
// cost per image (page vs worker), and the data server's CPU per request.
// Run: pnpm exec tsx bench/tfjs/probe.ts [--samples N]  (prints one line per measurement)
import { chromium } from 'playwright';
import { chromiumLaunchOptions } from '../_chromium.js';
import { startDataServer, type Transport } from './dataServer.js';
import { generatePngs } from './pngs.js';

/** The functions KIT installs on the probe page. */
interface ProbeWindow {
  rate(a: unknown): Promise<number>;
  decodeCost(a: unknown): Promise<number>;
  inWorker(fn: string, a: unknown): Promise<number>;
}

const N = Number(process.argv[process.argv.indexOf('--samples') + 1]) || 1000;

// evaluated in the page and in a worker: fetch n PNGs with `inflight` at once
const KIT = `
let ctx;
async function decode(blob) {
  const bitmap = await createImageBitmap(blob);
  ctx ??= new OffscreenCanvas(64, 64).getContext('2d', { willReadFrequently: true });
  ctx.drawImage(bitmap, 0, 0);
  bitmap.close();
  const rgba = ctx.getImageData(0, 0, 64, 64).data;
  const out = new Float32Array(4096);
  for (let p = 0; p < 4096; p++) out[p] = rgba[p * 4] / 255;
  return out;
}
async function rate({ origins, n, inflight, lat, mode }) {
  let next = 0;
  const t0 = performance.now();
  const one = async () => {
    for (;;) {
      const i = next++;
      if (i >= n) return;
      const res = await fetch(origins[i % origins.length] + '/data/' + i + '.png?lat=' + lat);
      if (mode === 'ab') await res.arrayBuffer();
      else await decode(await res.blob());
    }
  };
  await Promise.all(Array.from({ length: inflight }, one));
  return (n / (performance.now() - t0)) * 1000;
}
async function decodeCost({ origin, n, inflight }) {
  const blobs = await Promise.all(Array.from({ length: n }, (_, i) => fetch(origin + '/data/' + i + '.png?lat=0').then((r) => r.blob())));
  let next = 0;
  const t0 = performance.now();
  await Promise.all(Array.from({ length: inflight }, async () => { for (;;) { const i = next++; if (i >= n) return; await decode(blobs[i]); } }));
  return (performance.now() - t0) / n;
}
`;

async function main(): Promise<void> {
  const pngs = generatePngs(N);
  const browser = await chromium.launch(chromiumLaunchOptions(['--ignore-certificate-errors']));
  const ctx = await browser.newContext({ ignoreHTTPSErrors: true });
  const setups: Array<[Transport, number]> = [
    ['h1', 1],
    ['h1', 4],
    ['h2', 1],
  ];
  for (const [transport, ports] of setups) {
    const server = await startDataServer(pngs, 10, transport, ports);
    const page = await ctx.newPage();
    await page.goto(`${server.origins[0]}/`);
    await page.evaluate(
      `${KIT}; window.rate = rate; window.decodeCost = decodeCost;
      window.inWorker = (fn, arg) => new Promise((ok, bad) => {
        const w = new Worker(URL.createObjectURL(new Blob([KIT_SRC + 'onmessage = async (e) => postMessage(await self[e.data.fn](e.data.arg));'], { type: 'text/javascript' })));
        w.onmessage = (e) => { ok(e.data); w.terminate(); };
        w.onerror = (e) => bad(new Error(e.message));
        w.postMessage({ fn, arg });
      });`.replace('KIT_SRC', JSON.stringify(KIT)),
    );
    const label = `${transport}${ports > 1 ? ` x${ports} origins` : ''}`;
    for (const where of ['page', 'worker'] as const) {
      for (const [lat, inflight, mode] of [
        [0, 1, 'ab'],
        [0, 6, 'ab'],
        [0, 32, 'ab'],
        [10, 10, 'ab'],
        [10, 32, 'ab'],
        [10, 128, 'ab'],
        [0, 32, 'decode'],
        [10, 32, 'decode'],
      ] as const) {
        const arg = { origins: server.origins, n: N, inflight, lat, mode };
        server.cpuMs();
        const r0 = server.requests();
        const t0 = performance.now();
        const perSec = (await page.evaluate(
          ([w, a]) => {
            const win = window as unknown as ProbeWindow;
            return w === 'page' ? win.rate(a) : win.inWorker('rate', a);
          },
          [where, arg] as const,
        )) as number;
        const wall = performance.now() - t0;
        const cpu = server.cpuMs();
        const reqs = server.requests() - r0;
        console.log(
          `${label.padEnd(16)} ${where.padEnd(6)} lat ${String(lat).padStart(2)} inflight ${String(inflight).padStart(3)} ${mode.padEnd(6)} ` +
            `${perSec.toFixed(0).padStart(6)} /s   server CPU ${(cpu / reqs).toFixed(3)} ms/req (${((cpu / wall) * 100).toFixed(0)} % of a core)`,
        );
      }
      if (transport === 'h1' && ports === 1) {
        for (const inflight of [1, 4]) {
          const arg = { origin: server.origins[0], n: Math.min(N, 500), inflight };
          const ms = (await page.evaluate(
            ([w, a]) => {
              const win = window as unknown as ProbeWindow;
              return w === 'page' ? win.decodeCost(a) : win.inWorker('decodeCost', a);
            },
            [where, arg] as const,
          )) as number;
          console.log(
            `decode only      ${where.padEnd(6)} inflight ${inflight}: ${ms.toFixed(3)} ms/image`,
          );
        }
      }
    }
    await page.close();
    await server.close();
  }
  await browser.close();
}
main().catch((e) => {
  console.error(e);
  process.exit(1);
});

// Page side of the decode probe: one Web Worker, as the demo's decode workers.
declare global {
  interface Window {
    probe(msg: unknown): Promise<number>;
  }
}
const w = new Worker(new URL('./probe.worker.ts', import.meta.url), { type: 'module' });
window.probe = (msg) =>
  new Promise((resolve) => {
    w.onmessage = (e) => resolve(e.data as number);
    w.postMessage(msg);
  });

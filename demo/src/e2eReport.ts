// Test-only hook for the WebKitGTK e2e (tests/e2e/demo-webkit.test.ts) and the stress harness
// (tests/stress/; `&trace=1` forwards every thread's breadcrumbs, trace.ts), where no automation
// protocol can drive the page: opened as `?e2e-report=<url>`, the page trains once with the
// settings in the URL and POSTs what it saw (status, epoch, sample origins, loss, the disk tier's
// backend, service worker state, console errors) to `<url>` as JSON. Without the parameter it does
// nothing. Only a loopback `http:` URL is accepted: a link cannot send a user's figures elsewhere.

/** What the page reports once its run has ended (or boot failed). */
export interface E2eReport {
  /** `#status`'s text and state (`done`, `error`, `stopped`). */
  status: string;
  state: string;
  /** The `#epoch` text (`1 of 1`). */
  epoch: string;
  /** The `#dataset` text (it says `manifest from offline copy` when loaded offline). */
  dataset: string;
  /** `#origin`'s counters: delivered, network, disk, memory, networkErrors. */
  origin: Record<string, number>;
  /** First and last loss of the run. */
  firstLoss: number;
  lastLoss: number;
  /** The disk tier's store (`opfs-sync`, `opfs-async`, `idb`; '' when off). */
  diskBackend: string;
  /** Samples of this data set on disk. */
  diskEntries: number;
  /** Service workers: offered by the engine, registered for this page, controlling it. */
  serviceWorker: { supported: boolean; registered: boolean; controlled: boolean };
  /** `navigator.onLine`. */
  online: boolean;
  /** console.error calls and uncaught errors / rejections on the page. */
  consoleErrors: string[];
}

import { forwardTraces, trace, tracing } from './trace.js';

const text = (sel: string) => document.querySelector<HTMLElement>(sel)?.textContent ?? '';
const data = (sel: string) => document.querySelector<HTMLElement>(sel)?.dataset ?? {};

const LOOPBACK = ['127.0.0.1', 'localhost', '[::1]'];

/** The report URL from `search`, if it is a loopback http URL. */
function reportUrl(search: string): URL | undefined {
  const raw = new URLSearchParams(search).get('e2e-report');
  if (!raw) return undefined;
  const url = URL.canParse(raw) ? new URL(raw) : undefined;
  if (url?.protocol !== 'http:' || !LOOPBACK.includes(url.hostname)) {
    console.warn(`[demo] e2e-report must be a loopback http: URL, got ${JSON.stringify(raw)}`);
    return undefined;
  }
  return url;
}

/** Resolves once `done(#status)` holds, checked on every change of #status. */
function whenStatus(done: (s: HTMLElement) => boolean): Promise<HTMLElement> {
  return new Promise((resolve) => {
    const el = document.querySelector<HTMLElement>('#status');
    if (!el) return;
    if (done(el)) return resolve(el);
    const obs = new MutationObserver(() => {
      if (done(el)) {
        obs.disconnect();
        resolve(el);
      }
    });
    obs.observe(el, { attributes: true, childList: true, characterData: true, subtree: true });
  });
}

/** With `?e2e-report=<url>`: train once when ready and POST an {@link E2eReport} there. */
export function mountE2eReport(): void {
  const url = reportUrl(location.search);
  if (!url) return;
  if (tracing) {
    // &trace=1 (tests/stress/): every thread's breadcrumbs, and each status the page shows
    forwardTraces(url);
    const status = document.querySelector('#status');
    if (status) {
      const say = () => trace(`status ${status.getAttribute('data-state')}: ${status.textContent}`);
      new MutationObserver(say).observe(status, {
        childList: true,
        subtree: true,
        attributes: true,
      });
    }
  }
  const consoleErrors: string[] = [];
  const error = console.error.bind(console);
  console.error = (...args: unknown[]) => {
    consoleErrors.push(args.map(String).join(' '));
    error(...args);
  };
  addEventListener('error', (e) => consoleErrors.push(`uncaught ${e.message}`));
  addEventListener('unhandledrejection', (e) => consoleErrors.push(`unhandled ${e.reason}`));
  void (async () => {
    const booted = await whenStatus(
      (el) => el.dataset.ready === 'true' || el.dataset.state === 'error',
    );
    if (booted.dataset.state !== 'error') {
      document.querySelector<HTMLButtonElement>('#start')?.click();
      await whenStatus((el) => ['done', 'error', 'stopped'].includes(el.dataset.state ?? ''));
    }
    const sw = 'serviceWorker' in navigator;
    const origin = Object.fromEntries(
      Object.entries(data('#origin')).map(([k, v]) => [k, Number(v)]),
    );
    const disk = data('[data-stat="disk"]');
    const report: E2eReport = {
      status: text('#status'),
      state: data('#status').state ?? '',
      epoch: text('#epoch'),
      dataset: text('#dataset'),
      origin,
      firstLoss: Number(data('#status').firstLoss),
      lastLoss: Number(data('#status').lastLoss),
      diskBackend: disk.backend ?? '',
      diskEntries: Number(disk.value),
      serviceWorker: {
        supported: sw,
        registered: sw && (await navigator.serviceWorker.getRegistration()) !== undefined,
        controlled: sw && navigator.serviceWorker.controller !== null,
      },
      online: navigator.onLine,
      consoleErrors,
    };
    await fetch(url, { method: 'POST', body: JSON.stringify(report) });
  })().catch((err: unknown) => console.warn('[demo] e2e report not sent:', err));
}

// The demo end to end in WebKitGTK (Debian's MiniBrowser under Xvfb, started as the -webkit
// browser projects start it: tests/setup/webkitProvider.ts). No automation protocol can drive it
// here (Playwright has no WebKitGTK; a WebKitWebDriver session's throwaway storage has no OPFS),
// so the page drives itself: opened as `?e2e-report=<url>` (demo/src/e2eReport.ts) it trains one
// epoch with 'both + disk' and POSTs what it saw to a results endpoint of this test. Then, with
// the demo's server stopped, MiniBrowser starts again on the same profile and URL: the page must
// come from its service worker and train again with every sample from disk (network 0).
import type { ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { E2eReport } from '../../demo/src/e2eReport.js';
import { otherEnginesRequested } from '../setup/engines.js';
import { type LocalServer, listenLocal } from '../setup/listenLocal.js';
import { stopGroup } from '../setup/processGroup.js';
import { spawnMiniBrowser, startXvfb, webkitFeatures } from '../setup/webkitProvider.js';
import { ARTIFACTS, generateSmallDataset, type RunningDemo, startDemo } from './demoServer.js';

const SAMPLES = 200;
/** How long one launch may take to boot, train its epoch and report. */
const REPORT_TIMEOUT_MS = 240_000;
/** The profile both launches share (emptied first: the first visit is cold). */
const profile = join(ARTIFACTS, 'e2e-profile-webkit');

let demo: RunningDemo;
let xvfb: { proc: ChildProcess; display: string };
let results: LocalServer;
/** Reports by name, and the waiters of those not yet posted. */
const posted = new Map<string, E2eReport>();
const waiting = new Map<string, (r: E2eReport) => void>();
/** Each launch's console output (MiniBrowser's stdout and stderr). */
const consoleLog: Record<string, string> = {};

/** Open the demo in MiniBrowser on the shared profile; resolves with the page's report `name`. */
async function launch(name: string): Promise<E2eReport> {
  const report = `${results.url}/report/${name}`;
  const url = `${demo.url}?epochs=1&e2e-report=${encodeURIComponent(report)}`;
  const browser = spawnMiniBrowser({
    display: xvfb.display,
    profile,
    url,
    features: webkitFeatures,
    consoleToStdout: true,
    // WebKitGTK takes navigator.language from LANG: under this machine's C.UTF-8 it is 'C', and
    // uPlot's module (the demo's charts) throws `new Intl.NumberFormat('C')` (invalid language tag).
    // A desktop session has a real locale; this one says what such a user has.
    env: { LANG: 'en_US.UTF-8', LC_ALL: '' },
  });
  // Console messages (the page's and its workers') and MiniBrowser's own warnings, together.
  consoleLog[name] = '';
  const log = (d: Buffer) => {
    consoleLog[name] += d.toString();
  };
  browser.stdout?.on('data', log);
  browser.stderr?.on('data', log);
  try {
    return await new Promise<E2eReport>((resolve, reject) => {
      const timer = setTimeout(
        () =>
          reject(
            new Error(
              `no report '${name}' within ${REPORT_TIMEOUT_MS} ms; console:\n${consoleLog[name]}`,
            ),
          ),
        REPORT_TIMEOUT_MS,
      );
      browser.once('exit', (code, signal) => {
        clearTimeout(timer);
        reject(
          new Error(
            `MiniBrowser exited (${code ?? signal}) before reporting:\n${consoleLog[name]}`,
          ),
        );
      });
      const done = (r: E2eReport) => {
        clearTimeout(timer);
        resolve(r);
      };
      const early = posted.get(name);
      if (early) done(early);
      else waiting.set(name, done);
    });
  } finally {
    waiting.delete(name);
    await stopGroup(browser); // the whole browser goes: the second launch is a new process
  }
}

/** Errors the engine logged for launch `name` (`… CONSOLE JS ERROR …`; workers' too). */
const engineErrors = (name: string) =>
  (consoleLog[name] ?? '').split('\n').filter((l) => / CONSOLE \w+ ERROR /.test(l));

const requested = otherEnginesRequested().includes('webkit');

describe.skipIf(!requested)(
  `demo in WebKitGTK (MiniBrowser, the page reports over ?e2e-report=)${requested ? '' : ' [webkit not in MEDFUSION_ENGINES]'}`,
  () => {
    let first: E2eReport;

    beforeAll(async () => {
      rmSync(profile, { recursive: true, force: true });
      demo = await startDemo(generateSmallDataset(SAMPLES));
      results = await listenLocal(
        createServer((req, res) => {
          const name = /^\/report\/([\w-]+)$/.exec(req.url ?? '')?.[1];
          if (req.method !== 'POST' || !name) {
            res.writeHead(404).end();
            return;
          }
          let body = '';
          req.setEncoding('utf8');
          req.on('data', (c: string) => {
            body += c;
          });
          req.on('end', () => {
            const r = JSON.parse(body) as E2eReport;
            posted.set(name, r);
            waiting.get(name)?.(r);
            res.writeHead(204, { 'Access-Control-Allow-Origin': '*' }).end();
          });
        }),
      );
      xvfb = await startXvfb();
    });

    afterAll(async () => {
      await demo?.stop();
      await results?.close();
      if (xvfb) await stopGroup(xvfb.proc);
    });

    it('trains one epoch with both + disk, on OPFS (async API: WebKitGTK rejects sync handles)', async () => {
      first = await launch('first');
      expect(first.state, first.status).toBe('done');
      expect(first.epoch).toBe('1 of 1');
      expect(first.origin.delivered).toBeGreaterThanOrEqual(SAMPLES);
      expect(Number.isFinite(first.lastLoss)).toBe(true);
      expect(first.diskBackend).toBe('opfs-async');
      expect(first.diskEntries).toBe(SAMPLES);
      expect(first.consoleErrors).toEqual([]);
      expect(engineErrors('first')).toEqual([]);
    });

    it('reloads with the server gone and trains again, every sample from disk (network 0)', async () => {
      expect(first?.serviceWorker).toEqual({ supported: true, registered: true, controlled: true });
      await demo.stop();
      const again = await launch('offline');
      expect(again.dataset).toMatch(/manifest from offline copy/);
      expect(again.state, again.status).toBe('done');
      expect(again.origin.delivered).toBeGreaterThanOrEqual(SAMPLES);
      expect(again.origin.network).toBe(0);
      expect(again.origin.networkErrors).toBe(0);
      expect(again.origin.disk).toBeGreaterThanOrEqual(SAMPLES);
      expect(Number.isFinite(again.lastLoss)).toBe(true);
      expect(again.diskBackend).toBe('opfs-async');
      expect(again.consoleErrors).toEqual([]);
      expect(engineErrors('offline')).toEqual([]);
    });
  },
);

// The stress harness's results server (127.0.0.1): each run's page POSTs its outcome to
// `/run/<id>` and every thread's breadcrumbs to `/run/<id>?trace=1` (demo/src/trace.ts).
import { createServer } from 'node:http';
import type { TraceEvent } from '../../demo/src/trace.js';
import { type LocalServer, listenLocal } from '../setup/listenLocal.js';

/** What a page posts when its run ended (the demo's E2eReport has more; these are read). */
export interface RunOutcome {
  /** `done`, `error` or `stopped`. */
  state: string;
  /** The status line. */
  status: string;
}

/** One run as the server saw it. */
export interface RunTrace {
  /** The outcome, once posted. */
  outcome: RunOutcome | undefined;
  /** Each thread's last breadcrumb. */
  readonly last: Map<string, TraceEvent>;
  /** When (this process's `Date.now()`) the last breadcrumb or outcome arrived. */
  lastHeard: number;
  /** Breadcrumbs received. */
  heard: number;
}

/** The results server. */
export interface ReportServer {
  /** `http://127.0.0.1:<port>`. */
  readonly url: string;
  /** Start listening for run `id`; its URL is `${url}/run/${id}`. */
  open(id: string): RunTrace;
  /** Stop serving. */
  close(): Promise<void>;
}

/** Start the results server. */
export async function startReportServer(): Promise<ReportServer> {
  const runs = new Map<string, RunTrace>();
  const server: LocalServer = await listenLocal(
    createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      const id = /^\/run\/([\w-]+)$/.exec(url.pathname)?.[1];
      const run = id === undefined ? undefined : runs.get(id);
      if (req.method !== 'POST' || !run) {
        res.writeHead(404).end();
        return;
      }
      let body = '';
      req.setEncoding('utf8');
      req.on('data', (c: string) => {
        body += c;
      });
      req.on('end', () => {
        try {
          if (url.searchParams.get('trace') === '1') {
            for (const e of JSON.parse(body) as TraceEvent[]) {
              run.last.set(e.who, e);
              run.heard++;
            }
          } else {
            run.outcome = JSON.parse(body) as RunOutcome;
          }
          run.lastHeard = Date.now();
        } catch {
          // a torn body: the run's silence will tell
        }
        res.writeHead(204, { 'Access-Control-Allow-Origin': '*' }).end();
      });
    }),
  );
  return {
    url: server.url,
    open(id) {
      const run: RunTrace = {
        outcome: undefined,
        last: new Map(),
        lastHeard: Date.now(),
        heard: 0,
      };
      runs.set(id, run);
      return run;
    },
    close: () => server.close(),
  };
}

/** Each thread's last breadcrumb, oldest first, as `who (Ns before the end): what`. */
export function lastWords(run: RunTrace, now = Date.now()): string[] {
  return [...run.last.values()]
    .sort((a, b) => a.t - b.t)
    .map((e) => `${e.who} (${((now - e.t) / 1000).toFixed(1)} s ago): ${e.what}`);
}

// The stress harness's plain scenario, page side (docs/browser-support.md, "Stress harness"): opened as
// `?e2e-report=<url>&trace=1&mode=hosted|nested`, it starts a training worker that runs one
// DataLoader epoch over the demo's data set with a decode pool of 2 workers, either started here
// by a WorkerHost (`hosted`, what docs/workers.md recommends) or by the training worker itself
// (`nested`, the design that stalled in Firefox, kept to show the harness catches it; `hang`
// stalls on purpose, for the harness's own test), and posts the outcome to `<url>`. Every thread's breadcrumbs go to `<url>?trace=1` (demo/src/trace.ts).
import { createWorkerHost } from '@medfusion/web';
import { forwardTraces, trace, workerName } from '../../../demo/src/trace.js';
import type { PlainDone, PlainMode, PlainStart } from './plainProtocol.js';

const params = new URLSearchParams(location.search);
const report = new URL(params.get('e2e-report') ?? '', location.href);
const asked = params.get('mode');
const mode: PlainMode = asked === 'nested' || asked === 'hang' ? asked : 'hosted';
const status = document.querySelector('#status') as HTMLElement;

function finish(state: 'done' | 'error', text: string, delivered = 0): void {
  status.dataset.state = state;
  status.textContent = text;
  trace(`status ${state}: ${text}`);
  void fetch(report, {
    method: 'POST',
    body: JSON.stringify({ state, status: text, origin: { delivered } }),
  }).catch(() => {});
}

if (!['127.0.0.1', 'localhost'].includes(report.hostname)) {
  finish('error', 'e2e-report must be a loopback URL');
} else {
  forwardTraces(report);
  const host = createWorkerHost({
    workers: {
      loader: () =>
        new Worker(new URL('../../../demo/src/loader.worker.ts', import.meta.url), {
          type: 'module',
          name: workerName('decode'),
        }),
    },
  });
  const worker = new Worker(new URL('./plain.worker.ts', import.meta.url), {
    type: 'module',
    name: workerName('epoch'),
  });
  worker.onmessage = ({ data }: MessageEvent<PlainDone>) => {
    host.close();
    worker.terminate();
    if (data.error) finish('error', data.error);
    else finish('done', `one epoch: ${data.delivered} samples (${mode})`, data.delivered);
  };
  worker.onerror = (e) => finish('error', `the training worker failed: ${e.message}`);
  const port = host.connect();
  const start: PlainStart = { mode, host: port, samples: Number(params.get('samples') ?? 0) };
  worker.postMessage(start, [port]);
  trace(`started (${mode})`);
}

// Test-only breadcrumbs for the stress harness (tests/stress/): each thread of the demo says what
// it is doing (`trace('dataset open')`), and a page opened with `?e2e-report=<url>&trace=1`
// forwards every thread's last words to `<url>?trace=1`, so a run that stalls tells which thread
// stopped where. Off unless asked: the page asks in its URL, a worker in its name (`+trace`).

const CHANNEL = 'medfusion-demo-trace';
/** What a worker's name ends with when its page traces. */
const TRACED = '+trace';

/** One breadcrumb. */
export interface TraceEvent {
  /** The thread: `page`, or the worker's name and a short id (`trainer#k3x`). */
  who: string;
  /** What it did last. */
  what: string;
  /** `Date.now()` when it did. */
  t: number;
}

const scope = globalThis as { name?: string; location?: Location; document?: unknown };
const onPage = scope.document !== undefined;
/** Whether this thread traces: the page when its URL asks, a worker when its name says so. */
export const tracing = onPage
  ? new URLSearchParams(scope.location?.search ?? '').get('trace') === '1'
  : (scope.name ?? '').endsWith(TRACED);
const who = onPage
  ? 'page'
  : `${(scope.name ?? 'worker').slice(0, -TRACED.length)}#${Math.random().toString(36).slice(2, 5)}`;
const channel = tracing ? new BroadcastChannel(CHANNEL) : undefined;

/** Leave a breadcrumb (no-op unless this thread traces). */
export function trace(what: string): void {
  channel?.postMessage({ who, what, t: Date.now() } satisfies TraceEvent);
}

/** The `name` to give a worker started here: it traces when this thread does. */
export function workerName(name: string): string {
  return tracing ? `${name}${TRACED}` : name;
}

/**
 * Page side: post every thread's breadcrumbs to `url` (with `?trace=1`), batched every 250 ms.
 * Returns a function that stops forwarding.
 */
export function forwardTraces(url: URL): () => void {
  const target = new URL(url);
  target.searchParams.set('trace', '1');
  const listen = new BroadcastChannel(CHANNEL);
  let batch: TraceEvent[] = [];
  const take = (e: TraceEvent) => batch.push(e);
  // `listen` hears this page's trace() too: another BroadcastChannel object of the same name
  listen.onmessage = (ev: MessageEvent<TraceEvent>) => take(ev.data);
  const timer = setInterval(() => {
    if (batch.length === 0) return;
    const body = JSON.stringify(batch);
    batch = [];
    fetch(target, { method: 'POST', body }).catch(() => {});
  }, 250);
  return () => {
    clearInterval(timer);
    listen.close();
  };
}

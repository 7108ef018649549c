import { parentPort } from 'node:worker_threads';
import { func, serializeError } from '@medfusion/core/internal';
import type { ThreadReply, ThreadRequest } from './threadProtocol.js';

/**
 * Serve `loader` to a {@link createThreadExecutor} pool: call it once at the top level of the
 * worker thread's module. Each call gets its own `AbortSignal`, aborted when the main thread
 * aborts or times the call out; an error the loader throws reaches the main thread as its own
 * class with its `code` (core's error serializer), anything else as a `MedFusionError`.
 *
 * @example
 * // loader.worker.js, started by createThreadExecutor({ worker: new URL('./loader.worker.js', import.meta.url) })
 * exposeLoader(async (index, signal) => decodeScan(await readFile(`scans/${index}.png`, { signal })));
 */
export function exposeLoader<T>(
  loader: (index: number, signal: AbortSignal, input: unknown) => T | Promise<T>,
): void {
  func('loader', loader);
  const port = parentPort;
  if (!port) throw new TypeError('exposeLoader must run in a worker thread (no parentPort)');
  const calls = new Map<number, AbortController>();
  port.on('message', (m: ThreadRequest) => {
    if (m.type === 'abort') {
      calls.get(m.id)?.abort();
      return;
    }
    const ac = new AbortController();
    calls.set(m.id, ac);
    void (async () => {
      let reply: ThreadReply;
      try {
        reply = { id: m.id, ok: true, value: await loader(m.index, ac.signal, m.input) };
      } catch (err) {
        reply = { id: m.id, ok: false, error: serializeError(err) };
      }
      calls.delete(m.id);
      port.postMessage(reply);
    })();
  });
}

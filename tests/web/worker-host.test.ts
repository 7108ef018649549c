// createWorkerHost / connectWorkerHost, in real workers: a worker's loader pool and its OpfsStore
// get their workers from the page (no worker nested in it), on ports of their own; what the page
// does not offer fails as a worker that could not start; the page lets the workers of a thread
// that is gone go; close() ends everything it started.
import { ClosedError } from '@medfusion/core';
import { createWorkerHost, OPFS_STORE_WORKER, opfsStoreWorker } from '@medfusion/web';
import * as Comlink from 'comlink';
import { afterEach, describe, expect, it } from 'vitest';
import type { HostClientApi } from './fixtures/host-client.worker.js';

/** Worker start-up can take a while on a busy machine. */
const WAIT = { timeout: 20_000 };
const echo = () =>
  new Worker(new URL('./fixtures/echo.worker.ts', import.meta.url), { type: 'module' });

const opened: { close(): void }[] = [];
afterEach(() => {
  for (const o of opened.splice(0)) o.close();
});

function start(workers: Record<string, () => Worker>) {
  const host = createWorkerHost({ workers });
  const worker = new Worker(new URL('./fixtures/host-client.worker.ts', import.meta.url), {
    type: 'module',
  });
  opened.push(host, { close: () => worker.terminate() });
  const api = Comlink.wrap<HostClientApi>(worker);
  const port = host.connect();
  void api.connect(Comlink.transfer(port, [port]));
  return { host, worker, api };
}

describe('a worker host: the page starts the workers a worker asks for', () => {
  it("runs a worker's loader pool on workers the page started, samples moved, not copied", async () => {
    const { host, api } = start({ echo });
    const result = await api.loads('echo', 20);
    expect(result).toMatchObject({
      indices: Array.from({ length: 20 }, (_, i) => i),
      floats: Array(20).fill(16),
    });
    // the pool's 2 workers were started here (which of them served is the pool's choice)
    expect(host.liveWorkers).toBe(2);
    await api.closePool();
    await expect.poll(() => host.liveWorkers, WAIT).toBe(0);
  });

  it('a worker the page does not offer fails the pool (WORKER_CRASHED), naming it', async () => {
    const { host, api } = start({ echo });
    const result = await api.loads('nope', 1);
    expect(result).toMatchObject({ code: 'WORKER_CRASHED' });
    expect((result as { message: string }).message).toMatch(/offers no worker named 'nope'/);
    expect(host.liveWorkers).toBe(0);
  });

  it('lets the workers of a thread that is gone go (its Web Lock is free)', async () => {
    const { host, worker, api } = start({ echo });
    await api.loads('echo', 4);
    expect(host.liveWorkers).toBe(2);
    worker.terminate(); // the pool never closed
    await expect.poll(() => host.liveWorkers, WAIT).toBe(0);
  });

  it("starts an OpfsStore's worker for a store opened in a worker (OPFS_STORE_WORKER)", async () => {
    const { host, api } = start({ [OPFS_STORE_WORKER]: opfsStoreWorker });
    const dir = `worker-host-${Math.random().toString(36).slice(2)}`;
    try {
      expect(await api.openStore(dir)).toEqual([1, 2, 3]);
      expect(host.liveWorkers).toBe(1); // the store's worker, started here
    } finally {
      await api.closeStore();
      const root = await navigator.storage.getDirectory();
      await root.removeEntry(dir, { recursive: true }).catch(() => {});
    }
  });

  it('close() terminates what it started and gives no more ports', async () => {
    const { host, api } = start({ echo });
    await api.loads('echo', 2);
    host.close();
    expect(host.liveWorkers).toBe(0);
    expect(() => host.connect()).toThrow(ClosedError);
    host.close(); // idempotent
  });
});

// DicomWebSource under the cache: the second epoch and the next visit (new source, new
// store object) read everything from OPFS with zero requests to the server.
import { createCachedDataset, OpfsStore } from '@medfusion/web';
import { DicomWebSource } from '@medfusion/web/dicom';
import { afterEach, describe, expect, inject, it } from 'vitest';

const { files, dicomWeb, proxy } = inject('dicom');
const study = files[0]?.study as string;
const dirs: string[] = [];

afterEach(async () => {
  const root = await navigator.storage.getDirectory();
  for (const d of dirs.splice(0)) await root.removeEntry(d, { recursive: true }).catch(() => {});
});

async function serverRequests(): Promise<number> {
  return ((await (await fetch(`${proxy}/__requests`)).json()) as { requests: number }).requests;
}

describe.skipIf(dicomWeb === null)('DicomWebSource with the disk tier', () => {
  it('epoch 2 and the next visit send nothing to the server', async () => {
    const dir = `test-dicomweb-${Math.random().toString(36).slice(2)}`;
    dirs.push(dir);
    const visit = async () => {
      const store = new OpfsStore({ dir });
      const source = await DicomWebSource.open({ root: dicomWeb as string, study, store });
      const ds = createCachedDataset(source, {
        cacheType: 'both',
        cacheSize: 4,
        prefetchSize: 4,
        store,
        fingerprint: source.fingerprint,
      });
      return { store, source, ds };
    };
    const order = (n: number, seed: number) =>
      Array.from({ length: n }, (_, i) => i).sort(
        (a, b) => ((a * 7919 + seed) % 31) - ((b * 7919 + seed) % 31),
      );

    const start = await serverRequests();
    const first = await visit();
    const n = first.source.length;
    const epoch1 = order(n, 1);
    first.ds.setPlan([...epoch1, ...order(n, 2)]);
    const seen = new Map<number, Float32Array>();
    for (const i of epoch1) seen.set(i, (await first.ds.get(i)).image.data as Float32Array);
    await first.ds.flush();
    const afterEpoch1 = await serverRequests();
    expect(afterEpoch1 - start).toBeGreaterThanOrEqual(n + 2);
    for (const i of order(n, 2)) expect((await first.ds.get(i)).image.data).toEqual(seen.get(i));
    expect(await serverRequests()).toBe(afterEpoch1);
    await first.ds.close();
    await first.store.close();

    const second = await visit();
    expect(second.source.stats().queryRequests).toBe(0);
    second.ds.setPlan(order(n, 3));
    for (const i of order(n, 3)) expect((await second.ds.get(i)).image.data).toEqual(seen.get(i));
    expect(second.ds.getCacheStats()).toMatchObject({ diskMisses: 0 });
    expect(await serverRequests()).toBe(afterEpoch1);
    await second.ds.close();
    await second.store.close();
  });
});

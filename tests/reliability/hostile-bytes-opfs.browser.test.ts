// Hostile data, item 6 (OPFS): a forged index entry claiming 1.5 GB (its checksum
// recomputed, so the snapshot looks valid) made `get` read — and allocate — 1.4 GB.
// Index entries are untrusted: one whose record would reach past its segment's end or
// file size is skipped when the store opens (counted in usage().corruptDropped, and the
// snapshot rewritten), so no read is ever sized by it; `get` is a miss at once and
// every other entry is intact.
import { checksum, OpfsStore } from '@medfusion/web';
import { afterEach, describe, expect, it } from 'vitest';
import { bounded, HANG_MS, report } from './harness.js';

const dirs: string[] = [];
afterEach(async () => {
  const root = await navigator.storage.getDirectory();
  for (const d of dirs.splice(0)) await root.removeEntry(d, { recursive: true }).catch(() => {});
});

type Snapshot = {
  gen: number;
  segments: [number, number, number][];
  entries: [string, number, number, number, number, number][];
};

/** Read the newest index snapshot, let `edit` forge it, write it back as a valid one. */
async function forgeIndex(dir: string, edit: (s: Snapshot) => void): Promise<void> {
  const d = await (await navigator.storage.getDirectory()).getDirectoryHandle(dir);
  let best: Snapshot | undefined;
  for (const name of ['index-a.bin', 'index-b.bin']) {
    const file = await (await d.getFileHandle(name).catch(() => undefined))?.getFile();
    if (!file || file.size < 16) continue;
    const bytes = new Uint8Array(await file.arrayBuffer());
    const len = new DataView(bytes.buffer).getUint32(4, true);
    const snap = JSON.parse(new TextDecoder().decode(bytes.subarray(16, 16 + len))) as Snapshot;
    if (!best || snap.gen > best.gen) best = snap;
  }
  if (!best) throw new Error('no index snapshot to forge');
  edit(best);
  best.gen += 1;
  const json = new TextEncoder().encode(JSON.stringify(best));
  const out = new Uint8Array(16 + json.length);
  const dv = new DataView(out.buffer);
  dv.setUint32(0, 0x3149464d, true); // "MFI1"
  dv.setUint32(4, json.length, true);
  dv.setUint32(8, checksum(json), true);
  dv.setUint32(12, best.gen, true);
  out.set(json, 16);
  for (const name of ['index-a.bin', 'index-b.bin']) {
    const w = await (await d.getFileHandle(name, { create: true })).createWritable();
    await w.write(out);
    await w.close();
  }
}

async function storeWithThree(tag: string) {
  const dir = `hostile-opfs-${tag}-${Math.random().toString(36).slice(2)}`;
  dirs.push(dir);
  const values = Array.from({ length: 3 }, (_, i) => new Uint8Array(1000).fill(i + 1));
  const a = new OpfsStore({ dir });
  for (let i = 0; i < 3; i++) await a.put(`k${i}`, values[i] as Uint8Array);
  await a.close();
  return { dir, values };
}

describe('hostile OPFS index', () => {
  it('an entry claiming 1.5 GB is skipped on open; get is a miss; the others are intact', async (ctx) => {
    const { dir, values } = await storeWithThree('big');
    await forgeIndex(dir, (s) => {
      const e = s.entries.find(([k]) => k === 'k1');
      if (!e) throw new Error('k1 is not in the snapshot');
      e[4] = 1_500_000_000;
    });
    const b = new OpfsStore({ dir });
    // Reported as soon as the store opens, before any read: the claim never counts. (Opening
    // starts the store's worker: ~1 s alone, more beside the suite's other browser files.)
    const { value: usage, ms: openMs } = await bounded('open', HANG_MS, () => b.usage());
    expect(usage).toMatchObject({ entries: 2, bytes: 2000, corruptDropped: 1 });
    const { value: got, ms } = await bounded('get k1', HANG_MS, () => b.get('k1'));
    expect(got).toBeUndefined();
    expect(await b.get('k0')).toEqual(values[0]);
    expect(await b.get('k2')).toEqual(values[2]);
    await b.close();
    // The forged entry is gone from the rewritten snapshot: a new store counts nothing.
    const c = new OpfsStore({ dir });
    expect(await c.usage()).toMatchObject({ entries: 2, corruptDropped: 0 });
    await c.put('k1', values[1] as Uint8Array);
    expect(await c.get('k1')).toEqual(values[1]);
    await c.close();
    report(ctx.task, {
      scenario: 'hostile inputs',
      case: 'OPFS index entry claiming 1.5 GB',
      figures: { openMs: Math.round(openMs), getMs: Math.round(ms), corruptDropped: 1 },
    });
  });

  it('entries past the file or with non-numeric fields are skipped and counted; a forged segment end rescans it', async () => {
    const { dir, values } = await storeWithThree('fields');
    await forgeIndex(dir, (s) => {
      for (const seg of s.segments) seg[1] = 3_000_000_000; // claims 3 GB of records
      const k0 = s.entries.find(([k]) => k === 'k0');
      const k1 = s.entries.find(([k]) => k === 'k1');
      if (!k0 || !k1) throw new Error('entries missing');
      k0[2] = 2_000_000_000; // offset past the file
      k1[4] = Number.NaN as unknown as number; // serialised as null
    });
    const b = new OpfsStore({ dir });
    expect((await b.usage()).corruptDropped).toBe(2); // k0 and k1 as indexed
    const { value: got } = await bounded('get', HANG_MS, () =>
      Promise.all(['k0', 'k1', 'k2'].map((k) => b.get(k))),
    );
    // A segment end past the file: catching up rescans the segment from its start, so
    // every record on disk is found again from its own verified header.
    expect(got).toEqual(values);
    expect((await b.usage()).entries).toBe(3);
    await b.close();
  });
});

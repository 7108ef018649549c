import { OpfsStore } from '@medfusion/web';
import { afterEach, describe, expect, it } from 'vitest';

const dirs: string[] = [];
afterEach(async () => {
  const root = await navigator.storage.getDirectory();
  for (const d of dirs.splice(0)) await root.removeEntry(d, { recursive: true }).catch(() => {});
});

async function flipByte(dir: string, at: number): Promise<void> {
  const root = await navigator.storage.getDirectory();
  const d = await root.getDirectoryHandle(dir);
  const fh = await d.getFileHandle('segment-00000001.bin');
  const file = await fh.getFile();
  const b = new Uint8Array(await file.slice(at, at + 1).arrayBuffer());
  const w = await fh.createWritable({ keepExistingData: true });
  await w.write({ type: 'write', position: at, data: new Uint8Array([b[0]! ^ 0x40]) });
  await w.close();
}

describe('OpfsStore corruption', () => {
  it('turns a flipped byte in a segment into a miss and drops the entry, never bad data', async () => {
    const dir = `test-opfs-corrupt-${Math.random().toString(36).slice(2)}`;
    dirs.push(dir);
    const a = new OpfsStore({ dir });
    const values = Array.from({ length: 3 }, (_, i) => new Uint8Array(1000).fill(i + 1));
    for (let i = 0; i < 3; i++) await a.put(`k${i}`, values[i]!);
    await a.close();
    // record of k1 starts at 1,026 (24-byte header + 2-byte key + 1,000 bytes per record)
    await flipByte(dir, 1026 + 24 + 2 + 500);
    const b = new OpfsStore({ dir });
    expect(await b.get('k1')).toBeUndefined();
    expect(await b.has('k1')).toBe(false);
    expect((await b.usage()).corruptDropped).toBe(1);
    expect(await b.get('k0')).toEqual(values[0]);
    expect(await b.get('k2')).toEqual(values[2]);
    await b.close();
    // the drop is persisted; a fresh write of k1 works again
    const c = new OpfsStore({ dir });
    expect(await c.get('k1')).toBeUndefined();
    await c.put('k1', values[1]!);
    expect(await c.get('k1')).toEqual(values[1]);
    await c.close();
  });

  it('ignores a damaged index snapshot and rebuilds from the segments', async () => {
    const dir = `test-opfs-corrupt-idx-${Math.random().toString(36).slice(2)}`;
    dirs.push(dir);
    const a = new OpfsStore({ dir });
    await a.put('a', new Uint8Array([1, 2, 3]));
    await a.close();
    const root = await navigator.storage.getDirectory();
    const d = await root.getDirectoryHandle(dir);
    for await (const name of (d as unknown as { keys(): AsyncIterable<string> }).keys()) {
      if (!name.startsWith('index-')) continue;
      const w = await (await d.getFileHandle(name)).createWritable({ keepExistingData: true });
      await w.write({ type: 'write', position: 20, data: new Uint8Array([0x7b, 0x7b, 0x7b]) });
      await w.close();
    }
    const b = new OpfsStore({ dir });
    expect(await b.get('a')).toEqual(new Uint8Array([1, 2, 3]));
    await b.close();
  });
});

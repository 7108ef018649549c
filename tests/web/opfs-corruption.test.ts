import { OpfsStore } from '@medfusion/web';
import { afterEach, describe, expect, it } from 'vitest';

const dirs: string[] = [];
afterEach(async () => {
  const root = await navigator.storage.getDirectory();
  for (const d of dirs.splice(0)) await root.removeEntry(d, { recursive: true }).catch(() => {});
});

describe('OpfsStore corruption', () => {
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

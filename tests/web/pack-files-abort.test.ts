// packFiles stops on its AbortSignal: it rejects with the signal's reason, and
// what it wrote is removed (no manifest.json, no shard left in the directory).
import { packFiles } from '@medfusion/web';
import { afterAll, describe, expect, it } from 'vitest';
import { opfsDir, opfsNames, pngFiles, removeOpfsDir } from './packFixtures.js';

const DIR = 'pack-abort';

describe('packFiles: abort', () => {
  afterAll(() => removeOpfsDir(DIR));

  it('rejects with the reason and leaves no data set once writing has begun', async () => {
    await removeOpfsDir(DIR);
    const controller = new AbortController();
    const reason = new Error('user pressed stop');
    const done = packFiles({
      files: pngFiles(400),
      dir: DIR,
      targetShardBytes: 2048,
      signal: controller.signal,
      onProgress: (p) => {
        if (p.phase === 'write' && p.done >= 20) controller.abort(reason);
      },
    });
    await expect(done).rejects.toBe(reason);
    const dir = await opfsDir(DIR);
    expect(dir && (await opfsNames(dir))).toEqual([]);
  });

  it('an already aborted signal rejects at once', async () => {
    const reason = new Error('before start');
    await expect(
      packFiles({ files: pngFiles(1), dir: DIR, signal: AbortSignal.abort(reason) }),
    ).rejects.toBe(reason);
  });
});

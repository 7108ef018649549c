// `medfusion merge` refuses parts that do not make one data set, with an error
// naming the part: one missing, one given twice, one packed with other
// arguments or from other input, one not a part at all. Nothing is written.
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, tempDir } from './cliHelpers.js';
import { csvInput, PART_ARGS, packPart } from './partsHelpers.js';

describe('medfusion merge refuses parts that are not one pack', () => {
  const input = csvInput(40);
  const [p1, p2, p3] = [1, 2, 3].map((i) => packPart(input, i, 3).dir) as [string, string, string];

  function mergeFails(dirs: string[]): string {
    const out = join(tempDir(), 'merged');
    const r = runCli(['merge', ...dirs, '--out', out]);
    expect(r.code).toBe(1);
    expect(existsSync(join(out, 'manifest.json'))).toBe(false);
    return r.stderr;
  }

  it('a missing part', () => {
    expect(mergeFails([p1, p3])).toMatch(/part 2\/3: is missing.*got 1, 3/);
  });

  it('a part given twice', () => {
    expect(mergeFails([p1, p2, p2, p3])).toContain(`${p2}: is part 2/3, given twice (also ${p2})`);
  });

  it('a part packed with other arguments (another seed)', () => {
    const other = packPart(
      input,
      2,
      3,
      PART_ARGS.map((a) => (a === '7' ? '8' : a)),
    ).dir;
    const err = mergeFails([p1, other, p3]);
    expect(err).toContain(`${other}: part 2/3 was packed from other input or other arguments`);
  });

  it('a part packed from other input (one image more)', () => {
    const other = packPart(csvInput(41), 3, 3).dir;
    expect(mergeFails([p1, p2, other])).toContain(`${other}: part 3/3 was packed from other input`);
  });

  it('a part of a pack cut into another number of parts', () => {
    const other = packPart(input, 2, 2).dir;
    expect(mergeFails([p1, other, p3])).toContain(`${other}: is part 2/2, but ${p1} is part 1/3`);
  });

  it('a folder that is no part, and a part whose shard was damaged after packing', () => {
    const stranger = tempDir();
    writeFileSync(join(stranger, 'notes.txt'), 'hello');
    expect(mergeFails([p1, stranger, p3])).toContain(`${stranger}: holds no medfusion-part.json`);
    const damaged = packPart(input, 1, 3).dir;
    const tar = join(damaged, 'train-000000.tar');
    writeFileSync(tar, 'not the shard');
    expect(mergeFails([damaged, p2, p3])).toContain(`${tar}: differs from what part 1/3 recorded`);
  });
});

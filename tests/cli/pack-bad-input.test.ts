// Bad input gets a clear error naming the file (exit 1), and nothing
// half-written is ever taken as complete: no manifest.json unless every shard is.
import {
  appendFileSync,
  existsSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { labelledImages, png, runCli, startCli, tempDir, writeTree } from './cliHelpers.js';

/** Pack `input` into a fresh folder; expect exit 1 and no data set there. Returns stderr. */
function packFails(input: string, extra: string[] = []): string {
  const out = join(tempDir(), 'out');
  const r = runCli(['pack', input, '--out', out, ...extra]);
  expect(r.code, r.stderr).toBe(1);
  expect(existsSync(join(out, 'manifest.json'))).toBe(false);
  if (existsSync(out)) expect(readdirSync(out).filter((n) => n.endsWith('.tar'))).toEqual([]);
  return r.stderr;
}

/**
 * Pack 200 PNGs (2 a shard) and, once the first shard is written, `change` the last
 * file (`d/f199.png`, written last). Returns the exit code, stderr, the output folder
 * and that file's size when listed.
 */
async function packWhile(
  change: (last: string) => void,
): Promise<{ code: number | null; stderr: string; out: string; size: number }> {
  const root = tempDir();
  const files: [string, Uint8Array][] = [];
  for (let i = 0; i < 200; i++) files.push([`d/f${String(i).padStart(3, '0')}.png`, png(i, 96)]);
  writeTree(root, files);
  const out = join(tempDir(), 'out');
  const child = startCli(['pack', root, '--out', out, '--samples-per-shard', '2', '--json']);
  let stdout = '';
  let stderr = '';
  let changed = false;
  child.stderr?.on('data', (d) => {
    stderr += d;
  });
  const code = await new Promise<number | null>((resolve) => {
    child.stdout?.on('data', (d) => {
      stdout += d;
      if (/"event":"note"/.test(stdout) && !changed) {
        changed = true;
        change(join(root, 'd/f199.png'));
      }
    });
    child.on('exit', resolve);
  });
  return { code, stderr, out, size: (files[199] as [string, Uint8Array])[1].length };
}

describe('medfusion pack refuses bad input, naming the file', () => {
  it('a truncated PNG', () => {
    const root = tempDir();
    const good = png(1);
    writeTree(root, [
      ['a/one.png', good],
      ['a/two.png', good.subarray(0, good.length - 20)],
    ]);
    const err = packFails(root);
    expect(err).toMatch(/a\/two\.png: truncated PNG/);
  });

  it('a PNG with one changed byte (its chunk fails its CRC)', () => {
    const root = tempDir();
    const bad = png(3, 32);
    bad[bad.length - 30] = (bad[bad.length - 30] as number) ^ 0x01;
    writeTree(root, [
      ['scans/ok.png', png(1)],
      ['scans/flipped.png', bad],
    ]);
    expect(packFails(root)).toMatch(
      /scans\/flipped\.png: corrupt PNG: chunk IDAT at byte \d+ fails its CRC/,
    );
  });

  it('an unreadable JPEG (cut inside its first segment)', () => {
    const root = tempDir();
    writeTree(root, [['x/bad.jpg', new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a])]]);
    expect(packFails(root)).toMatch(/x\/bad\.jpg: truncated JPEG/);
  });

  it('a CSV row naming a missing file', () => {
    const root = tempDir();
    labelledImages(root, 6);
    const csv = readFileSync(join(root, 'labels.csv'), 'utf8').replace(
      'cat/img0001.png',
      'cat/gone.png',
    );
    writeFileSync(join(root, 'labels.csv'), csv);
    const err = packFails(join(root, 'labels.csv'), ['--images', join(root, 'images')]);
    expect(err).toMatch(/labels\.csv row 2 \(cat\/gone\.png\): file not found/);
  });

  it('a label that is not a number where the other labels are numbers', () => {
    const root = tempDir();
    labelledImages(root, 6);
    const lines = readFileSync(join(root, 'labels.csv'), 'utf8').split('\n');
    lines[5] = lines[5]?.replace(/,0,/, ',zero,') as string;
    writeFileSync(join(root, 'labels.csv'), lines.join('\n'));
    const err = packFails(join(root, 'labels.csv'), ['--images', join(root, 'images')]);
    expect(err).toMatch(/labels\.csv: row 5 \(cat\/img0004\.png\): label "zero" is not a number/);
  });

  it('duplicate sample keys: two files that would be one sample', () => {
    const root = tempDir();
    writeTree(root, [
      ['a/scan.png', png(1)],
      ['a/scan.PNG', png(2)],
      ['b/x 1.png', png(3)],
      ['b/x_1.png', png(4)],
    ]);
    const err = packFails(root);
    expect(err).toMatch(/a\/scan\.png: sample key "a\/scan" is also the key of a\/scan\.PNG/);
  });

  it('the same image twice in a CSV', () => {
    const root = tempDir();
    labelledImages(root, 4);
    const csv = readFileSync(join(root, 'labels.csv'), 'utf8');
    writeFileSync(join(root, 'labels.csv'), `${csv}cat/img0001.png,0,50,A\n`);
    const err = packFails(join(root, 'labels.csv'), ['--images', join(root, 'images')]);
    expect(err).toMatch(
      /row 5 \(cat\/img0001\.png\): sample key "cat\/img0001" is also the key of .*row 2/,
    );
  });

  it('an output folder that already holds another data set (left as it was)', () => {
    const a = tempDir();
    const b = tempDir();
    writeTree(a, [['x/1.png', png(1)]]);
    writeTree(b, [['y/2.png', png(2)]]);
    const out = join(tempDir(), 'out');
    expect(runCli(['pack', a, '--out', out]).code).toBe(0);
    const before = readFileSync(join(out, 'manifest.json'), 'utf8');
    const r = runCli(['pack', b, '--out', out]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`${out}: already holds another data set`);
    expect(readFileSync(join(out, 'manifest.json'), 'utf8')).toBe(before);
    expect(runCli(['verify', out]).code).toBe(0);
    // Same input, other arguments: also another data set.
    expect(runCli(['pack', a, '--out', out, '--shuffle', '--seed', '5']).stderr).toMatch(
      /another data set/,
    );
  });

  it('an output folder holding files of its own', () => {
    const a = tempDir();
    writeTree(a, [['x/1.png', png(1)]]);
    const out = tempDir();
    writeFileSync(join(out, 'thesis.docx'), 'mine');
    const r = runCli(['pack', a, '--out', out]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/is not empty \(thesis\.docx\)/);
    expect(readdirSync(out)).toEqual(['thesis.docx']);
  });

  it('a file that vanishes mid-pack: exit 1 naming it, no manifest, no temporary file', async () => {
    const { code, stderr, out } = await packWhile((last) => rmSync(last));
    expect(code).toBe(1);
    expect(stderr).toMatch(/d\/f199\.png: cannot read the file: vanished while packing/);
    const names = readdirSync(out);
    expect(names).not.toContain('manifest.json');
    expect(names.filter((n) => n.endsWith('.partial'))).toEqual([]);
  });

  it('a file that changes size between listing and writing: exit 1 naming it and both sizes', async () => {
    const { code, stderr, out, size } = await packWhile((last) => appendFileSync(last, 'x'));
    expect(code).toBe(1);
    expect(stderr).toMatch(
      new RegExp(
        `d/f199\\.png: the file changed size while packing: it was ${size} bytes when listed`,
      ),
    );
    expect(readdirSync(out)).not.toContain('manifest.json');
  });
});

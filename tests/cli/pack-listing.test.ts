// Issue 45: the parts of a pack share one listing (`medfusion list`, or GNU find's),
// so the input is walked and `stat`ed once, not once a part. What `medfusion list`
// writes is checked against GNU find; a pack from a listing is checked against a
// pack that walked the folder (sha256sum and cmp of every file); bad listings and
// files that changed since the listing are refused naming the line or the file.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { png, runCli, tempDir, writeTree } from './cliHelpers.js';
import { PART_ARGS, sha256Tree } from './partsHelpers.js';

/** An ImageFolder of `n` PNGs over 3 classes, with a hidden file, a text file and an extensionless PNG. */
function folder(n: number): string {
  const root = tempDir();
  const files: [string, Uint8Array | string][] = [];
  for (let i = 0; i < n; i++)
    files.push([
      `${['cat', 'dog', 'owl'][i % 3]}/img${String(i).padStart(4, '0')}.png`,
      png(i, 24),
    ]);
  files.push(['dog/notes.txt', 'not an image\n']);
  files.push(['cat/.hidden.png', png(999, 24)]);
  files.push(['owl/scan-no-extension', png(1000, 24)]);
  writeTree(root, files);
  return root;
}

/** GNU find's listing of `root` (size, TAB, relative path; no hidden files), sorted by path in byte order. */
function findListing(root: string): string {
  const found = spawnSync(
    'find',
    ['.', '-type', 'f', '!', '-path', '*/.*', '-printf', '%s\\t%P\\n'],
    {
      cwd: root,
      encoding: 'utf8',
    },
  );
  expect(found.status, found.stderr).toBe(0);
  const sorted = spawnSync('sort', ['-t', '\t', '-k', '2'], {
    input: found.stdout,
    encoding: 'utf8',
    env: { ...process.env, LC_ALL: 'C' },
  });
  expect(sorted.status, sorted.stderr).toBe(0);
  return sorted.stdout;
}

/** Pack `root` into a fresh folder (more arguments after); expects exit `code`, returns the run and folder. */
function pack(root: string, extra: string[], code = 0) {
  const out = join(tempDir(), 'out');
  const run = runCli(['pack', root, '--out', out, '--folder-labels', ...extra]);
  expect(run.code, run.stderr).toBe(code);
  return { out, run };
}

describe('medfusion list and pack --listing', () => {
  it('lists the images and their sizes as GNU find does, leaving out what pack leaves out', () => {
    const root = folder(40);
    const listing = join(tempDir(), 'listing.tsv');
    const run = runCli(['list', root, '--out', listing]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(
      /listed 41 files, .* \(1 files that are not PNG, JPEG or DICOM left out\)/,
    );
    const expected = findListing(root)
      .split('\n')
      .filter((l) => l !== '' && !l.endsWith('\tdog/notes.txt'))
      .join('\n');
    expect(readFileSync(listing, 'utf8')).toBe(`${expected}\n`);
    expect(existsSync(`${listing}.partial`)).toBe(false);
    // --out naming a folder is refused, naming it (exit 1), and nothing is written there.
    const folderOut = tempDir();
    const refused = runCli(['list', root, '--out', folderOut]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`${folderOut}: is a folder: --out names the listing file`);
  });

  it('parts packed from one listing merge into the bytes of a pack that walked the folder', () => {
    const root = folder(90);
    const args = [...PART_ARGS, '--folder-labels'];
    const one = join(tempDir(), 'one');
    const whole = runCli(['pack', root, '--out', one, ...args]);
    expect(whole.code, whole.stderr).toBe(0);
    // A listing from GNU find (not our writer); the text file in it is left out by the pack.
    const listing = join(tempDir(), 'find.tsv');
    writeFileSync(listing, findListing(root));
    const parts = [1, 2, 3].map((i) => {
      const dir = join(tempDir('medfusion-part-'), `part-${i}`);
      const run = runCli([
        'pack',
        root,
        '--out',
        dir,
        ...args,
        '--part',
        `${i}/3`,
        '--listing',
        listing,
      ]);
      expect(run.code, run.stderr).toBe(0);
      return dir;
    });
    const merged = join(tempDir(), 'merged');
    const run = runCli(['merge', ...parts, '--out', merged]);
    expect(run.code, run.stderr).toBe(0);
    const a = sha256Tree(one);
    const b = sha256Tree(merged);
    expect(Object.fromEntries(b)).toEqual(Object.fromEntries(a));
    expect([...a.keys()].filter((n) => n.endsWith('.tar')).length).toBeGreaterThan(3);
    for (const name of a.keys())
      expect(spawnSync('cmp', [join(one, name), join(merged, name)]).status, name).toBe(0);
  });

  it('refuses a file whose size is not the listed one, naming it', () => {
    const root = folder(12);
    const listing = join(tempDir(), 'listing.tsv');
    expect(runCli(['list', root, '--out', listing]).code).toBe(0);
    // A file whose name tells its kind (not read while listing): found when its shard is written.
    writeFileSync(join(root, 'dog/img0004.png'), png(4, 40));
    const grown = pack(root, ['--listing', listing], 1);
    expect(grown.run.stderr).toMatch(/dog\/img0004\.png: the file changed size/);
    expect(existsSync(join(grown.out, 'manifest.json'))).toBe(false);
    // A file read while listing (its name does not tell its kind): found before planning.
    writeFileSync(join(root, 'dog/img0004.png'), png(4, 24));
    writeFileSync(join(root, 'owl/scan-no-extension'), png(1000, 40));
    const read = pack(root, ['--listing', listing], 1);
    expect(read.run.stderr).toMatch(
      /owl\/scan-no-extension: the file changed size since it was listed/,
    );
    // A listed file that is gone.
    writeFileSync(join(root, 'owl/scan-no-extension'), png(1000, 24));
    rmSync(join(root, 'cat/img0003.png'));
    const gone = pack(root, ['--listing', listing], 1);
    expect(gone.run.stderr).toMatch(/cat\/img0003\.png/);
  });

  it('refuses a listing that does not parse, is not sorted or leaves the folder, naming the line', () => {
    const root = folder(6);
    const cases: [string, RegExp][] = [
      [
        '340\tcat/a.png\n340\tcat/b.png\n340\tcat/a.png\n',
        /line 3: cat\/a\.png is not after cat\/b\.png/,
      ],
      ['340\tcat/a.png\n340 cat/b.png\n', /line 2: expected "<size in bytes><TAB>/],
      ['340\t../outside.png\n', /line 1: "\.\.\/outside\.png" is not a path relative/],
      ['340\t/etc/x.png\n', /line 1: "\/etc\/x\.png" is not a path relative/],
      ['5000000000\tcat/big.png\n', /line 1: cat\/big\.png is 5000000000 bytes; files of 4 GiB/],
    ];
    for (const [text, message] of cases) {
      const listing = join(tempDir(), 'listing.tsv');
      writeFileSync(listing, text);
      const { run } = pack(root, ['--listing', listing], 1);
      expect(run.stderr).toMatch(message);
      expect(run.stderr).toContain(listing);
    }
    const latin1 = join(tempDir(), 'latin1.tsv');
    writeFileSync(latin1, Buffer.from('340\tcat/caf\xe9.png\n', 'latin1'));
    expect(pack(root, ['--listing', latin1], 1).run.stderr).toMatch(
      /latin1\.tsv: is not UTF-8 text/,
    );
    const missing = pack(root, ['--listing', join(tempDir(), 'none.tsv')], 1);
    expect(missing.run.stderr).toMatch(/none\.tsv: cannot read the listing \(ENOENT\)/);
  });

  it('takes a listing with a folder input only (exit 2 naming the option)', () => {
    const root = tempDir();
    writeTree(root, [['a.png', png(1)]]);
    const csv = join(root, 'labels.csv');
    writeFileSync(csv, 'image,label\na.png,1\n');
    const listing = join(tempDir(), 'listing.tsv');
    writeFileSync(listing, '');
    const r = runCli(['pack', csv, '--out', join(tempDir(), 'o'), '--listing', listing]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--listing lists a folder input/);
  });
});

// packFiles refuses bad input with a PackFilesError naming the file or CSV row,
// and leaves no data set (no manifest.json) behind.
import { PackFilesError, packFiles } from '@medfusion/web';
import { afterAll, describe, expect, it } from 'vitest';
import { opfsDir, opfsNames, png, pngFiles, removeOpfsDir } from './packFixtures.js';

const DIR = 'pack-bad-input';

async function refused(
  options: Omit<Parameters<typeof packFiles>[0], 'dir'>,
  code: string,
  ...says: RegExp[]
): Promise<PackFilesError> {
  await removeOpfsDir(DIR);
  const error = await packFiles({ ...options, dir: DIR }).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(PackFilesError);
  const e = error as PackFilesError;
  expect(e.code).toBe(code);
  for (const re of says) expect(e.message).toMatch(re);
  const dir = await opfsDir(DIR);
  if (dir) expect(await opfsNames(dir)).not.toContain('manifest.json');
  return e;
}

describe('packFiles: bad input is refused by name', () => {
  afterAll(() => removeOpfsDir(DIR));

  it('a truncated PNG names the file', async () => {
    const files = pngFiles(3);
    const whole = new Uint8Array(await (files[1] as File).arrayBuffer());
    files[1] = new File([whole.slice(0, whole.length - 20)], 'img1.png');
    const e = await refused({ files }, 'PACK_INPUT', /img1\.png/, /truncated PNG/);
    expect(e.file).toBe('img1.png');
  });

  it('a PNG with a changed byte fails its chunk CRC', async () => {
    const bytes = png(16, 16, 3);
    bytes[40] = (bytes[40] as number) ^ 0xff;
    await refused(
      { files: [new File([bytes as Uint8Array<ArrayBuffer>], 'broken.png')] },
      'PACK_INPUT',
      /broken\.png/,
      /CRC/,
    );
  });

  it('a picked file deleted before packing reads it names the file', async () => {
    const root = await navigator.storage.getDirectory();
    const handle = await root.getFileHandle('pack-bad-input-gone.png', { create: true });
    const w = await handle.createWritable();
    await w.write(png(8, 8, 1) as Uint8Array<ArrayBuffer>);
    await w.close();
    const picked = await handle.getFile(); // a snapshot, as a file input gives
    await root.removeEntry('pack-bad-input-gone.png');
    const e = await refused(
      { files: [...pngFiles(2), picked] },
      'PACK_INPUT',
      /pack-bad-input-gone\.png/,
      /cannot read the file/,
    );
    expect(e.file).toBe('pack-bad-input-gone.png');
  });

  it('a CSV row naming a missing file names the row and the file', async () => {
    const files = pngFiles(2);
    const csv = 'image,label\nimg0.png,1\nimg7.png,0\nimg1.png,1\n';
    await refused(
      { files, labels: new File([csv], 'labels.csv') },
      'PACK_INPUT',
      /labels\.csv/,
      /row 2/,
      /img7\.png/,
    );
  });

  it('a label that is not a number among numbers names the row', async () => {
    const files = pngFiles(4);
    const csv = 'image,label\nimg0.png,1\nimg1.png,0.5\nimg2.png,high\nimg3.png,2\n';
    await refused({ files, labels: csv }, 'PACK_INPUT', /row 3/, /"high" is not a number/);
  });

  it('two files with one sample key name both', async () => {
    const [a] = pngFiles(1);
    const twin = new File([await (a as File).arrayBuffer()], 'img0.jpg');
    const e = await refused({ files: [a as File, twin] }, 'PACK_INPUT', /sample key "img0"/);
    expect(e.message).toMatch(/img0\.png/);
    expect(e.message).toMatch(/img0\.jpg/);
  });

  it('a CSV row that is not an image names it', async () => {
    const files = [...pngFiles(1), new File(['hello'], 'notes.txt')];
    await refused(
      { files, labels: 'image,label\nimg0.png,a\nnotes.txt,b\n' },
      'PACK_INPUT',
      /row 2 \(notes\.txt\)/,
      /not a PNG or JPEG/,
    );
  });

  it('a non-empty dir without replace is PACK_OUTPUT naming it', async () => {
    await removeOpfsDir(DIR);
    await packFiles({ files: pngFiles(2), dir: DIR });
    const error = await packFiles({ files: pngFiles(2), dir: DIR }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PackFilesError);
    expect((error as PackFilesError).code).toBe('PACK_OUTPUT');
    expect((error as PackFilesError).message).toMatch(/pack-bad-input: is not empty/);
    const again = await packFiles({ files: pngFiles(3), dir: DIR, replace: true });
    expect(again.samples).toBe(3);
  });

  it('bad options are TypeErrors / RangeErrors naming the option', async () => {
    await expect(packFiles({ dir: DIR } as never)).rejects.toThrow(TypeError);
    await expect(packFiles({ files: pngFiles(1), dir: '' })).rejects.toThrow(/dir/);
    await expect(packFiles({ files: pngFiles(1), dir: DIR, targetShardBytes: 0 })).rejects.toThrow(
      RangeError,
    );
    await expect(
      packFiles({ files: pngFiles(1), dir: DIR, shardSize: 1 } as never),
    ).rejects.toThrow(/unknown option "shardSize"/);
  });
});

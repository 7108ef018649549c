import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, open, readdir, readFile, rename } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { ShardManifest, ShardManifestEntry } from '@medfusion/core';
import { PackError } from './PackError.js';
import { manifestText } from './pack/buildManifests.js';
import { existingFingerprint } from './pack/existingFingerprint.js';
import { dataSetFingerprint } from './pack/fingerprint.js';
import { PART_FILE, type PartRecord, partName } from './pack/parts.js';
import { STATE_FILE } from './pack/writeOutput.js';
import {
  removeTemporaries,
  TEMP_SUFFIX,
  type WrittenShard,
  writeAtomic,
} from './pack/writeShard.js';
import type { Progress } from './progress.js';

/** What a merge did. */
export interface MergeResult {
  /** Parts joined. */
  parts: number;
  /** Samples in the data set. */
  samples: number;
  /** Shards in the data set. */
  shards: number;
  /** Bytes of all shards. */
  bytes: number;
  /** The data set's fingerprint (the same as a one-machine pack's). */
  fingerprint: string;
  /** True when the output was already this data set, complete (nothing written). */
  upToDate: boolean;
}

/** A part as read from its folder. */
interface Part {
  dir: string;
  record: PartRecord;
}

/** Read and check the record of the part in `dir`; a `PACK_INPUT` PackError naming the folder otherwise. */
async function readPart(dir: string): Promise<Part> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    throw new PackError('PACK_INPUT', dir, 'no such folder');
  }
  if (!names.includes(PART_FILE)) {
    const why = names.includes(STATE_FILE)
      ? 'is an unfinished part (no medfusion-part.json yet): run its `medfusion pack --part` command again'
      : 'holds no medfusion-part.json: it is not the output of `medfusion pack --part i/n`';
    throw new PackError('PACK_INPUT', dir, why);
  }
  let record: PartRecord;
  try {
    record = JSON.parse(await readFile(join(dir, PART_FILE), 'utf8'));
  } catch (error) {
    throw new PackError('PACK_INPUT', join(dir, PART_FILE), 'is not valid JSON', { cause: error });
  }
  const ok =
    record?.format === 'medfusion-pack-part' &&
    record.version === 2 &&
    Number.isSafeInteger(record.parts) &&
    Number.isSafeInteger(record.part) &&
    record.part >= 1 &&
    record.part <= record.parts &&
    typeof record.layout === 'string' &&
    Array.isArray(record.shards) &&
    Array.isArray(record.manifests) &&
    record.manifests.at(-1)?.file === 'manifest.json';
  if (!ok) {
    const why =
      (record as { version?: unknown } | undefined)?.version === 1
        ? 'is a part record of version 1 (an older medfusion): pack that part again with this version'
        : 'is not a part record of version 2';
    throw new PackError('PACK_INPUT', join(dir, PART_FILE), why);
  }
  return { dir, record };
}

/** The manifests with every shard's sha256 blanked: what all parts of one pack agree on. */
function shape(record: PartRecord): string {
  return JSON.stringify(record.manifests, (key, value) => (key === 'sha256' ? '' : value));
}

/**
 * Check the parts are parts 1..n of one pack, each once, from the same input
 * and arguments. Returns them by part number. A `PACK_INPUT` PackError naming
 * the part (its folder) otherwise.
 */
function checkParts(parts: readonly Part[]): Part[] {
  const first = parts[0] as Part;
  const n = first.record.parts;
  const byIndex = new Map<number, Part>();
  for (const p of parts) {
    const name = partName({ index: p.record.part, count: p.record.parts });
    if (p.record.parts !== n) {
      throw new PackError(
        'PACK_INPUT',
        p.dir,
        `is ${name}, but ${first.dir} is ${partName({ index: first.record.part, count: n })}: the parts of one pack are cut into one number of parts`,
      );
    }
    const twin = byIndex.get(p.record.part);
    if (twin)
      throw new PackError('PACK_INPUT', p.dir, `is ${name}, given twice (also ${twin.dir})`);
    if (p.record.layout !== first.record.layout || shape(p.record) !== shape(first.record)) {
      throw new PackError(
        'PACK_INPUT',
        p.dir,
        `${name} was packed from other input or other arguments than ${partName({ index: first.record.part, count: n })} (${first.dir}): its layout differs; pack every part with the same input and the same arguments`,
      );
    }
    byIndex.set(p.record.part, p);
  }
  const missing: number[] = [];
  for (let i = 1; i <= n; i++) if (!byIndex.has(i)) missing.push(i);
  if (missing.length > 0) {
    throw new PackError(
      'PACK_INPUT',
      partName({ index: missing[0] as number, count: n }),
      `is missing${missing.length > 1 ? ` (and ${missing.length - 1} more: parts ${missing.join(', ')} of ${n})` : ''}: give the output folders of all ${n} parts (got ${[...byIndex.keys()].sort((a, b) => a - b).join(', ')})`,
    );
  }
  return [...byIndex.keys()].sort((a, b) => a - b).map((i) => byIndex.get(i) as Part);
}

/** Copy `from` to `to` through a temporary name, hashing on the way, synced. */
async function copyHashed(from: string, to: string, signal: AbortSignal): Promise<WrittenShard> {
  const temp = `${to}${TEMP_SUFFIX}`;
  const hash = createHash('sha256');
  const handle = await open(temp, 'w');
  let bytes = 0;
  try {
    for await (const chunk of createReadStream(from, { highWaterMark: 1 << 20, signal })) {
      hash.update(chunk as Buffer);
      await handle.write(chunk as Buffer);
      bytes += (chunk as Buffer).length;
    }
    await handle.sync();
  } finally {
    await handle.close();
  }
  await rename(temp, to);
  return { bytes, sha256: hash.digest('hex') };
}

/**
 * Check the output folder: absent or empty, an interrupted merge of this data set
 * (only its files), or this data set complete. A `PACK_OUTPUT` PackError otherwise.
 */
async function prepareMerge(
  out: string,
  manifest: ShardManifest,
  files: readonly string[],
): Promise<'fresh' | 'done'> {
  await mkdir(out, { recursive: true });
  const names = await readdir(out);
  if (names.includes('manifest.json')) {
    if ((await existingFingerprint(out)) === manifest.fingerprint) return 'done';
  }
  const ours = new Set(files.flatMap((f) => [f, `${f}${TEMP_SUFFIX}`]));
  const other = names.filter((n) => !ours.has(n));
  if (other.length > 0) {
    throw new PackError(
      'PACK_OUTPUT',
      out,
      `is not empty (${other.slice(0, 3).join(', ')}${other.length > 3 ? ', ...' : ''}) and holds no unfinished merge of these parts; choose an empty --out folder`,
    );
  }
  return 'fresh';
}

/**
 * `medfusion merge <part dirs...> --out <dir>`: join the parts of one
 * `medfusion pack --part i/n` run into the data set one machine would have
 * written: each shard and sidecar copied from its part (its sha256 checked
 * against the part's record), then the split manifests and `manifest.json` last,
 * with the fingerprint made from the layout and every shard's sha256:
 * byte-identical to a one-machine pack of the same input and arguments.
 */
export async function merge(
  dirs: readonly string[],
  outDir: string,
  progress: Progress,
  signal: AbortSignal,
): Promise<MergeResult> {
  if (dirs.length === 0) throw new TypeError('merge takes the output folders of the parts');
  const out = resolve(outDir);
  const parts = checkParts(await Promise.all(dirs.map((d) => readPart(resolve(d)))));
  const reference = (parts[0] as Part).record;
  const files = reference.manifests;
  const manifest = (files.at(-1) as (typeof files)[number]).manifest;
  const owner = new Map<string, { part: Part; entry: ShardManifestEntry }>();
  for (const p of parts) {
    const entries = (p.record.manifests.at(-1) as (typeof files)[number]).manifest.shards;
    for (const name of p.record.shards) {
      const entry = entries.find((e) => e.url === name);
      if (!entry?.sha256 || owner.has(name)) {
        throw new PackError('PACK_INPUT', p.dir, `its record lists shard ${name} wrongly`);
      }
      owner.set(name, { part: p, entry });
    }
  }
  for (const e of manifest.shards) {
    if (!owner.has(e.url))
      throw new PackError('PACK_INPUT', e.url, 'no part holds this shard of the data set');
  }
  const sha = new Map([...owner].map(([name, o]) => [name, o.entry.sha256 as string]));
  const fingerprint = dataSetFingerprint(
    reference.layout,
    manifest.shards.map((e) => ({
      name: e.url,
      bytes: e.bytes as number,
      sha256: sha.get(e.url) as string,
    })),
  );
  for (const f of files) {
    f.manifest.fingerprint = fingerprint;
    for (const e of f.manifest.shards) e.sha256 = sha.get(e.url) as string;
  }
  const result: MergeResult = {
    parts: parts.length,
    samples: manifest.count ?? 0,
    shards: manifest.shards.length,
    bytes: manifest.shards.reduce((a, e) => a + (e.bytes ?? 0), 0),
    fingerprint,
    upToDate: false,
  };
  const outputs = [
    ...manifest.shards.flatMap((e) => [e.url, `${e.url}.idx.json`]),
    ...files.map((f) => f.file),
  ];
  if ((await prepareMerge(out, manifest, outputs)) === 'done') return { ...result, upToDate: true };
  progress.phase('merge', manifest.shards.length, result.bytes);
  try {
    for (const e of manifest.shards) {
      signal.throwIfAborted();
      const { part, entry } = owner.get(e.url) as { part: Part; entry: ShardManifestEntry };
      const from = join(part.dir, e.url);
      let got: WrittenShard;
      try {
        await copyHashed(`${from}.idx.json`, join(out, `${e.url}.idx.json`), signal);
        got = await copyHashed(from, join(out, e.url), signal);
      } catch (error) {
        if ((error as { code?: string }).code !== 'ENOENT') throw error;
        throw new PackError(
          'PACK_INPUT',
          from,
          `is missing from ${partName({ index: part.record.part, count: part.record.parts })}`,
          { cause: error },
        );
      }
      if (got.bytes !== entry.bytes || got.sha256 !== entry.sha256) {
        throw new PackError(
          'PACK_INPUT',
          from,
          `differs from what ${partName({ index: part.record.part, count: part.record.parts })} recorded (size or sha256): copy that part's folder again, or pack that part again`,
        );
      }
      progress.tick(1, got.bytes);
    }
    // The split manifests, then manifest.json last: its presence means the data set is complete.
    for (const f of files) await writeAtomic(join(out, f.file), manifestText(f.manifest));
  } catch (error) {
    await removeTemporaries(out, outputs).catch(() => {});
    throw error;
  }
  return result;
}

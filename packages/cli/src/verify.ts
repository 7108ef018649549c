import { createHash } from 'node:crypto';
import { availableParallelism } from 'node:os';
import { checkTarMembers, decodeTarIndex, groupSamples } from '@medfusion/core';
import { checkImage } from './input/checkImage.js';
import type { ImageKind } from './input/imageKind.js';
import { loadSharp } from './pack/decodePixels.js';
import { readNpyHeader } from './pack/npy.js';
import type { Progress } from './progress.js';
import { openDataset } from './read/openDataset.js';
import { readShard } from './read/readShard.js';

/** One failed check: the shard, the sample (when one is at fault) and why. */
export interface VerifyFailure {
  /** Shard name as the manifest gives it. */
  shard: string;
  /** Sample key, when a sample is at fault. */
  sample?: string;
  /** What is wrong. */
  message: string;
}

/** What `medfusion verify` found. */
export interface VerifyResult {
  /** Where the data set is. */
  where: string;
  /** Shards checked. */
  shards: number;
  /** Samples checked. */
  samples: number;
  /** Every failure found (empty: the data set is sound). */
  failures: VerifyFailure[];
}

const IMAGE_EXT: Record<string, ImageKind> = {
  png: 'png',
  jpg: 'jpg',
  jpeg: 'jpg',
  dcm: 'dcm',
  dicom: 'dcm',
};

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Check the members of one sample: images by structure, PNG and JPEG also decoded
 * to pixels (sharp), DICOM headers parsed; `.npy` headers against their size;
 * `.cls` not empty; `.json` parses. Returns what is wrong, or undefined.
 */
async function checkSampleFiles(
  files: { ext: string; data: Uint8Array }[],
): Promise<string | undefined> {
  for (const { ext, data } of files) {
    const kind = IMAGE_EXT[ext.slice(ext.lastIndexOf('.') + 1).toLowerCase()];
    try {
      if (kind) {
        const check = checkImage(data, []);
        if (!check) return `${ext} member is not a PNG, JPEG or DICOM file`;
        if (check.kind !== kind) return `${ext} member holds a ${check.kind} file`;
        if (kind !== 'dcm') await (await loadSharp())(data, { failOn: 'error' }).raw().toBuffer();
      } else if (ext === 'cls') {
        if (new TextDecoder().decode(data).trim() === '') return 'cls member is empty';
      } else if (ext === 'npy') {
        readNpyHeader(data);
      } else if (ext === 'json') {
        JSON.parse(new TextDecoder().decode(data));
      }
    } catch (error) {
      return `${ext} member: ${message(error)}`;
    }
  }
  return undefined;
}

/**
 * `medfusion verify`: read every shard again; check its size and sha256 against
 * the manifest, parse it with the tar library, check its sidecar index (format,
 * layout, and that every entry's bytes are that member's data), the sample
 * count, and every sample's members. All failures are collected.
 */
export async function verify(target: string, progress: Progress): Promise<VerifyResult> {
  const ds = await openDataset(target);
  const shards = ds.manifest.shards;
  const failures: VerifyFailure[] = [];
  let samples = 0;
  progress.phase('verify', shards.length);
  const ours = ds.manifest.format === 'medfusion-shards';
  for (const e of shards) {
    const fail = (msg: string, sample?: string) =>
      failures.push({ shard: e.url, message: msg, ...(sample ? { sample } : {}) });
    const bytes = await ds.read(e.url);
    if (!bytes) {
      fail('shard file is missing');
      progress.tick(1, 0);
      continue;
    }
    if (e.bytes !== undefined && bytes.length !== e.bytes)
      fail(`shard is ${bytes.length} bytes, the manifest says ${e.bytes}`);
    if (e.sha256 !== undefined) {
      const actual = createHash('sha256').update(bytes).digest('hex');
      if (actual !== e.sha256.toLowerCase())
        fail(`sha256 is ${actual}, the manifest says ${e.sha256}`);
    }
    let parsed: Awaited<ReturnType<typeof readShard>>;
    try {
      parsed = await readShard(bytes, e.url);
    } catch (error) {
      fail(`not a valid tar shard: ${message(error)}`);
      progress.tick(1, bytes.length);
      continue;
    }
    const indexName = e.index ?? `${e.url}.idx.json`;
    const indexBytes = await ds.read(indexName);
    if (indexBytes) {
      try {
        const { members, file } = decodeTarIndex(indexBytes, indexName);
        checkTarMembers(members, indexName, bytes.length);
        if (file.size !== undefined && file.size !== bytes.length)
          throw new Error(
            `${indexName} says the shard is ${file.size} bytes, it is ${bytes.length}`,
          );
        if (file.sha256 !== undefined && e.sha256 !== undefined && file.sha256 !== e.sha256)
          throw new Error(`${indexName} records sha256 ${file.sha256}, the manifest ${e.sha256}`);
        groupSamples(members, indexName);
        if (members.length !== parsed.files.length)
          throw new Error(
            `${indexName} lists ${members.length} members, the shard holds ${parsed.files.length}`,
          );
        members.forEach((m, i) => {
          const f = parsed.files[i] as { name: string; data: Uint8Array };
          const at = bytes.subarray(m.offset, m.offset + m.size);
          if (m.name !== f.name || m.size !== f.data.length || Buffer.compare(at, f.data) !== 0) {
            throw new Error(
              `${indexName} entry ${i} (${m.name} at ${m.offset}, ${m.size} bytes) is not the shard's member ${i} (${f.name}, ${f.data.length} bytes)`,
            );
          }
        });
      } catch (error) {
        fail(`bad sidecar index: ${message(error)}`);
      }
    } else if (ours) {
      fail(`sidecar index ${indexName} is missing`);
    }
    if (e.samples !== undefined && parsed.samples.length !== e.samples)
      fail(`holds ${parsed.samples.length} samples, the manifest says ${e.samples}`);
    const width = Math.max(4, availableParallelism() * 2);
    for (let from = 0; from < parsed.samples.length; from += width) {
      const batch = parsed.samples.slice(from, from + width);
      const found = await Promise.all(batch.map((s) => checkSampleFiles(s.files)));
      found.forEach((why, i) => {
        if (why) fail(why, (batch[i] as { key: string }).key);
      });
    }
    samples += parsed.samples.length;
    progress.tick(1, bytes.length);
  }
  if (ds.manifest.count !== undefined && ds.manifest.count !== samples && failures.length === 0) {
    failures.push({
      shard: '(manifest)',
      message: `the manifest counts ${ds.manifest.count} samples, the shards hold ${samples}`,
    });
  }
  return { where: ds.where, shards: shards.length, samples, failures };
}

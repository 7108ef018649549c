import { mkdir, readdir, readFile, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { ShardManifestColumn } from '@medfusion/core';
import { collectFolder } from '../input/collectFolder.js';
import type { SampleInput } from '../input/SampleInput.js';
import { PackError } from '../PackError.js';
import type { Progress } from '../progress.js';
import { countLabels, type ManifestFacts } from './buildManifests.js';
import type { DecodeOptions } from './decodePixels.js';
import { existingFingerprint } from './existingFingerprint.js';
import { type PackPart, packPart } from './parts.js';
import { type PackLayoutOptions, type PackPlan, planShards } from './planShards.js';
import { type ScanBatch, ScanPool, type ScanResult } from './scanPool.js';
import { STATE_FILE, writeOutput } from './writeOutput.js';
import { removeTemporaries, writeAtomic } from './writeShard.js';

/** Options of `medfusion pack`. */
export interface PackOptions extends PackLayoutOptions {
  /** Output folder. */
  out: string;
  /** CSV input: folder the image column is relative to. @default the CSV's folder */
  images?: string;
  /** CSV input: image column. @default 'image' */
  imageColumn: string;
  /** CSV input: label column. @default 'label' */
  labelColumn: string;
  /** Folder input: label = first folder under the input. @default false */
  folderLabels: boolean;
  /** `--part i/n`: write only this part's shards (joined by `medfusion merge`). @default the whole pack */
  part?: PackPart;
}

/** What a pack run did. */
export interface PackResult {
  /** Samples packed. */
  samples: number;
  /** Shards in the data set. */
  shards: number;
  /** Shards reused from an earlier, interrupted run. */
  resumed: number;
  /** Bytes of all shards. */
  bytes: number;
  /** Files under a folder input that are not PNG, JPEG or DICOM (not packed). */
  skipped: number;
  /** The data set's fingerprint. */
  fingerprint: string;
  /** True when the output was already complete (nothing written). */
  upToDate: boolean;
}

/** Files per scan message to a worker: large enough that a round trip costs little per file. */
const SCAN_BATCH = 256;

/** Stands in for a batch of scan results already folded into the samples. */
const DONE: Promise<ScanBatch> = Promise.resolve({ results: [] });

/**
 * Memory for scanned files' bytes kept for the write, so that those files are
 * read and hashed once, not twice (the write copies them into the tar; past
 * the budget, files are read again and checked against the scan). The first
 * files scanned are kept, and each is let go once its shard is written. The
 * samples' records take from the same budget ({@link RECORD_BYTES} each), so a
 * pack of many samples keeps fewer bytes or none and its peak memory stays
 * where it was without keeping (280 MB for 200,000 samples).
 */
const KEEP_BUDGET = 112 << 20;

/** What the main thread holds per sample (its records, plan and layout), about: 280 MB at 200,000 samples. */
const RECORD_BYTES = 1 << 10;

/** Environment variable that sets {@link KEEP_BUDGET} in MB (0: read every file again when writing it). */
const KEEP_ENV = 'MEDFUSION_PACK_KEEP_MB';

/** Bytes of scanned files to keep when packing `candidates` files (see {@link KEEP_BUDGET}). */
function keepBytes(candidates: number, decode: boolean): number {
  // --decode reads the files again to decode them (in the workers): nothing is kept.
  if (decode) return 0;
  const env = process.env[KEEP_ENV];
  let budget = KEEP_BUDGET;
  if (env !== undefined && env !== '') {
    const mb = Number(env);
    if (!Number.isFinite(mb) || mb < 0)
      throw new RangeError(`${KEEP_ENV} must be a number of MB >= 0, got ${JSON.stringify(env)}`);
    budget = mb * 2 ** 20;
  }
  return Math.max(0, budget - candidates * RECORD_BYTES);
}

/** Scan every candidate (in parallel workers); the first failure in input order is thrown. */
async function scanAll(
  pool: ScanPool,
  candidates: SampleInput[],
  csv: boolean,
  keepTags: string[],
  keep: number,
  progress: Progress,
  signal: AbortSignal,
): Promise<{ samples: SampleInput[]; skipped: number }> {
  progress.phase('scan', candidates.length);
  const kept = new Array<boolean>(candidates.length).fill(false);
  let firstFailure: PackError | undefined;
  const fold = (c: SampleInput, index: number, r: ScanResult, bytes?: ArrayBuffer): void => {
    if (r.error !== undefined) {
      firstFailure ??= new PackError('PACK_INPUT', c.source, r.error);
      return;
    }
    if (!r.check) {
      if (csv)
        firstFailure ??= new PackError('PACK_INPUT', c.source, 'not a PNG, JPEG or DICOM file');
      return;
    }
    c.kind = r.check.kind;
    c.size = r.size as number;
    c.sha256 = r.sha256 as string;
    if (bytes && r.at !== undefined) c.bytes = new Uint8Array(bytes, r.at, c.size);
    if (r.check.width !== undefined) c.width = r.check.width;
    if (r.check.height !== undefined) c.height = r.check.height;
    const dicom = r.check.dicom;
    if (dicom) {
      const group = dicom.patient || dicom.study;
      if (group) c.group = group;
      if (Object.keys(dicom.kept).length > 0) c.fields = { ...c.fields, ...dicom.kept };
    }
    kept[index] = true;
  };
  // Every batch queued at once (the pool feeds the workers); replies are folded in
  // input order, so the failure reported is the first bad file in input order.
  const batches: Promise<ScanBatch>[] = [];
  for (let i = 0; i < candidates.length; i += SCAN_BATCH) {
    const paths = candidates.slice(i, i + SCAN_BATCH).map((c) => c.path);
    const batch = pool.scan(paths, keepTags, keep);
    batch.catch(() => {}); // awaited below, in order
    batches.push(batch);
  }
  try {
    for (let b = 0; b < batches.length; b++) {
      const { results, bytes } = await (batches[b] as Promise<ScanBatch>);
      batches[b] = DONE; // let the results go: a settled promise holds them
      results.forEach((r, k) => {
        const index = b * SCAN_BATCH + k;
        fold(candidates[index] as SampleInput, index, r, bytes);
      });
      progress.tick(
        results.length,
        results.reduce((a, r) => a + (r.size ?? 0), 0),
      );
      if (firstFailure) throw firstFailure;
    }
  } catch (error) {
    signal.throwIfAborted(); // Ctrl-C closed the pool: report the stop, not the pool
    throw error;
  }
  signal.throwIfAborted();
  const samples = candidates.filter((_, i) => kept[i]);
  return { samples, skipped: candidates.length - samples.length };
}

/**
 * `--decode` needs, without `--size`, images all of one size (a batch needs one
 * shape). A `PACK_INPUT` PackError names the first file that breaks the rule.
 */
function checkDecodable(samples: readonly SampleInput[], decode: DecodeOptions): void {
  const first = samples[0] as SampleInput;
  for (const s of samples) {
    if (decode.width === undefined && (s.width !== first.width || s.height !== first.height)) {
      throw new PackError(
        'PACK_INPUT',
        s.source,
        `is ${s.width}x${s.height}, ${first.source} is ${first.width}x${first.height}: images of mixed sizes need --size WxH with --decode`,
      );
    }
  }
}

/**
 * Check the output folder can take this data set: absent or empty, or holding an
 * unfinished pack of the same plan (resumed), or this very data set already
 * complete. Anything else is a `PACK_OUTPUT` PackError naming the folder.
 */
async function prepareOutput(out: string, plan: PackPlan): Promise<'fresh' | 'resume' | 'done'> {
  await mkdir(out, { recursive: true });
  const names = await readdir(out);
  if (names.length === 0) return 'fresh';
  if (names.includes('manifest.json')) {
    if ((await existingFingerprint(out)) === plan.fingerprint) return 'done';
    throw new PackError(
      'PACK_OUTPUT',
      out,
      'already holds another data set (its manifest.json has another fingerprint); choose an empty --out folder or delete this one',
    );
  }
  if (names.includes(STATE_FILE)) {
    const state = JSON.parse(await readFile(join(out, STATE_FILE), 'utf8'));
    if (state.fingerprint === plan.fingerprint) return 'resume';
    throw new PackError(
      'PACK_OUTPUT',
      out,
      'holds an unfinished pack of other input or other arguments; rerun that command, or delete the folder',
    );
  }
  throw new PackError(
    'PACK_OUTPUT',
    out,
    `is not empty (${names.slice(0, 3).join(', ')}${names.length > 3 ? ', ...' : ''}) and holds no data set of ours; choose an empty --out folder`,
  );
}

/**
 * `medfusion pack`: read the input (a folder, or a CSV), scan and check every
 * file, plan the shards, then write them (resuming an interrupted run of the same
 * plan), the per-split manifests, and `manifest.json` last.
 */
export async function pack(
  input: string,
  options: PackOptions,
  progress: Progress,
  signal: AbortSignal,
): Promise<PackResult> {
  // Workers start now and load while the input is listed; Ctrl-C ends them.
  const pool = new ScanPool();
  const abort = () => void pool.close();
  signal.addEventListener('abort', abort, { once: true });
  try {
    return await packWith(pool, input, options, progress, signal);
  } catch (error) {
    signal.throwIfAborted(); // Ctrl-C closed the pool: report the stop, not the pool
    throw error;
  } finally {
    signal.removeEventListener('abort', abort);
    await pool.close();
  }
}

/** `pack` with the worker pool it scans and writes with. */
async function packWith(
  pool: ScanPool,
  input: string,
  options: PackOptions,
  progress: Progress,
  signal: AbortSignal,
): Promise<PackResult> {
  const inputPath = resolve(input);
  const out = resolve(options.out);
  let info: Awaited<ReturnType<typeof stat>>;
  try {
    info = await stat(inputPath);
  } catch {
    throw new PackError('PACK_INPUT', input, 'no such file or folder');
  }
  let candidates: SampleInput[];
  let columns: ShardManifestColumn[] = [];
  let labelType: 'number' | 'class' | undefined;
  let labelColumn = options.labelColumn;
  if (info.isDirectory()) {
    candidates = await collectFolder(inputPath, {
      folderLabels: options.folderLabels,
      exclude: out,
    });
    if (options.folderLabels) {
      labelType = 'class';
      labelColumn = '(folder)';
    }
  } else {
    // papaparse is loaded for a CSV input only
    const { collectCsv } = await import('../input/collectCsv.js');
    const csv = await collectCsv(inputPath, options);
    candidates = csv.samples;
    columns = csv.columns;
    labelType = csv.labelType;
  }
  const { samples, skipped } = await scanAll(
    pool,
    candidates,
    !info.isDirectory(),
    options.keepTags,
    keepBytes(candidates.length, options.decode !== undefined),
    progress,
    signal,
  );
  if (samples.length === 0)
    throw new PackError('PACK_INPUT', input, 'holds no PNG, JPEG or DICOM file');
  if (options.keepTags.length > 0) {
    const kept = new Set<string>();
    for (const s of samples)
      for (const k of options.keepTags) if (s.fields?.[k] !== undefined) kept.add(k);
    for (const k of options.keepTags) if (kept.has(k)) columns.push({ name: k, type: 'string' });
  }
  if (options.decode) checkDecodable(samples, options.decode);
  const labelCounts = countLabels(samples);
  let classes: Map<string, number> | undefined;
  if (labelType === 'class') classes = new Map(Object.keys(labelCounts).map((l, i) => [l, i]));
  const layout: PackLayoutOptions = {
    targetShardBytes: options.targetShardBytes,
    shuffle: options.shuffle,
    seed: options.seed,
    keepTags: options.keepTags,
  };
  if (options.samplesPerShard !== undefined) layout.samplesPerShard = options.samplesPerShard;
  if (options.splits) layout.splits = options.splits;
  if (options.decode) layout.decode = options.decode;
  const plan = planShards(samples, layout, classes, columns);
  const facts: ManifestFacts = { samples, columns };
  if (labelType) {
    facts.labels = { column: labelColumn, type: labelType };
    if (classes) facts.labels.classes = [...classes.keys()];
  }
  if (options.splits) facts.splits = options.splits;
  if (options.part) {
    const done = await packPart(pool, out, plan, facts, options.part, progress, signal).catch(
      (error: unknown) => {
        throw diskFull(error, out);
      },
    );
    return { ...done, skipped, fingerprint: plan.fingerprint };
  }
  const state = await prepareOutput(out, plan);
  const result: PackResult = {
    samples: samples.length,
    shards: plan.shards.length,
    resumed: 0,
    bytes: 0,
    skipped,
    fingerprint: plan.fingerprint,
    upToDate: state === 'done',
  };
  if (state === 'done') {
    result.bytes = plan.shards.reduce((a, s) => a + s.size, 0);
    return result;
  }
  const names = [
    STATE_FILE,
    'manifest.json',
    ...plan.shards.flatMap((s) => [s.name, `${s.name}.idx.json`]),
  ];
  await removeTemporaries(out, names);
  if (state === 'fresh') {
    await writeAtomic(
      join(out, STATE_FILE),
      `${JSON.stringify({ format: 'medfusion-pack-state', fingerprint: plan.fingerprint })}\n`,
    );
  }
  progress.phase(
    'write',
    samples.length,
    plan.shards.reduce((a, s) => a + s.size, 0),
  );
  try {
    const { written, resumed } = await writeOutput(
      pool,
      out,
      plan,
      facts,
      state === 'resume',
      progress,
      signal,
    );
    result.resumed = resumed;
    result.bytes = written.reduce((a, w) => a + w.bytes, 0);
  } catch (error) {
    await removeTemporaries(out, names).catch(() => {});
    throw diskFull(error, out);
  }
  return result;
}

/** A full disk as a `PACK_OUTPUT` PackError naming the file; other errors as they are. */
function diskFull(error: unknown, out: string): unknown {
  const code = (error as { code?: string }).code;
  if (code !== 'ENOSPC' && code !== 'EDQUOT') return error;
  const path = String((error as { path?: string }).path ?? out).replace(/\.partial$/, '');
  return new PackError(
    'PACK_OUTPUT',
    path,
    `the disk is full (${code}); complete shards are kept: free some space and run the same command again`,
    { cause: error },
  );
}

import { mkdir, readdir, readFile, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { ShardManifestColumn } from '@medfusion/core';
import { collectFolder } from '../input/collectFolder.js';
import { readListing } from '../input/readListing.js';
import type { SampleTable } from '../input/SampleTable.js';
import { PackError } from '../PackError.js';
import type { Progress } from '../progress.js';
import type { ManifestFacts } from './buildManifests.js';
import { dataSetFingerprint } from './fingerprint.js';
import { listInput } from './listInput.js';
import { type PackPart, packPart } from './parts.js';
import { type PackLayoutOptions, type PackPlan, planShards } from './planShards.js';
import { ScanPool } from './scanPool.js';
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
  /**
   * Folder input: a listing file (`medfusion list`) naming the files and their
   * sizes; the folder is then not walked and no file is `stat`ed (the parts of
   * a pack share one listing). @default the folder is walked
   */
  listing?: string;
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
  /** The data set's fingerprint; absent for a part (`--part`: the merge makes it from every part's shards). */
  fingerprint?: string;
  /** True when the output was already complete (nothing written). */
  upToDate: boolean;
}

/**
 * The fingerprint of the data set complete in `out` when it is this plan's: its
 * `manifest.json` lists the plan's shards (names, sizes, counts) and its
 * fingerprint is the one this plan's layout and the listed sha256 make.
 * Undefined otherwise (another data set, or a manifest that does not parse).
 */
async function completeOutput(out: string, plan: PackPlan): Promise<string | undefined> {
  let manifest: {
    fingerprint?: unknown;
    shards?: { url: string; bytes: number; samples: number; sha256: string }[];
  };
  try {
    manifest = JSON.parse(await readFile(join(out, 'manifest.json'), 'utf8'));
  } catch {
    return undefined;
  }
  const listed = manifest.shards;
  if (!Array.isArray(listed) || listed.length !== plan.shards.length) return undefined;
  const same = plan.shards.every((s, i) => {
    const e = listed[i];
    return e?.url === s.name && e.bytes === s.size && e.samples === s.count;
  });
  if (!same) return undefined;
  const fingerprint = dataSetFingerprint(
    plan.layout,
    listed.map((e) => ({ name: e.url, bytes: e.bytes, sha256: e.sha256 })),
  );
  return manifest.fingerprint === fingerprint ? fingerprint : undefined;
}

/**
 * Check the output folder can take this data set: absent or empty, or holding an
 * unfinished pack of the same plan (resumed), or this very data set already
 * complete. Anything else is a `PACK_OUTPUT` PackError naming the folder.
 */
async function prepareOutput(
  out: string,
  plan: PackPlan,
): Promise<'fresh' | 'resume' | { done: string }> {
  await mkdir(out, { recursive: true });
  const names = await readdir(out);
  if (names.length === 0) return 'fresh';
  if (names.includes('manifest.json')) {
    const done = await completeOutput(out, plan);
    if (done !== undefined) return { done };
    throw new PackError(
      'PACK_OUTPUT',
      out,
      'already holds another data set (its manifest.json has another fingerprint); choose an empty --out folder or delete this one',
    );
  }
  if (names.includes(STATE_FILE)) {
    const state = JSON.parse(await readFile(join(out, STATE_FILE), 'utf8'));
    if (state.layout === plan.layout) return 'resume';
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
  let table: SampleTable;
  let columns: ShardManifestColumn[] = [];
  let labelType: 'number' | 'class' | undefined;
  let labelColumn = options.labelColumn;
  if (options.listing !== undefined && !info.isDirectory())
    throw new TypeError(
      `--listing lists a folder input; ${input} is a file (a CSV lists its own files)`,
    );
  if (info.isDirectory()) {
    const walk = { folderLabels: options.folderLabels, exclude: out };
    table =
      options.listing === undefined
        ? await collectFolder(inputPath, walk)
        : await readListing(options.listing, inputPath, walk, signal);
    if (options.folderLabels) {
      labelType = 'class';
      labelColumn = '(folder)';
    }
  } else {
    // papaparse is loaded for a CSV input only
    const { collectCsv } = await import('../input/collectCsv.js');
    const csv = await collectCsv(inputPath, options);
    table = csv.samples;
    columns = csv.columns;
    labelType = csv.labelType;
  }
  const needs = { keepTags: options.keepTags, split: options.splits !== undefined };
  await listInput(
    pool,
    table,
    options.decode ? { ...needs, decode: options.decode } : needs,
    !info.isDirectory(),
    progress,
    signal,
    options.listing !== undefined,
  );
  let packed = 0;
  for (let i = 0; i < table.count; i++) if (table.kind[i] !== 0) packed++;
  const skipped = table.count - packed;
  if (packed === 0) throw new PackError('PACK_INPUT', input, 'holds no PNG, JPEG or DICOM file');
  if (options.keepTags.length > 0) {
    const kept = new Set<string>();
    for (let i = 0; i < table.count; i++) {
      const fields = table.kind[i] !== 0 ? table.fields(i) : '';
      if (fields !== '') for (const k of Object.keys(JSON.parse(fields))) kept.add(k);
    }
    for (const k of options.keepTags) if (kept.has(k)) columns.push({ name: k, type: 'string' });
  }
  let classes: Map<string, number> | undefined;
  if (labelType === 'class') {
    const names = new Set<string>();
    for (let i = 0; i < table.count; i++) {
      const label = table.kind[i] !== 0 ? table.label(i) : undefined;
      if (label !== undefined) names.add(label);
    }
    classes = new Map([...names].sort().map((l, i) => [l, i]));
  }
  const layout: PackLayoutOptions = {
    targetShardBytes: options.targetShardBytes,
    shuffle: options.shuffle,
    seed: options.seed,
    keepTags: options.keepTags,
  };
  if (options.samplesPerShard !== undefined) layout.samplesPerShard = options.samplesPerShard;
  if (options.splits) layout.splits = options.splits;
  if (options.decode) layout.decode = options.decode;
  const plan = planShards(table, layout, classes, columns);
  const facts: ManifestFacts = { columns };
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
    return { ...done, skipped };
  }
  const state = await prepareOutput(out, plan);
  const result: PackResult = {
    samples: packed,
    shards: plan.shards.length,
    resumed: 0,
    bytes: 0,
    skipped,
    upToDate: typeof state === 'object',
  };
  if (typeof state === 'object') result.fingerprint = state.done;
  if (typeof state === 'object') {
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
      `${JSON.stringify({ format: 'medfusion-pack-state', layout: plan.layout })}\n`,
    );
  }
  progress.phase(
    'write',
    packed,
    plan.shards.reduce((a, s) => a + s.size, 0),
  );
  try {
    const { written, resumed, fingerprint } = await writeOutput(
      pool,
      out,
      plan,
      facts,
      state === 'resume',
      progress,
      signal,
    );
    result.resumed = resumed;
    result.fingerprint = fingerprint;
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

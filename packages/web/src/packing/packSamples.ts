import type { ShardManifest, ShardManifestEntry } from '@medfusion/core';
import {
  checkJpeg,
  checkPng,
  checkUniqueKeys,
  paddedSize,
  sniffImage,
  TAR_BLOCK,
} from '@medfusion/core/internal';
import { createSHA256, type IHasher } from 'hash-wasm';
import type { LocalFile } from '../sources/dicom/localFiles.js';
import { PackFilesError } from './PackFilesError.js';
import type { PackFilesResult, PackProgress } from './packFilesOptions.js';
import { csvInput, folderInput, type PackInput, type PackSample } from './packInput.js';
import { type ShardMember, writeShardFile, writeWholeFile } from './writeShardFile.js';

/** What the worker packs: the listed files and the options that change the bytes. */
export interface PackJob {
  files: LocalFile[];
  labels?: { name: string; text: string };
  imageColumn: string;
  labelColumn: string;
  folderLabels: boolean;
  dir: string;
  replace: boolean;
  targetShardBytes: number;
}

/** Files read at once while scanning. */
const READS_IN_FLIGHT = 8;
/** Shortest gap between two progress reports. */
const PROGRESS_MS = 50;

const utf8 = new TextEncoder();

async function readFile(s: PackSample): Promise<Uint8Array> {
  try {
    return new Uint8Array(await s.blob.arrayBuffer());
  } catch (error) {
    throw new PackFilesError(
      'PACK_INPUT',
      s.source,
      `cannot read the file (${(error as Error).name}: ${(error as Error).message}); was it moved or deleted?`,
      { cause: error },
    );
  }
}

/** Open (creating) the OPFS directory `path` ('/'-separated below the origin's root). */
async function openDir(path: string): Promise<FileSystemDirectoryHandle> {
  let dir = await navigator.storage.getDirectory();
  for (const part of path.split('/').filter((p) => p !== '')) {
    dir = await dir.getDirectoryHandle(part, { create: true });
  }
  return dir;
}

type Entries = AsyncIterable<[string, FileSystemHandle]>;

async function names(dir: FileSystemDirectoryHandle): Promise<string[]> {
  const out: string[] = [];
  for await (const [name] of (dir as unknown as { entries(): Entries }).entries()) out.push(name);
  return out;
}

/** Empty `dir` (the manifest first, so no reader takes what remains as a data set), or refuse. */
async function prepareDir(dir: FileSystemDirectoryHandle, path: string, replace: boolean) {
  const present = await names(dir);
  if (present.length === 0) return;
  if (!replace) {
    throw new PackFilesError(
      'PACK_OUTPUT',
      path,
      `is not empty (${present.slice(0, 3).join(', ')}${present.length > 3 ? ', ...' : ''}); pass replace: true or another dir`,
    );
  }
  if (present.includes('manifest.json')) await dir.removeEntry('manifest.json');
  for (const name of present) {
    if (name !== 'manifest.json') await dir.removeEntry(name, { recursive: true });
  }
}

/** Label counts by label text, keys sorted (as `medfusion pack` counts them). */
function countLabels(samples: readonly PackSample[]): Record<string, number> {
  const counts = new Map<string, number>();
  for (const s of samples)
    if (s.label !== undefined) counts.set(s.label, (counts.get(s.label) ?? 0) + 1);
  return Object.fromEntries([...counts].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)));
}

/** The members of one sample: image, then `.cls` (label), then `.json` (fields), as present. */
function membersOf(
  s: PackSample,
  classes: Map<string, number> | undefined,
  check: IHasher,
): ShardMember[] {
  const size = s.size as number;
  const members: ShardMember[] = [
    {
      name: `${s.key}.${s.kind}`,
      size,
      body: async () => {
        const bytes = await readFile(s);
        if (bytes.length !== size || check.init().update(bytes).digest('hex') !== s.sha256) {
          throw new PackFilesError(
            'PACK_INPUT',
            s.source,
            'the file changed while packing (its size or sha256 differ from the scan)',
          );
        }
        return bytes;
      },
    },
  ];
  if (s.label !== undefined) {
    const body = utf8.encode(classes ? String(classes.get(s.label)) : s.label);
    members.push({ name: `${s.key}.cls`, size: body.length, body: async () => body });
  }
  if (s.fields && Object.keys(s.fields).length > 0) {
    const body = utf8.encode(JSON.stringify(s.fields));
    members.push({ name: `${s.key}.json`, size: body.length, body: async () => body });
  }
  return members;
}

/**
 * Pack a job (in the packing worker): read the input, scan and check every file
 * (PNG chunk CRCs, JPEG markers: a truncated file is refused by name), refuse
 * duplicate keys, cut shards by size, write each shard and its sidecar into the
 * OPFS directory, and `manifest.json` last. On failure, what this run wrote is removed.
 */
export async function packSamples(
  job: PackJob,
  signal: AbortSignal,
  report: (p: PackProgress) => void,
): Promise<PackFilesResult> {
  const hasher: IHasher = await createSHA256();
  const check: IHasher = await createSHA256(); // each image as written, against its scan
  const hash = (text: string) => hasher.init().update(text).digest('hex');
  const input: PackInput = job.labels
    ? csvInput(job.labels.text, job.labels.name, job.files, job, hash)
    : folderInput(job.files, job.folderLabels, hash);

  // Scan: read, check and hash every candidate.
  const candidates = input.samples;
  const scanBytes = candidates.reduce((a, s) => a + s.blob.size, 0);
  const started = performance.now();
  let last = 0;
  const progress = (p: PackProgress, force = false) => {
    const now = performance.now();
    if (!force && now - last < PROGRESS_MS) return;
    last = now;
    report(p);
  };
  let scanned = 0;
  let scannedBytes = 0;
  const kept = new Array<boolean>(candidates.length);
  let next = 0;
  const scanOne = async () => {
    while (next < candidates.length) {
      signal.throwIfAborted();
      const i = next++;
      const s = candidates[i] as PackSample;
      const bytes = await readFile(s);
      const kind = sniffImage(bytes);
      if (kind === 'png' || kind === 'jpg') {
        try {
          if (kind === 'png') checkPng(bytes);
          else checkJpeg(bytes);
        } catch (error) {
          throw new PackFilesError('PACK_INPUT', s.source, (error as Error).message);
        }
        s.kind = kind;
        s.size = bytes.length;
        s.sha256 = hasher.init().update(bytes).digest('hex');
        kept[i] = true;
      } else if (input.fromCsv) {
        throw new PackFilesError(
          'PACK_INPUT',
          s.source,
          kind === 'dcm'
            ? 'a DICOM file: the browser packer stores PNG and JPEG images (use medfusion pack for DICOM)'
            : 'not a PNG or JPEG image',
        );
      }
      scanned++;
      scannedBytes += s.blob.size;
      const elapsed = performance.now() - started;
      const p: PackProgress = {
        phase: 'scan',
        done: scanned,
        total: candidates.length,
        bytesDone: scannedBytes,
        bytesTotal: scanBytes,
      };
      // Writing reads every byte again: guess it takes as long as the scan.
      if (scannedBytes > 0) p.etaMs = (elapsed / scannedBytes) * (2 * scanBytes - scannedBytes);
      progress(p);
    }
  };
  await Promise.all(Array.from({ length: Math.min(READS_IN_FLIGHT, candidates.length) }, scanOne));
  signal.throwIfAborted();
  const samples = candidates.filter((_, i) => kept[i]);
  const skipped = candidates.length - samples.length + input.unused;
  if (samples.length === 0) {
    throw new PackFilesError(
      'PACK_INPUT',
      job.labels?.name ?? 'files',
      'hold no PNG or JPEG image',
    );
  }
  checkUniqueKeys(samples, (s, message) => {
    throw new PackFilesError('PACK_INPUT', s.source, message);
  });

  // Plan: shards cut by size, in input order; the fingerprint names this exact output.
  const labelCounts = countLabels(samples);
  const classes =
    input.labels?.type === 'class'
      ? new Map(Object.keys(labelCounts).map((l, i) => [l, i] as [string, number]))
      : undefined;
  const shards: { name: string; samples: PackSample[]; size: number }[] = [];
  let bytes = 0; // member bytes to write (progress)
  hasher.init();
  hasher.update(
    JSON.stringify({
      format: 'medfusion-pack-web',
      version: 1,
      targetShardBytes: job.targetShardBytes,
      columns: input.columns,
      classes: classes ? [...classes] : null,
    }),
  );
  for (const s of samples) {
    const members = membersOf(s, classes, check);
    const size = members.reduce((a, m) => a + TAR_BLOCK + paddedSize(m.size), 0);
    let shard = shards[shards.length - 1];
    if (!shard || (shard.samples.length > 0 && shard.size + size > job.targetShardBytes)) {
      shard = {
        name: `data-${String(shards.length).padStart(6, '0')}.tar`,
        samples: [],
        size: 1024,
      };
      shards.push(shard);
    }
    shard.samples.push(s);
    shard.size += size;
    bytes += members.reduce((a, m) => a + m.size, 0);
    hasher.update(
      JSON.stringify([
        shard.name,
        members.map((m) => [m.name, m.size]),
        s.sha256,
        s.label ?? null,
        s.fields ?? null,
      ]),
    );
  }
  const fingerprint = hasher.digest('hex');

  // Write: shards and sidecars, then manifest.json last.
  const dir = await openDir(job.dir);
  await prepareDir(dir, job.dir, job.replace);
  const writeStarted = performance.now();
  let written = 0;
  let writtenBytes = 0;
  const entries: ShardManifestEntry[] = [];
  try {
    for (const shard of shards) {
      const members = shard.samples.flatMap((s) => membersOf(s, classes, check));
      const w = await writeShardFile(dir, shard.name, members, hasher, signal, (n) => {
        writtenBytes += n;
        const elapsed = performance.now() - writeStarted;
        const p: PackProgress = {
          phase: 'write',
          done: written,
          total: samples.length,
          bytesDone: writtenBytes,
          bytesTotal: bytes,
          etaMs: (elapsed / writtenBytes) * (bytes - writtenBytes),
        };
        progress(p);
      });
      written += shard.samples.length;
      entries.push({
        url: shard.name,
        samples: shard.samples.length,
        bytes: w.bytes,
        sha256: w.sha256,
      });
      progress(
        {
          phase: 'write',
          done: written,
          total: samples.length,
          bytesDone: writtenBytes,
          bytesTotal: bytes,
          etaMs: ((performance.now() - writeStarted) / writtenBytes) * (bytes - writtenBytes),
        },
        written === samples.length,
      );
    }
    signal.throwIfAborted();
    const manifest: ShardManifest = {
      format: 'medfusion-shards',
      version: 1,
      count: samples.length,
      fingerprint,
      shards: entries,
    };
    if (input.labels) {
      manifest.labels = { ...input.labels, counts: labelCounts };
      if (classes) manifest.labels.classes = [...classes.keys()];
    }
    if (input.columns.length > 0) manifest.columns = input.columns;
    // Written last: a manifest.json means every shard it lists is complete.
    await writeWholeFile(
      dir,
      'manifest.json',
      utf8.encode(`${JSON.stringify(manifest, null, 1)}\n`),
    );
  } catch (error) {
    for (const name of await names(dir).catch(() => [])) {
      await dir.removeEntry(name).catch(() => {});
    }
    throw error;
  }
  const result: PackFilesResult = {
    dir: job.dir,
    samples: samples.length,
    shards: shards.length,
    bytes: entries.reduce((a, e) => a + (e.bytes as number), 0),
    skipped,
    fingerprint,
  };
  if (classes) result.classes = [...classes.keys()];
  return result;
}

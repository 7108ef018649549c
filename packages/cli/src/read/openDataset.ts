import { readdir, readFile, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { checkShardManifestEntry, parseShardManifest, type ShardManifest } from '@medfusion/core';
import { PackError } from '../PackError.js';

/** How long one HTTP request may take, headers and body (ms). */
const HTTP_TIMEOUT_MS = 120_000;

/** A packed data set opened for reading: its manifest and a way to read its files. */
export interface OpenDataset {
  /** The manifest (a made-up one, `{ shards }` only, for a folder of tar files without one). */
  manifest: ShardManifest;
  /** Where the manifest is (or the folder), for messages. */
  where: string;
  /** Whether a real manifest was read. */
  hasManifest: boolean;
  /** The bytes of a file named relative to the manifest, or undefined when it does not exist. */
  read(name: string): Promise<Uint8Array | undefined>;
}

/** The URL `name` names relative to `base`, refused when it leaves the base's folder. */
function inside(base: URL, name: string, where: string): URL {
  const url = new URL(name, base);
  const folder = new URL('.', base);
  if (url.origin !== folder.origin || !url.pathname.startsWith(folder.pathname)) {
    throw new PackError('VERIFY_FAILED', where, `names ${name}, outside the manifest's folder`);
  }
  return url;
}

async function fetchBytes(url: URL): Promise<Uint8Array | undefined> {
  const res = await fetch(url, { signal: AbortSignal.timeout(HTTP_TIMEOUT_MS) });
  if (res.status === 404) return undefined;
  if (!res.ok) throw new PackError('VERIFY_FAILED', url.href, `HTTP ${res.status}`);
  return new Uint8Array(await res.arrayBuffer());
}

async function fileBytes(url: URL): Promise<Uint8Array | undefined> {
  try {
    return await readFile(url);
  } catch (error) {
    if ((error as { code?: string }).code === 'ENOENT') return undefined;
    throw error;
  }
}

/**
 * Open `target`: a folder holding `manifest.json` (or only `.tar` shards), a
 * manifest file, a single `.tar`, or an http(s) URL of a manifest (or of its
 * folder). Every shard entry is checked (core's manifest checks); shard and
 * index names must stay inside the manifest's folder.
 */
export async function openDataset(target: string): Promise<OpenDataset> {
  let base: URL;
  let read: (url: URL) => Promise<Uint8Array | undefined>;
  if (/^https?:\/\//i.test(target)) {
    base = new URL(
      /\.json$/i.test(new URL(target).pathname)
        ? target
        : `${target.replace(/\/?$/, '/')}manifest.json`,
    );
    read = fetchBytes;
  } else {
    const path = resolve(target);
    let info: Awaited<ReturnType<typeof stat>>;
    try {
      info = await stat(path);
    } catch {
      throw new PackError('VERIFY_FAILED', target, 'no such file or folder');
    }
    read = fileBytes;
    if (info.isDirectory()) {
      base = pathToFileURL(join(path, 'manifest.json'));
      if ((await fileBytes(base)) === undefined) {
        const tars = (await readdir(path)).filter((n) => n.endsWith('.tar')).sort();
        if (tars.length === 0)
          throw new PackError('VERIFY_FAILED', target, 'holds no manifest.json and no .tar shard');
        return {
          manifest: { shards: tars.map((url) => ({ url })) },
          where: path,
          hasManifest: false,
          read: (name) => read(inside(base, name, path)),
        };
      }
    } else if (path.endsWith('.tar')) {
      base = pathToFileURL(path);
      const name = path.slice(path.lastIndexOf('/') + 1);
      return {
        manifest: { shards: [{ url: name }] },
        where: path,
        hasManifest: false,
        read: (n) => read(inside(base, n, path)),
      };
    } else {
      base = pathToFileURL(path);
    }
  }
  const where = base.protocol === 'file:' ? decodeURIComponent(base.pathname) : base.href;
  const bytes = await read(base);
  if (bytes === undefined) throw new PackError('VERIFY_FAILED', where, 'not found');
  let manifest: ShardManifest;
  try {
    manifest = parseShardManifest(new TextDecoder().decode(bytes), where);
    for (const [i, e] of manifest.shards.entries()) checkShardManifestEntry(e, i, where);
  } catch (error) {
    throw new PackError('VERIFY_FAILED', where, (error as Error).message, { cause: error });
  }
  return { manifest, where, hasManifest: true, read: (name) => read(inside(base, name, where)) };
}

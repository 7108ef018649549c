import { arrayOf, showValue, throwIfAborted } from '@medfusion/core/internal';
import { DicomError } from './DicomError.js';
import { dicomParser } from './dicomParser.js';
import { readBlob, unreadableFile } from './readBlob.js';

/** A local file of a `DicomSource` and the relative path that names it. */
export interface LocalFile {
  /**
   * Under `directory`, the path below it (`IMAGES/IM1`); from `files`, the
   * `webkitRelativePath` or else the name; a `Blob` without a name is `files[i]`.
   */
  path: string;
  blob: Blob;
}

/** The DICOM images among the local files, in path order, and how many others were skipped. */
export interface LocalFileList {
  files: LocalFile[];
  /** Files that are not DICOM images: no `DICM` at byte 128, or a DICOMDIR. */
  skipped: number;
}

/** Media Storage SOP Class UID of a DICOMDIR (Media Storage Directory Storage). */
const DICOMDIR_CLASS = '1.2.840.10008.1.3.10';
/** Bytes read from each file's start to find `DICM` and the file meta group. */
const META_BYTES = 4096;
/** Local files read at once while listing. */
const CONCURRENT_READS = 16;

type DirectoryEntries = AsyncIterable<[string, FileSystemHandle]>;

/**
 * The DICOM images of `files` or of `directory` (walked recursively), sorted by
 * relative path (code unit order, not the locale's, so every machine gets the
 * same order; equal paths by size, date, then input order). Each file's first
 * bytes are read to tell DICOM Part 10 files (`DICM` at byte 128) from the rest,
 * and DICOMDIRs (Media Storage Directory Storage) are left out.
 */
export async function listLocalFiles(
  from: { files?: unknown; directory?: unknown },
  signal?: AbortSignal,
): Promise<LocalFileList> {
  const all = await allLocalFiles(from, signal);
  const keep = new Array<boolean>(all.length);
  let next = 0;
  const reader = async () => {
    while (next < all.length) {
      const i = next++;
      const file = all[i] as LocalFile;
      keep[i] = await isDicomImage(file, signal);
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENT_READS, all.length) }, reader));
  const files = all.filter((_, i) => keep[i]);
  if (files.length === 0) {
    const where = from.directory !== undefined ? 'directory' : 'files';
    throw new DicomError(
      'DICOM_FORMAT',
      all.length === 0
        ? `${where} holds no file`
        : `${where} holds no DICOM image: ${all.length} file(s) skipped (no DICM at byte 128, or a DICOMDIR)`,
    );
  }
  return { files, skipped: all.length - files.length };
}

/**
 * Every file of `files` or of `directory` (walked recursively), sorted by
 * relative path as {@link listLocalFiles} sorts them. A bad `files` or
 * `directory` is a TypeError naming it.
 */
export async function allLocalFiles(
  from: { files?: unknown; directory?: unknown },
  signal?: AbortSignal,
): Promise<LocalFile[]> {
  const all =
    from.directory !== undefined
      ? await walk(checkDirectory(from.directory), '', signal)
      : filesOf(from.files);
  return all.sort(byPath);
}

function byPath(a: LocalFile, b: LocalFile): number {
  if (a.path !== b.path) return a.path < b.path ? -1 : 1;
  const date = (f: LocalFile) => (f.blob instanceof File ? f.blob.lastModified : 0);
  return a.blob.size - b.blob.size || date(a) - date(b);
}

/** `files` as local files: an iterable of File or Blob (TypeError naming it or the bad entry). */
export function filesOf(files: unknown): LocalFile[] {
  if (
    files === null ||
    typeof files !== 'object' ||
    typeof (files as Iterable<unknown>)[Symbol.iterator] !== 'function'
  ) {
    throw new TypeError(
      `files must be an iterable of File or Blob (a FileList, an array), got ${showValue(files)}`,
    );
  }
  // an array's empty slot is refused as such, never read as `undefined`
  if (Array.isArray(files)) arrayOf('files', files, (_, v) => v);
  const out: LocalFile[] = [];
  for (const blob of files as Iterable<unknown>) {
    const i = out.length;
    if (!(blob instanceof Blob)) {
      throw new TypeError(`files[${i}] must be a File or Blob, got ${showValue(blob)}`);
    }
    const name = blob instanceof File ? blob.webkitRelativePath || blob.name : '';
    out.push({ path: name || `files[${i}]`, blob });
  }
  if (out.length === 0) throw new TypeError('files must not be empty');
  return out;
}

/** `directory` must be a FileSystemDirectoryHandle (TypeError naming it otherwise). */
export function checkDirectory(directory: unknown): FileSystemDirectoryHandle {
  const d = directory as { kind?: unknown; entries?: unknown } | null;
  if (
    d === null ||
    typeof d !== 'object' ||
    d.kind !== 'directory' ||
    typeof d.entries !== 'function'
  ) {
    throw new TypeError(
      `directory must be a FileSystemDirectoryHandle (showDirectoryPicker(), navigator.storage.getDirectory()), got ${showValue(directory)}`,
    );
  }
  return directory as FileSystemDirectoryHandle;
}

/** Every file below `dir`, its path prefixed by `prefix`. */
async function walk(
  dir: FileSystemDirectoryHandle,
  prefix: string,
  signal: AbortSignal | undefined,
): Promise<LocalFile[]> {
  const out: LocalFile[] = [];
  const handles: [string, FileSystemFileHandle][] = [];
  for await (const [name, handle] of (
    dir as unknown as { entries(): DirectoryEntries }
  ).entries()) {
    throwIfAborted(signal);
    const path = prefix + name;
    if (handle.kind === 'directory') {
      out.push(...(await walk(handle as FileSystemDirectoryHandle, `${path}/`, signal)));
    } else {
      handles.push([path, handle as FileSystemFileHandle]);
    }
  }
  const got = await Promise.all(
    handles.map(async ([path, handle]) => {
      try {
        return { path, blob: await handle.getFile() };
      } catch (error) {
        throw unreadableFile(path, error);
      }
    }),
  );
  return out.concat(got);
}

/** True for a DICOM Part 10 file that is not a DICOMDIR. */
async function isDicomImage(file: LocalFile, signal: AbortSignal | undefined): Promise<boolean> {
  const head = await readBlob(file.blob.slice(0, META_BYTES), file.path, signal);
  if (head.length < 132 || String.fromCharCode(...head.subarray(128, 132)) !== 'DICM') {
    return false;
  }
  try {
    return dicomParser.readPart10Header(head).string('x00020002') !== DICOMDIR_CLASS;
  } catch {
    return true; // a meta group longer than META_BYTES, or broken: decoding tells which
  }
}

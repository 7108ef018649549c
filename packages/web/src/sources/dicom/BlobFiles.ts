import type { FileBytes } from './FileBytes.js';
import type { LocalFile } from './localFiles.js';
import { readBlob } from './readBlob.js';

/**
 * Files on the user's machine (`File`s, `Blob`s, files of a directory handle),
 * read with `Blob.arrayBuffer()`; a head is a `slice` of the file.
 */
export class BlobFiles implements FileBytes {
  readonly count: number;
  /** Relative paths, sizes and modification dates: never the contents. */
  readonly identity: readonly (readonly [string, number, number | null])[];

  constructor(private readonly files: readonly LocalFile[]) {
    this.count = files.length;
    this.identity = files.map(({ path, blob }) => [
      path,
      blob.size,
      blob instanceof File ? blob.lastModified : null,
    ]);
  }

  nameOf(i: number): string {
    return (this.files[i] as LocalFile).path;
  }

  read(i: number, signal?: AbortSignal): Promise<Uint8Array> {
    const { blob, path } = this.files[i] as LocalFile;
    return readBlob(blob, path, signal);
  }

  async head(
    i: number,
    max: number,
    signal?: AbortSignal,
  ): Promise<{ bytes: Uint8Array; size: number }> {
    const { blob, path } = this.files[i] as LocalFile;
    return { bytes: await readBlob(blob.slice(0, max), path, signal), size: blob.size };
  }
}

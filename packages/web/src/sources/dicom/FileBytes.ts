/**
 * Where the files of a `DicomSource` come from, file `i` in sample order:
 * HTTP ({@link UrlFiles}) or the user's machine ({@link BlobFiles}). The
 * source asks only this, so fetching, retries and headers stay on one side and
 * `Blob` reads on the other.
 */
export interface FileBytes {
  /** Number of files. */
  readonly count: number;
  /** What identifies the files for the fingerprint (URLs, or names + sizes + dates). */
  readonly identity: unknown;
  /** What names file `i` in messages: its URL or its relative path (never a tag value). */
  nameOf(i: number): string;
  /** The whole of file `i`. */
  read(i: number, signal?: AbortSignal): Promise<Uint8Array>;
  /** The first `max` bytes of file `i` (fewer when it is smaller) and its size in bytes. */
  head(i: number, max: number, signal?: AbortSignal): Promise<{ bytes: Uint8Array; size: number }>;
}

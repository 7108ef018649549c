/** Options of {@link packFiles}: what to pack, where in OPFS, and how. */
export interface PackFilesOptions {
  /**
   * The picked or dropped files: a `FileList` of `<input type=file webkitdirectory>`
   * or `File`s (a file's path is its `webkitRelativePath`, else its name; the folder
   * all paths start with, the picked folder itself, is left out). Give this or `directory`.
   */
  files?: Iterable<Blob>;
  /** A folder (`showDirectoryPicker()`, a dropped folder's handle), walked recursively. Give this or `files`. */
  directory?: FileSystemDirectoryHandle;
  /**
   * The labels CSV (the CSV `CsvImageDataset` reads: a header row, an image column
   * whose cells are paths relative to the picked folder, a label column, other
   * columns stored as tabular fields): a `File`/`Blob` or its text. Without it,
   * every PNG/JPEG is a sample (labelled by its folder with `folderLabels`).
   */
  labels?: Blob | string;
  /** The CSV's image column. @default 'image' */
  imageColumn?: string;
  /** The CSV's label column. @default 'label' */
  labelColumn?: string;
  /**
   * Without `labels`: a file's label is the first folder under the picked folder
   * it sits in (the ImageFolder layout `<label>/<file>`).
   * @default false
   */
  folderLabels?: boolean;
  /**
   * The OPFS directory the data set is written to, a `/`-separated path below the
   * origin's root (created when absent). Open it with {@link opfsShards}.
   */
  dir: string;
  /**
   * Replace the data set (or any files) already in `dir`. Without it a non-empty
   * `dir` is a `PACK_OUTPUT` {@link PackFilesError}.
   * @default false
   */
  replace?: boolean;
  /**
   * Target shard size in bytes (a shard holds at least one sample).
   * @default 67108864 (64 MiB, as `medfusion pack`)
   */
  targetShardBytes?: number;
  /** Told of progress after each file scanned and each sample written. */
  onProgress?: (progress: PackProgress) => void;
  /** Stops packing: the promise rejects with the signal's reason, and no manifest is written. */
  signal?: AbortSignal;
}

/** Where a {@link packFiles} run is. */
export interface PackProgress {
  /** `'scan'`: reading and checking every file; `'write'`: writing the shards. */
  phase: 'scan' | 'write';
  /** Files scanned (scan) or samples written (write) so far. */
  done: number;
  /** Files to scan, or samples to write. */
  total: number;
  /** Bytes of files read (scan) or of members written (write, tar headers and padding not counted) so far. */
  bytesDone: number;
  /** Bytes to read or write in this phase. */
  bytesTotal: number;
  /** Estimated milliseconds left in the whole run, once estimable (after the first writes). */
  etaMs?: number;
}

/** What {@link packFiles} wrote. */
export interface PackFilesResult {
  /** The OPFS directory holding the data set. */
  dir: string;
  /** Samples packed. */
  samples: number;
  /** Shards written. */
  shards: number;
  /** Bytes of all shards. */
  bytes: number;
  /** Files that are not PNG or JPEG images (or not named by the CSV), left out. */
  skipped: number;
  /** Hex sha256 over the options and every sample: the manifest's `fingerprint`. */
  fingerprint: string;
  /** Class names by the index a `.cls` member holds (class labels), else undefined. */
  classes?: string[];
}

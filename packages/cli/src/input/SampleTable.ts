import { relative, resolve, sep } from 'node:path';
import type { ImageKind } from './imageKind.js';
import { sampleKey } from './sampleKey.js';

/** Image kinds as stored in {@link SampleTable.kind} (0: not known yet, or not an image). */
export const KIND_CODES: readonly (ImageKind | undefined)[] = [undefined, 'png', 'jpg', 'dcm'];

/** The code of `kind` in {@link KIND_CODES}. */
export function kindCode(kind: ImageKind): number {
  return KIND_CODES.indexOf(kind);
}

/** Largest file packed: sizes are kept as 32-bit numbers (and a tar member past 8 GiB needs another header). */
export const MAX_FILE_BYTES = 0xffffffff;

/** `name`'s last characters are `ext` (lower case ASCII), in any case. */
function endsWithFolded(name: string, ext: string): boolean {
  const from = name.length - ext.length;
  if (from < 0) return false;
  for (let k = 0; k < ext.length; k++) {
    const c = name.charCodeAt(from + k);
    const e = ext.charCodeAt(k);
    if (c !== e && !(e >= 0x61 && e <= 0x7a && c === e - 0x20)) return false;
  }
  return true;
}

/**
 * The image kind a file's name tells (`.png`, `.jpg`/`.jpeg`, `.dcm`, in any
 * case), or undefined. Compared character by character: a listing asks once a file.
 */
export function kindOfName(name: string): ImageKind | undefined {
  if (endsWithFolded(name, '.png')) return 'png';
  if (endsWithFolded(name, '.jpg') || endsWithFolded(name, '.jpeg')) return 'jpg';
  if (endsWithFolded(name, '.dcm')) return 'dcm';
  return undefined;
}

const utf8 = new TextEncoder();
const text = new TextDecoder();

/** Values per block of a {@link BlockColumn} (2^16). */
const BLOCK_SHIFT = 16;
const BLOCK_MASK = (1 << BLOCK_SHIFT) - 1;

/**
 * Numbers in fixed blocks of 2^16: growing adds a block, never copies (a column
 * doubled and copied held 1.5x its size at each step, and its freed copies
 * stayed in the process's resident size).
 */
class BlockColumn<T extends Uint32Array | Int32Array> {
  length = 0;
  private readonly blocks: T[] = [];
  constructor(private readonly make: (n: number) => T) {}
  push(value: number): void {
    const b = this.length >>> BLOCK_SHIFT;
    if (b === this.blocks.length) this.blocks.push(this.make(1 << BLOCK_SHIFT));
    (this.blocks[b] as T)[this.length & BLOCK_MASK] = value;
    this.length++;
  }
  get(i: number): number {
    return (this.blocks[i >>> BLOCK_SHIFT] as T)[i & BLOCK_MASK] as number;
  }
}

/** Bytes per block of a {@link StringColumn} (1 MiB): a string never straddles two. */
const TEXT_BLOCK = 1 << 20;

/**
 * Strings one after another as UTF-8 in 1 MiB blocks, with their end offsets:
 * ~1 byte a character, no object per string, no copy as it grows. A string that
 * does not fit in the rest of a block starts the next one.
 */
class StringColumn {
  private readonly blocks: Uint8Array[] = [];
  private readonly ends = new BlockColumn((n) => new Uint32Array(n));
  private end = 0; // global offset after the last string
  get length(): number {
    return this.ends.length;
  }
  push(value: string): void {
    const bytes = Buffer.byteLength(value);
    if (bytes > TEXT_BLOCK) throw new RangeError(`a name of ${bytes} bytes is past 1 MiB`);
    let at = this.end;
    if ((at & (TEXT_BLOCK - 1)) + bytes > TEXT_BLOCK)
      at = (Math.floor(at / TEXT_BLOCK) + 1) * TEXT_BLOCK;
    const b = Math.floor(at / TEXT_BLOCK);
    while (this.blocks.length <= b) this.blocks.push(new Uint8Array(TEXT_BLOCK));
    utf8.encodeInto(value, (this.blocks[b] as Uint8Array).subarray(at - b * TEXT_BLOCK));
    this.end = at + bytes;
    if (this.end > 0xffffffff) throw new RangeError('the sample table is past 4 GiB of names');
    this.ends.push(this.end);
  }
  get(i: number): string {
    const end = this.ends.get(i);
    let start = i === 0 ? 0 : this.ends.get(i - 1);
    const b = Math.floor(Math.max(start, end - 1) / TEXT_BLOCK);
    if (start < b * TEXT_BLOCK) start = b * TEXT_BLOCK; // it started the next block
    const block = this.blocks[b] as Uint8Array;
    return text.decode(block.subarray(start - b * TEXT_BLOCK, end - b * TEXT_BLOCK));
  }
}

/** Distinct strings numbered in order of first sight (labels, DICOM patients). */
class Dictionary {
  readonly values: string[] = [];
  private readonly ids = new Map<string, number>();
  id(value: string): number {
    let id = this.ids.get(value);
    if (id === undefined) {
      id = this.values.length;
      this.values.push(value);
      this.ids.set(value, id);
    }
    return id;
  }
}

/** Where a table's samples come from: a folder (names relative to it) or a CSV (names as its rows give them). */
export type TableOrigin =
  | { type: 'folder'; root: string }
  | { type: 'csv'; csv: string; base: string };

/**
 * The samples of a pack, column by column in typed arrays and one string table
 * (about 13 bytes a sample plus its name, against ~640 bytes as one object per
 * sample), so a pack of 10^6 or 10^7 files fits in a flat budget. A sample is its
 * index; its path, key and source are made when asked for. Only the size and kind
 * come from the file system (a `stat`, or a look inside for a file whose name does
 * not tell its kind); the rest comes from the listing.
 */
export class SampleTable {
  private readonly names = new StringColumn();
  private readonly fieldText = new StringColumn();
  private hasFields = false;
  private readonly labelIds = new BlockColumn((n) => new Int32Array(n));
  private groupIds: Int32Array | undefined;
  /** Label texts, numbered in order of first sight ({@link labelId} indexes it). */
  readonly labels = new Dictionary();
  /** Group texts (DICOM patient or study) for `--split`. */
  readonly groups = new Dictionary();
  /** Image kind per sample, a {@link KIND_CODES} index (0 until known; 0 after listing: not an image, left out). */
  kind = new Uint8Array(0);
  /** File size per sample (files of 4 GiB or more are refused). */
  size = new Uint32Array(0);
  /** Image width and height per sample, when the planning needs them (`--decode` without `--size`). */
  width: Uint32Array | undefined;
  /** See {@link width}. */
  height: Uint32Array | undefined;

  constructor(readonly origin: TableOrigin) {}

  /** Samples in the table. */
  get count(): number {
    return this.names.length;
  }

  /**
   * Folder input by runs: the folder part of a name (`class3/`) and the label
   * once per run of samples in one folder (a folder's files are listed
   * together), the rest of the name in {@link names}: nothing per sample.
   */
  private readonly folders: string[] = [];
  private readonly folderFirst: number[] = [];
  /** Folder input: the label id of each run (a folder's files share their label). */
  private readonly folderLabel: number[] = [];

  /** Add a sample: its name (path relative to the folder, or the CSV's image cell), label and fields. */
  add(name: string, label?: string, fields?: Record<string, number | string>): void {
    const labelId = label === undefined ? -1 : this.labels.id(label);
    if (this.origin.type === 'folder') {
      const slash = name.lastIndexOf('/') + 1;
      const folder = name.slice(0, slash);
      if (this.folders.at(-1) !== folder || this.folderLabel.at(-1) !== labelId) {
        this.folders.push(folder);
        this.folderFirst.push(this.count);
        this.folderLabel.push(labelId);
      }
      this.names.push(name.slice(slash));
    } else {
      this.names.push(name);
      this.labelIds.push(labelId);
    }
    if (fields && Object.keys(fields).length > 0) {
      if (!this.hasFields)
        for (let i = this.fieldText.length; i < this.count - 1; i++) this.fieldText.push('');
      this.hasFields = true;
      this.fieldText.push(JSON.stringify(fields));
    } else if (this.hasFields) this.fieldText.push('');
  }

  /** The listing is complete: size the per-file columns. */
  seal(): void {
    this.kind = new Uint8Array(this.count);
    this.size = new Uint32Array(this.count);
  }

  /** Folder input: the run sample `i` is in (the last run starting at or before it). */
  private run(i: number): number {
    let lo = 0;
    let hi = this.folderFirst.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1;
      if ((this.folderFirst[mid] as number) <= i) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  /** The name sample `i` was added with. */
  private name(i: number): string {
    if (this.origin.type !== 'folder') return this.names.get(i);
    return (this.folders[this.run(i)] as string) + this.names.get(i);
  }

  /** Absolute path of sample `i`'s file. */
  path(i: number): string {
    const name = this.name(i);
    const o = this.origin;
    if (o.type === 'csv') return resolve(o.base, name);
    return o.root + sep + (sep === '/' ? name : name.split('/').join(sep));
  }

  /** Path of sample `i` relative to its folder, `/`-separated: what its key is made from. */
  rel(i: number): string {
    const o = this.origin;
    if (o.type === 'folder') return this.name(i);
    return relative(o.base, this.path(i)).split(sep).join('/');
  }

  /** Sample key of `i` (member names are `<key>.<ext>`). */
  key(i: number): string {
    return sampleKey(this.rel(i));
  }

  /** How errors name sample `i`: its relative path, or the CSV row and path. */
  source(i: number): string {
    const o = this.origin;
    if (o.type === 'folder') return this.name(i);
    return `${o.csv} row ${i + 1} (${this.names.get(i)})`;
  }

  /** Label id of `i` in {@link labels}, or -1. */
  labelId(i: number): number {
    if (this.origin.type === 'folder') return this.folderLabel[this.run(i)] as number;
    return this.labelIds.get(i);
  }

  /** Label text of `i`, or undefined. */
  label(i: number): string | undefined {
    const id = this.labelId(i);
    return id < 0 ? undefined : this.labels.values[id];
  }

  /** Group id of `i` in {@link groups}, or -1. */
  groupId(i: number): number {
    return this.groupIds ? (this.groupIds[i] as number) : -1;
  }

  /** Set sample `i`'s group (a DICOM patient). */
  setGroup(i: number, group: string): void {
    this.groupIds ??= new Int32Array(this.count).fill(-1);
    this.groupIds[i] = this.groups.id(group);
  }

  /** Tabular fields and kept DICOM tags of `i` as JSON text (the `.json` member), or '' when it has none. */
  fields(i: number): string {
    const own = this.hasFields ? this.fieldText.get(i) : '';
    const kept = this.keptTags.get(i);
    if (kept === undefined) return own;
    return own === '' ? kept : JSON.stringify({ ...JSON.parse(own), ...JSON.parse(kept) });
  }

  /** Add kept DICOM tags to `i`'s fields (`--keep-tags`; set while listing, before planning). */
  keep(i: number, tags: Record<string, string>): void {
    if (Object.keys(tags).length > 0) this.keptTags.set(i, JSON.stringify(tags));
  }
  /** Kept DICOM tags by sample (`--keep-tags` only): one entry per DICOM file that has any. */
  private readonly keptTags = new Map<number, string>();
}

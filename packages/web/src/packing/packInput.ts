import type { ShardManifestColumn } from '@medfusion/core';
import { readLabelledRows, sampleKey } from '@medfusion/core/internal';
import { CsvFormatError, parseManifest } from '../sources/csvManifest.js';
import type { LocalFile } from '../sources/dicom/localFiles.js';
import { PackFilesError } from './PackFilesError.js';

/** One sample to pack: an image file and what goes beside it (web's twin of the CLI's SampleInput). */
export interface PackSample {
  /** Sample key in the shards (member names are `<key>.<ext>`). */
  key: string;
  /** The image file. */
  blob: Blob;
  /** How errors name the sample: its path, or the CSV row and path. */
  source: string;
  /** Label text (`.cls` member), when the input has labels. */
  label?: string;
  /** Tabular fields (`.json` member). */
  fields?: Record<string, number | string>;
  /** `png` or `jpg`, once scanned. */
  kind?: 'png' | 'jpg';
  /** File size, once scanned. */
  size?: number;
  /** File sha256 (hex), once scanned. */
  sha256?: string;
}

/** The samples an input names, with its labels' type and tabular columns. */
export interface PackInput {
  /** Candidate samples, in order (CSV rows, or files by path). */
  samples: PackSample[];
  /** True when a CSV named them: a file that is not an image is then an error, not skipped. */
  fromCsv: boolean;
  /** Files of the input that no sample uses (CSV input). */
  unused: number;
  /** The label column and its type, when there are labels. */
  labels?: { column: string; type: 'number' | 'class' };
  /** The CSV's other columns (each sample's `.json`). */
  columns: ShardManifestColumn[];
}

/**
 * Paths relative to the picked folder: a `webkitdirectory` pick names every file
 * `<folder>/<path>`, so a first segment all paths share is left out.
 */
export function relativePaths(files: readonly LocalFile[]): string[] {
  const paths = files.map((f) => f.path.replace(/\\/g, '/'));
  const first = paths[0]?.split('/')[0];
  const shared =
    first !== undefined && paths.every((p) => p.includes('/') && p.split('/')[0] === first);
  return shared ? paths.map((p) => p.slice((first as string).length + 1)) : paths;
}

/** The samples of a folder: every file (images are found when scanned), labelled by folder on request. */
export function folderInput(
  files: readonly LocalFile[],
  folderLabels: boolean,
  hash: (text: string) => string,
): PackInput {
  const paths = relativePaths(files);
  const samples = files.map((f, i) => {
    const rel = paths[i] as string;
    const s: PackSample = { key: sampleKey(rel, hash), blob: f.blob, source: rel };
    const slash = rel.indexOf('/');
    if (folderLabels && slash > 0) s.label = rel.slice(0, slash);
    return s;
  });
  const input: PackInput = { samples, fromCsv: false, unused: 0, columns: [] };
  if (folderLabels) input.labels = { column: '(folder)', type: 'class' };
  return input;
}

/**
 * The samples a labels CSV names (the rules of `medfusion pack`'s CSV input):
 * labels are numbers when more than half are, and then a label that is not a
 * number is an error naming the row; a column is `number` when all its values
 * are. A row naming a file the input lacks, an empty image cell or a missing
 * label is a `PACK_INPUT` {@link PackFilesError} naming the CSV and the row
 * (row 1 is the first after the header).
 */
export function csvInput(
  csvText: string,
  csvName: string,
  files: readonly LocalFile[],
  options: { imageColumn: string; labelColumn: string },
  hash: (text: string) => string,
): PackInput {
  let header: string[];
  let rows: string[][];
  try {
    ({ header, rows } = parseManifest(csvText.replace(/^\uFEFF/, ''), csvName));
  } catch (error) {
    if (error instanceof CsvFormatError) {
      throw new PackFilesError('PACK_INPUT', csvName, error.message, { cause: error });
    }
    throw error;
  }
  const fail = (message: string): never => {
    throw new PackFilesError('PACK_INPUT', csvName, message);
  };
  const read = readLabelledRows(header, rows, options, fail, 'set imageColumn');
  const paths = relativePaths(files);
  const byPath = new Map<string, LocalFile>();
  files.forEach((f, i) => {
    byPath.set(paths[i] as string, f);
  });
  const used = new Set<string>();
  const samples = read.rows.map((row, i) => {
    const rel = row.image
      .replace(/\\/g, '/')
      .split('/')
      .filter((p) => p !== '' && p !== '.')
      .join('/');
    const file = byPath.get(rel);
    if (!file) fail(`row ${i + 1} names ${row.image}, which is not among the picked files`);
    used.add(rel);
    const s: PackSample = {
      key: sampleKey(rel, hash),
      blob: (file as LocalFile).blob,
      source: `${csvName} row ${i + 1} (${row.image})`,
    };
    if (row.label !== undefined) s.label = row.label;
    if (row.fields) s.fields = row.fields;
    return s;
  });
  const { columns, labelType } = read;
  const input: PackInput = { samples, fromCsv: true, unused: files.length - used.size, columns };
  if (labelType) input.labels = { column: options.labelColumn, type: labelType };
  return input;
}

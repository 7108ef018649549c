import type { ShardManifestColumn } from '@medfusion/core';
import { DEFAULT_MISSING_VALUES, sampleKey } from '@medfusion/core/internal';
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

const MISSING = new Set(DEFAULT_MISSING_VALUES);

function isNumber(cell: string): boolean {
  const t = cell.trim();
  return t !== '' && Number.isFinite(Number(t));
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
  const imageAt = header.indexOf(options.imageColumn);
  if (imageAt < 0) {
    throw new PackFilesError(
      'PACK_INPUT',
      csvName,
      `no image column "${options.imageColumn}" (columns: ${header.join(', ')}); set imageColumn`,
    );
  }
  const labelAt = header.indexOf(options.labelColumn);
  if (rows.length === 0)
    throw new PackFilesError('PACK_INPUT', csvName, 'no rows after the header');
  let labelType: 'number' | 'class' | undefined;
  if (labelAt >= 0) {
    const present = rows.filter((r) => !MISSING.has((r[labelAt] as string).trim()));
    const numeric = present.filter((r) => isNumber(r[labelAt] as string)).length;
    labelType = numeric * 2 > present.length ? 'number' : 'class';
  }
  const columns: ShardManifestColumn[] = [];
  header.forEach((name, c) => {
    if (c === imageAt || c === labelAt) return;
    const values = rows.map((r) => r[c] as string).filter((v) => !MISSING.has(v.trim()));
    columns.push({ name, type: values.length > 0 && values.every(isNumber) ? 'number' : 'string' });
  });
  const paths = relativePaths(files);
  const byPath = new Map<string, LocalFile>();
  files.forEach((f, i) => {
    byPath.set(paths[i] as string, f);
  });
  const used = new Set<string>();
  const samples = rows.map((row, i) => {
    const cell = (row[imageAt] as string).trim();
    const rel = cell
      .replace(/\\/g, '/')
      .split('/')
      .filter((p) => p !== '' && p !== '.')
      .join('/');
    if (rel === '') {
      throw new PackFilesError('PACK_INPUT', csvName, `row ${i + 1}: the image column is empty`);
    }
    const file = byPath.get(rel);
    if (!file) {
      throw new PackFilesError(
        'PACK_INPUT',
        csvName,
        `row ${i + 1} names ${cell}, which is not among the picked files`,
      );
    }
    used.add(rel);
    const s: PackSample = {
      key: sampleKey(rel, hash),
      blob: file.blob,
      source: `${csvName} row ${i + 1} (${cell})`,
    };
    if (labelAt >= 0) {
      const label = (row[labelAt] as string).trim();
      if (MISSING.has(label)) {
        throw new PackFilesError(
          'PACK_INPUT',
          csvName,
          `row ${i + 1} (${cell}): no label in column "${options.labelColumn}"`,
        );
      }
      if (labelType === 'number' && !isNumber(label)) {
        throw new PackFilesError(
          'PACK_INPUT',
          csvName,
          `row ${i + 1} (${cell}): label "${label}" is not a number, and the other labels in column "${options.labelColumn}" are numbers`,
        );
      }
      s.label = labelType === 'number' ? String(Number(label)) : label;
    }
    if (columns.length > 0) {
      const fields: Record<string, number | string> = {};
      for (const col of columns) {
        const v = (row[header.indexOf(col.name)] as string).trim();
        if (MISSING.has(v)) continue;
        fields[col.name] = col.type === 'number' ? Number(v) : v;
      }
      s.fields = fields;
    }
    return s;
  });
  const input: PackInput = { samples, fromCsv: true, unused: files.length - used.size, columns };
  if (labelType) input.labels = { column: options.labelColumn, type: labelType };
  return input;
}

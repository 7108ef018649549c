import { readFile } from 'node:fs/promises';
import { dirname, relative, resolve, sep } from 'node:path';
import type { ShardManifestColumn } from '@medfusion/core';
import { DEFAULT_MISSING_VALUES } from '@medfusion/core/internal';
import Papa from 'papaparse';
import { PackError } from '../PackError.js';
import type { SampleInput } from './SampleInput.js';
import { sampleKey } from './sampleKey.js';

/** Cells that mean "no value" (CsvImageDataset's default `missingValues`). */
const MISSING = new Set(DEFAULT_MISSING_VALUES);

/** Options of {@link collectCsv}. */
export interface CsvInputOptions {
  /** Folder the image column is relative to. @default the CSV's folder */
  images?: string;
  /** Column naming the image file. @default 'image' */
  imageColumn: string;
  /** Column holding the label ('' for none). @default 'label' */
  labelColumn: string;
}

/** The samples a CSV names, with its label type and columns. */
export interface CsvInput {
  /** One sample per row, in row order. */
  samples: SampleInput[];
  /** Whether labels are numbers or class names; undefined without a label column. */
  labelType?: 'number' | 'class';
  /** The other columns (tabular data stored in each sample's `.json`). */
  columns: ShardManifestColumn[];
}

function isNumber(cell: string): boolean {
  const t = cell.trim();
  return t !== '' && Number.isFinite(Number(t));
}

/**
 * Read a labels CSV (the one CsvImageDataset reads: a header row, an image
 * column, a label column, tabular columns): one sample per row. Labels are
 * numbers when more than half of them are (as CsvImageDataset's `'auto'`);
 * then a label that is not a number is an error naming the row. A column is
 * `number` when every value in it is one. Errors are `PACK_INPUT` PackErrors
 * naming the CSV and the row (row 1 is the first row after the header).
 */
export async function collectCsv(csvPath: string, options: CsvInputOptions): Promise<CsvInput> {
  const text = (await readFile(csvPath, 'utf8')).replace(/^\uFEFF/, '');
  const parsed = Papa.parse<string[]>(text, { skipEmptyLines: 'greedy' });
  const fatal = parsed.errors.find((e) => e.type !== 'Delimiter');
  if (fatal) {
    throw new PackError('PACK_INPUT', csvPath, `row ${fatal.row ?? '?'}: ${fatal.message}`);
  }
  const rows = parsed.data;
  const header = (rows.shift() ?? []).map((h) => h.trim());
  const imageAt = header.indexOf(options.imageColumn);
  if (imageAt < 0) {
    throw new PackError(
      'PACK_INPUT',
      csvPath,
      `no image column "${options.imageColumn}" (columns: ${header.join(', ')}); pass --image-column`,
    );
  }
  const labelAt = options.labelColumn ? header.indexOf(options.labelColumn) : -1;
  if (options.labelColumn && labelAt < 0 && options.labelColumn !== 'label') {
    throw new PackError(
      'PACK_INPUT',
      csvPath,
      `no label column "${options.labelColumn}" (columns: ${header.join(', ')})`,
    );
  }
  if (rows.length === 0) throw new PackError('PACK_INPUT', csvPath, 'no rows after the header');
  for (const [i, row] of rows.entries()) {
    if (row.length !== header.length) {
      throw new PackError(
        'PACK_INPUT',
        csvPath,
        `row ${i + 1} has ${row.length} fields, the header ${header.length}`,
      );
    }
  }
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
  const base = resolve(options.images ?? dirname(csvPath));
  const samples = rows.map((row, i) => {
    const cell = (row[imageAt] as string).trim();
    const where = `${csvPath} row ${i + 1}`;
    if (cell === '')
      throw new PackError('PACK_INPUT', csvPath, `row ${i + 1}: the image column is empty`);
    const path = resolve(base, cell);
    const rel = relative(base, path).split(sep).join('/');
    const sample: SampleInput = { key: sampleKey(rel), path, source: `${where} (${cell})` };
    if (labelAt >= 0) {
      const label = (row[labelAt] as string).trim();
      if (MISSING.has(label)) {
        throw new PackError(
          'PACK_INPUT',
          csvPath,
          `row ${i + 1} (${cell}): no label in column "${options.labelColumn}"`,
        );
      }
      if (labelType === 'number' && !isNumber(label)) {
        throw new PackError(
          'PACK_INPUT',
          csvPath,
          `row ${i + 1} (${cell}): label "${label}" is not a number, and the other labels in column "${options.labelColumn}" are numbers`,
        );
      }
      sample.label = labelType === 'number' ? String(Number(label)) : label;
    }
    if (columns.length > 0) {
      const fields: Record<string, number | string> = {};
      for (const col of columns) {
        const v = (row[header.indexOf(col.name)] as string).trim();
        if (MISSING.has(v)) continue;
        fields[col.name] = col.type === 'number' ? Number(v) : v;
      }
      sample.fields = fields;
    }
    return sample;
  });
  const result: CsvInput = { samples, columns };
  if (labelType) result.labelType = labelType;
  return result;
}

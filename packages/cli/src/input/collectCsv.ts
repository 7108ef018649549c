import { readFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import type { ShardManifestColumn } from '@medfusion/core';
import { readLabelledRows } from '@medfusion/core/internal';
import Papa from 'papaparse';
import { PackError } from '../PackError.js';
import { SampleTable } from './SampleTable.js';

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
  samples: SampleTable;
  /** Whether labels are numbers or class names; undefined without a label column. */
  labelType?: 'number' | 'class';
  /** The other columns (tabular data stored in each sample's `.json`). */
  columns: ShardManifestColumn[];
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
  if (
    options.labelColumn &&
    options.labelColumn !== 'label' &&
    !header.includes(options.labelColumn)
  ) {
    throw new PackError(
      'PACK_INPUT',
      csvPath,
      `no label column "${options.labelColumn}" (columns: ${header.join(', ')})`,
    );
  }
  const fail = (message: string): never => {
    throw new PackError('PACK_INPUT', csvPath, message);
  };
  const read = readLabelledRows(header, rows, options, fail, 'pass --image-column');
  const base = resolve(options.images ?? dirname(csvPath));
  const samples = new SampleTable({ type: 'csv', csv: csvPath, base });
  for (const row of read.rows) samples.add(row.image, row.label, row.fields);
  samples.seal();
  const { columns, labelType } = read;
  const result: CsvInput = { samples, columns };
  if (labelType) result.labelType = labelType;
  return result;
}

import { DEFAULT_MISSING_VALUES } from '../util/missingValues.js';
import type { ShardManifestColumn } from './shardManifest.js';

/** Cells that mean "no value" (CsvImageDataset's default `missingValues`). */
const MISSING = new Set(DEFAULT_MISSING_VALUES);

function isNumber(cell: string): boolean {
  const t = cell.trim();
  return t !== '' && Number.isFinite(Number(t));
}

/** One row of a labels CSV as the packers read it. */
export interface LabelledRow {
  /** The image cell, trimmed (a path relative to the images' folder). */
  image: string;
  /** The label text (a number's canonical text when labels are numbers). */
  label?: string;
  /** The other columns' values (numbers where the column is `number`); missing cells left out. */
  fields?: Record<string, number | string>;
}

/** A labels CSV read by {@link readLabelledRows}. */
export interface LabelledRows {
  /** One entry per row, in order. */
  rows: LabelledRow[];
  /** Whether labels are numbers or class names; undefined without a label column. */
  labelType?: 'number' | 'class';
  /** The other columns and their types (each sample's `.json`). */
  columns: ShardManifestColumn[];
}

/**
 * Read a labels CSV's parsed `header` and `rows` by the rules both packers
 * (`medfusion pack`, web's `packFiles`) and CsvImageDataset share: one sample per
 * row; labels are numbers when more than half of the present ones are (`'auto'`),
 * and then a label that is not a number is an error naming the row; a column is
 * `number` when every value in it is one. An absent label column means no labels.
 * Every problem goes to `fail` with a message naming the row (row 1 is the first
 * after the header) or the column; `imageHint` ends the missing-image-column
 * message (how to name another column).
 */
export function readLabelledRows(
  header: readonly string[],
  rows: readonly (readonly string[])[],
  options: { imageColumn: string; labelColumn: string },
  fail: (message: string) => never,
  imageHint: string,
): LabelledRows {
  const imageAt = header.indexOf(options.imageColumn);
  if (imageAt < 0) {
    fail(`no image column "${options.imageColumn}" (columns: ${header.join(', ')}); ${imageHint}`);
  }
  const labelAt = options.labelColumn ? header.indexOf(options.labelColumn) : -1;
  if (rows.length === 0) fail('no rows after the header');
  for (const [i, row] of rows.entries()) {
    if (row.length !== header.length) {
      fail(`row ${i + 1} has ${row.length} fields, the header ${header.length}`);
    }
  }
  let labelType: 'number' | 'class' | undefined;
  if (labelAt >= 0) {
    const present = rows.filter((r) => !MISSING.has((r[labelAt] as string).trim()));
    const numeric = present.filter((r) => isNumber(r[labelAt] as string)).length;
    labelType = numeric * 2 > present.length ? 'number' : 'class';
  }
  const columns: ShardManifestColumn[] = [];
  const columnAt: number[] = [];
  header.forEach((name, c) => {
    if (c === imageAt || c === labelAt) return;
    const values = rows.map((r) => r[c] as string).filter((v) => !MISSING.has(v.trim()));
    columns.push({ name, type: values.length > 0 && values.every(isNumber) ? 'number' : 'string' });
    columnAt.push(c);
  });
  const out = rows.map((row, i) => {
    const image = (row[imageAt] as string).trim();
    if (image === '') fail(`row ${i + 1}: the image column is empty`);
    const r: LabelledRow = { image };
    if (labelAt >= 0) {
      const label = (row[labelAt] as string).trim();
      if (MISSING.has(label)) {
        fail(`row ${i + 1} (${image}): no label in column "${options.labelColumn}"`);
      }
      if (labelType === 'number' && !isNumber(label)) {
        fail(
          `row ${i + 1} (${image}): label "${label}" is not a number, and the other labels in column "${options.labelColumn}" are numbers`,
        );
      }
      r.label = labelType === 'number' ? String(Number(label)) : label;
    }
    if (columns.length > 0) {
      const fields: Record<string, number | string> = {};
      columns.forEach((col, k) => {
        const v = (row[columnAt[k] as number] as string).trim();
        if (!MISSING.has(v)) fields[col.name] = col.type === 'number' ? Number(v) : v;
      });
      r.fields = fields;
    }
    return r;
  });
  const result: LabelledRows = { rows: out, columns };
  if (labelType) result.labelType = labelType;
  return result;
}

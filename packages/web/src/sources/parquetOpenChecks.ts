import {
  abortSignal,
  arrayOf,
  fn,
  object,
  positiveInt,
  showValue,
  string,
  withDefault,
} from '@medfusion/core/internal';
import type { FileMetaData } from 'hyparquet';
import { resolveHttpOptions } from '../remote/httpOptions.js';
import type { ParquetLimits } from './parquetChecks.js';
import type { ParquetColumns, ParquetSourceOptions } from './parquetOptions.js';

// The checks `ParquetSource.open` makes of its options, and of the configured columns once
// the footer is read.

/** The options of `ParquetSource.open` checked, with defaults filled in. */
export interface CheckedParquetOptions {
  /** The configured columns. */
  columns: ParquetColumns;
  /** Row groups kept decoded (`rowGroupCache`). */
  cacheSize: number;
  /** Rows of the plan whose row groups are read early. */
  lookahead: number;
  /** The caps on what the file may claim. */
  limits: ParquetLimits;
}

/** Check `options` (a TypeError or RangeError naming the option and value), defaults filled in. */
export function checkParquetOptions<T>(options: ParquetSourceOptions<T>): CheckedParquetOptions {
  object('options', options, 'an object with url and columns');
  const columns = object('columns', options.columns, 'an object like { image, tabular, label }');
  withDefault('columns.image', columns.image, undefined, string);
  withDefault('columns.label', columns.label, undefined, string);
  withDefault('columns.tabular', columns.tabular, undefined, (n, v) =>
    arrayOf(n, v, string, 'an array of column names'),
  );
  withDefault('transform', options.transform, undefined, fn);
  withDefault('signal', options.signal, undefined, abortSignal);
  resolveHttpOptions(options);
  const cacheSize = withDefault('rowGroupCache', options.rowGroupCache, 4, positiveInt);
  const lookahead = withDefault('lookahead', options.lookahead, 256, positiveInt);
  const limits: ParquetLimits = {
    maxRowGroupRows: withDefault('maxRowGroupRows', options.maxRowGroupRows, 2 ** 20, positiveInt),
    maxPageBytes: withDefault('maxPageBytes', options.maxPageBytes, 2 ** 27, positiveInt),
  };
  return { columns, cacheSize, lookahead, limits };
}

/** Every configured column is a column of the file at `url` (a RangeError naming it otherwise). */
export function checkColumnNames(
  metadata: FileMetaData,
  columns: ParquetColumns,
  url: string,
): void {
  const names = new Set(metadata.schema.slice(1).map((e) => e.name));
  for (const [role, name] of [
    ['image', columns.image],
    ['label', columns.label],
    ...(columns.tabular ?? []).map((n, i) => [`tabular[${i}]`, n]),
  ] as [string, string | undefined][]) {
    if (name !== undefined && !names.has(name)) {
      throw new RangeError(
        `columns.${role} ${showValue(name)} is not a column of ${url} (has ${[...names].join(', ')})`,
      );
    }
  }
}

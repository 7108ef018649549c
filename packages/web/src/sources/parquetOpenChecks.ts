import { positiveInt } from '@medfusion/core/internal';
import type { FileMetaData } from 'hyparquet';
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
  if (options === null || typeof options !== 'object') {
    throw new TypeError(`options must be an object with url and columns, got ${String(options)}`);
  }
  const columns = options.columns;
  if (columns === null || typeof columns !== 'object') {
    throw new TypeError(
      `columns must be an object like { image, tabular, label }, got ${String(columns)}`,
    );
  }
  if (columns.tabular !== undefined && !Array.isArray(columns.tabular)) {
    throw new TypeError(
      `columns.tabular must be an array of column names, got ${String(columns.tabular)}`,
    );
  }
  const cacheSize = options.rowGroupCache ?? 4;
  if (!Number.isInteger(cacheSize) || cacheSize < 1) {
    throw new RangeError(`rowGroupCache must be a positive integer, got ${String(cacheSize)}`);
  }
  const lookahead = options.lookahead ?? 256;
  if (!Number.isInteger(lookahead) || lookahead < 1) {
    throw new RangeError(`lookahead must be a positive integer, got ${String(lookahead)}`);
  }
  const limits: ParquetLimits = {
    maxRowGroupRows: positiveInt('maxRowGroupRows', options.maxRowGroupRows ?? 2 ** 20),
    maxPageBytes: positiveInt('maxPageBytes', options.maxPageBytes ?? 2 ** 27),
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
        `columns.${role} ${JSON.stringify(name)} is not a column of ${url} (has ${[...names].join(', ')})`,
      );
    }
  }
}

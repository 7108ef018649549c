/**
 * Checks of the sizes a Parquet file claims (web-internal), made before hyparquet
 * allocates anything for them: row counts and column-chunk ranges when the footer is
 * read, page headers before a row group is decoded. Each goes through the one
 * untrusted-size check of core, so the errors are `SizeLimitError`s naming the file.
 */
import { MedFusionError } from '@medfusion/core';
import { checkUntrustedSize } from '@medfusion/core/internal';
import { type ColumnMetaData, type FileMetaData, parquetSchema, type SchemaTree } from 'hyparquet';
import { parquetHeader } from 'hyparquet/src/column.js';
import { SourceFormatError } from '../remote/RemoteError.js';

/** A parser's own error (thrift, DataView, "Invalid array length") as a typed one naming the file. */
export function formatError(error: unknown, what: string): unknown {
  if (error instanceof MedFusionError || (error as { name?: unknown })?.name === 'AbortError') {
    return error;
  }
  const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return new SourceFormatError(`${what}: ${message}`, { cause: error });
}

/** The caps of {@link ParquetSourceOptions} that bound what a file may claim. */
export interface ParquetLimits {
  /** Rows one row group may claim. */
  maxRowGroupRows: number;
  /** Uncompressed bytes one page may claim. */
  maxPageBytes: number;
}

/** Byte range `[start, end)` of a column chunk, as hyparquet reads it. */
export function chunkRange(m: ColumnMetaData): { start: number; end: number } {
  const start = Number(m.dictionary_page_offset || m.data_page_offset);
  return { start, end: start + Number(m.total_compressed_size) };
}

/** A chunk's column name as the configured columns name it (its top-level field). */
export function chunkColumn(m: ColumnMetaData): string {
  return m.path_in_schema[0] as string;
}

/** Whether the leaf at `path` sits under a REPEATED field (a list): more values than rows. */
function isRepeated(tree: SchemaTree, path: readonly string[]): boolean {
  let node: SchemaTree | undefined = tree;
  for (const name of path) {
    node = node.children.find((c) => c.element.name === name);
    if (!node) return false;
    if (node.element.repetition_type === 'REPEATED') return true;
  }
  return false;
}

/**
 * At open, from the footer alone: every row group's row count against `maxRowGroupRows`,
 * and the byte range of every chunk of the `read` columns against the file's size.
 */
export function checkParquetMetadata(
  metadata: FileMetaData,
  url: string,
  fileSize: number,
  read: ReadonlySet<string>,
  limits: ParquetLimits,
): void {
  metadata.row_groups.forEach((group, g) => {
    checkUntrustedSize(`row group ${g} of ${url}`, group.num_rows, {
      cap: limits.maxRowGroupRows,
      capName: 'maxRowGroupRows',
      unit: 'rows',
    });
    for (const chunk of group.columns) {
      const m = chunk.meta_data;
      if (!m || !read.has(chunkColumn(m))) continue;
      const what = `column ${m.path_in_schema.join('.')} of row group ${g} of ${url}`;
      const start = checkUntrustedSize(
        `${what} (its offset)`,
        m.dictionary_page_offset || m.data_page_offset,
        { actual: fileSize, actualName: 'the file size' },
      );
      checkUntrustedSize(what, m.total_compressed_size, {
        actual: fileSize - start,
        actualName: `the bytes after its offset ${start}`,
      });
    }
  });
}

/** Most bytes `compressed` Snappy bytes can expand to: a 3-byte copy element yields 64. */
function snappyBound(compressed: number): number {
  return Math.ceil((compressed * 64) / 3);
}

/**
 * Before row group `g` is decoded: walk the page headers of each chunk of the `read`
 * columns in `bytes` (the file's bytes from offset `at`), checking each page's compressed
 * size against the bytes left in its chunk, its uncompressed size against `maxPageBytes`
 * and what its codec can expand to, and its value counts against the group's rows (the
 * cap for list columns).
 */
export function checkRowGroupPages(
  metadata: FileMetaData,
  g: number,
  url: string,
  bytes: Uint8Array,
  at: number,
  read: ReadonlySet<string>,
  limits: ParquetLimits,
): void {
  const group = metadata.row_groups[g] as FileMetaData['row_groups'][number];
  const groupRows = Number(group.num_rows);
  let tree: SchemaTree | undefined;
  for (const chunk of group.columns) {
    const m = chunk.meta_data;
    if (!m || !read.has(chunkColumn(m))) continue;
    tree ??= parquetSchema(metadata);
    const column = m.path_in_schema.join('.');
    const { start, end } = chunkRange(m);
    if (start < at || end > at + bytes.length) continue; // not in these bytes: hyparquet reads it
    const view = new DataView(bytes.buffer, bytes.byteOffset + start - at, end - start);
    const reader = { view, offset: 0 };
    const repeated = isRepeated(tree, m.path_in_schema);
    const maxValues = repeated ? limits.maxRowGroupRows : groupRows;
    const valuesName = repeated ? 'maxRowGroupRows (a list column)' : 'the rows of its row group';
    let values = 0;
    for (let p = 0; reader.offset < view.byteLength - 1; p++) {
      const what = `page ${p} of column ${column} in row group ${g} of ${url}`;
      let h: ReturnType<typeof parquetHeader>;
      try {
        h = parquetHeader(reader);
      } catch (error) {
        throw new SourceFormatError(`${what} has a malformed header: ${String(error)}`, {
          cause: error,
        });
      }
      const compressed = checkUntrustedSize(what, h.compressed_page_size, {
        actual: view.byteLength - reader.offset,
        actualName: 'the bytes left in its column chunk',
      });
      checkUntrustedSize(`${what} (uncompressed)`, h.uncompressed_page_size, {
        cap: limits.maxPageBytes,
        capName: 'maxPageBytes',
        ...(m.codec === 'SNAPPY'
          ? {
              actual: snappyBound(compressed),
              actualName: `what ${compressed} Snappy bytes expand to`,
            }
          : m.codec === 'UNCOMPRESSED'
            ? { actual: compressed, actualName: 'its stored size (codec UNCOMPRESSED)' }
            : {}),
      });
      const v2 = h.data_page_header_v2;
      if (v2) {
        checkUntrustedSize(
          `${what} (levels)`,
          v2.definition_levels_byte_length + v2.repetition_levels_byte_length,
          { actual: compressed, actualName: 'its stored size' },
        );
        checkUntrustedSize(`${what} (rows)`, v2.num_rows, {
          actual: groupRows,
          actualName: 'the rows of its row group',
          unit: 'rows',
        });
      }
      const count = h.data_page_header?.num_values ?? v2?.num_values;
      if (count !== undefined) values += count;
      const dictionary = h.dictionary_page_header?.num_values;
      for (const [w, n] of [
        [`column ${column} in row group ${g} of ${url} (values up to page ${p})`, values],
        [`${what} (dictionary)`, dictionary ?? 0],
      ] as const) {
        checkUntrustedSize(w, n, { actual: maxValues, actualName: valuesName, unit: 'values' });
      }
      reader.offset += compressed;
    }
    if (!repeated) {
      // One value per row in a column that is not a list: the pages must hold every row.
      checkUntrustedSize(`row group ${g} of ${url}`, groupRows, {
        actual: values,
        actualName: `the values its column ${column} holds`,
        unit: 'rows',
      });
    }
  }
}

import { MedFusionError } from '@medfusion/core';
import { throwIfAborted } from '@medfusion/core/internal';
import Papa from 'papaparse';
import type { HttpOptions } from '../../remote/RangeReader.js';
import { SourceFormatError } from '../../remote/RemoteError.js';
import type { UrlScope } from '../../remote/urlPolicy.js';
import { fetchObject } from './fetchObject.js';

/** The manifest of a DicomSource, resolved: one entry per file. */
export interface DicomManifest {
  /** Absolute file URLs, in row order. */
  urls: string[];
  /** Labels (NaN when the manifest has no label column). */
  labels: Float64Array;
  /** Names of the tabular columns. */
  columns: string[];
  /** Row-major values of the tabular columns. */
  values: Float32Array;
  /** Frame counts from the frames column, when it has one. */
  frames: number[] | undefined;
}

/** Manifest column names, as given in the options. */
export interface ManifestColumns {
  urlColumn: string;
  labelColumn: string;
  framesColumn: string;
  tabularColumns: readonly string[] | undefined;
}

function isNumber(v: unknown): boolean {
  return (
    (typeof v === 'number' && Number.isFinite(v)) ||
    (typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v)))
  );
}

/** Rows of a CSV (by header) or JSON (an array of objects) manifest. */
function parseRows(text: string, url: string): Record<string, unknown>[] {
  const t = text.trimStart();
  if (t.startsWith('[') || t.startsWith('{')) {
    let rows: unknown;
    try {
      rows = JSON.parse(t);
    } catch (error) {
      throw new SourceFormatError(`manifest ${url} is not valid JSON: ${String(error)}`, {
        cause: error,
      });
    }
    if (
      !Array.isArray(rows) ||
      !rows.every((r) => r !== null && typeof r === 'object' && !Array.isArray(r))
    ) {
      throw new SourceFormatError(`manifest ${url} must be a JSON array of objects`);
    }
    return rows as Record<string, unknown>[];
  }
  const parsed = Papa.parse<Record<string, string>>(text, {
    header: true,
    skipEmptyLines: 'greedy',
    transformHeader: (h) => h.trim(),
  });
  const fatal = parsed.errors.find((e) => e.type !== 'Delimiter');
  if (fatal)
    throw new SourceFormatError(`manifest ${url}, row ${fatal.row ?? '?'}: ${fatal.message}`);
  return parsed.data;
}

/**
 * Fetch and resolve a manifest (through a RangeReader: timeouts, retries, the origin limit,
 * `signUrl`); URLs go through `scope` (the urlPolicy).
 */
export async function loadManifest(
  url: string,
  http: HttpOptions,
  scope: UrlScope,
  columns: ManifestColumns,
  signal: AbortSignal | undefined,
): Promise<DicomManifest> {
  let text: string;
  try {
    text = new TextDecoder().decode(await fetchObject(url, http, signal));
  } catch (error) {
    throwIfAborted(signal);
    throw new MedFusionError(
      'LOAD_FAILED',
      `fetching the manifest ${url} failed: ${String(error)}`,
      {
        cause: error,
      },
    );
  }
  const rows = parseRows(text, url);
  if (rows.length === 0) throw new SourceFormatError(`manifest ${url} has no rows`);
  const first = rows[0] as Record<string, unknown>;
  const { urlColumn, labelColumn, framesColumn } = columns;
  if (!(urlColumn in first)) {
    throw new SourceFormatError(
      `manifest ${url} has no ${JSON.stringify(urlColumn)} column (set urlColumn; columns: ${Object.keys(first).join(', ')})`,
    );
  }
  const tabular =
    columns.tabularColumns ??
    Object.keys(first).filter(
      (c) =>
        c !== urlColumn &&
        c !== labelColumn &&
        c !== framesColumn &&
        rows.every((r) => isNumber(r[c])),
    );
  for (const c of tabular) {
    if (!(c in first))
      throw new SourceFormatError(
        `tabularColumns names ${JSON.stringify(c)}, which is not a column of ${url}`,
      );
  }
  const n = rows.length;
  const urls = new Array<string>(n);
  const labels = new Float64Array(n).fill(Number.NaN);
  const values = new Float32Array(n * tabular.length);
  const frames = framesColumn in first ? new Array<number>(n) : undefined;
  for (let i = 0; i < n; i++) {
    const row = rows[i] as Record<string, unknown>;
    const ref = row[urlColumn];
    if (typeof ref !== 'string' || ref === '') {
      throw new SourceFormatError(`manifest ${url}, row ${i}: empty ${urlColumn}`);
    }
    urls[i] = scope.resolve(ref, `manifest row ${i}, column ${JSON.stringify(urlColumn)}`, i);
    if (labelColumn in row && isNumber(row[labelColumn])) labels[i] = Number(row[labelColumn]);
    for (let c = 0; c < tabular.length; c++) {
      const v = row[tabular[c] as string];
      if (!isNumber(v)) {
        throw new SourceFormatError(
          `manifest ${url}, row ${i}, column ${JSON.stringify(tabular[c])}: not a number`,
        );
      }
      values[i * tabular.length + c] = Number(v);
    }
    if (frames) {
      const f = Number(row[framesColumn]);
      if (!Number.isInteger(f) || f < 1) {
        throw new SourceFormatError(
          `manifest ${url}, row ${i}, column ${JSON.stringify(framesColumn)}: not a positive integer`,
        );
      }
      frames[i] = f;
    }
  }
  return { urls, labels, columns: [...tabular], values, frames };
}

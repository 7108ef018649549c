/**
 * Reading and parsing a CSV manifest (web-internal): the body as a stream with a cap on
 * line length, then papaparse into a header and rows of cells.
 */
import { MedFusionError } from '@medfusion/core';
import { checkUntrustedSize, registerErrorClass } from '@medfusion/core/internal';
import Papa from 'papaparse';

/** The manifest is malformed: a missing column, a non-numeric feature, no rows. */
export class CsvFormatError extends MedFusionError {
  constructor(message: string, index?: number) {
    super('CSV_FORMAT', message, index === undefined ? undefined : { index });
    this.name = 'CsvFormatError';
  }
}
registerErrorClass('CsvFormatError', CsvFormatError);

/**
 * The manifest as a header and rows of cells (arrays, not one object per row: a row of
 * 10^5 columns is one array, and columns are found by position). Header names are trimmed
 * and a repeated name gets a suffix (`name_1`) as papaparse's header mode gives it; a row
 * with fewer or more cells than the header is a CsvFormatError naming it.
 */
export function parseManifest(
  text: string,
  url: string,
): { url: string; header: string[]; rows: string[][] } {
  const parsed = Papa.parse<string[]>(text, { skipEmptyLines: 'greedy' });
  const fatal = parsed.errors.find((e) => e.type !== 'Delimiter');
  if (fatal) {
    throw new CsvFormatError(
      `manifest ${url}, row ${fatal.row === undefined ? '?' : fatal.row - 1}: ${fatal.message}`,
    );
  }
  const rows = parsed.data;
  const first = rows.shift() ?? [];
  const header = new Array<string>(first.length);
  const used = new Set(first.map((h) => h.trim()));
  const seen = new Map<string, number>();
  for (let k = 0; k < first.length; k++) {
    const name = (first[k] as string).replace(/^\uFEFF/, '').trim();
    let n = seen.get(name);
    if (n === undefined) {
      seen.set(name, 1);
      header[k] = name;
      continue;
    }
    let renamed: string;
    do renamed = `${name}_${n++}`;
    while (used.has(renamed));
    used.add(renamed);
    seen.set(name, n);
    header[k] = renamed;
  }
  for (let i = 0; i < rows.length; i++) {
    const cells = (rows[i] as string[]).length;
    if (cells !== header.length) {
      const how = cells < header.length ? 'Too few' : 'Too many';
      throw new CsvFormatError(
        `manifest ${url}, row ${i}: ${how} fields: expected ${header.length} fields but parsed ${cells}`,
      );
    }
  }
  return { url, header, rows };
}

/**
 * The text of a manifest response, read as a stream so a line longer than `maxLineBytes`
 * stops the read (and cancels the body) as soon as it passes the cap, with a
 * `SizeLimitError` naming the line and the URL: a 50 MB single-line file costs the cap,
 * not 50 MB plus the parser's copies. Web-internal.
 */
export async function readManifestText(
  res: Response,
  url: string,
  maxLineBytes: number,
): Promise<string> {
  const decoder = new TextDecoder();
  if (!res.body) {
    const text = await res.text();
    checkLines(new TextEncoder().encode(text), url, maxLineBytes, { line: 1, bytes: 0 });
    return text;
  }
  const reader = res.body.getReader();
  const parts: string[] = [];
  const at = { line: 1, bytes: 0 };
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      checkLines(value, url, maxLineBytes, at);
      parts.push(decoder.decode(value, { stream: true }));
    }
  } catch (error) {
    reader.cancel(error).catch(() => {});
    throw error;
  }
  parts.push(decoder.decode());
  return parts.join('');
}

/** Advance `at` (line number, bytes of the current line) over `chunk`; throw past the cap. */
function checkLines(
  chunk: Uint8Array,
  url: string,
  maxLineBytes: number,
  at: { line: number; bytes: number },
): void {
  let from = 0;
  for (;;) {
    const nl = chunk.indexOf(0x0a, from);
    const end = nl < 0 ? chunk.length : nl;
    at.bytes += end - from;
    if (at.bytes > maxLineBytes) {
      checkUntrustedSize(`line ${at.line} of the manifest ${url} (read so far)`, at.bytes, {
        cap: maxLineBytes,
        capName: 'maxLineBytes',
      });
    }
    if (nl < 0) return;
    at.line++;
    at.bytes = 0;
    from = nl + 1;
  }
}

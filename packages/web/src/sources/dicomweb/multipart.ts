import { SourceFormatError } from '../../remote/RemoteError.js';

/** One part of a multipart/related body. */
export interface MultipartPart {
  /** The part's Content-Type header ('' when absent). */
  contentType: string;
  /** The part's bytes (a view into the body). */
  body: Uint8Array;
}

/** The `boundary` parameter of a multipart Content-Type, or undefined. */
export function boundaryOf(contentType: string): string | undefined {
  const m = /;\s*boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType);
  return m ? (m[1] ?? m[2]) : undefined;
}

/** The `transfer-syntax` parameter anywhere in a Content-Type (Orthanc puts it inside the quoted `type=`). */
export function transferSyntaxOf(contentType: string): string | undefined {
  return /transfer-syntax=["']?([0-9.]+)/i.exec(contentType)?.[1];
}

function indexOf(haystack: Uint8Array, needle: Uint8Array, from: number): number {
  const first = needle[0] as number;
  const last = haystack.length - needle.length;
  outer: for (
    let i = haystack.indexOf(first, from);
    i !== -1 && i <= last;
    i = haystack.indexOf(first, i + 1)
  ) {
    for (let k = 1; k < needle.length; k++) if (haystack[i + k] !== needle[k]) continue outer;
    return i;
  }
  return -1;
}

const latin1 = new TextDecoder('latin1');

/**
 * Split a multipart/related body (RFC 2046, as DICOMweb WADO-RS sends frames)
 * into its parts. Tolerates a preamble, LF-only line ends and transport padding
 * after boundaries; throws `BAD_FORMAT` naming `where` (the instance and URL) when the
 * closing boundary is missing.
 */
export function parseMultipart(body: Uint8Array, boundary: string, where: string): MultipartPart[] {
  const fail = (message: string) => new SourceFormatError(`${where}: ${message}`);
  const delimiter = new TextEncoder().encode(`--${boundary}`);
  const parts: MultipartPart[] = [];
  let at = indexOf(body, delimiter, 0);
  if (at < 0) throw fail(`multipart body has no boundary ${boundary}`);
  for (;;) {
    let p = at + delimiter.length;
    if (body[p] === 0x2d && body[p + 1] === 0x2d) return parts; // "--": the closing boundary
    while (body[p] === 0x20 || body[p] === 0x09) p++;
    if (body[p] === 0x0d) p++;
    if (body[p] !== 0x0a) throw fail('multipart boundary not followed by a line end');
    p++;
    // headers end at an empty line
    let contentType = '';
    for (;;) {
      const eol = body.indexOf(0x0a, p);
      if (eol < 0) throw fail('multipart part headers never end');
      const line = latin1.decode(body.subarray(p, body[eol - 1] === 0x0d ? eol - 1 : eol));
      p = eol + 1;
      if (line === '') break;
      const m = /^content-type:\s*(.*)$/i.exec(line);
      if (m) contentType = (m[1] as string).trim();
    }
    const next = indexOf(body, delimiter, p);
    if (next < 0) throw fail('multipart body has no closing boundary');
    let end = next;
    if (body[end - 1] === 0x0a) end--;
    if (body[end - 1] === 0x0d) end--;
    parts.push({ contentType, body: body.subarray(p, Math.max(p, end)) });
    at = next;
  }
}

/**
 * Width and height of an encoded image read from its first bytes (web-internal), so a
 * pixel cap is checked before anything is decoded: PNG (IHDR), JPEG (the SOF marker),
 * GIF, WebP (VP8, VP8L, VP8X) and BMP. Undefined for other formats or too few bytes.
 */
export function imageSize(b: Uint8Array): { width: number; height: number } | undefined {
  const dv = new DataView(b.buffer, b.byteOffset, b.byteLength);
  const ascii = (at: number, s: string) =>
    b.length >= at + s.length && [...s].every((c, k) => b[at + k] === c.charCodeAt(0));
  if (b.length >= 24 && b[0] === 0x89 && ascii(1, 'PNG') && ascii(12, 'IHDR')) {
    return { width: dv.getUint32(16), height: dv.getUint32(20) };
  }
  if (b.length >= 10 && ascii(0, 'GIF8')) {
    return { width: dv.getUint16(6, true), height: dv.getUint16(8, true) };
  }
  if (b.length >= 26 && ascii(0, 'BM')) {
    return { width: Math.abs(dv.getInt32(18, true)), height: Math.abs(dv.getInt32(22, true)) };
  }
  if (b.length >= 30 && ascii(0, 'RIFF') && ascii(8, 'WEBP')) {
    if (ascii(12, 'VP8 ')) {
      return { width: dv.getUint16(26, true) & 0x3fff, height: dv.getUint16(28, true) & 0x3fff };
    }
    if (ascii(12, 'VP8L')) {
      const bits = dv.getUint32(21, true);
      return { width: (bits & 0x3fff) + 1, height: ((bits >>> 14) & 0x3fff) + 1 };
    }
    if (ascii(12, 'VP8X')) {
      const u24 = (at: number) => dv.getUint16(at, true) + ((b[at + 2] as number) << 16);
      return { width: u24(24) + 1, height: u24(27) + 1 };
    }
    return undefined;
  }
  if (b.length >= 4 && b[0] === 0xff && b[1] === 0xd8) return jpegSize(b, dv);
  return undefined;
}

/** Walk the JPEG markers to the first start-of-frame, which holds the size. */
function jpegSize(b: Uint8Array, dv: DataView): { width: number; height: number } | undefined {
  let i = 2;
  while (i + 9 <= b.length) {
    if (b[i] !== 0xff) return undefined;
    const marker = b[i + 1] as number;
    if (marker === 0xff) {
      i++; // fill byte
      continue;
    }
    const isFrame = marker >= 0xc0 && marker <= 0xcf && ![0xc4, 0xc8, 0xcc].includes(marker);
    if (isFrame) return { height: dv.getUint16(i + 5), width: dv.getUint16(i + 7) };
    if (marker === 0x01 || (marker >= 0xd0 && marker <= 0xd9)) i += 2;
    else i += 2 + dv.getUint16(i + 2);
  }
  return undefined;
}

/** The CRC-32 table (IEEE 802.3, reflected polynomial 0xEDB88320), built on first use. */
let table: Uint32Array | undefined;

/**
 * CRC-32 (IEEE, as zlib's `crc32` and PNG's chunk CRCs) of `bytes`, in
 * JavaScript for runtimes without zlib (browsers, workers).
 */
export function crc32(bytes: Uint8Array): number {
  if (!table) {
    table = new Uint32Array(256);
    for (let n = 0; n < 256; n++) {
      let c = n;
      for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
      table[n] = c >>> 0;
    }
  }
  let crc = 0xffffffff;
  for (let i = 0; i < bytes.length; i++) {
    crc = (table[(crc ^ (bytes[i] as number)) & 0xff] as number) ^ (crc >>> 8);
  }
  return (crc ^ 0xffffffff) >>> 0;
}

/**
 * sha256 of `data` as lowercase hex, with WebCrypto (`crypto.subtle`, present
 * in browsers on secure origins such as localhost, in workers and in Node 20).
 *
 * @example
 * await sha256Hex(new TextEncoder().encode('abc')); // 'ba7816bf…'
 */
export async function sha256Hex(data: Uint8Array | readonly Uint8Array[]): Promise<string> {
  let bytes: Uint8Array;
  if (data instanceof Uint8Array) bytes = data;
  else {
    let total = 0;
    for (const c of data) total += c.length;
    bytes = new Uint8Array(total);
    let at = 0;
    for (const c of data) {
      bytes.set(c, at);
      at += c.length;
    }
  }
  const subtle = globalThis.crypto?.subtle;
  if (!subtle) {
    throw new TypeError(
      'sha256 needs WebCrypto (crypto.subtle): serve the page over https or localhost',
    );
  }
  const digest = await subtle.digest('SHA-256', bytes as Uint8Array<ArrayBuffer>);
  let hex = '';
  for (const b of new Uint8Array(digest)) hex += b.toString(16).padStart(2, '0');
  return hex;
}

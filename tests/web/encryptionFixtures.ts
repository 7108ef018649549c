// Shared by the store encryption and retention tests: a fresh key, a value whose bytes are
// easy to search for on disk, and the search.

/** A fresh non-extractable AES-GCM key, as an app would pass it. */
export const newKey = (): Promise<CryptoKey> =>
  crypto.subtle.generateKey({ name: 'AES-GCM', length: 256 }, false, ['encrypt', 'decrypt']);

/** A recognizable value: "PATIENT-PIXELS" repeated, `n` bytes. */
export function pattern(n: number): Uint8Array {
  const word = new TextEncoder().encode('PATIENT-PIXELS');
  return new Uint8Array(n).map((_, i) => word[i % word.length]!);
}

/** Whether `needle` occurs in `hay`. */
export function contains(hay: Uint8Array, needle: Uint8Array): boolean {
  outer: for (let i = 0; i + needle.length <= hay.length; i++) {
    for (let j = 0; j < needle.length; j++) if (hay[i + j] !== needle[j]) continue outer;
    return true;
  }
  return false;
}

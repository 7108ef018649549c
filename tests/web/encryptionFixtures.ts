// Shared by the store encryption and retention tests: a fresh key, a value whose bytes are
// easy to search for on disk, and the search (tests/stores/rawBytes.ts).
import { containsBytes, textValue } from '../stores/rawBytes';

/** A fresh non-extractable AES-GCM key, as an app would pass it. */
export const newKey = (): Promise<CryptoKey> =>
  crypto.subtle.generateKey({ name: 'AES-GCM', length: 256 }, false, ['encrypt', 'decrypt']);

/** A recognizable value: "PATIENT-PIXELS" repeated, `n` bytes. */
export const pattern = (n: number): Uint8Array => textValue('PATIENT-PIXELS', n);

/** Whether `needle` occurs in `hay`. */
export const contains = (hay: Uint8Array, needle: Uint8Array): boolean =>
  containsBytes([hay], needle);

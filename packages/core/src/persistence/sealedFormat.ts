// The format of a value sealed at rest (encryption at rest), one for every store that seals:
// web's OpfsStore and IdbStore (WebCrypto) and node's LmdbStore (node:crypto) write and read the
// same bytes. A sealed value is `[version u8 = 1 | nonce 12 | ciphertext | tag 16]`, AES-GCM with
// a 96-bit nonce and a 128-bit tag; its additional data binds the record's store key.

/** Format byte first in every sealed value: version 1 = AES-GCM, 96-bit nonce, 128-bit tag. */
export const SEALED_V1 = 1;
/** Bytes of a sealed value's nonce. */
export const NONCE_BYTES = 12;
/** Bytes of a sealed value's GCM tag. */
export const TAG_BYTES = 16;
/** Bytes a sealed value adds to its plaintext: version, nonce, tag. */
export const SEALED_OVERHEAD = 1 + NONCE_BYTES + TAG_BYTES;

const enc = new TextEncoder();

/** The additional data a value stored under `key` is sealed with: `"medfusion-record-v1\0" + key`. */
export function sealedAad(key: string): Uint8Array<ArrayBuffer> {
  return enc.encode(`medfusion-record-v1\0${key}`) as Uint8Array<ArrayBuffer>;
}

/** Counters every encrypting store reports in its `usage()`. */
export interface EncryptionUsage {
  /**
   * Records no key could open (another key, moved from another store key, a
   * flipped byte, truncated, an altered tag): dropped and read as misses.
   */
  undecryptable: number;
  /** Records sealed with a previous key, written again under `encryptionKey`. */
  reencrypted: number;
  /** Records sealed with a previous key and dropped (`rotation: 'drop'`). */
  previousKeyDropped: number;
  /**
   * Plain (unencrypted) records found by a store given `encryptionKey`:
   * dropped and read as misses, never returned.
   */
  plainDropped: number;
}

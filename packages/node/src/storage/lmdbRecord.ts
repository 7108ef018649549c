import { createCipheriv, createDecipheriv, type KeyObject, randomFillSync } from 'node:crypto';
import {
  NONCE_BYTES,
  SEALED_OVERHEAD,
  SEALED_V1,
  sealedAad,
  TAG_BYTES,
} from '@medfusion/core/internal';
import { crc32 } from '@node-rs/crc32';

/**
 * One value of {@link LmdbStore} as LMDB holds it (internal):
 * `[flags u8 | 0 u8 | 0 u16 | time u32 | sum u32 | data]`, little-endian. Flag 1: `data` is
 * sealed (core's sealed format: AES-GCM, the store key bound as additional data), and `sum` is
 * 0: the GCM tag authenticates it. Else `sum` is the CRC-32 of `data` (the IEEE polynomial,
 * zlib's and PNG's; computed by `@node-rs/crc32`, which uses the CPU's carry-less multiply: 11–17 µs
 * per 150 KB where `zlib.crc32` took 30–55 here), checked on every read: LMDB guarantees whole
 * transactions after a crash, not the bytes of its pages. `time`: write time in whole seconds
 * since the epoch.
 */
export const RECORD_HEADER = 12;
/** Record flag: the data is sealed. */
export const FLAG_SEALED = 1;

/** A record decoded by {@link readRecord}. */
export interface LmdbRecord {
  sealed: boolean;
  /** Write time in seconds since the epoch. */
  time: number;
  /** The value (plain) or the sealed value, a view into the record. */
  data: Uint8Array;
}

/** A record of `data` (already sealed when `sealed`), written at `time` (seconds). */
export function makeRecord(data: Uint8Array, sealed: boolean, time: number): Buffer {
  const out = Buffer.allocUnsafe(RECORD_HEADER + data.length);
  out.writeUInt32LE(sealed ? FLAG_SEALED : 0, 0);
  out.writeUInt32LE(time >>> 0, 4);
  out.writeUInt32LE(sealed ? 0 : crc32(data), 8);
  out.set(data, RECORD_HEADER);
  return out;
}

/**
 * The record in `bytes`, or undefined when it is not one or its plain data fails its checksum.
 * `data` is a view into `bytes` (valid as long as they are).
 */
export function readRecord(bytes: Uint8Array): LmdbRecord | undefined {
  if (bytes.length < RECORD_HEADER) return undefined;
  const dv = new DataView(bytes.buffer, bytes.byteOffset, RECORD_HEADER);
  const flags = dv.getUint32(0, true);
  if (flags & ~FLAG_SEALED) return undefined;
  const data = bytes.subarray(RECORD_HEADER);
  const sealed = flags === FLAG_SEALED;
  if (!sealed && crc32(data) !== dv.getUint32(8, true)) return undefined;
  return { sealed, time: dv.getUint32(4, true), data };
}

/** Write time (seconds) of a record without checking it. */
export function recordTime(bytes: Uint8Array): number {
  return bytes.length < RECORD_HEADER
    ? 0
    : Buffer.from(bytes.buffer, bytes.byteOffset, 8).readUInt32LE(4);
}

function algorithm(key: KeyObject): 'aes-128-gcm' | 'aes-192-gcm' | 'aes-256-gcm' {
  const bits = (key.symmetricKeySize ?? 32) * 8;
  return bits === 128 ? 'aes-128-gcm' : bits === 192 ? 'aes-192-gcm' : 'aes-256-gcm';
}

/** `value` sealed under `key` for store key `storeKey` (core's sealed format). */
export function seal(key: KeyObject, storeKey: string, value: Uint8Array): Uint8Array {
  const out = Buffer.allocUnsafe(value.length + SEALED_OVERHEAD);
  out[0] = SEALED_V1;
  const nonce = randomFillSync(out.subarray(1, 1 + NONCE_BYTES));
  const c = createCipheriv(algorithm(key), key, nonce, { authTagLength: TAG_BYTES });
  c.setAAD(sealedAad(storeKey));
  const body = c.update(value);
  body.copy(out, 1 + NONCE_BYTES);
  const tail = c.final();
  tail.copy(out, 1 + NONCE_BYTES + body.length);
  c.getAuthTag().copy(out, out.length - TAG_BYTES);
  return out;
}

/**
 * The plaintext of `sealed` (stored under `storeKey`) and the index of the key in `keys` that
 * opened it; undefined and -1 when none did.
 */
export function open(
  keys: readonly KeyObject[],
  storeKey: string,
  sealed: Uint8Array,
): { value: Uint8Array | undefined; keyIndex: number } {
  if (sealed.length < SEALED_OVERHEAD || sealed[0] !== SEALED_V1)
    return { value: undefined, keyIndex: -1 };
  const nonce = sealed.subarray(1, 1 + NONCE_BYTES);
  const body = sealed.subarray(1 + NONCE_BYTES, sealed.length - TAG_BYTES);
  const tag = sealed.subarray(sealed.length - TAG_BYTES);
  const aad = sealedAad(storeKey);
  for (let i = 0; i < keys.length; i++) {
    try {
      const d = createDecipheriv(algorithm(keys[i]!), keys[i]!, nonce, {
        authTagLength: TAG_BYTES,
      });
      d.setAAD(aad);
      d.setAuthTag(tag);
      const head = d.update(body);
      const tail = d.final();
      const value = new Uint8Array(head.length + tail.length);
      value.set(head, 0);
      value.set(tail, head.length);
      return { value, keyIndex: i };
    } catch {
      // not this key (or not intact): the next one
    }
  }
  return { value: undefined, keyIndex: -1 };
}

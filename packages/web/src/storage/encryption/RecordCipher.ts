import {
  sealedAad as aad,
  NONCE_BYTES,
  SEALED_OVERHEAD,
  SEALED_V1,
} from '@medfusion/core/internal';
import type { EncryptionSettings } from './encryptionOptions.js';

export { SEALED_OVERHEAD };

/** What {@link RecordCipher.open} found in a sealed value. */
export type Opened = { value: Uint8Array; keyIndex: number } | { value: undefined; keyIndex: -1 };

/**
 * Seals and opens one store's values with AES-GCM (WebCrypto), on the thread
 * that does the store's I/O (web-internal). A sealed value is
 * `[version u8 = 1 | nonce 12 | ciphertext | tag 16]`; the additional data
 * is `"medfusion-record-v1\0" + store key`, so a value opens only under the
 * key it was written for.
 */
export class RecordCipher {
  private readonly keys: CryptoKey[];
  /** Values of this turn waiting to be sealed (see sealInTurn). */
  private queue: {
    key: string;
    value: Uint8Array;
    resolve: (sealed: Uint8Array) => void;
    reject: (e: unknown) => void;
  }[] = [];
  constructor(readonly settings: EncryptionSettings) {
    this.keys = [settings.key, ...settings.previous];
  }

  /** `value` sealed under the current key for store key `key`. */
  async seal(key: string, value: Uint8Array): Promise<Uint8Array> {
    const { head, body } = await this.sealParts(key, value);
    const out = new Uint8Array(head.length + body.length);
    out.set(head, 0);
    out.set(body, head.length);
    return out;
  }

  /**
   * {@link seal}, but values asked for in one turn of the event loop are
   * sealed together and all resolve in the same turn, so what their callers
   * do next (a store's writes) still goes together.
   */
  sealInTurn(key: string, value: Uint8Array): Promise<Uint8Array> {
    return new Promise((resolve, reject) => {
      this.queue.push({ key, value, resolve, reject });
      if (this.queue.length === 1) queueMicrotask(() => this.sealQueued());
    });
  }

  private sealQueued(): void {
    const batch = this.queue;
    this.queue = [];
    void Promise.allSettled(batch.map((s) => this.seal(s.key, s.value))).then((done) => {
      done.forEach((r, i) => {
        if (r.status === 'fulfilled') batch[i]!.resolve(r.value);
        else batch[i]!.reject(r.reason);
      });
    });
  }

  /**
   * {@link seal}'s two parts, for a caller that copies them into a larger
   * buffer anyway (one copy fewer): `head` (version and nonce) and `body`
   * (ciphertext and tag); the sealed value is `head` then `body`.
   */
  async sealParts(key: string, value: Uint8Array): Promise<{ head: Uint8Array; body: Uint8Array }> {
    const head = new Uint8Array(1 + NONCE_BYTES);
    head[0] = SEALED_V1;
    const nonce = crypto.getRandomValues(head.subarray(1));
    const body = new Uint8Array(
      await crypto.subtle.encrypt(
        { name: 'AES-GCM', iv: nonce, additionalData: aad(key), tagLength: 128 },
        this.settings.key,
        value as Uint8Array<ArrayBuffer>,
      ),
    );
    return { head, body };
  }

  /**
   * The plaintext of the sealed value `sealed` stored under `key`, and which
   * key opened it (0: the current one, i: previousEncryptionKeys[i - 1]); value
   * undefined when none did (another key or store key, altered, truncated).
   * `transient`: `sealed` may be overwritten as soon as this returns its promise.
   */
  async open(key: string, sealed: Uint8Array, transient = false): Promise<Opened> {
    if (sealed.length < SEALED_OVERHEAD || sealed[0] !== SEALED_V1)
      return { value: undefined, keyIndex: -1 };
    // WebCrypto copies what it decrypts when called: the first key's try needs nothing more
    // of `sealed`, a later key's (after an await) needs a copy of a transient one.
    if (transient && this.keys.length > 1) sealed = sealed.slice();
    const iv = sealed.subarray(1, 1 + NONCE_BYTES) as Uint8Array<ArrayBuffer>;
    const body = sealed.subarray(1 + NONCE_BYTES);
    const additionalData = aad(key);
    for (let i = 0; i < this.keys.length; i++) {
      try {
        const plain = await crypto.subtle.decrypt(
          { name: 'AES-GCM', iv, additionalData, tagLength: 128 },
          this.keys[i]!,
          body as Uint8Array<ArrayBuffer>,
        );
        return { value: new Uint8Array(plain), keyIndex: i };
      } catch {
        // OperationError: not this key (or not intact); try the next one.
      }
    }
    return { value: undefined, keyIndex: -1 };
  }
}

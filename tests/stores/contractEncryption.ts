// The contract's encryption cases (docs/persistence.md, "Encryption at rest"): sealed at rest,
// a wrong key or a missing one never yields bytes, plain records are not trusted, rotation.
import { expect, vi } from 'vitest';
import { containsBytes, textValue } from './rawBytes';
import {
  type ContractCase,
  type EncryptionCapability,
  has,
  needs,
  type StoreFactory,
  usageOf,
} from './storeFactory';

const keys = (f: StoreFactory): EncryptionCapability => {
  if (!has(f.encryption)) throw new Error('no encryption');
  return f.encryption;
};

export const encryptionCases: ContractCase[] = [
  {
    name: 'sealed at rest: no plaintext in any file or record, and the key opens it again',
    skip: needs('encryption', 'persistence', 'raw'),
    async run(f, t) {
      const loc = t.location('enc-rt');
      const key = await keys(f).newKey();
      const a = f.open(loc, { encryptionKey: key });
      const v = textValue('PATIENT-PIXELS', 150_000);
      await Promise.all([a.put('ds@1/0', v), a.put('ds@1/1', textValue('PATIENT-PIXELS', 10))]);
      expect(await a.get('ds@1/0')).toEqual(v);
      await a.close?.();
      if (!has(f.raw)) return;
      const raw = await f.raw(loc);
      expect(containsBytes(raw, textValue('PATIENT', 7))).toBe(false);
      const b = f.open(loc, { encryptionKey: key });
      expect(await b.get('ds@1/0')).toEqual(v);
      expect(await b.get('ds@1/1')).toEqual(textValue('PATIENT-PIXELS', 10));
      await b.close?.();
    },
  },
  {
    name: 'a record under another key is a counted miss (undecryptable), never its bytes',
    skip: needs('encryption', 'persistence'),
    async run(f, t) {
      const loc = t.location('enc-wrong');
      const a = f.open(loc, { encryptionKey: await keys(f).newKey() });
      await a.put('k', textValue('SECRET', 1000));
      await a.close?.();
      const b = f.open(loc, { encryptionKey: await keys(f).newKey() });
      expect(await b.get('k')).toBeUndefined();
      expect((await usageOf(b)).undecryptable).toBe(1);
      await b.flush?.();
      expect(await b.has('k')).toBe(false);
      await b.close?.();
    },
  },
  {
    name: 'opened without its key, a store of sealed records rejects with ENCRYPTION_KEY_REQUIRED',
    skip: needs('encryption', 'persistence'),
    async run(f, t) {
      const loc = t.location('enc-nokey');
      const a = f.open(loc, { encryptionKey: await keys(f).newKey() });
      await a.put('e', textValue('SEALED', 100));
      await a.close?.();
      const b = f.open(loc, { encryptionKey: null });
      const err = await b.get('e').then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).toMatchObject({ name: 'StoreError', code: 'ENCRYPTION_KEY_REQUIRED' });
      expect(String((err as Error).message)).toMatch(/encryptionKey/);
      await b.close?.();
    },
  },
  {
    name: 'given a key, plain records are never returned: misses, counted as plainDropped',
    skip: needs('encryption', 'persistence'),
    async run(f, t) {
      const loc = t.location('enc-plain');
      const plain = f.open(loc, { encryptionKey: null });
      await plain.put('p', textValue('PLAIN', 100));
      await plain.close?.();
      const key = await keys(f).newKey();
      const enc = f.open(loc, { encryptionKey: key });
      expect(await enc.get('p')).toBeUndefined();
      expect((await usageOf(enc)).plainDropped).toBe(1);
      await enc.put('e', textValue('SEALED', 100));
      expect(await enc.get('e')).toEqual(textValue('SEALED', 100));
      await enc.close?.();
    },
  },
  {
    name: 'rotation: reencrypt moves a record to the new key as it is read; drop reads it as a miss',
    skip: needs('encryption', 'persistence'),
    async run(f, t) {
      const loc = t.location('enc-rotate');
      const oldKey = await keys(f).newKey();
      const a = f.open(loc, { encryptionKey: oldKey });
      await a.put('r', textValue('ROTATE', 3000));
      await a.put('d', textValue('DROP', 3000));
      await a.close?.();
      const newKey = await keys(f).newKey();
      const b = f.open(loc, { encryptionKey: newKey, previousEncryptionKeys: [oldKey] });
      expect(await b.get('r')).toEqual(textValue('ROTATE', 3000));
      expect((await usageOf(b)).reencrypted).toBe(1);
      await b.close?.();
      const c = f.open(loc, { encryptionKey: newKey }); // the new key alone opens it now
      expect(await c.get('r')).toEqual(textValue('ROTATE', 3000));
      await c.close?.();
      const d = f.open(loc, {
        encryptionKey: newKey,
        previousEncryptionKeys: [oldKey],
        rotation: 'drop',
      });
      expect(await d.get('d')).toBeUndefined();
      expect((await usageOf(d)).previousKeyDropped).toBe(1);
      await d.flush?.();
      expect(await d.has('d')).toBe(false);
      await d.close?.();
    },
  },
  {
    name: 'a quota error while re-encrypting leaves the old record, which still opens',
    skip: needs('encryption', 'persistence', 'quota'),
    async run(f, t) {
      const loc = t.location('enc-rotate-quota');
      const oldKey = await keys(f).newKey();
      const a = f.open(loc, { encryptionKey: oldKey });
      await a.put('r', textValue('ROTATE', 3000));
      await a.close?.();
      const b = f.open(loc, {
        encryptionKey: await keys(f).newKey(),
        previousEncryptionKeys: [oldKey],
        quotaBytes: 3000, // less than the sealed record already there: the new copy does not fit
      });
      expect(await b.get('r')).toEqual(textValue('ROTATE', 3000));
      await b.flush?.();
      await vi.waitFor(async () =>
        expect(Number((await usageOf(b)).quotaErrors)).toBeGreaterThan(0),
      );
      expect((await usageOf(b)).reencrypted).toBe(1); // tried, and refused
      await b.close?.();
      const c = f.open(loc, { encryptionKey: oldKey });
      expect(await c.get('r')).toEqual(textValue('ROTATE', 3000));
      expect((await usageOf(c)).undecryptable).toBe(0);
      await c.close?.();
    },
  },
];

// The contract's basic cases: what any PersistentStore does within one instance.
import { ClosedError } from '@medfusion/core';
import { expect } from 'vitest';
import { expectBytes, keyed, randomValue } from './rawBytes';
import { type ContractCase, has, type StoreFactory, usageOf } from './storeFactory';

/** Sizes a round trip covers: empty to several MiB. */
export const ROUND_TRIP_SIZES = [0, 1, 100, 4096, 150_000, 3 * 2 ** 20];

/** The error a put larger than the budget rejects with, as the factory declares it. */
export async function expectTooLarge(f: StoreFactory, put: Promise<void>): Promise<void> {
  const err = await put.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (f.tooLarge === 'RangeError') {
    expect(err).toBeInstanceOf(RangeError);
    expect(String(err)).toMatch(/maxBytes/);
  } else expect(err).toMatchObject({ code: 'ENTRY_TOO_LARGE' });
}

export const basicCases: ContractCase[] = [
  {
    name: 'round-trips values of 0 bytes to 3 MiB, and keeps what it returns its own',
    async run(f, t) {
      const s = f.open(t.location('rt'));
      const keys = ROUND_TRIP_SIZES.map((n) => `size/${n}`);
      await Promise.all(keys.map((k, i) => s.put(k, keyed(k, ROUND_TRIP_SIZES[i]!))));
      for (const [i, k] of keys.entries())
        expectBytes(await s.get(k), keyed(k, ROUND_TRIP_SIZES[i]!), k);
      // The caller's buffer is not kept, and what get returns is the caller's.
      const mine = keyed('copy', 500);
      await s.put('copy', mine);
      mine.fill(0);
      const got = (await s.get('copy'))!;
      expect(got).toEqual(keyed('copy', 500));
      got.fill(7);
      expect(await s.get('copy')).toEqual(keyed('copy', 500));
      // A view into a larger buffer stores only its own bytes.
      const big = randomValue(3, 1000);
      await s.put('view', big.subarray(100, 300));
      expect(await s.get('view')).toEqual(big.slice(100, 300));
      expect(await s.get('absent')).toBeUndefined();
      await s.close?.();
    },
  },
  {
    name: 'overwrites: the last put wins, usage counts only it',
    async run(f, t) {
      const s = f.open(t.location('over'));
      await s.put('k', keyed('a', 100_000));
      await s.put('k', keyed('b', 10));
      expect(await s.get('k')).toEqual(keyed('b', 10));
      await Promise.all([s.put('k', keyed('c', 5000)), s.put('k', keyed('d', 7000))]);
      expect(await s.get('k')).toEqual(keyed('d', 7000));
      const u = await usageOf(s);
      expect(u.entries).toBe(1);
      const overhead = f.variantKey === undefined ? 0 : 29; // a sealed value: nonce, tag, version
      expect(u.bytes).toBe(7000 + overhead);
      await s.close?.();
    },
  },
  {
    name: 'delete, has, keys, clear and usage agree',
    async run(f, t) {
      const s = f.open(t.location('ops'));
      for (const k of ['a', 'b', 'c']) await s.put(k, keyed(k, 1000));
      expect(await s.has('b')).toBe(true);
      expect(await s.delete('b')).toBe(true);
      expect(await s.delete('b')).toBe(false);
      expect(await s.delete('never')).toBe(false);
      expect(await s.has('b')).toBe(false);
      expect(await s.get('b')).toBeUndefined();
      expect((await s.keys()).sort()).toEqual(['a', 'c']);
      const overhead = f.variantKey === undefined ? 0 : 29;
      expect(await usageOf(s)).toMatchObject({ entries: 2, bytes: 2 * (1000 + overhead) });
      await s.clear();
      expect(await s.keys()).toEqual([]);
      expect(await usageOf(s)).toMatchObject({ entries: 0, bytes: 0 });
      expect(await s.get('a')).toBeUndefined();
      await s.put('a', keyed('a2', 10)); // usable after clear
      expect(await s.get('a')).toEqual(keyed('a2', 10));
      await s.close?.();
    },
  },
  {
    name: 'stays within maxBytes, evicting what was used least recently; refuses a value over it',
    async run(f, t) {
      const maxBytes = 200_000;
      const s = f.open(t.location('budget'), { maxBytes });
      expect((await usageOf(s)).maxBytes).toBe(maxBytes);
      await s.put('k0', keyed('k0', 10_000));
      for (let i = 1; i < 40; i++) {
        await s.put(`k${i}`, keyed(`k${i}`, 10_000));
        expect(await s.get('k0'), `k0 after k${i}`).toEqual(keyed('k0', 10_000)); // kept in use
        expect((await usageOf(s)).bytes).toBeLessThanOrEqual(maxBytes);
      }
      const early = await Promise.all(Array.from({ length: 10 }, (_, i) => s.has(`k${i + 1}`)));
      expect(early).toContain(false); // unread ones went
      expect(await s.get('k39')).toEqual(keyed('k39', 10_000));
      await expectTooLarge(f, s.put('huge', new Uint8Array(maxBytes + 1)));
      expect(await s.get('k39')).toEqual(keyed('k39', 10_000)); // still usable, nothing lost
      await s.close?.();
    },
  },
  {
    name: 'refuses bad keys, values and options with TypeError / RangeError naming them',
    async run(f, t) {
      expect(() => f.open(t.location('bad-opt'), { maxBytes: -1 })).toThrow(/maxBytes.*-1/);
      expect(() => f.open(t.location('bad-opt'), { maxBytes: Number.NaN })).toThrow(RangeError);
      if (has(f.retention)) {
        for (const bad of [0, -1, Number.NaN, Number.POSITIVE_INFINITY]) {
          expect(() => f.open(t.location('bad-age'), { maxAge: bad })).toThrow(RangeError);
          expect(() => f.open(t.location('bad-age'), { maxAge: bad })).toThrow(/maxAge/);
        }
      }
      if (has(f.encryption)) {
        expect(() => f.open(t.location('bad-key'), { encryptionKey: 'secret' })).toThrow(TypeError);
        expect(() => f.open(t.location('bad-key'), { encryptionKey: 'secret' })).toThrow(
          /encryptionKey/,
        );
        const key = await f.encryption.newKey();
        expect(() =>
          f.open(t.location('bad-key'), { encryptionKey: key, rotation: 'keep' as 'drop' }),
        ).toThrow(/rotation/);
        expect(() =>
          f.open(t.location('bad-key'), { encryptionKey: null, previousEncryptionKeys: [key] }),
        ).toThrow(/previousEncryptionKeys applies only with encryptionKey/);
        const refused = await f.encryption.refusedKey?.();
        if (refused !== undefined) {
          expect(() => f.open(t.location('bad-key'), { encryptionKey: refused })).toThrow(
            /encryptionKey/,
          );
        }
      }
      const s = f.open(t.location('bad'));
      const v = new Uint8Array(1);
      await expect(s.put('', v)).rejects.toThrow(RangeError);
      await expect(s.put('', v)).rejects.toThrow(/key must be a non-empty string/);
      await expect(s.get(5 as unknown as string)).rejects.toThrow(/key must be a string, got 5/);
      await expect(s.has(null as unknown as string)).rejects.toThrow(TypeError);
      await expect(s.delete({} as unknown as string)).rejects.toThrow(TypeError);
      await expect(s.put('k', 'bytes' as unknown as Uint8Array)).rejects.toThrow(
        /value must be a Uint8Array/,
      );
      await expect(s.put('k', new Float32Array(2) as unknown as Uint8Array)).rejects.toThrow(
        TypeError,
      );
      expect(await s.keys()).toEqual([]); // nothing reached the store
      await s.close?.();
    },
  },
  {
    name: 'close() keeps the puts issued before it, frees the store, and every later call rejects with CLOSED',
    async run(f, t) {
      const loc = t.location('close');
      const s = f.open(loc);
      const puts = ['a', 'b', 'c'].map((k) => s.put(k, keyed(k, 2000)));
      await s.close?.();
      await Promise.all(puts);
      await s.close?.(); // twice is fine
      const calls: Promise<unknown>[] = [
        s.get('a'),
        s.put('d', new Uint8Array(1)),
        s.delete('a'),
        s.has('a'),
        s.keys(),
        s.clear(),
        s.usage(),
      ];
      for (const c of calls) {
        const err = await c.then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(err).toBeInstanceOf(ClosedError);
        expect(err).toMatchObject({ code: 'CLOSED' });
      }
      if (has(f.persistence)) {
        const again = f.open(loc);
        for (const k of ['a', 'b', 'c']) expect(await again.get(k)).toEqual(keyed(k, 2000));
        await again.close?.();
      }
    },
  },
];

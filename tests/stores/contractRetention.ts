// The contract's retention cases (docs/persistence.md, "Retention and forgetting"): maxAge and
// forget(fingerprint), including the bytes they leave at rest.
import { ManualClock } from '@medfusion/core';
import { expect } from 'vitest';
import { keyed, randomValue, Traces } from './rawBytes';
import {
  type ContractCase,
  type ContractOptions,
  type ContractStore,
  has,
  needs,
  type StoreFactory,
  usageOf,
} from './storeFactory';

/**
 * Traces (tests/stores/rawBytes.ts) of what `write` adds at rest: the bytes at `loc` before and
 * after it, the store closed around it.
 */
export async function traced(
  f: StoreFactory,
  loc: string,
  options: ContractOptions,
  write: (s: ContractStore) => Promise<unknown>,
): Promise<Traces> {
  if (!has(f.raw)) throw new Error('no raw access');
  const before = await f.raw(loc);
  const s = f.open(loc, options);
  await write(s);
  await s.close?.();
  return Traces.between(before, await f.raw(loc));
}

export const retentionCases: ContractCase[] = [
  {
    name: 'maxAge: older records are misses, deleted by the sweep and when the store opens',
    skip: needs('retention', 'persistence'),
    async run(f, t) {
      const loc = t.location('age');
      const clock = new ManualClock();
      await clock.advance(1e12); // ms since the epoch, as a wall clock gives
      const opts = { maxAge: 10_000, clock };
      const a = f.open(loc, opts);
      await a.put('ds@1/0', keyed('0', 1000));
      await a.put('ds@1/1', keyed('1', 1000));
      await clock.advance(9_000);
      await a.put('ds@1/2', keyed('2', 1000));
      expect(await a.get('ds@1/0')).toEqual(keyed('0', 1000));
      await clock.advance(3_000); // 0 and 1: 12 s old (ages may be kept in whole seconds)
      expect(await a.get('ds@1/0')).toBeUndefined();
      expect(await a.get('ds@1/2')).toEqual(keyed('2', 1000));
      // The sweep (every min(maxAge, 60 s)) deletes the rest without a read; each poll moves
      // the clock on, as a sweep is armed again when the one before it ends.
      await expect
        .poll(async () => {
          await clock.advance(10_000);
          return (await usageOf(a)).expired;
        })
        .toBe(3);
      expect(await a.keys()).toEqual([]);
      await a.put('ds@1/3', keyed('3', 1000));
      await a.close?.();
      await clock.advance(12_000);
      const b = f.open(loc, opts);
      expect(await b.keys()).toEqual([]);
      expect((await usageOf(b)).expired).toBe(1);
      await b.close?.();
    },
  },
  {
    name: 'maxAge: a record keeps its write time when rotation re-encrypts it',
    skip: needs('retention', 'persistence', 'encryption'),
    async run(f, t) {
      if (!has(f.encryption)) return;
      const loc = t.location('age-rotate');
      const clock = new ManualClock();
      await clock.advance(1e12);
      const oldKey = await f.encryption.newKey();
      const a = f.open(loc, { maxAge: 10_000, clock, encryptionKey: oldKey });
      await a.put('ds@1/0', keyed('0', 100));
      await clock.advance(5_000);
      await a.close?.();
      const newKey = await f.encryption.newKey();
      const b = f.open(loc, {
        maxAge: 10_000,
        clock,
        encryptionKey: newKey,
        previousEncryptionKeys: [oldKey],
      });
      expect(await b.get('ds@1/0')).toEqual(keyed('0', 100));
      expect((await usageOf(b)).reencrypted).toBe(1);
      await b.close?.();
      const c = f.open(loc, { maxAge: 10_000, clock, encryptionKey: newKey });
      expect(await c.get('ds@1/0')).toEqual(keyed('0', 100)); // re-encrypted
      await clock.advance(7_000); // 12 s after the first write
      expect(await c.get('ds@1/0')).toBeUndefined();
      await c.close?.();
    },
  },
  {
    name: 'forget(fingerprint) deletes one data set for real, also for another instance; forgetAll the rest',
    skip: needs('forget'),
    async run(f, t) {
      const loc = t.location('forget');
      const rawAccess = has(f.raw);
      const gone = rawAccess
        ? await traced(f, loc, {}, async (s) => {
            await s.put('xray@1/0', randomValue(1, 40_000));
            await s.put('xray@1/1', randomValue(2, 40_000));
            await s.put('xray@1/0', randomValue(3, 40_000)); // a superseded copy too
          })
        : undefined;
      const a = f.open(loc);
      const other = has(f.twoInstances) ? f.open(loc) : a;
      if (!rawAccess) {
        await a.put('xray@1/0', randomValue(3, 40_000));
        await a.put('xray@1/1', randomValue(2, 40_000));
      }
      await a.put('xray@10/0', keyed('other set', 100)); // shares the prefix's start
      await a.put('ct@2/0', keyed('ct', 3000));
      expect(await other.get('xray@1/1')).toEqual(randomValue(2, 40_000));
      expect(await a.forget!('xray@1')).toBe(2);
      expect(await a.forget!('unknown@9')).toBe(0);
      expect(await a.get('xray@1/0')).toBeUndefined();
      expect(await other.get('xray@1/1')).toBeUndefined();
      expect(await other.get('ct@2/0')).toEqual(keyed('ct', 3000));
      expect(await a.get('xray@10/0')).toEqual(keyed('other set', 100));
      expect((await a.keys()).sort()).toEqual(['ct@2/0', 'xray@10/0']);
      await f.compactionPoint(a);
      if (other !== a) await other.close?.();
      await a.close?.();
      if (rawAccess && gone && has(f.raw)) {
        expect(gone.size).toBeGreaterThan(1000);
        expect(gone.foundIn(await f.raw(loc))).toBe(0);
      }
      const b = f.open(loc);
      expect(await b.forgetAll!()).toBe(2);
      expect(await b.keys()).toEqual([]);
      expect(await b.get('ct@2/0')).toBeUndefined();
      await b.close?.();
    },
  },
  {
    name: 'forget gives the space back: the platform counts 20 MiB less after forgetting 24 MiB',
    skip: needs('forget', 'spaceUsed'),
    async run(f, t) {
      if (!has(f.spaceUsed)) return;
      const loc = t.location('space');
      const a = f.open(loc, { maxBytes: 2 ** 28 });
      const big = randomValue(42, 2 ** 20);
      for (let i = 0; i < 24; i++) await a.put(`big@1/${i}`, big);
      await a.flush?.();
      const before = await f.spaceUsed(loc);
      expect(await a.forget!('big@1')).toBe(24);
      await f.compactionPoint(a);
      await a.close?.();
      expect(before - (await f.spaceUsed(loc))).toBeGreaterThan(20 * 2 ** 20);
    },
  },
];

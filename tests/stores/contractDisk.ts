// The contract's disk cases: a store's bytes outlive the instance, and whatever happens to them
// (damage, a crash mid-write, a second instance, a full disk) a read returns the value that was
// put, or undefined: never wrong bytes.
import { expect } from 'vitest';
import { expectBytes, keyed } from './rawBytes';
import { type ContractCase, has, needs, usageOf } from './storeFactory';

export const diskCases: ContractCase[] = [
  {
    name: 'a new instance on the same location finds every entry as the last one left it',
    skip: needs('persistence'),
    async run(f, t) {
      const loc = t.location('reopen');
      const a = f.open(loc);
      await Promise.all(
        Array.from({ length: 50 }, (_, i) => a.put(`k${i}`, keyed(`k${i}`, 1000 + i))),
      );
      await a.put('k7', keyed('seven', 10)); // overwrite
      expect(await a.delete('k3')).toBe(true);
      await a.close?.();
      const b = f.open(loc);
      expect((await b.keys()).length).toBe(49);
      for (let i = 0; i < 50; i++) {
        const want = i === 3 ? undefined : i === 7 ? keyed('seven', 10) : keyed(`k${i}`, 1000 + i);
        expect(await b.get(`k${i}`), `k${i}`).toEqual(want);
      }
      expect((await usageOf(b)).entries).toBe(49);
      await b.close?.();
    },
  },
  {
    name: 'a damaged value at rest reads as a miss and its entry is dropped, never as wrong bytes',
    skip: needs('persistence', 'corrupt'),
    async run(f, t) {
      const loc = t.location('corrupt');
      const a = f.open(loc);
      for (let i = 0; i < 3; i++) await a.put(`k${i}`, keyed(`k${i}`, 1000));
      await a.close?.();
      if (!has(f.corrupt)) return;
      await f.corrupt(loc, 'k1');
      const b = f.open(loc);
      expect(await b.get('k1')).toBeUndefined();
      await b.flush?.();
      expect(await b.has('k1')).toBe(false);
      const u = await usageOf(b);
      expect(Number(u.corruptDropped ?? 0) + Number(u.undecryptable ?? 0)).toBe(1);
      expect(await b.get('k0')).toEqual(keyed('k0', 1000));
      expect(await b.get('k2')).toEqual(keyed('k2', 1000));
      await b.close?.();
      // The drop lasts; a new put of the key works again.
      const c = f.open(loc);
      expect(await c.get('k1')).toBeUndefined();
      await c.put('k1', keyed('k1', 1000));
      expect(await c.get('k1')).toEqual(keyed('k1', 1000));
      await c.close?.();
    },
  },
  {
    name: 'a crash mid-write keeps every put that resolved and never returns a torn one',
    skip: needs('persistence', 'crash'),
    async run(f, t) {
      if (!has(f.crash)) return;
      const loc = t.location('crash');
      const committed = new Set<string>();
      const attempted: string[] = [];
      for (let round = 0; round < 3; round++) {
        const keys = Array.from({ length: 12 }, (_, i) => `r${round}/k${i}`);
        attempted.push(...keys);
        for (const k of await f.crash.crashWhileWriting(loc, keys, 256 * 1024)) committed.add(k);
        const s = f.open(loc);
        for (const k of committed) expectBytes(await s.get(k), keyed(k, 256 * 1024), k);
        for (const k of attempted) {
          const got = await s.get(k);
          if (got !== undefined) expectBytes(got, keyed(k, 256 * 1024), k);
        }
        for (const k of await s.keys()) expect(attempted).toContain(k);
        await s.close?.();
      }
      expect(committed.size).toBeGreaterThan(0);
    },
  },
  {
    name: 'two instances on one location see each other’s writes and deletes',
    skip: needs('persistence', 'twoInstances'),
    async run(f, t) {
      const loc = t.location('two');
      const a = f.open(loc);
      const b = f.open(loc);
      await Promise.all([
        ...Array.from({ length: 20 }, (_, i) => a.put(`a${i}`, keyed(`a${i}`, 3000))),
        ...Array.from({ length: 20 }, (_, i) => b.put(`b${i}`, keyed(`b${i}`, 3000))),
      ]);
      for (let i = 0; i < 20; i++) {
        expect(await a.get(`b${i}`)).toEqual(keyed(`b${i}`, 3000));
        expect(await b.get(`a${i}`)).toEqual(keyed(`a${i}`, 3000));
      }
      expect(await a.delete('b5')).toBe(true);
      expect(await b.get('b5')).toBeUndefined();
      await b.put('a6', keyed('new', 50));
      expect(await a.get('a6')).toEqual(keyed('new', 50));
      expect((await b.keys()).length).toBe(39);
      await a.close?.();
      await b.close?.();
      const c = f.open(loc);
      expect((await c.keys()).length).toBe(39);
      expect(await c.get('a6')).toEqual(keyed('new', 50));
      expect(await c.get('b7')).toEqual(keyed('b7', 3000));
      await c.close?.();
    },
  },
  {
    name: 'a full quota: evicts and retries once, then rejects with QUOTA_EXCEEDED; the store goes on',
    skip: needs('quota'),
    async run(f, t) {
      const s = f.open(t.location('quota'), { quotaBytes: 25_000, maxBytes: 10 * 2 ** 20 });
      for (let i = 0; i < 20; i++) await s.put(`k${i}`, keyed(`k${i}`, 2000));
      const u = await usageOf(s);
      expect(Number(u.quotaErrors)).toBeGreaterThan(0);
      expect(u.bytes).toBeLessThanOrEqual(25_000);
      expect(await s.get('k19')).toEqual(keyed('k19', 2000));
      expect(await s.has('k0')).toBe(false);
      await expect(s.put('big', new Uint8Array(30_000))).rejects.toMatchObject({
        code: 'QUOTA_EXCEEDED',
      });
      await s.put('tiny', keyed('tiny', 10));
      expect(await s.get('tiny')).toEqual(keyed('tiny', 10));
      await s.close?.();
    },
  },
];

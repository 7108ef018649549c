// The contract's remnant cases: after the store's documented compaction point (at the latest a
// compact() or close()), no copy of a deleted, overwritten, cleared, plain-then-encrypted or
// rotated record is left in any file or record the store keeps (docs/persistence.md, "Deleted
// bytes"). A live record's traces are found again in the same scan: the scan can see.
import { expect } from 'vitest';
import { traced } from './contractRetention';
import { randomValue } from './rawBytes';
import { type ContractCase, has, needs } from './storeFactory';

const SIZE = 64 * 1024;

export const remnantCases: ContractCase[] = [
  {
    name: 'deleted, overwritten and cleared records leave no copy at rest after the compaction point',
    skip: needs('raw', 'persistence'),
    async run(f, t) {
      if (!has(f.raw)) return;
      const loc = t.location('remnant');
      const keep = await traced(f, loc, {}, (s) => s.put('keep', randomValue(1, SIZE)));
      const del = await traced(f, loc, {}, (s) => s.put('del', randomValue(2, SIZE)));
      const over = await traced(f, loc, {}, (s) => s.put('over', randomValue(3, SIZE)));
      const twice = await traced(f, loc, {}, async (s) => {
        // Two puts of one key in one batch: the first copy is superseded at once.
        await Promise.all([
          s.put('twice', randomValue(4, SIZE)),
          s.put('twice', randomValue(5, SIZE)),
        ]);
      });
      for (const tr of [keep, del, over, twice]) expect(tr.size).toBeGreaterThan(SIZE / 32);
      const s = f.open(loc);
      expect(await s.delete('del')).toBe(true);
      await s.put('over', randomValue(6, SIZE));
      // Overwritten again: both copies of the batch must be gone, the superseded one included.
      await s.put('twice', randomValue(12, 100));
      await f.compactionPoint(s);
      await s.close?.();
      let raw = await f.raw(loc);
      expect(keep.foundIn(raw)).toBeGreaterThanOrEqual(keep.size * 0.9);
      expect(del.foundIn(raw), 'deleted').toBe(0);
      expect(over.foundIn(raw), 'overwritten').toBe(0);
      expect(twice.foundIn(raw), 'superseded in one batch').toBe(0);
      const again = f.open(loc);
      expect(await again.get('keep')).toEqual(randomValue(1, SIZE));
      expect(await again.get('twice')).toEqual(randomValue(12, 100));
      await again.clear();
      await f.compactionPoint(again);
      await again.close?.();
      raw = await f.raw(loc);
      expect(keep.foundIn(raw), 'cleared').toBe(0);
    },
  },
  {
    name: 'plain records in a store opened with a key leave no copy at rest after the compaction point',
    skip: needs('raw', 'persistence', 'encryption'),
    async run(f, t) {
      if (!has(f.raw) || !has(f.encryption)) return;
      const loc = t.location('remnant-plain');
      const plain = await traced(f, loc, { encryptionKey: null }, async (s) => {
        await s.put('read', randomValue(7, SIZE));
        await s.put('unread', randomValue(8, SIZE));
      });
      expect(plain.size).toBeGreaterThan(SIZE / 16);
      const key = await f.encryption.newKey();
      const kept = await traced(f, loc, { encryptionKey: key }, async (s) => {
        expect(await s.get('read')).toBeUndefined();
        await s.put('sealed', randomValue(9, SIZE));
        await f.compactionPoint(s);
      });
      const raw = await f.raw(loc);
      expect(plain.foundIn(raw), 'plaintext left').toBe(0);
      expect(kept.foundIn(raw)).toBeGreaterThanOrEqual(kept.size * 0.9);
      const s = f.open(loc, { encryptionKey: key });
      expect(await s.get('unread')).toBeUndefined();
      expect(await s.get('sealed')).toEqual(randomValue(9, SIZE));
      await s.close?.();
    },
  },
  {
    name: 'rotated and rotation-dropped records leave no copy sealed with the old key',
    skip: needs('raw', 'persistence', 'encryption'),
    async run(f, t) {
      if (!has(f.raw) || !has(f.encryption)) return;
      const loc = t.location('remnant-rotate');
      const oldKey = await f.encryption.newKey();
      const rotated = await traced(f, loc, { encryptionKey: oldKey }, (s) =>
        s.put('r', randomValue(10, SIZE)),
      );
      const dropped = await traced(f, loc, { encryptionKey: oldKey }, (s) =>
        s.put('d', randomValue(11, SIZE)),
      );
      const newKey = await f.encryption.newKey();
      const b = f.open(loc, { encryptionKey: newKey, previousEncryptionKeys: [oldKey] });
      expect(await b.get('r')).toEqual(randomValue(10, SIZE));
      await b.flush?.();
      await f.compactionPoint(b);
      await b.close?.();
      let raw = await f.raw(loc);
      expect(rotated.foundIn(raw), 'old copy of a re-encrypted record').toBe(0);
      expect(dropped.foundIn(raw)).toBeGreaterThanOrEqual(dropped.size * 0.9); // not read yet
      const c = f.open(loc, {
        encryptionKey: newKey,
        previousEncryptionKeys: [oldKey],
        rotation: 'drop',
      });
      expect(await c.get('d')).toBeUndefined();
      await c.flush?.();
      await f.compactionPoint(c);
      await c.close?.();
      raw = await f.raw(loc);
      expect(dropped.foundIn(raw), 'a record rotation dropped').toBe(0);
      const d = f.open(loc, { encryptionKey: newKey });
      expect(await d.get('r')).toEqual(randomValue(10, SIZE));
      await d.close?.();
    },
  },
];

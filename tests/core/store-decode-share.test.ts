// A disk hit decodes its sample as views of the bytes the store handed over
// (no fresh memory per payload), and that is safe: the built-in stores hand
// every caller its own bytes.
import {
  decodeSample,
  encodeSample,
  fromArray,
  MemoryStore,
  PersistentTierDataset,
} from '@medfusion/core';
import { describe, expect, it } from 'vitest';

describe('decodeSample share', () => {
  it('returns aligned typed arrays as views of the bytes, equal to the encoded ones', () => {
    const sample = { image: new Float32Array([0.5, -2, 7]), label: 1, raw: new Uint8Array([4, 5]) };
    const bytes = encodeSample(sample);
    const shared = decodeSample(bytes, { share: true }) as typeof sample;
    expect(shared).toEqual(sample);
    expect(shared.image).toBeInstanceOf(Float32Array);
    expect(shared.image.buffer).toBe(bytes.buffer);
    expect(shared.raw.buffer).toBe(bytes.buffer);
    // by default every payload is a copy
    const copied = decodeSample(bytes) as typeof sample;
    expect(copied).toEqual(sample);
    expect(copied.image.buffer).not.toBe(bytes.buffer);
  });

  it('refuses options that are not an object, or a share that is not a boolean, naming them', () => {
    const bytes = encodeSample({ x: new Float32Array([1]) });
    expect(() => decodeSample(bytes, null as never)).toThrow(/options must be an object, got null/);
    expect(() => decodeSample(bytes, { share: 'yes' as never })).toThrow(TypeError);
    expect(() => decodeSample(bytes, { share: 'yes' as never })).toThrow(
      /options\.share must be a boolean/,
    );
  });

  it('copies a payload that lies misaligned for its element size', () => {
    const sample = { image: new Float32Array([1.5, 2.5]) };
    const bytes = encodeSample(sample);
    // the same encoding one byte further into a larger buffer: the floats' offset is odd
    const host = new Uint8Array(bytes.length + 1);
    host.set(bytes, 1);
    const shifted = host.subarray(1);
    const back = decodeSample(shifted, { share: true }) as typeof sample;
    expect(back.image).toEqual(sample.image);
    expect(back.image.buffer).not.toBe(host.buffer);
  });
});

describe('disk tier decoding by views', () => {
  it('a sample changed by its user does not change what the next disk hit returns', async () => {
    const images = Array.from({ length: 4 }, (_, i) => new Float32Array(8).fill(i + 1));
    const source = fromArray(images.map((image, label) => ({ image, label })));
    const store = new MemoryStore();
    const first = new PersistentTierDataset(source, { store, fingerprint: 'share-test' });
    await first.get(2);
    await first.flush();
    // a new tier on the same store: the read is a disk hit
    const tier = new PersistentTierDataset(source, { store, fingerprint: 'share-test' });
    const hit = await tier.get(2);
    expect(tier.getDiskStats().diskHits).toBe(1);
    expect(Array.from(hit.image)).toEqual(Array.from(images[2] as Float32Array));
    // a view inside the encoded bytes, not a copy of its own
    expect(hit.image.buffer.byteLength).toBeGreaterThan(hit.image.byteLength);
    hit.image.fill(-1);
    const again = await new PersistentTierDataset(source, { store, fingerprint: 'share-test' }).get(
      2,
    );
    expect(Array.from(again.image)).toEqual(Array.from(images[2] as Float32Array));
  });
});

// Hostile data, item 10 (decodeSample): bytes whose strings are not valid UTF-8 are
// rejected with SampleCodecError (code BAD_SAMPLE_BYTES), as documented, never a bare
// TypeError from the platform's TextDecoder. Every single-byte damage of a valid record
// either decodes or throws SampleCodecError.
import { decodeSample, encodeSample, SampleCodecError } from '@medfusion/core';
import { describe, expect, it } from 'vitest';
import { bounded, report, seeded } from './harness.js';

const record = () =>
  encodeSample({ name: 'chest-xray-0001', tags: ['frontal', 'adult'], image: new Uint8Array(8) });

/** Offsets of the UTF-8 payload bytes of every string (keys and values) in `bytes`. */
function stringOffsets(bytes: Uint8Array, texts: string[]): number[] {
  const enc = new TextEncoder();
  const out: number[] = [];
  for (const t of texts) {
    const needle = enc.encode(t);
    for (let i = 0; i + needle.length <= bytes.length; i++) {
      if (needle.every((b, k) => bytes[i + k] === b)) out.push(i);
    }
  }
  return out;
}

describe('hostile sample bytes: invalid UTF-8', () => {
  for (const [what, bad] of [
    ['a lone continuation byte', [0x80]],
    ['0xFF', [0xff]],
    ['a truncated 2-byte sequence', [0xc3]],
    ['an overlong encoding', [0xc0, 0xaf]],
    ['a UTF-16 surrogate', [0xed, 0xa0, 0x80]],
  ] as const) {
    it(`${what} in a string value or key is a SampleCodecError`, (ctx) => {
      const bytes = record();
      for (const at of stringOffsets(bytes, ['chest-xray-0001', 'frontal', 'name', 'image'])) {
        const damaged = bytes.slice();
        damaged.set(bad, at);
        let thrown: unknown;
        try {
          decodeSample(damaged);
        } catch (error) {
          thrown = error;
        }
        expect(thrown).toBeInstanceOf(SampleCodecError);
        expect(thrown).toMatchObject({ code: 'BAD_SAMPLE_BYTES' });
        expect(String((thrown as Error).message)).toMatch(/not valid UTF-8/);
      }
      report(ctx.task, {
        scenario: 'hostile inputs',
        case: `decodeSample: ${what}`,
        figures: { error: 'SampleCodecError' },
      });
    });
  }

  it('every one-byte damage of a valid record decodes or throws SampleCodecError, quickly', async (ctx) => {
    const bytes = record();
    const random = seeded(21);
    let rejected = 0;
    const { ms } = await bounded('byte damage sweep', 5_000, async () => {
      for (let at = 0; at < bytes.length; at++) {
        for (const v of [0x00, 0x80, 0xc3, 0xff, Math.floor(random() * 256)]) {
          const damaged = bytes.slice();
          damaged[at] = v;
          try {
            decodeSample(damaged);
          } catch (error) {
            expect(error).toBeInstanceOf(SampleCodecError);
            rejected++;
          }
        }
      }
    });
    expect(rejected).toBeGreaterThan(0);
    report(ctx.task, {
      scenario: 'hostile inputs',
      case: 'decodeSample: every one-byte damage',
      figures: { variants: bytes.length * 5, rejected, ms: Math.round(ms) },
    });
  });
});

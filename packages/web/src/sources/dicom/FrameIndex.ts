import { ShardLayout } from '@medfusion/core';
import { checkUntrustedSize } from '@medfusion/core/internal';

/**
 * Most samples a {@link FrameIndex} stands for: frame counts come from file headers,
 * manifests and DICOMweb metadata, all untrusted, and a loader's epoch plan allocates
 * per sample (2^28 samples is a 1 GiB plan).
 */
export const MAX_FRAME_INDEX_SAMPLES = 2 ** 28;

/**
 * Which item (a file of `DicomSource`, an instance of `DicomWebSource`) and
 * which frame of it each sample index stands for: item `i` gives `counts[i]`
 * samples in a row, numbered from `firstFrame`. Holds one offset per item, never
 * one entry per sample, and checks the total before anything is built.
 */
export class FrameIndex {
  /** Number of samples (the sum of the counts). */
  readonly length: number;
  private readonly layout: ShardLayout;
  private readonly firstFrame: number;

  /**
   * @param what - names the counts in the error when they add up past
   *   {@link MAX_FRAME_INDEX_SAMPLES} (and the file or server they come from)
   */
  constructor(counts: readonly number[], firstFrame: number, what = 'the frame counts') {
    let total = 0;
    for (const c of counts) total += c;
    checkUntrustedSize(what, total, {
      cap: MAX_FRAME_INDEX_SAMPLES,
      capName: 'the sample limit',
      unit: 'samples',
    });
    this.layout = new ShardLayout(counts);
    this.length = this.layout.length;
    this.firstFrame = firstFrame;
  }

  /** The item sample `index` comes from (call {@link check} first). */
  itemOf(index: number): number {
    return this.layout.shardOf(index);
  }

  /** The frame of its item sample `index` is (call {@link check} first). */
  frameOf(index: number): number {
    return this.firstFrame + this.layout.localIndex(index);
  }

  /** Throw a RangeError unless `index` is an integer in [0, length). */
  check(index: number): void {
    if (
      typeof index !== 'number' ||
      !Number.isInteger(index) ||
      index < 0 ||
      index >= this.length
    ) {
      throw new RangeError(`index ${String(index)} is out of range [0, ${this.length})`);
    }
  }
}

/**
 * Which item (a file of `DicomSource`, an instance of `DicomWebSource`) and
 * which frame of it each sample index stands for: item `i` gives `counts[i]`
 * samples in a row, numbered from `firstFrame`.
 */
export class FrameIndex {
  /** Number of samples (the sum of the counts). */
  readonly length: number;
  private readonly items: Int32Array;
  private readonly frames: Int32Array;

  constructor(counts: readonly number[], firstFrame: number) {
    const total = counts.reduce((a, b) => a + b, 0);
    this.length = total;
    this.items = new Int32Array(total);
    this.frames = new Int32Array(total);
    let k = 0;
    for (let item = 0; item < counts.length; item++) {
      for (let f = 0; f < (counts[item] as number); f++, k++) {
        this.items[k] = item;
        this.frames[k] = firstFrame + f;
      }
    }
  }

  /** The item sample `index` comes from (call {@link check} first). */
  itemOf(index: number): number {
    return this.items[index] as number;
  }

  /** The frame of its item sample `index` is (call {@link check} first). */
  frameOf(index: number): number {
    return this.frames[index] as number;
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

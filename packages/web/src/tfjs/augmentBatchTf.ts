import {
  type AugmentRandom,
  AugmentRng,
  type CropBox,
  type IntensityDraw,
  type NoiseDraw,
  type OneOfDraw,
  type Transform,
} from '@medfusion/core';
import {
  addNoise,
  arrayOf,
  badRange,
  badType,
  checkNormalizeChannels,
  NoiseStream,
  nonNegativeInt,
  object,
  showValue,
} from '@medfusion/core/internal';
import {
  add,
  broadcastTo,
  concat,
  div,
  gather,
  getBackend,
  greaterEqual,
  image,
  less,
  logicalAnd,
  logicalOr,
  mul,
  pow,
  range,
  relu,
  reshape,
  slice,
  sub,
  type Tensor,
  type Tensor4D,
  tensor1d,
  tensor2d,
  tensor4d,
  tidy,
  where,
} from '@tensorflow/tfjs-core';

/** Which samples a batch holds: the stream of sample `i` is `(seed, epoch, indices[i])`. */
export interface AugmentBatchOptions {
  /** The loader's seed. */
  seed: number;
  /** The epoch being read (`loader.epoch` during the loop). */
  epoch: number;
  /** Dataset index of each sample of the batch, in batch order (the collate context's `indices`). */
  indices: ArrayLike<number>;
}

/** A seed, an epoch or an index of the per-sample stream: an integer in [0, 2^53). */
function streamKey(name: string, v: unknown): number {
  if (!Number.isSafeInteger(nonNegativeInt(name, v))) throw badRange(name, 'below 2^53', v);
  return v as number;
}

/**
 * Augment a whole uploaded batch `[N, H, W, C]` with TF.js ops: the GPU path of
 * the augment stage. The random draws are taken on the CPU from each sample's
 * `(seed, epoch, index)` stream (a few numbers per sample, the same draws as
 * the CPU path), then applied to the batch: each run of flips and quarter
 * turns by one `gather` (see `remap`), `rotate` by
 * `tf.image.transform`, `randomResizedCrop` by `tf.image.cropAndResize`,
 * intensity, gamma, cutout and `normalize` by broadcast arithmetic;
 * `gaussianNoise` values are drawn on the CPU from each sample's noise stream
 * (the CPU path's values; TF.js has no seeded per-value generator on the GPU)
 * and added as one uploaded tensor. Matches the CPU path within 1e-4
 * (absolute, values in [0, 1]). Returns a new tensor; `images` is not disposed.
 *
 * @example
 * const augmented = augmentBatchTf(images, compose([flipH(), rotate90(), intensity()]), {
 *   seed: 42, epoch: loader.epoch, indices,
 * });
 */
export function augmentBatchTf(
  images: Tensor4D,
  transform: Transform,
  options: AugmentBatchOptions,
): Tensor4D {
  if (images === null || typeof images !== 'object' || images.rank !== 4) {
    throw new TypeError(
      `images must be a Tensor4D [N, H, W, C], got rank ${showValue(images?.rank)}`,
    );
  }
  if (transform === null || typeof transform !== 'object' || typeof transform.draw !== 'function') {
    throw new TypeError(
      `transform must be a transform (e.g. compose([...])), got ${showValue(transform)}`,
    );
  }
  object('options', options, 'an object with seed, epoch and indices');
  const seed = streamKey('seed', options.seed);
  const epoch = streamKey('epoch', options.epoch);
  const indices = options.indices;
  const [n, h, w, c] = images.shape;
  if (indices === null || typeof indices !== 'object') {
    throw badType('indices', 'an array of dataset indices', indices);
  }
  if (Array.isArray(indices)) arrayOf('indices', indices, (name, v) => streamKey(name, v));
  if (indices.length !== n) {
    throw new RangeError(
      `indices must hold one dataset index per sample (${n}), got ${showValue(indices?.length)}`,
    );
  }
  const rng = new AugmentRng();
  const shape = [h, w, c];
  const draws: unknown[] = new Array(n);
  for (let i = 0; i < n; i++) {
    rng.reset(seed, epoch, streamKey(`indices[${i}]`, indices[i]));
    draws[i] = transform.draw(rng as AugmentRandom, shape);
  }
  return tidy(() => step(images, transform, draws));
}

/** Per-sample mask `[N, 1, 1, 1]` broadcast to `like`. */
function mask(draws: readonly unknown[], like: Tensor, pick = (d: unknown) => d !== undefined) {
  const m = reshape(
    tensor1d(
      draws.map((d) => (pick(d) ? 1 : 0)),
      'bool',
    ),
    [draws.length, 1, 1, 1],
  );
  return broadcastTo(m, like.shape);
}

/** A per-sample value `[N, 1, 1, 1]`. */
function perSample(values: number[]): Tensor {
  return reshape(tensor1d(values, 'float32'), [values.length, 1, 1, 1]);
}

/** The steps that permute pixels, run as one gather by {@link remap}. */
const GEOMETRIC = new Set(['flipH', 'flipV', 'rotate90']);

/**
 * An integer affine map of pixel coordinates: output `(i, j)` reads input
 * `(a·i + b·j + e, c·i + d·j + f)`.
 */
type PixelMap = [a: number, b: number, c: number, d: number, e: number, f: number];

/** The map of one flip or quarter turn (`undefined` draw: the identity), for an `h × w` image. */
function pixelMap(kind: string, draw: unknown, h: number, w: number): PixelMap {
  if (draw === undefined) return [1, 0, 0, 1, 0, 0];
  if (kind === 'flipH') return [1, 0, 0, -1, 0, w - 1];
  if (kind === 'flipV') return [-1, 0, 0, 1, h - 1, 0];
  if (draw === 1) return [0, 1, -1, 0, 0, w - 1]; // (j, w−1−i)
  if (draw === 2) return [-1, 0, 0, -1, h - 1, w - 1];
  return [0, -1, 1, 0, h - 1, 0]; // 3 turns: (h−1−j, i)
}

/** `outer ∘ inner`: read through `inner` first, then `outer` (the earlier step). */
function chain(outer: PixelMap, inner: PixelMap): PixelMap {
  const [a, b, c, d, e, f] = outer;
  const [a2, b2, c2, d2, e2, f2] = inner;
  return [
    a * a2 + b * c2,
    a * b2 + b * d2,
    c * a2 + d * c2,
    c * b2 + d * d2,
    a * e2 + b * f2 + e,
    c * e2 + d * f2 + f,
  ];
}

/**
 * Flips and quarter turns (a run of them, each with its per-sample draws) as
 * one gather: each sample's steps compose into one pixel map on the CPU, the
 * batch's source indices `[N, H·W]` come from three numbers per sample and two
 * broadcast ops, and `gather` (batch dims 1) permutes every sample in one
 * pass, bitwise the CPU path's result. Replaces a reverse, a transpose and a
 * full-size select per step.
 */
function remap(x: Tensor4D, steps: readonly Transform[], draws: readonly (readonly unknown[])[]) {
  const [n, h, w, c] = x.shape;
  const ci = new Int32Array(n);
  const cj = new Int32Array(n);
  const c0 = new Int32Array(n);
  let moved = false;
  for (let i = 0; i < n; i++) {
    let m: PixelMap = [1, 0, 0, 1, 0, 0];
    for (let q = 0; q < steps.length; q++) {
      const kind = steps[q]!.kind;
      const d = draws[q]![i];
      if (kind === 'rotate90' && h !== w && (d === 1 || d === 3)) {
        throw new RangeError(
          `rotate90 with odd turns needs square images on the GPU path, got ${h}×${w}`,
        );
      }
      // the earlier step reads through the later one's map
      m = chain(m, pixelMap(kind, d, h, w));
    }
    const [a, b, cc, d, e, f] = m;
    // source index (a·i + b·j + e)·w + (cc·i + d·j + f) = i·(a·w + cc) + j·(b·w + d) + (e·w + f)
    ci[i] = a * w + cc;
    cj[i] = b * w + d;
    c0[i] = e * w + f;
    if (ci[i] !== w || cj[i] !== 1 || c0[i] !== 0) moved = true;
  }
  if (!moved) return x;
  const rows = reshape(range(0, h, 1, 'int32'), [1, h, 1]);
  const cols = reshape(range(0, w, 1, 'int32'), [1, 1, w]);
  const perSampleInt = (v: Int32Array) => reshape(tensor1d(v, 'int32'), [n, 1, 1]);
  const index = add(
    add(mul(rows, perSampleInt(ci)), perSampleInt(c0)),
    mul(cols, perSampleInt(cj)),
  );
  const flat = reshape(x, [n, h * w, c]);
  return reshape(gather(flat, reshape(index, [n, h * w]), 1, 1), [n, h, w, c]) as Tensor4D;
}

function step(x: Tensor4D, t: Transform, draws: readonly unknown[]): Tensor4D {
  const [n, h, w] = x.shape;
  const o = t.options;
  switch (t.kind) {
    case 'compose': {
      const steps = o.steps as Transform[];
      const drawsOf = (j: number) => draws.map((d) => (d as unknown[] | undefined)?.[j]);
      let y = x;
      for (let j = 0; j < steps.length; ) {
        // a run of flips and quarter turns is one pixel permutation: one gather
        let end = j;
        while (end < steps.length && GEOMETRIC.has(steps[end]!.kind)) end++;
        if (end > j) {
          const run = steps.slice(j, end);
          y = remap(
            y,
            run,
            run.map((_, q) => drawsOf(j + q)),
          );
          j = end;
        } else {
          y = step(y, steps[j]!, drawsOf(j));
          j++;
        }
      }
      return y;
    }
    case 'oneOf': {
      // each branch runs with the draws of the samples that chose it; the others pass through
      const steps = o.steps as Transform[];
      let y = x;
      for (let b = 0; b < steps.length; b++) {
        const mine = draws.map((d) =>
          (d as OneOfDraw | undefined)?.choice === b ? (d as OneOfDraw).draw : undefined,
        );
        if (mine.some((d) => d !== undefined)) y = step(y, steps[b]!, mine);
      }
      return y;
    }
    case 'flipH':
    case 'flipV':
    case 'rotate90':
      return remap(x, [t], [draws]);
    case 'rotate': {
      const m = new Float32Array(n * 8);
      const cx = (w - 1) / 2;
      const cy = (h - 1) / 2;
      draws.forEach((d, i) => {
        const a = (d as number | undefined) ?? 0;
        const cos = Math.cos(a);
        const sin = Math.sin(a);
        // output (x, y) reads input (cos·x − sin·y + a2, sin·x + cos·y + b2): rotate's inverse map
        m.set(
          [cos, -sin, cx - cos * cx + sin * cy, sin, cos, cy - sin * cx - cos * cy, 0, 0],
          i * 8,
        );
      });
      const fill = o.fill as number;
      // tfjs-backend-cpu 4.22's Transform kernel returns after the first image: go one by one there
      if (getBackend() === 'cpu') {
        const parts: Tensor4D[] = [];
        for (let i = 0; i < n; i++) {
          const one = slice(x, [i, 0, 0, 0], [1, -1, -1, -1]);
          parts.push(
            image.transform(
              one,
              tensor2d(m.subarray(i * 8, i * 8 + 8), [1, 8]),
              'bilinear',
              'constant',
              fill,
            ),
          );
        }
        return concat(parts, 0);
      }
      return image.transform(x, tensor2d(m, [n, 8]), 'bilinear', 'constant', fill);
    }
    case 'randomResizedCrop': {
      const [oh, ow] = o.size as [number, number];
      const boxes = new Float32Array(n * 4);
      const sy = h > 1 ? 1 / (h - 1) : 0;
      const sx = w > 1 ? 1 / (w - 1) : 0;
      draws.forEach((d, i) => {
        const b = d as CropBox;
        boxes.set([b.y * sy, b.x * sx, (b.y + b.h - 1) * sy, (b.x + b.w - 1) * sx], i * 4);
      });
      const boxInd = tensor1d(
        Array.from({ length: n }, (_, i) => i),
        'int32',
      );
      return image.cropAndResize(x, tensor2d(boxes, [n, 4]), boxInd, [oh, ow], 'bilinear');
    }
    case 'intensity': {
      const ds = draws as (IntensityDraw | undefined)[];
      const scaled = mul(x, perSample(ds.map((d) => d?.scale ?? 1)));
      return add(scaled, perSample(ds.map((d) => d?.shift ?? 0))) as Tensor4D;
    }
    case 'gamma': {
      const g = perSample((draws as (number | undefined)[]).map((d) => d ?? 1));
      return where(mask(draws, x), pow(relu(x), g), x) as Tensor4D;
    }
    case 'gaussianNoise': {
      // each sample's noise comes from its own stream (the CPU path's values, a
      // pure function of (seed, epoch, index)); skipped samples add zeros
      if (draws.every((d) => d === undefined)) return x;
      const per = x.size / n;
      const noise = new Float32Array(x.size);
      const stream = new NoiseStream();
      for (let i = 0; i < n; i++) {
        const d = draws[i] as NoiseDraw | undefined;
        if (d !== undefined)
          addNoise(noise.subarray(i * per, (i + 1) * per), d, o.std as number, stream);
      }
      return add(x, tensor4d(noise, x.shape)) as Tensor4D;
    }
    case 'cutout': {
      const [ph, pw] = o.size as [number, number];
      const count = o.count as number;
      const rows = reshape(range(0, h, 1, 'int32'), [1, h, 1, 1]);
      const cols = reshape(range(0, w, 1, 'int32'), [1, 1, w, 1]);
      let hole: Tensor | undefined;
      for (let q = 0; q < count; q++) {
        // a skipped sample gets a patch far outside the image
        const y0 = reshape(
          tensor1d(
            draws.map((d) => (d as number[] | undefined)?.[2 * q] ?? -(h + ph)),
            'int32',
          ),
          [n, 1, 1, 1],
        );
        const x0 = reshape(
          tensor1d(
            draws.map((d) => (d as number[] | undefined)?.[2 * q + 1] ?? -(w + pw)),
            'int32',
          ),
          [n, 1, 1, 1],
        );
        const inY = logicalAnd(greaterEqual(rows, y0), less(rows, add(y0, ph)));
        const inX = logicalAnd(greaterEqual(cols, x0), less(cols, add(x0, pw)));
        const patch = logicalAnd(inY, inX);
        hole = hole === undefined ? patch : logicalOr(hole, patch);
      }
      const fill = broadcastTo(reshape(tensor1d([o.fill as number]), [1, 1, 1, 1]), x.shape);
      return where(broadcastTo(hole!, x.shape), fill, x) as Tensor4D;
    }
    case 'normalize': {
      const c = x.shape[3];
      const mean = o.mean as number[];
      const std = o.std as number[];
      checkNormalizeChannels(mean, std, c);
      return div(sub(x, tensor1d(mean)), tensor1d(std)) as Tensor4D;
    }
    default:
      throw new TypeError(
        `augmentBatchTf cannot run '${t.kind}' on the GPU; run it on the CPU path (augmentFields)`,
      );
  }
}

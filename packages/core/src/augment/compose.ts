import { showValue, withDefault } from '../util/validate.js';
import type { FloatArray, Transform } from './Transform.js';
import { optionsOf, probability } from './Transform.js';

function steps(name: string, list: unknown): Transform[] {
  if (!Array.isArray(list) || list.length === 0) {
    throw new TypeError(`${name} needs a non-empty array of transforms, got ${showValue(list)}`);
  }
  return list.map((t, i) => {
    const s = t as Partial<Transform> | null;
    if (
      s === null ||
      typeof s !== 'object' ||
      typeof s.draw !== 'function' ||
      typeof s.apply !== 'function'
    ) {
      throw new TypeError(`${name}[${i}] must be a transform (e.g. flipH()), got ${showValue(t)}`);
    }
    return t as Transform;
  });
}

/**
 * Run transforms one after the other (each with its own probability). The
 * draw is the list of the steps' draws, taken in order from one stream.
 * @example compose([flipH(), rotate90(), intensity(), gaussianNoise({ std: 0.03 })])
 */
export function compose(transforms: readonly Transform[]): Transform<(unknown | undefined)[]> {
  const list = steps('compose', transforms);
  return {
    kind: 'compose',
    options: { steps: list },
    draw: (rng, shape) => {
      const draws: unknown[] = new Array(list.length);
      let s = shape;
      for (let i = 0; i < list.length; i++) {
        const d = list[i]!.draw(rng, s);
        draws[i] = d;
        s = list[i]!.shapeAfter(s, d);
      }
      return draws;
    },
    shapeAfter: (shape, draws) => {
      let s = shape;
      for (let i = 0; i < list.length; i++) s = list[i]!.shapeAfter(s, draws?.[i]);
      return s;
    },
    apply(input: FloatArray, draws: unknown[]): FloatArray {
      let x = input;
      for (let i = 0; i < list.length; i++) {
        if (draws[i] !== undefined) x = list[i]!.apply(x, draws[i]);
      }
      return x;
    },
  };
}

/** Options of {@link oneOf}. */
export interface OneOfOptions {
  /**
   * Probability of applying one of the transforms at all.
   * @default 1
   */
  p?: number;
}

/** The draw of {@link oneOf}: which transform, and its own draw. */
export interface OneOfDraw {
  /** Index of the chosen transform. */
  choice: number;
  /** The chosen transform's own draw. */
  draw: unknown;
}

/**
 * With probability `p`, apply one of `transforms`, chosen uniformly.
 * @example oneOf([rotate90({ p: 1 }), rotate({ p: 1, degrees: 15 })])
 */
export function oneOf(
  transforms: readonly Transform[],
  options?: OneOfOptions,
): Transform<OneOfDraw> {
  const list = steps('oneOf', transforms);
  const p = withDefault('oneOf.p', optionsOf('oneOf', options).p, 1, probability);
  return {
    kind: 'oneOf',
    options: { steps: list, p },
    draw: (rng, shape) => {
      const go = rng.next() < p;
      const choice = rng.int(list.length);
      if (!go) return undefined;
      const d = list[choice]!.draw(rng, shape);
      return d === undefined ? undefined : { choice, draw: d };
    },
    shapeAfter: (shape, d) => (d === undefined ? shape : list[d.choice]!.shapeAfter(shape, d.draw)),
    apply: (input, d) => list[d.choice]!.apply(input, d.draw),
  };
}

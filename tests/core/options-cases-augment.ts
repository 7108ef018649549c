// The augmentation calls of @medfusion/core that take an options object (the transforms,
// `oneOf`, `augmentFields`), as tests/core/options-refusal.ts tries them.
import {
  augmentFields,
  cutout,
  flipH,
  flipV,
  gamma,
  gaussianJitter,
  gaussianNoise,
  intensity,
  normalize,
  oneOf,
  randomResizedCrop,
  rotate,
  rotate90,
} from '@medfusion/core';
import type { OptionSpec, OptionsCase } from './options-refusal.js';

const p: OptionSpec = 'number';

/** The transforms: `name(options)`, messages say `name.option`. */
const transform = (
  name: string,
  make: (o: never) => unknown,
  types: string[],
  options: Record<string, OptionSpec>,
  base?: Record<string, unknown>,
): OptionsCase => ({
  call: `${name}(options)`,
  types,
  run: (o) => make(o as never),
  prefix: `${name}.`,
  options,
  base,
  required: base ? Object.keys(base) : undefined,
});

export const AUGMENT_CASES: OptionsCase[] = [
  transform('cutout', cutout, ['CutoutOptions'], {
    p,
    size: ['number|array', [4, 4]],
    count: 'number',
    fill: 'number',
  }),
  transform('flipH', flipH, ['FlipOptions'], { p }),
  transform('flipV', flipV, ['FlipOptions'], { p }),
  transform('gamma', gamma, ['GammaOptions'], { p, gamma: ['numbers', [0.8, 1.2]] }),
  transform(
    'gaussianJitter',
    gaussianJitter,
    ['GaussianJitterOptions'],
    { std: ['number|array', [0.1, 0.1]], p },
    { std: 0.1 },
  ),
  transform('gaussianNoise', gaussianNoise, ['GaussianNoiseOptions'], { p, std: 'number' }),
  transform('intensity', intensity, ['IntensityOptions'], {
    p,
    scale: ['numbers', [0.9, 1.1]],
    shift: ['numbers', [-0.1, 0.1]],
  }),
  transform('normalize', normalize, ['NormalizeOptions'], {
    mean: ['number|array', [0, 0]],
    std: ['number|array', [1, 1]],
  }),
  transform(
    'randomResizedCrop',
    randomResizedCrop,
    ['RandomResizedCropOptions'],
    {
      size: ['number|array', [4, 4]],
      scale: ['numbers', [0.5, 1]],
      ratio: ['numbers', [0.75, 1.33]],
      p,
    },
    { size: 4 },
  ),
  transform('rotate', rotate, ['RotateOptions'], { p, degrees: 'number', fill: 'number' }),
  transform('rotate90', rotate90, ['Rotate90Options'], { p, turns: ['numbers', [1, 2]] }),
  {
    call: 'oneOf(transforms, options)',
    types: ['OneOfOptions'],
    run: (o) => oneOf([flipH()], o as never),
    prefix: 'oneOf.',
    options: { p },
  },
  {
    call: 'augmentFields(transforms, options)',
    types: ['AugmentFieldsOptions'],
    run: (o) => augmentFields({ x: flipH() }, o as never),
    options: { shapes: 'object', 'shapes.x': ['numbers', [2, 2, 1]] },
  },
];

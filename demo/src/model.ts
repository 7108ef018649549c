import * as tf from '@tensorflow/tfjs';
import type { Backend } from './settings.js';

/**
 * Pick the TF.js backend: the one asked for, else WebGPU, then WebGL, then CPU.
 * Returns the name that actually runs.
 */
export async function chooseBackend(wanted: Backend): Promise<string> {
  const order = wanted === 'auto' ? ['webgpu', 'webgl', 'cpu'] : [wanted, 'webgl', 'cpu'];
  for (const name of order) {
    if (name === 'webgpu') {
      // Ask for an adapter first: TF.js logs warnings when there is none.
      const adapter = await navigator.gpu?.requestAdapter().catch(() => null);
      if (!adapter) continue;
      // Registers the backend; loaded only when it may be used.
      await import('@tensorflow/tfjs-backend-webgpu');
    }
    try {
      if (await tf.setBackend(name)) {
        await tf.ready();
        return tf.getBackend();
      }
    } catch {
      // try the next backend
    }
  }
  throw new Error('no TensorFlow.js backend could start');
}

/** Shape of the model's inputs. */
export interface ModelShape {
  /** Image side in pixels (square, one channel). */
  side: number;
  /** Number of tabular features. */
  features: number;
}

/**
 * The fusion model: a small CNN on the scan and an MLP on the tabular
 * features, concatenated, then a sigmoid for the binary label.
 */
export function buildFusionModel({ side, features }: ModelShape): tf.LayersModel {
  const image = tf.input({ shape: [side * side], name: 'image' });
  const tabular = tf.input({ shape: [features], name: 'tabular' });
  // Downsample first: the lesions are large, and the CPU backend must keep up.
  let x = tf.layers.reshape({ targetShape: [side, side, 1] }).apply(image) as tf.SymbolicTensor;
  x = tf.layers.averagePooling2d({ poolSize: 2 }).apply(x) as tf.SymbolicTensor;
  x = tf.layers
    .conv2d({ filters: 8, kernelSize: 3, strides: 2, activation: 'relu', padding: 'same' })
    .apply(x) as tf.SymbolicTensor;
  x = tf.layers
    .conv2d({ filters: 16, kernelSize: 3, strides: 2, activation: 'relu', padding: 'same' })
    .apply(x) as tf.SymbolicTensor;
  x = tf.layers.maxPooling2d({ poolSize: 2 }).apply(x) as tf.SymbolicTensor;
  x = tf.layers.flatten().apply(x) as tf.SymbolicTensor;
  x = tf.layers.dense({ units: 32, activation: 'relu' }).apply(x) as tf.SymbolicTensor;
  const t = tf.layers.dense({ units: 16, activation: 'relu' }).apply(tabular) as tf.SymbolicTensor;
  let z = tf.layers.concatenate().apply([x, t]) as tf.SymbolicTensor;
  z = tf.layers.dense({ units: 16, activation: 'relu' }).apply(z) as tf.SymbolicTensor;
  const out = tf.layers.dense({ units: 1, activation: 'sigmoid' }).apply(z) as tf.SymbolicTensor;
  const model = tf.model({ inputs: [image, tabular], outputs: out });
  model.compile({ optimizer: tf.train.adam(3e-3), loss: 'binaryCrossentropy', metrics: ['acc'] });
  return model;
}

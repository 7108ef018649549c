import type * as tf from '@tensorflow/tfjs';

/** What one training step reports. */
export interface StepInfo {
  /** Global step, from 1. */
  step: number;
  /** Epoch, from 1. */
  epoch: number;
  /** Step within the epoch, from 1. */
  stepInEpoch: number;
  /** Batch loss. */
  loss: number;
  /** Batch accuracy. */
  acc: number;
  /** Milliseconds since the previous step ended (data wait + compute). */
  stepMs: number;
}

/** Options of {@link trainModel}. */
export interface TrainOptions {
  /** The compiled model. */
  model: tf.LayersModel;
  /** What `fitDataset` consumes. */
  dataset: tf.data.Dataset<tf.TensorContainer>;
  /** Passes over the data. */
  epochs: number;
  /** Called after every step; the next step waits for a returned promise (not counted in `stepMs`). */
  onStep: (info: StepInfo) => void | Promise<void>;
  /** Called when an epoch begins, with its number (from 1). */
  onEpochBegin?: (epoch: number) => void;
  /** Called after every epoch with its number (from 1). */
  onEpoch?: (epoch: number) => void | Promise<void>;
  /** Stops training at the next step boundary. */
  signal: AbortSignal;
}

/** Train with `model.fitDataset`; resolves when done or stopped. */
export async function trainModel(o: TrainOptions): Promise<void> {
  let step = 0;
  let epoch = 0;
  let last = performance.now();
  const stop = () => {
    o.model.stopTraining = true;
  };
  o.signal.addEventListener('abort', stop, { once: true });
  try {
    await o.model.fitDataset(o.dataset, {
      epochs: o.epochs,
      verbose: 0,
      callbacks: {
        onEpochBegin: async (e) => {
          epoch = e + 1;
          o.onEpochBegin?.(epoch);
        },
        onBatchEnd: async (batch, logs) => {
          step++;
          const now = performance.now();
          await o.onStep({
            step,
            epoch,
            stepInEpoch: batch + 1,
            loss: Number(logs?.loss ?? Number.NaN),
            acc: Number(logs?.acc ?? logs?.accuracy ?? Number.NaN),
            stepMs: now - last,
          });
          last = performance.now();
          if (o.signal.aborted) stop();
        },
        onEpochEnd: async (e) => {
          await o.onEpoch?.(e + 1);
          last = performance.now();
        },
      },
    });
  } finally {
    o.signal.removeEventListener('abort', stop);
  }
}

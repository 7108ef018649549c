// @medfusion/web — browser adapters: workers, OPFS/IndexedDB, sources, TF.js, WebGPU.
export { isCrossOriginIsolated } from './env.js';

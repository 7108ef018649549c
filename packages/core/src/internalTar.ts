// @medfusion/core/internal/tar — what `medfusion pack` needs of core, and no more.
//
// NOT PUBLIC API, as @medfusion/core/internal (same promise: none). The pack's main thread and
// each of its worker threads load this instead of '@medfusion/core' (every module of the
// library, ~50 ms of start-up per thread) or '@medfusion/core/internal'. Each name here is a
// re-export of the one helper; nothing lives in this file.

export { MedFusionError } from './errors.js';
export { decodeNpy } from './shards/decodeNpy.js';
export type { ImageKind } from './shards/imageCheck.js';
export { checkJpeg, checkPng, sniffImage } from './shards/imageCheck.js';
export { checkUniqueKeys, sampleKey } from './shards/sampleKey.js';
export { encodeTarIndex, type TarMember } from './shards/tarIndex.js';
export {
  checkUstarLayout,
  paddedSize,
  TAR_BLOCK,
  ustarLayout,
  writeUstarHeader,
} from './shards/tarLayout.js';

// Names of the workers the page starts for the training worker (trainerLink.ts offers them,
// the pipeline asks for them); shared by both sides without pulling either side's code in.

/** The decode pool's workers (loader.worker.ts). */
export const LOADER_WORKER = 'loader';

// Stands in for Node's `fs` and `path` in the demo's browser build (see demo/vite.config.ts):
// the DICOM codecs import them only for a branch that runs under Node.
export default {};

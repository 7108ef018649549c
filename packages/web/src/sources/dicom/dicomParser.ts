import * as namespace from 'dicom-parser';

type DicomParser = typeof namespace;

/**
 * dicom-parser, whichever way the runtime hands over its CommonJS bundle: bundlers
 * (Vite, webpack) give named exports, Node's ESM loader only `default` (the bundle's
 * exports cannot be detected statically), so named imports would fail in Node.
 */
export const dicomParser: DicomParser =
  'parseDicom' in namespace && typeof namespace.parseDicom === 'function'
    ? namespace
    : (namespace as unknown as { default: DicomParser }).default;

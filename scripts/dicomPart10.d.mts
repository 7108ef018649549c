// Types of scripts/dicomPart10.mjs for the TypeScript test setup that imports it.
export function part10File(
  dataset: Record<string, unknown> & { SOPClassUID: string; SOPInstanceUID: string },
  implementationClassUID: string,
): Uint8Array;

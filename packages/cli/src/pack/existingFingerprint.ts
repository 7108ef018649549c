import { readFile } from 'node:fs/promises';
import { join } from 'node:path';

/** The fingerprint of the `manifest.json` in `dir`, or undefined when there is none or it does not parse. */
export async function existingFingerprint(dir: string): Promise<unknown> {
  try {
    return JSON.parse(await readFile(join(dir, 'manifest.json'), 'utf8')).fingerprint;
  } catch {
    return undefined;
  }
}

// LmdbStore (@medfusion/node) under the store contract (tests/stores/contract.ts), plain and
// encrypted, on real LMDB files in a temporary folder; the crash case kills a real writer process.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { LmdbStore } from '@medfusion/node';
import { afterAll } from 'vitest';
import { storeContract } from '../stores/contract';
import {
  type ContractOptions,
  type StoreFactory,
  sharedStoreOptions,
} from '../stores/storeFactory';
import { openRawData } from './lmdbRaw';

const root = join(tmpdir(), `medfusion-lmdb-contract-${process.pid}`);
const writer = fileURLToPath(new URL('./fixtures/lmdbCrashWriter.ts', import.meta.url));

/** Every file of the store's folder, raw. */
function rawFiles(dir: string): Uint8Array[] {
  try {
    return readdirSync(dir).map((n) => readFileSync(join(dir, n)));
  } catch {
    return [];
  }
}

/** Flip a byte in the middle of `key`'s record, through LMDB itself (the store closed). */
async function corrupt(dir: string, key: string): Promise<void> {
  const { data, close } = openRawData(dir);
  const rec = Buffer.from(data.get(key)!);
  rec[rec.length >> 1]! ^= 0x40;
  await data.put(key, rec);
  await close();
}

async function newKey(): Promise<CryptoKey> {
  return crypto.subtle.generateKey({ name: 'AES-GCM', length: 256 }, false, ['encrypt', 'decrypt']);
}

function factory(variantKey: { key: CryptoKey; raw: Buffer } | undefined): StoreFactory {
  const open = (dir: string, o: ContractOptions = {}) => {
    return new LmdbStore({
      dir,
      ...sharedStoreOptions(o, variantKey?.key),
    });
  };
  return {
    name: `LmdbStore${variantKey ? ' + encryption' : ''}`,
    location: (tag) => join(root, `${tag}-${Math.random().toString(36).slice(2)}`),
    open,
    remove: async (dir) => rmSync(dir, { recursive: true, force: true }),
    variantKey: variantKey?.key,
    tooLarge: 'ENTRY_TOO_LARGE',
    persistence: true,
    raw: async (dir) => rawFiles(dir),
    corrupt,
    crash: {
      crashWhileWriting(dir, keys, size) {
        return new Promise((resolve, reject) => {
          const child = spawn(
            process.execPath,
            [
              '--conditions=@medfusion/source',
              '--import',
              'tsx',
              writer,
              dir,
              JSON.stringify(keys),
              String(size),
              variantKey ? variantKey.raw.toString('hex') : '',
            ],
            { stdio: ['ignore', 'pipe', 'inherit'] },
          );
          const done = new Set<string>();
          let text = '';
          child.stdout.on('data', (chunk: Buffer) => {
            text += chunk.toString();
            const lines = text.split('\n');
            text = lines.pop()!;
            for (const l of lines) if (l !== 'done') done.add(l);
            // Killed once the first put landed, while the rest are being written.
            if (done.size >= 1 && !child.killed)
              setTimeout(() => child.kill('SIGKILL'), keys.length % 4);
          });
          child.on('error', reject);
          child.on('exit', () => resolve(done));
        });
      },
    },
    twoInstances: true,
    quota: true,
    encryption: variantKey
      ? { newKey }
      : { unsupported: 'the encrypted variant (LmdbStore + encryption) runs these' },
    retention: true,
    forget: true,
    spaceUsed: async (dir) => {
      let n = 0;
      for (const f of readdirSync(dir)) if (f.endsWith('.mdb')) n += statSync(join(dir, f)).size;
      return n;
    },
    // Freed LMDB pages keep their bytes until compact() copies the live pages into a new file.
    compactionPoint: async (s) => (s as LmdbStore).compact(),
  };
}

afterAll(() => rmSync(root, { recursive: true, force: true }));
storeContract(factory(undefined));
const raw = randomBytes(32);
const variantKey = await crypto.subtle.importKey('raw', raw, 'AES-GCM', false, [
  'encrypt',
  'decrypt',
]);
storeContract(factory({ key: variantKey, raw }));

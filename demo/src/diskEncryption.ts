// The disk tier's encryption and "forget", on the training worker's side: the
// key the page derived from the passphrase (held in memory only, never stored),
// the store it opens, and forgetting one data set for real.
import {
  type CacheDirStoreOptions,
  type IdbStore,
  type OpfsStore,
  type PersistentStore,
  storeForCacheDir,
} from '@medfusion/web';

/** The disk tier's directory (OPFS; IndexedDB where OPFS is missing). */
export const DISK_DIR = 'medfusion-demo';
/** The encrypted disk tier's own directory: plain and sealed records never share one. */
export const ENCRYPTED_DISK_DIR = 'medfusion-demo-encrypted';

/** The disk tier's key while "encrypt the disk cache" is on (this worker's memory only). */
let diskKey: CryptoKey | undefined;

/** Encrypt the disk tier with `key` from the next store opened on (undefined: plain). */
export function setDiskKey(key: CryptoKey | undefined): void {
  diskKey = key;
}

/** The directory of the disk tier in use. */
export function diskDir(): string {
  return diskKey ? ENCRYPTED_DISK_DIR : DISK_DIR;
}

/** The store of the disk tier: OPFS, or IndexedDB where OPFS is missing; sealed with the key when set. */
export function openDiskStore(): PersistentStore {
  const options: CacheDirStoreOptions = diskKey ? { encryptionKey: diskKey } : {};
  return storeForCacheDir(diskDir(), options);
}

/** What "forget this data set" did. */
export interface ForgetResult {
  /** The directory (OPFS) or database name suffix (IndexedDB) of the store. */
  dir: string;
  /** Whether the store is the encrypted one. */
  encrypted: boolean;
  /** Entries of the data set deleted. */
  entries: number;
}

/** Delete every record of the data set `fingerprint` from the disk tier in use, for real. */
export async function forgetDataSet(fingerprint: string): Promise<ForgetResult> {
  const dir = diskDir();
  // storeForCacheDir gives an OpfsStore or an IdbStore: both forget.
  const store = openDiskStore() as OpfsStore | IdbStore;
  try {
    const entries = await store.forget(fingerprint);
    return { dir, encrypted: diskKey !== undefined, entries };
  } finally {
    await store.close();
  }
}

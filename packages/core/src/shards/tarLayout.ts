import { SourceFormatError } from '../errors.js';
import type { TarMember } from './tarIndex.js';

/** Size of a tar block: headers and padded member data are whole blocks. */
export const TAR_BLOCK = 512;

/** Longest member name, in bytes, that fits a ustar header's `name` field alone (no prefix, no PAX). */
export const USTAR_NAME_BYTES = 100;

/** Bytes a member's data takes in the archive: its size rounded up to whole blocks. */
export function paddedSize(size: number): number {
  return Math.ceil(size / TAR_BLOCK) * TAR_BLOCK;
}

/**
 * Whether `name` fits one ustar header by itself: printable ASCII, at most
 * {@link USTAR_NAME_BYTES} bytes. Such a member is one header block followed
 * by its data, so its offset follows from the sizes before it.
 */
export function isPlainUstarName(name: string): boolean {
  return name.length > 0 && name.length <= USTAR_NAME_BYTES && /^[\x21-\x7e]+$/.test(name);
}

/**
 * Where each member's data lies in a tar archive of plain ustar members written
 * in this order (one 512-byte header each, data padded to 512 bytes, no PAX or
 * long-name records): the index of a shard, known before it is written. A name
 * that is not {@link isPlainUstarName} is a `BAD_FORMAT` {@link SourceFormatError}.
 * Returns the members and the archive size including its two closing zero blocks.
 */
export function ustarLayout(members: readonly { name: string; size: number }[]): {
  members: TarMember[];
  size: number;
} {
  const out: TarMember[] = [];
  let at = 0;
  for (const m of members) {
    if (!isPlainUstarName(m.name)) {
      throw new SourceFormatError(
        `tar member name ${JSON.stringify(m.name)} needs more than one ustar header (printable ASCII, at most ${USTAR_NAME_BYTES} bytes)`,
      );
    }
    if (!Number.isInteger(m.size) || m.size < 0) {
      throw new RangeError(
        `tar member ${m.name}: size must be a non-negative integer, got ${m.size}`,
      );
    }
    out.push({ name: m.name, offset: at + TAR_BLOCK, size: m.size });
    at += TAR_BLOCK + paddedSize(m.size);
  }
  return { members: out, size: at + 2 * TAR_BLOCK };
}

/** Largest member size a ustar header's 11 octal digits hold (8 GiB - 1). */
const USTAR_MAX_SIZE = 8 ** 11 - 1;

/**
 * Write the ustar header block of a plain member (see {@link isPlainUstarName})
 * into `block` at `offset` (512 bytes, which must be zero): a regular file with
 * fixed fields (mode 0644, uid/gid 0, no user or group names, mtime 0), so a
 * shard's bytes depend on its members only. The members of {@link ustarLayout}
 * written in order, each header then its data padded with zeros to whole blocks,
 * and two zero blocks at the end, are the archive that layout describes (the same
 * bytes GNU tar and Python's tarfile read, and modern-tar's packer writes for
 * these fields). A name that is not plain is a `BAD_FORMAT` SourceFormatError; a
 * size beyond the header's range a RangeError.
 */
export function writeUstarHeader(
  block: Uint8Array,
  offset: number,
  name: string,
  size: number,
): void {
  if (!isPlainUstarName(name)) {
    throw new SourceFormatError(
      `tar member name ${JSON.stringify(name)} needs more than one ustar header (printable ASCII, at most ${USTAR_NAME_BYTES} bytes)`,
    );
  }
  if (!Number.isInteger(size) || size < 0 || size > USTAR_MAX_SIZE) {
    throw new RangeError(
      `tar member ${name}: size must be an integer in 0..${USTAR_MAX_SIZE}, got ${size}`,
    );
  }
  const h = block.subarray(offset, offset + TAR_BLOCK);
  for (let i = 0; i < name.length; i++) h[i] = name.charCodeAt(i);
  const octal = (at: number, width: number, value: number) => {
    let v = value;
    for (let i = at + width - 2; i >= at; i--, v = Math.floor(v / 8)) h[i] = 48 + (v % 8);
  };
  octal(100, 8, 0o644); // mode
  octal(108, 8, 0); // uid
  octal(116, 8, 0); // gid
  octal(124, 12, size);
  octal(136, 12, 0); // mtime
  h[156] = 48; // typeflag '0': regular file
  h.set([0x75, 0x73, 0x74, 0x61, 0x72, 0, 0x30, 0x30], 257); // magic "ustar\0", version "00"
  h.fill(32, 148, 156); // the checksum counts its own field as spaces
  let sum = 0;
  for (let i = 0; i < TAR_BLOCK; i++) sum += h[i] as number;
  octal(148, 7, sum); // six digits, a NUL, a space
  h[154] = 0;
  h[155] = 32;
}

/**
 * Check that `tar` (a whole archive) has each member's header where
 * {@link ustarLayout} put it: the name at the start of the block before the
 * data and the size in the header's size field. A mismatch is a `BAD_FORMAT`
 * {@link SourceFormatError} naming `source` and the member.
 */
export function checkUstarLayout(
  tar: Uint8Array,
  members: readonly TarMember[],
  source: string,
): void {
  const text = new TextDecoder();
  for (const m of members) {
    const h = m.offset - TAR_BLOCK;
    const name = text.decode(tar.subarray(h, h + USTAR_NAME_BYTES)).replace(/\0.*$/s, '');
    const size = Number.parseInt(
      text
        .decode(tar.subarray(h + 124, h + 136))
        .replace(/\0.*$/s, '')
        .trim(),
      8,
    );
    if (name !== m.name || size !== m.size) {
      throw new SourceFormatError(
        `${source}: no ustar header for ${m.name} (${m.size} bytes) at ${h}; found ${JSON.stringify(name)} (${size} bytes)`,
      );
    }
  }
}

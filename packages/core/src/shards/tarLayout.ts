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
 * into `block` at `offset` (all 512 bytes of it): a regular file with
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
  block.set(USTAR_TEMPLATE, offset);
  let sum = USTAR_TEMPLATE_SUM;
  for (let i = 0; i < name.length; i++) {
    const c = name.charCodeAt(i);
    block[offset + i] = c;
    sum += c;
  }
  let v = size;
  for (let i = offset + 134; i >= offset + 124; i--, v = Math.floor(v / 8)) {
    const d = 48 + (v % 8);
    block[i] = d;
    sum += d - 48; // the template holds '0' there already
  }
  writeOctal(block, offset + 148, 7, sum); // six digits,
  block[offset + 154] = 0; // a NUL, then the template's space
}

/** Write `value` as `width - 1` octal digits at `at` (the field's last byte left as is). */
function writeOctal(block: Uint8Array, at: number, width: number, value: number): void {
  let v = value;
  for (let i = at + width - 2; i >= at; i--, v = Math.floor(v / 8)) block[i] = 48 + (v % 8);
}

/** A header block's fixed fields (see {@link writeUstarHeader}), with size 0 and the checksum field as spaces. */
const USTAR_TEMPLATE = (() => {
  const h = new Uint8Array(TAR_BLOCK);
  writeOctal(h, 100, 8, 0o644); // mode
  writeOctal(h, 108, 8, 0); // uid
  writeOctal(h, 116, 8, 0); // gid
  writeOctal(h, 124, 12, 0); // size
  writeOctal(h, 136, 12, 0); // mtime
  h[156] = 48; // typeflag '0': regular file
  h.set([0x75, 0x73, 0x74, 0x61, 0x72, 0, 0x30, 0x30], 257); // magic "ustar\0", version "00"
  h.fill(32, 148, 156); // the checksum counts its own field as spaces
  return h;
})();

/** Byte sum of {@link USTAR_TEMPLATE}. */
const USTAR_TEMPLATE_SUM = USTAR_TEMPLATE.reduce((a, b) => a + b, 0);

/**
 * Whether the header block at `h` of `tar` holds the name `base` + `.` + `ext`
 * (just `base` when `ext` is empty; ASCII, then a NUL unless it fills the field)
 * and `size` (octal digits after optional spaces, then a NUL or a space): the
 * common case of {@link checkUstarLayout}, compared byte by byte with nothing
 * allocated. A false answer is decided by decoding the fields, as any header is.
 */
function headerSays(tar: Uint8Array, h: number, base: string, ext: string, size: number): boolean {
  const length = ext === '' ? base.length : base.length + 1 + ext.length;
  if (h < 0 || h + TAR_BLOCK > tar.length || length > USTAR_NAME_BYTES) return false;
  for (let i = 0; i < length; i++) {
    const c =
      i < base.length
        ? base.charCodeAt(i)
        : i === base.length
          ? 0x2e
          : ext.charCodeAt(i - base.length - 1);
    if (c === 0 || c > 0x7f || tar[h + i] !== c) return false;
  }
  if (length < USTAR_NAME_BYTES && tar[h + length] !== 0) return false;
  let i = h + 124;
  const end = h + 136;
  while (i < end && tar[i] === 0x20) i++;
  let value = 0;
  let digits = 0;
  for (; i < end; i++, digits++) {
    const d = (tar[i] as number) - 0x30;
    if (d < 0 || d > 7) break;
    value = value * 8 + d;
  }
  if (digits === 0 || (i < end && tar[i] !== 0 && tar[i] !== 0x20)) return false;
  return value === size;
}

/**
 * Check that the block at `h` of `tar` is the ustar header of a member named
 * `name` with `size` bytes of data (the name field alone, no prefix or PAX
 * record). `ext`, when given, is appended to `name` after a dot (a sample's key
 * and a member's extension, compared without building the name). Nothing is allocated when it is. A mismatch is a `BAD_FORMAT`
 * {@link SourceFormatError} naming `source` and the member; `at` is where
 * `tar[0]` lies in the archive, for the message.
 */
export function checkUstarHeader(
  tar: Uint8Array,
  h: number,
  name: string,
  size: number,
  source: string,
  at = 0,
  ext = '',
): void {
  if (headerSays(tar, h, name, ext, size)) return;
  const full = ext === '' ? name : `${name}.${ext}`;
  // Not as planned (or not plain ASCII): decode the fields to say what is there.
  const text = new TextDecoder();
  const inside = h >= 0 && h + TAR_BLOCK <= tar.length;
  const found = inside
    ? text.decode(tar.subarray(h, h + USTAR_NAME_BYTES)).replace(/\0.*$/s, '')
    : '(outside the bytes read)';
  const foundSize = inside
    ? Number.parseInt(
        text
          .decode(tar.subarray(h + 124, h + 136))
          .replace(/\0.*$/s, '')
          .trim(),
        8,
      )
    : Number.NaN;
  if (inside && found === full && foundSize === size) return;
  throw new SourceFormatError(
    `${source}: no ustar header for ${full} (${size} bytes) at ${at + h}; found ${JSON.stringify(found)} (${foundSize} bytes)`,
  );
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
  for (const m of members) checkUstarHeader(tar, m.offset - TAR_BLOCK, m.name, m.size, source);
}

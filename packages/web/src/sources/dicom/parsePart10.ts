import type { DataSet, Element } from 'dicom-parser';
import { inflateSync } from 'fflate';
import { DicomError } from './DicomError.js';
import { dicomParser } from './dicomParser.js';
import type { TagReader, TagVr } from './dicomTags.js';
import { type DicomImageInfo, frameBytes, readImageInfo } from './imageInfo.js';
import { checkFragmentCount, checkNativePixels } from './pixelLimits.js';
import { numberValue } from './tagFields.js';
import { TransferSyntax } from './transferSyntax.js';

/** A parsed Part 10 object: its syntax, image description, tags and frame bytes. */
export interface Part10 {
  /** Transfer Syntax UID of the data set. */
  transferSyntax: string;
  /** The image description. */
  info: DicomImageInfo;
  /** Reads the object's attributes. */
  tags: TagReader;
  /** Bytes of frame `i` (encoded for encapsulated syntaxes). */
  frame(i: number): Uint8Array;
}

/** Deflated Explicit VR Little Endian: the data set after the meta header is one raw DEFLATE stream. */
export function inflate(bytes: Uint8Array, position: number): Uint8Array {
  const body = inflateSync(bytes.subarray(position));
  const whole = new Uint8Array(position + body.length);
  whole.set(bytes.subarray(0, position));
  whole.set(body, position);
  return whole;
}

/**
 * A Deflated Part 10 file inflated by the platform's zlib (`DecompressionStream`,
 * about 3x fflate's speed, in the calling page or worker), header bytes first, as
 * dicom-parser's inflater returns it; `undefined` when the file is not Deflated,
 * its meta header does not parse, or the platform cannot (then {@link parsePart10}
 * inflates with fflate and reports any error).
 */
export async function inflateNative(bytes: Uint8Array): Promise<Uint8Array | undefined> {
  if (typeof DecompressionStream === 'undefined') return undefined;
  let position: number;
  try {
    const meta = dicomParser.readPart10Header(bytes);
    if (meta.string('x00020010')?.trim() !== TransferSyntax.DeflatedExplicitVRLittleEndian) {
      return undefined;
    }
    position = (meta as unknown as { position: number }).position;
  } catch {
    return undefined;
  }
  try {
    const stream = new DecompressionStream('deflate-raw');
    const writer = stream.writable.getWriter();
    writer.write(bytes.subarray(position) as Uint8Array<ArrayBuffer>).catch(() => {});
    writer.close().catch(() => {});
    const chunks: Uint8Array[] = [];
    let length = position;
    const reader = stream.readable.getReader();
    for (let r = await reader.read(); !r.done; r = await reader.read()) {
      chunks.push(r.value);
      length += r.value.length;
    }
    const whole = new Uint8Array(length);
    whole.set(bytes.subarray(0, position));
    let at = position;
    for (const chunk of chunks) {
      whole.set(chunk, at);
      at += chunk.length;
    }
    return whole;
  } catch {
    return undefined;
  }
}

/** A {@link TagReader} over a dicom-parser data set. */
export function dataSetReader(ds: DataSet): TagReader {
  const key = (tag: string) => `x${tag.toLowerCase()}`;
  return {
    has: (tag) => {
      const el = ds.elements[key(tag)];
      return el !== undefined && el.length > 0;
    },
    string: (tag, i = 0) => {
      const el = ds.elements[key(tag)];
      if (!el || el.length === 0) return undefined;
      return ds.string(key(tag), i)?.trim() || undefined;
    },
    number: (tag: string, vr: TagVr, i = 0) => {
      const k = key(tag);
      const el = ds.elements[k];
      if (!el || el.length === 0) return undefined;
      if (vr === 'US') return el.length >= 2 * (i + 1) ? ds.uint16(k, i) : undefined;
      return numberValue(ds.string(k, i), vr);
    },
  };
}

/**
 * Parse a DICOM Part 10 file (preamble, `DICM`, meta header, data set) with
 * dicom-parser, inflating Deflated data sets with fflate unless `inflated` (from
 * {@link inflateNative}) is given. `where` names the object in errors.
 */
export function parsePart10(
  bytes: Uint8Array,
  where: string,
  index?: number,
  inflated?: Uint8Array,
): Part10 {
  let ds: DataSet;
  try {
    ds = dicomParser.parseDicom(bytes, { inflater: inflated ? () => inflated : inflate });
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    throw new DicomError(
      'DICOM_FORMAT',
      `${where} is not a readable DICOM Part 10 file: ${detail}`,
      {
        cause: error,
        ...(index === undefined ? {} : { index }),
      },
    );
  }
  const transferSyntax = ds.string('x00020010')?.trim() ?? TransferSyntax.ImplicitVRLittleEndian;
  const tags = dataSetReader(ds);
  const info = readImageInfo(tags, where, index);
  const pixels = ds.elements.x7fe00010;
  if (!pixels) {
    throw new DicomError(
      'DICOM_FORMAT',
      `${where} has no Pixel Data (7FE0,0010)`,
      index === undefined ? undefined : { index },
    );
  }
  // The header's claims against the bytes present, before anything loops over the frames.
  if (pixels.encapsulatedPixelData) {
    checkFragmentCount(info, pixels.fragments?.length ?? 0, where);
  } else {
    const present = Math.min(pixels.length, ds.byteArray.length - pixels.dataOffset);
    checkNativePixels(info, info.numberOfFrames, present, where);
  }
  return { transferSyntax, info, tags, frame: (i) => frameOf(ds, pixels, info, i, where) };
}

function frameOf(
  ds: DataSet,
  el: Element,
  info: DicomImageInfo,
  i: number,
  where: string,
): Uint8Array {
  const frames = info.numberOfFrames;
  if (!el.encapsulatedPixelData) {
    const size = frameBytes(info);
    const start = el.dataOffset + i * size;
    if (start + size > el.dataOffset + el.length || start + size > ds.byteArray.length) {
      throw new DicomError('DICOM_FORMAT', `${where}: Pixel Data is shorter than frame ${i} needs`);
    }
    return (ds.byteArray as Uint8Array).subarray(start, start + size);
  }
  const fragments = el.fragments ?? [];
  if (frames === 1)
    return dicomParser.readEncapsulatedPixelDataFromFragments(
      ds,
      el,
      0,
      fragments.length,
    ) as Uint8Array;
  if ((el.basicOffsetTable ?? []).length > 0)
    return dicomParser.readEncapsulatedImageFrame(ds, el, i) as Uint8Array;
  if (fragments.length === frames)
    return dicomParser.readEncapsulatedPixelDataFromFragments(ds, el, i, 1) as Uint8Array;
  const table = dicomParser.createJPEGBasicOffsetTable(ds, el);
  return dicomParser.readEncapsulatedImageFrame(ds, el, i, table) as Uint8Array;
}

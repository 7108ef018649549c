import type { ShapedArray } from '@medfusion/core';
import { HTTP_OPTION_NAMES, type HttpOptions } from '../../remote/RangeReader.js';
import type { UrlPolicy } from '../../remote/urlPolicy.js';
import type { ImageDtype, ImagePixels } from '../DecodedImage.js';
import type { DicomCodec } from './codecs.js';
import type { DicomTagName } from './dicomTags.js';
import type { DicomTagSpec } from './tagFields.js';
import type { DicomWindow } from './toFloat32.js';

/** How DICOM pixels and tags become a sample; shared by `DicomSource`, `DicomWebSource` and `DicomDecoder`. */
export interface DicomDecodeOptions {
  /**
   * VOI windowing to [0, 1]: `'file'` uses the object's first Window Center/Width
   * (an object without them fails with `DICOM_MISSING_TAG`), `{ center, width }`
   * uses yours. Without it, grey pixels are the rescaled values (Hounsfield units for CT).
   * @default undefined (no windowing)
   * @example { center: 40, width: 400 } // CT soft tissue
   */
  window?: 'file' | DicomWindow;
  /**
   * Attributes read into `tabular` (after the manifest's columns), by keyword
   * or spec. Identifying attributes cannot be selected.
   * @default []
   * @example ['PatientAge', 'PatientSex', { name: 'Modality', categories: ['CT', 'MR'] }, 'PixelSpacing']
   */
  tags?: readonly (DicomTagName | DicomTagSpec)[];
  /**
   * Multi-frame objects: `'volume'` makes one sample per object with `image.shape`
   * `[frames, H, W, C]` (`[H, W, C]` for single-frame objects); `'frames'` makes
   * one sample per frame, `[H, W, C]`.
   * @default 'volume'
   */
  multiFrame?: 'volume' | 'frames';
  /**
   * Resize each frame to this width in pixels (bilinear, pixel centres aligned: output column
   * `x` reads input column `(x + 0.5) · W / width − 0.5`, clamped to the image, as
   * `medfusion pack --decode --size` and browsers' image resizing do). The rescale and window
   * are applied to the four neighbours before they are blended, in the same pass that writes
   * the sample: no full-size intermediate for grey images.
   * @default the image's own width
   * @example 224
   */
  width?: number;
  /**
   * Resize each frame to this height in pixels (as `width`).
   * @default the image's own height
   * @example 224
   */
  height?: number;
  /**
   * Channels of the output: 3 repeats a grey image's value (R = G = B, for a network made for
   * RGB) and keeps an RGB image's; 1 keeps grey and turns RGB into luminance
   * (0.299 R + 0.587 G + 0.114 B, as `ImageDecoder`).
   * @default Samples per Pixel (the image's own: 1 grey, 3 colour)
   */
  channels?: 1 | 3;
  /**
   * Extra or replacement codecs by transfer syntax UID (see {@link DicomCodec}).
   * @default {} (the built-ins: RLE, JPEG Baseline, JPEG Lossless, JPEG-LS, JPEG 2000)
   */
  codecs?: Readonly<Record<string, DicomCodec>>;
}

/**
 * Option names both DICOM sources take after their own: {@link DicomDecodeOptions}
 * and the HTTP options (in this order in their unknown-option messages).
 */
export const DECODE_AND_HTTP_OPTIONS = [
  'window',
  'tags',
  'multiFrame',
  'width',
  'height',
  'channels',
  'codecs',
  ...HTTP_OPTION_NAMES,
] as const;

/** Options of `DicomDecoder`: the decode options, and the element type of its pixels. */
export interface DicomDecoderOptions<D extends ImageDtype = 'float32'> extends DicomDecodeOptions {
  /**
   * Element type of the pixels: `'float32'`, or `'uint8'`: `round(value × 255)` of a windowed
   * grey value (a grey image needs `window`), an 8-bit colour image's values as stored
   * (luminance and resized values rounded). Written in the same pass, into a `Uint8Array` a
   * quarter of the bytes; normalise once, in collate (`toFloat32: { scale: 1 / 255, mean, std }`)
   * or on the GPU. A grey image without a window, or colour of more than 8 bits, fails with
   * `DICOM_UNSUPPORTED`: their values do not fit in 0–255.
   * @default 'float32'
   */
  dtype?: D;
}

/** One decoded image. */
export interface DicomImage<D extends ImageDtype = 'float32'> {
  /** Pixels as the decoder's `dtype`, `[H, W, C]` (or `[frames, H, W, C]` for a volume), row-major. */
  image: ShapedArray<ImagePixels<D>>;
  /** Values of the `tags` option, in order. */
  tags: Float32Array;
  /** The Transfer Syntax UID the pixels were stored in. */
  transferSyntax: string;
  /** Frames in the object. */
  frames: number;
}

/** What `DicomSource` and `DicomWebSource` return for a sample (unless `transform` maps it). */
export interface DicomSample {
  /** Pixels as floats, `[H, W, C]` (or `[frames, H, W, C]` for a volume). */
  image: ShapedArray<Float32Array>;
  /** The manifest's tabular columns, then the `tags` values (names in `tabularNames`). */
  tabular: Float32Array;
  /** The label (NaN when there is none). */
  label: number;
}

/** Options of `DicomSource.open`. */
export interface DicomSourceOptions<T = DicomSample> extends HttpOptions, DicomDecodeOptions {
  /** URLs of DICOM Part 10 files (give exactly one of `urls`, `manifestUrl`, `files`, `directory`). */
  urls?: readonly (string | URL)[];
  /**
   * DICOM files on the user's machine: the `FileList` of an `<input type="file" multiple>`
   * (with `webkitdirectory`, a whole folder), dropped files, or `Blob`s. Samples follow the
   * relative path (`webkitRelativePath`, else `name`; a `Blob` is `files[i]`) in code unit
   * order, whatever the input order. Files without `DICM` at byte 128, and DICOMDIRs, are
   * skipped (counted in `skippedFiles`). Read with `Blob.arrayBuffer()`: no HTTP options,
   * no retry. `File`s are structured-cloneable: post them to a worker and open the same
   * source there.
   * @example input.files // <input type="file" webkitdirectory>
   */
  files?: Iterable<File | Blob>;
  /**
   * A folder on the user's machine, walked recursively: from `showDirectoryPicker()`, OPFS
   * (`navigator.storage.getDirectory()`), or posted to a worker. Paths are relative to it
   * (`IMAGES/IM1`); otherwise as `files`.
   * @example await showDirectoryPicker() // a CD/DVD export
   */
  directory?: FileSystemDirectoryHandle;
  /**
   * A CSV or JSON manifest (an array of objects) with one row per file: its URL
   * (relative to the manifest), a label and extra numeric columns.
   * @example 'https://pacs-export.example.org/study-12/manifest.csv'
   */
  manifestUrl?: string | URL;
  /**
   * Manifest column holding the file URL.
   * @default 'url'
   */
  urlColumn?: string;
  /**
   * Manifest column holding the numeric label (absent: labels are NaN).
   * @default 'label'
   */
  labelColumn?: string;
  /**
   * Manifest columns copied into `tabular` before the tags.
   * @default every other numeric column except `frames`
   */
  tabularColumns?: readonly string[];
  /**
   * Manifest column giving each file's frame count, used by `multiFrame: 'frames'`
   * (without it each file's header is read once at open).
   * @default 'frames'
   */
  framesColumn?: string;
  /** Which manifest URLs may be fetched (default: only under the manifest's folder). */
  urlPolicy?: UrlPolicy;
  /** Maps a sample to what `get` returns. */
  transform?: (sample: DicomSample, index: number) => T | Promise<T>;
  /** Aborts `open` (the manifest and header fetches, or the listing of local files). */
  signal?: AbortSignal;
}

import { abortSignal, arrayOf, fn, string, withDefault } from '@medfusion/core/internal';
import { resolveHttpOptions } from '../../remote/httpOptions.js';
import { urlLike } from '../../remote/resolveUrl.js';
import { checkUrlPolicy } from '../../remote/urlPolicy.js';
import type { DicomSourceOptions } from './dicomOptions.js';
import { checkDirectory, filesOf } from './localFiles.js';

/** The manifest columns of a `DicomSource` over a manifest, checked, defaults filled in. */
export interface DicomManifestColumns {
  /** See {@link DicomSourceOptions.urlColumn}. */
  urlColumn: string;
  /** See {@link DicomSourceOptions.labelColumn}. */
  labelColumn: string;
  /** See {@link DicomSourceOptions.framesColumn}. */
  framesColumn: string;
  /** See {@link DicomSourceOptions.tabularColumns}. */
  tabularColumns: readonly string[] | undefined;
}

const names = (name: string, v: unknown) => arrayOf(name, v, string, 'an array of column names');

/** The manifest column options of `options`, checked. */
export function manifestColumns(options: DicomSourceOptions<unknown>): DicomManifestColumns {
  return {
    urlColumn: withDefault('urlColumn', options.urlColumn, 'url', string),
    labelColumn: withDefault('labelColumn', options.labelColumn, 'label', string),
    framesColumn: withDefault('framesColumn', options.framesColumn, 'frames', string),
    tabularColumns: withDefault('tabularColumns', options.tabularColumns, undefined, names),
  };
}

/**
 * The options of `DicomSource.open` but the decoding ones (the decoder checks those),
 * checked before anything is read: TypeError / RangeError naming the option, `undefined`
 * the default, `null` refused like any value of the wrong type.
 */
export function checkDicomSourceOptions(options: DicomSourceOptions<unknown>): void {
  if (options.urls !== undefined) {
    arrayOf('urls', options.urls, urlLike, 'a non-empty array of URLs');
    if (options.urls.length === 0)
      throw new TypeError('urls must be a non-empty array of URLs, got []');
  }
  if (options.manifestUrl !== undefined) urlLike('manifestUrl', options.manifestUrl);
  if (options.files !== undefined) filesOf(options.files);
  if (options.directory !== undefined) checkDirectory(options.directory);
  manifestColumns(options);
  checkUrlPolicy(options.urlPolicy);
  withDefault('transform', options.transform, undefined, fn);
  withDefault('signal', options.signal, undefined, abortSignal);
  resolveHttpOptions(options);
}

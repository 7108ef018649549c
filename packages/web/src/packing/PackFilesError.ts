import { MedFusionError } from '@medfusion/core';
import { registerErrorClass } from '@medfusion/core/internal';

/**
 * What {@link packFiles} refuses: an input file or CSV row that cannot be packed
 * (`PACK_INPUT`: a truncated or unreadable image, a row naming a missing file,
 * duplicate sample keys, a label that is not a number), or an OPFS directory that
 * cannot take the data set (`PACK_OUTPUT`). `file` names the file at fault.
 */
export class PackFilesError extends MedFusionError<'PACK_INPUT' | 'PACK_OUTPUT'> {
  /** The file (image, CSV, OPFS directory) at fault, as the message names it. */
  readonly file: string;
  constructor(
    code: 'PACK_INPUT' | 'PACK_OUTPUT',
    file: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(code, `${file}: ${message}`, options);
    this.name = 'PackFilesError';
    this.file = file;
  }
}
registerErrorClass('PackFilesError', PackFilesError);

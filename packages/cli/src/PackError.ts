import { MedFusionError } from '@medfusion/core/internal/tar';

/**
 * What `medfusion` reports about a data set: a bad input file or CSV row
 * (`PACK_INPUT`), an output folder that cannot take the data set
 * (`PACK_OUTPUT`), a shard or sample failing a check (`VERIFY_FAILED`).
 * `file` names the file at fault (and the message names it too).
 */
export class PackError extends MedFusionError<'PACK_INPUT' | 'PACK_OUTPUT' | 'VERIFY_FAILED'> {
  /** The file (input file, CSV, shard) at fault. */
  readonly file: string;
  constructor(
    code: 'PACK_INPUT' | 'PACK_OUTPUT' | 'VERIFY_FAILED',
    file: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(code, `${file}: ${message}`, options);
    this.name = 'PackError';
    this.file = file;
  }
}

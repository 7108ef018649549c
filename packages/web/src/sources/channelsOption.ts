import { badRange, badType } from '@medfusion/core/internal';

/**
 * The `channels` option of the image decoders (`ImageDecoder`, `DicomDecoder`): 1 or 3,
 * else a `TypeError` / `RangeError` naming the option and the value.
 */
export function channelsOption(value: unknown): 1 | 3 {
  if (typeof value !== 'number') throw badType('channels', '1 or 3', value);
  if (value !== 1 && value !== 3) throw badRange('channels', '1 or 3', value);
  return value;
}

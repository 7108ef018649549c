// Retention lives in @medfusion/core (every disk store keeps it: web's and node's).
export type { RetentionOptions } from '@medfusion/core';
export {
  checkRetentionOptions,
  type RetentionSettings,
  SweepTimer,
  sweepInterval,
  wallClock,
} from '@medfusion/core/internal';

// StoreError lives in @medfusion/core (every disk store throws it: web's and node's).
export { StoreError, type StoreErrorCode } from '@medfusion/core';

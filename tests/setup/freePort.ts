// The one free-port helper lives in scripts/ (the demo server uses it too).
export { freePort } from '../../scripts/freePort.mjs';

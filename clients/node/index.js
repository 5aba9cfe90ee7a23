// payments-emulator for Node: start or reach the emulator, give each test its merchant and
// clock, act as the other side, wait and verify. See README.md.

export { EmulatorClock } from './src/clock.js';
export { seconds as durationSeconds } from './src/duration.js';
export { Emulator, Sink, uniqueName } from './src/emulator.js';
export {
  BadPathSegment, EmulatorConnectionError, EmulatorError, NotTheEmulator,
} from './src/errors.js';
export { expect } from './src/expect.js';
export { Merchant } from './src/merchant.js';
export { EmulatorStartError } from './src/start.js';

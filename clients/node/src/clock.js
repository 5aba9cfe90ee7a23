// A test's clock control, with time-machine's verbs too (`shift`, `moveTo`): the server clock,
// or with a merchant that merchant's own clock (it moves nothing else). Mirrors Python's
// `emulator.testing.EmulatorClock`.

export class EmulatorClock {
  constructor(emulator, merchant = null) {
    this.emulator = emulator;
    this.merchant = merchant;
  }

  /** {now, mode, own}. */
  async info() {
    return this.emulator.clock(this.merchant);
  }

  /** The clock's instant, as a Date. */
  async now() {
    return new Date((await this.info()).now);
  }

  /** 'frozen' or 'real'. */
  async mode() {
    return (await this.info()).mode;
  }

  async freeze(at = null) {
    return new Date((await this.emulator.freeze(this.merchant, { at })).now);
  }

  async resume(at = null, { system = false } = {}) {
    return new Date((await this.emulator.resume(this.merchant, { at, system })).now);
  }

  /** Move forward by `by` ('3d', {days: 3}, seconds) or `{to}`; how many jobs ran. */
  async advance(by = null, { to } = {}) {
    return (await this.emulator.advance(this.merchant, by, { to })).jobsRun;
  }

  async shift(by) {
    return this.advance(by);
  }

  /** Jump to `at`, backwards too, keeping the mode; no jobs run on the way. */
  async moveTo(at) {
    return (await this.mode()) === 'frozen' ? this.freeze(at) : this.resume(at);
  }

  /** Advance to the next scheduled job and run it; that job. */
  async next() {
    return this.emulator.next(this.merchant);
  }

  /** This clock's pending jobs, soonest first. */
  async schedule({ objectId, limit = 100 } = {}) {
    return this.emulator.schedule(this.merchant, { objectId, limit });
  }
}

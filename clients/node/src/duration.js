// Durations as the emulator reads them: "500ms", "90s", "5m", "1h30m", "3d", "2w", a number of
// seconds, or {weeks, days, hours, minutes, seconds, milliseconds}.

const UNITS = { w: 604800, d: 86400, h: 3600, m: 60, s: 1, ms: 0.001 };
const KEYS = {
  weeks: 604800, days: 86400, hours: 3600, minutes: 60, seconds: 1, milliseconds: 0.001,
};
const PART = /(\d+(?:\.\d+)?)(ms|w|d|h|m|s)/gy;

/** Seconds of a duration; a TypeError naming the value when it is not one. */
export function seconds(value) {
  if (typeof value === 'number') {
    if (!Number.isFinite(value) || value < 0) throw new TypeError(`${value} is not a duration`);
    return value;
  }
  if (typeof value === 'string') {
    const text = value.trim();
    if (/^\d+(\.\d+)?$/.test(text)) return Number(text);
    let total = 0;
    let end = 0;
    PART.lastIndex = 0;
    for (let match = PART.exec(text); match; match = PART.exec(text)) {
      total += Number(match[1]) * UNITS[match[2]];
      end = PART.lastIndex;
    }
    if (text === '' || end !== text.length) {
      throw new TypeError(`${JSON.stringify(value)} is not a duration (such as "5m", "3d")`);
    }
    return total;
  }
  if (value && typeof value === 'object') {
    let total = 0;
    for (const [key, amount] of Object.entries(value)) {
      if (!(key in KEYS) || typeof amount !== 'number') {
        throw new TypeError(
          `${JSON.stringify(value)} is not a duration: use ${Object.keys(KEYS).join(', ')}`,
        );
      }
      total += amount * KEYS[key];
    }
    return total;
  }
  throw new TypeError(`${String(value)} is not a duration (such as "5m", "3d", or seconds)`);
}

/** A duration as the control plane's JSON takes it: a string as it is (the emulator reads it,
 * and its report says "3d"), checked here first so a typo fails before any request; an object
 * as its seconds. */
export function wireDuration(value) {
  const total = seconds(value);
  return typeof value === 'string' ? value : total;
}

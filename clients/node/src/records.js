// The control plane's answers as the helpers return them: its snake_case keys in camelCase
// for the helpers' own records (clock, schedule, deliveries, sink messages, merchants).

const camelKey = (key) => key.replace(/_([a-z0-9])/g, (_, c) => c.toUpperCase());

/** `object` with its top-level keys in camelCase (nested values as they are). */
export function camel(object) {
  return Object.fromEntries(Object.entries(object).map(([k, v]) => [camelKey(k), v]));
}

function parsed(text) {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

/** A clock: {now, mode, own}; `jobsRun` and `next` too for an advance. */
export function clockInfo(answer) {
  const info = camel(answer);
  if (info.next) info.next = camel(info.next);
  return info;
}

/** A delivery attempt, with `json` its parsed body. */
export function delivery(answer) {
  const record = camel(answer);
  record.json = parsed(record.body);
  return record;
}

/** A message the built-in receiver recorded (`json`: the parsed body, or null). */
export function sinkMessage(answer) {
  return camel(answer);
}

export const scheduledJob = camel;

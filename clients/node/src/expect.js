// Expectations in the control plane's JSON shape (docs/expectations.md), built like Python's
// `emulator.testing.expect`: each builder returns the plain JSON item.

import { wireDuration } from './duration.js';

function item(kind, fields, options = {}) {
  const { id, count, atLeast, atMost, never, within, after } = options;
  const present = Object.fromEntries(
    Object.entries(fields).filter(([, value]) => value !== undefined && value !== null),
  );
  const made = { [kind]: present };
  if (id != null) made.id = id;
  if (count != null) made.count = count;
  if (atLeast != null) made.at_least = atLeast;
  if (atMost != null) made.at_most = atMost;
  if (never) made.never = true;
  if (within != null) made.within = wireDuration(within);
  if (after instanceof Date) made.after = after.toISOString();
  else if (after && typeof after === 'object') {
    if (after.id == null) throw new TypeError('after: give that expectation an id');
    made.after = after.id;
  } else if (after != null) made.after = after;
  return made;
}

export const expect = Object.freeze({
  /** A value of this JSON type, in a `body` or `fields` subset. */
  any: (jsonType = 'value') => ({ any: jsonType }),
  /** A string the whole of which matches `pattern` (Python's re syntax). */
  regex: (pattern) => ({ regex: pattern }),
  /** The app called us: `path` a template (`/api/v1/purchases/{id}/`) or a glob. */
  request: (method, path, options = {}) =>
    item('request', { method, path, body: options.body, status: options.status, api: options.api }, options),
  /** We delivered to the app: `sink` a Sink or its name. */
  delivery: (event, options = {}) =>
    item('delivery', {
      event,
      url: options.url,
      sink: typeof options.sink === 'object' && options.sink !== null ? options.sink.name : options.sink,
      object_id: options.objectId,
      outcome: options.outcome,
      attempt: options.attempt,
      kind: options.kind,
    }, options),
  /** An object reached a status (by id, or by `objectType` and `fields`). */
  transition: (objectId, status, options = {}) =>
    item('transition', {
      object_id: objectId, status, object_type: options.objectType, fields: options.fields,
    }, options),
  /** An event was emitted (for an object). */
  event: (event, objectId, options = {}) =>
    item('event', {
      event, object_id: objectId, object_type: options.objectType, fields: options.fields,
    }, options),
});

/** The report's text, as Python's ExpectationReport.text() writes it. */
export function reportText(report) {
  const lines = [report.ok ? 'expectations held:' : 'expectations did not hold:'];
  for (const r of report.results ?? []) {
    const name = `[${r.index}]${r.id ? ` ${r.id}` : ''}`;
    lines.push(`  ${r.ok ? 'ok    ' : 'FAILED'} ${name}: ${r.message || r.description}`);
  }
  return lines.join('\n');
}

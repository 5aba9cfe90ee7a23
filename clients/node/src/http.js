// One HTTP request to the emulator with fetch: JSON in, JSON out, errors typed.

import { EmulatorConnectionError, EmulatorError, NotTheEmulator } from './errors.js';

export const DEFAULT_TIMEOUT_MS = 10_000;

/** A query string of `params`, leaving out null and undefined values. */
export function query(params) {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params ?? {})) {
    if (value !== undefined && value !== null) search.set(key, String(value));
  }
  const text = search.toString();
  return text ? `?${text}` : '';
}

/** fetch, with a network failure (or a timeout) as an EmulatorConnectionError naming the URL. */
export async function send(method, url, init = {}, timeoutMs = DEFAULT_TIMEOUT_MS) {
  try {
    return await fetch(url, { ...init, method, signal: init.signal ?? AbortSignal.timeout(timeoutMs) });
  } catch (error) {
    throw new EmulatorConnectionError(method, url, error);
  }
}

/** The body of a response: its JSON, or its text when it is not JSON. */
export async function body(response) {
  const text = await response.text();
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** The JSON object of an answer; EmulatorError for an error status, NotTheEmulator for a
 * success whose body is not a JSON object. */
export async function jsonObject(method, url, response) {
  const parsed = await body(response);
  if (!response.ok) throw new EmulatorError(method, url, response.status, parsed);
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new NotTheEmulator(method, url, response.status, parsed, response.headers.get('content-type'));
  }
  return parsed;
}

/** The text of an answer; EmulatorError for an error status. */
export async function text(method, url, response) {
  if (!response.ok) throw new EmulatorError(method, url, response.status, await body(response));
  return response.text();
}

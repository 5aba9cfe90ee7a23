// Errors of the helpers: what the emulator refused (EmulatorError), a name that cannot be one
// path segment (BadPathSegment), and an emulator that cannot be reached (EmulatorConnectionError).

/** The emulator answered with an error status; `code` and `message` come from its body
 * (control plane `{"error": {code, message}}`, OAuth `{error, error_description}`, or the
 * gateway's and the bank's own shapes, kept whole in `body`). */
export class EmulatorError extends Error {
  constructor(method, url, status, body) {
    let code = 'http_error';
    let message;
    const error = body && typeof body === 'object' ? body.error : undefined;
    if (error && typeof error === 'object') {
      code = String(error.code);
      message = String(error.message);
    } else if (typeof error === 'string') {
      code = error;
      message = String(body.error_description ?? '');
    } else {
      message = (typeof body === 'string' ? body : JSON.stringify(body)).slice(0, 500);
    }
    super(`${method} ${url} -> ${status} ${code}: ${message}`);
    this.name = 'EmulatorError';
    this.status = status;
    this.code = code;
    this.message = message;
    this.body = body;
    this.method = method;
    this.url = url;
    retitle(this);
  }

  toString() {
    return `${this.name}: ${this.method} ${this.url} -> ${this.status} ${this.code}: ${this.message}`;
  }
}

/** The stack's first line (what an uncaught error shows) as toString() says it: with the
 * request and the code, while `message` stays the emulator's own. */
function retitle(error) {
  const lines = String(error.stack).split('\n');
  const frames = lines.findIndex((line) => /^\s+at /.test(line));
  error.stack = [error.toString(), ...(frames < 0 ? [] : lines.slice(frames))].join('\n');
}

/** A success status whose body is not a JSON object: whatever answers is not the emulator. */
export class NotTheEmulator extends EmulatorError {
  constructor(method, url, status, body, contentType) {
    super(method, url, status, body);
    this.name = 'NotTheEmulator';
    this.code = 'not_the_emulator';
    this.message =
      `the answer (${status}, ${contentType || 'no content type'}) is not the control plane's` +
      ' JSON: is this the emulator?';
    retitle(this);
  }
}

/** The request never got an HTTP answer (refused, reset, timed out); says the URL. */
export class EmulatorConnectionError extends Error {
  constructor(method, url, cause) {
    const reason = cause?.cause?.code ?? cause?.cause?.message ?? cause?.name ?? String(cause);
    super(`${method} ${url} failed: ${reason} (is the emulator running at that URL?)`, { cause });
    this.name = 'EmulatorConnectionError';
    this.url = url;
  }
}

/** A name or id that cannot be one segment of a URL path; refused before any request. */
export class BadPathSegment extends TypeError {
  constructor(message) {
    super(message);
    this.name = 'BadPathSegment';
  }
}

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

/** `value` (a name or an id) as exactly one percent-encoded path segment. */
export function segment(value, what = 'name') {
  const text = String(value ?? '');
  if (text === '' || text === '.' || text === '..') {
    throw new BadPathSegment(`${what} ${JSON.stringify(text)} cannot name anything: give a real name`);
  }
  if (CONTROL.test(text)) {
    throw new BadPathSegment(`${what} ${JSON.stringify(text)} holds control characters`);
  }
  return encodeURIComponent(text);
}

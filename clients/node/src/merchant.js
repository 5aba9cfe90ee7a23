// An isolated merchant: its ids and credentials, configuration for the official Node SDK, and
// fetch helpers for the gateway (its API key) and the bank (an OAuth token of its client).

import { EmulatorError } from './errors.js';
import { body, send } from './http.js';

const GATEWAY = '/api/v1/';
const BANK = '/v2/';
const MARGIN_MS = 5_000; // a cached token is renewed this long before it expires

function withJson(init) {
  if (init.json === undefined) return init;
  const { json, ...rest } = init;
  const headers = new Headers(rest.headers);
  if (!headers.has('content-type')) headers.set('content-type', 'application/json');
  return { ...rest, headers, body: JSON.stringify(json) };
}

export class Merchant {
  #url;
  #token = null; // {value, expiresAt}

  /** `url`: the emulator's base URL; `answer`: POST /_emulator/merchants's answer. */
  constructor(url, answer) {
    this.#url = url;
    this.companyId = answer.company_id;
    this.name = answer.name;
    this.brandId = answer.brand_id;
    this.apiKey = answer.api_key;
    this.productionApiKey = answer.production_api_key;
    this.clientId = answer.client_id;
    this.clientSecret = answer.client_secret;
    this.profiles = (answer.profiles ?? []).map((p) => ({
      profileCode: p.profileCode,
      id: p.id,
      createdByClient: p.createdByClient,
    }));
    this.brandIds = [...(answer.brand_ids ?? [])];
  }

  /** The emulator's base URL. */
  get url() {
    return this.#url;
  }

  /** What the official Node SDK's client takes: the gateway's base URL and the API key. */
  sdkConfig() {
    return { basePath: `${this.#url}${GATEWAY}`, apiKey: this.apiKey, brandId: this.brandId };
  }

  /** fetch a path of the emulator (or a URL of it) as this merchant: under `/api/v1/` with the API key as the
   * Bearer token, under `/v2/` with an OAuth access token of its client (fetched on first use,
   * cached until it expires, fetched again after a 401: a clock advance can expire it). Other
   * paths go without credentials. `init.json` sends a JSON body. Returns fetch's Response. */
  async fetch(path, init = {}) {
    const request = withJson(init);
    const method = (request.method ?? 'GET').toUpperCase();
    const absolute = /^https?:\/\//.test(path);
    const url = absolute ? path : `${this.#url}${path.startsWith('/') ? path : `/${path}`}`;
    const headers = new Headers(request.headers);
    const bank = url.startsWith(`${this.#url}${BANK}`);
    if (url.startsWith(`${this.#url}${GATEWAY}`) && !headers.has('authorization')) {
      headers.set('authorization', `Bearer ${this.apiKey}`);
    }
    const cached = this.#token !== null;
    const ours = bank && !headers.has('authorization');
    if (ours) {
      headers.set('authorization', `Bearer ${await this.accessToken()}`);
    }
    const response = await send(method, url, { ...request, headers });
    if (ours && response.status === 401 && cached) {
      this.#token = null;
      headers.set('authorization', `Bearer ${await this.accessToken()}`);
      return send(method, url, { ...request, headers });
    }
    return response;
  }

  /** fetch under the gateway (`/api/v1/` + `path`), with the API key. */
  gateway(path, init = {}) {
    return this.fetch(`${GATEWAY}${path.replace(/^\//, '')}`, init);
  }

  /** fetch under the bank interface (`/v2/` + `path`), with an OAuth access token. */
  bank(path, init = {}) {
    return this.fetch(`${BANK}${path.replace(/^\//, '')}`, init);
  }

  /** An access token of this merchant's OAuth client (client credentials), cached until it
   * expires; EmulatorError when the token endpoint refuses. */
  async accessToken() {
    if (this.#token !== null && Date.now() < this.#token.expiresAt) return this.#token.value;
    const url = `${this.#url}/oauth2/token`;
    const basic = Buffer.from(`${this.clientId}:${this.clientSecret}`).toString('base64');
    const response = await send('POST', url, {
      headers: {
        authorization: `Basic ${basic}`,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: 'grant_type=client_credentials',
    });
    const answer = await body(response);
    if (response.status !== 200) throw new EmulatorError('POST', url, response.status, answer);
    const lifetime = Number(answer.expires_in ?? 86_400) * 1000;
    this.#token = { value: answer.access_token, expiresAt: Date.now() + lifetime - MARGIN_MS };
    return this.#token.value;
  }

  toJSON() {
    const { companyId, name, brandId, apiKey, productionApiKey, clientId, clientSecret } = this;
    return {
      companyId, name, brandId, apiKey, productionApiKey, clientId, clientSecret,
      profiles: this.profiles, brandIds: this.brandIds,
    };
  }
}

/** A merchant's company id: a Merchant, or the id itself. */
export function companyId(merchant) {
  return typeof merchant === 'string' ? merchant : merchant.companyId;
}

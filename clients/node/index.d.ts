// Type declarations of payments-emulator (hand-written; the package is plain JavaScript).
// Instants are ISO-8601 strings as the emulator answers them ("2026-03-02T08:00:00Z"); where a
// method takes one, a Date works too.

export type Instant = string | Date;
export type ClockMode = 'frozen' | 'real';
/** "500ms", "90s", "5m", "1h30m", "3d", "2w", a number of seconds, or its parts. */
export type Duration =
  | string
  | number
  | { weeks?: number; days?: number; hours?: number; minutes?: number; seconds?: number; milliseconds?: number };
export type MerchantRef = Merchant | string;
export type DeliveryKind = 'webhook' | 'success_callback' | 'callback';
export type BankOutcome = 'COMPLETED' | 'UNPAID' | 'REJECTED' | 'DISPUTED';
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
/** An object as an interface answers it (the gateway's snake_case, the bank's camelCase). */
export type ApiObject = { [key: string]: any };
/** fetch's init, plus `json`: a body sent as JSON. */
export type FetchInit = RequestInit & { json?: unknown };

export interface Profile {
  profileCode: string;
  id: number;
  createdByClient: number;
}

export interface SdkConfig {
  /** The gateway's base URL, `<emulator>/api/v1/`. */
  basePath: string;
  apiKey: string;
  brandId: string;
}

/** An isolated merchant, as Emulator.newMerchant made it. */
export class Merchant {
  /** `url`: the emulator's base URL; `answer`: what POST /_emulator/merchants answered. */
  constructor(url: string, answer: Record<string, unknown>);
  readonly companyId: string;
  readonly name: string;
  readonly brandId: string;
  readonly apiKey: string;
  readonly productionApiKey: string;
  readonly clientId: string;
  readonly clientSecret: string;
  readonly profiles: Profile[];
  readonly brandIds: string[];
  /** The emulator's base URL. */
  readonly url: string;
  /** The official Node SDK's configuration: the gateway's base URL and the API key. */
  sdkConfig(): SdkConfig;
  /** fetch a path from the emulator's root as this merchant: `/api/v1/...` with the API key,
   * `/v2/...` with an OAuth access token of its client (cached until it expires). */
  fetch(path: string, init?: FetchInit): Promise<Response>;
  /** fetch under `/api/v1/`. */
  gateway(path: string, init?: FetchInit): Promise<Response>;
  /** fetch under `/v2/`. */
  bank(path: string, init?: FetchInit): Promise<Response>;
  /** An access token of the merchant's OAuth client (client credentials). */
  accessToken(): Promise<string>;
  toJSON(): Record<string, unknown>;
}

export interface ClockInfo {
  now: string;
  mode: ClockMode;
  /** For a merchant's clock: whether it is its own (false: it follows the server clock). */
  own?: boolean;
}

export interface ScheduledJob {
  due: string;
  kind: string;
  objectType: string | null;
  objectId: string | null;
  description: string;
}

export interface Advanced extends ClockInfo {
  jobsRun: number;
  /** With `{to: 'next'}`: the job it advanced to. */
  next?: ScheduledJob;
}

export interface ResetAnswer extends ClockInfo {
  reset?: boolean;
}

export interface Delivery {
  id: number;
  messageId: number;
  merchant: string | null;
  kind: DeliveryKind;
  targetId: string;
  eventId: string;
  eventType: string;
  objectType: string;
  objectId: string;
  url: string;
  headers: Record<string, string>;
  body: string;
  /** The body, parsed. */
  json: any;
  attempt: number;
  at: string;
  status: number | null;
  error: string | null;
  success: boolean;
}

export interface SinkMessage {
  id: number;
  receivedAt: string;
  method: string;
  path: string;
  headers: Record<string, string>;
  body: string;
  /** The body, parsed; null when it is not JSON. */
  json: any;
}

/** One item of an expectation set, in the control plane's JSON shape (docs/expectations.md). */
export type Expectation = { [key: string]: Json | undefined };

export interface ExpectationResult {
  index: number;
  id?: string | null;
  kind: string;
  ok: boolean;
  description: string;
  expected: string;
  matched: number;
  matches: { ref: string; id: number | string; at: string }[];
  message?: string | null;
  candidates: Record<string, unknown>[];
}

export interface ExpectationReport {
  ok: boolean;
  now: string;
  results: ExpectationResult[];
  /** A wait's instant (on the merchant's clock) when everything held. */
  at?: string | null;
  timedOut: boolean;
  /** The report as the AssertionError says it. */
  text(): string;
}

export interface ItemOptions {
  id?: string;
  count?: number;
  atLeast?: number;
  atMost?: number;
  never?: boolean;
  within?: Duration;
  /** An instant, or another expectation that has an `id`. */
  after?: Instant | Expectation;
}

export const expect: {
  any(jsonType?: 'string' | 'number' | 'integer' | 'boolean' | 'object' | 'array' | 'null' | 'value'): { any: string };
  regex(pattern: string): { regex: string };
  request(
    method?: string | null,
    path?: string | null,
    options?: ItemOptions & { body?: unknown; status?: number | string; api?: 'gateway' | 'bank' | 'oauth' },
  ): Expectation;
  delivery(
    event?: string | null,
    options?: ItemOptions & {
      url?: string; sink?: Sink | string; objectId?: string; outcome?: 'ok' | 'failed' | 'any';
      attempt?: number; kind?: DeliveryKind;
    },
  ): Expectation;
  transition(
    objectId?: string | null,
    status?: string | null,
    options?: ItemOptions & { objectType?: string; fields?: Record<string, unknown> },
  ): Expectation;
  event(
    event?: string | null,
    objectId?: string | null,
    options?: ItemOptions & { objectType?: string; fields?: Record<string, unknown> },
  ): Expectation;
};

/** The built-in receiver under one name: register `url` as a webhook or callback URL. */
export class Sink {
  constructor(emulator: Emulator, name: string);
  readonly emulator: Emulator;
  readonly name: string;
  readonly segment: string;
  readonly url: string;
  messages(): Promise<SinkMessage[]>;
  clear(): Promise<number>;
  /** Until at least `count` messages arrived; all of them. */
  waitFor(count?: number, options?: { timeoutMs?: number }): Promise<SinkMessage[]>;
}

export interface ConnectOptions {
  /** The control plane's token (`serve --admin-token`, `EMULATOR_ADMIN_TOKEN`). */
  adminToken?: string | null;
  /** Of one request (a wait's own timeout is added to it). */
  timeoutMs?: number;
}

export type StartOptions =
  | {
      /** The image, run with Testcontainers for Node (an optional peer dependency). */
      image: string;
      env?: Record<string, string>;
      adminToken?: string;
      timeoutMs?: number;
    }
  | {
      /** The path of `payments-emulator`: `serve` on 127.0.0.1 and a free port, in memory. */
      command: string;
      /** More `serve` flags (`--clock frozen`, `--scenario ...`). */
      args?: string[];
      env?: Record<string, string>;
      /** `--admin-token`; by default the one EMULATOR_ADMIN_TOKEN gives it, if any. */
      adminToken?: string;
      timeoutMs?: number;
    };

export interface WaitOptions {
  /** Real milliseconds (default 10 000). */
  timeoutMs?: number;
  /** The merchant's own clock steps from one due job to the next, no further than this. */
  advanceUpTo?: Duration;
  inOrder?: boolean;
  /** false: return the report instead of throwing. */
  check?: boolean;
}

/** An emulator's control plane (`/_emulator/`); mirrors Python's EmulatorClient. Errors: an
 * EmulatorError for a 4xx or 5xx, an EmulatorConnectionError when nothing answers. */
export class Emulator {
  constructor(url: string, options?: ConnectOptions);
  readonly url: string;
  readonly adminToken: string | null;
  readonly timeoutMs: number;
  /** An emulator already running at `url` (its health is checked). */
  static connect(url: string, options?: ConnectOptions): Promise<Emulator>;
  /** Start one: the image with Testcontainers, or a local `payments-emulator` process. */
  static start(options: StartOptions): Promise<Emulator>;
  /** Stop what start() started; nothing for a connected emulator. */
  stop(): Promise<void>;

  call(method: string, path: string, options?: { json?: unknown; params?: Record<string, unknown>; timeoutMs?: number }): Promise<ApiObject>;
  page(method: string, url: string, options?: { json?: unknown }): Promise<ApiObject>;
  health(): Promise<{ status: string; version: string } & ApiObject>;
  reset(): Promise<ResetAnswer>;
  newMerchant(options?: { name?: string; clock?: ClockMode; start?: Instant; now?: Instant; strictRequests?: boolean }): Promise<Merchant>;
  deleteMerchant(merchant: MerchantRef): Promise<Record<string, unknown>>;
  snapshot(name: string): Promise<ApiObject>;
  restore(name: string): Promise<ResetAnswer>;
  requests(merchant?: MerchantRef | null, options?: { limit?: number }): Promise<ApiObject[]>;
  testValues(): Promise<ApiObject>;

  clock(merchant?: MerchantRef | null): Promise<ClockInfo>;
  setClock(merchant: MerchantRef, options?: { mode?: ClockMode; now?: Instant }): Promise<ClockInfo>;
  advance(merchant: MerchantRef | null, by?: Duration | null, options?: { to?: Instant | 'next' }): Promise<Advanced>;
  freeze(merchant?: MerchantRef | null, options?: { at?: Instant }): Promise<ClockInfo>;
  resume(merchant?: MerchantRef | null, options?: { at?: Instant; system?: boolean }): Promise<ClockInfo>;
  next(merchant?: MerchantRef | null): Promise<ScheduledJob>;
  schedule(merchant?: MerchantRef | null, options?: { objectId?: string; limit?: number }): Promise<ScheduledJob[]>;

  scenarios(): Promise<ApiObject[]>;
  loadScenario(source: string): Promise<string>;
  loadScenarioAnswer(source: string): Promise<ApiObject>;
  activateScenario(name: string, merchant?: MerchantRef | null): Promise<ApiObject>;
  deactivateScenario(name: string, merchant?: MerchantRef | null): Promise<ApiObject>;

  sink(name?: string | null, options?: { prefix?: string }): Sink;
  gateway(merchant: Merchant): (path: string, init?: FetchInit) => Promise<Response>;
  bank(merchant: Merchant): (path: string, init?: FetchInit) => Promise<Response>;

  pay(purchaseId: string, options?: { cardNumber?: string; expires?: string; cvc?: string; cardholderName?: string; rememberCard?: boolean }): Promise<ApiObject>;
  executePayout(payout: ApiObject | string, options?: { cardNumber?: string; cardholderName?: string; expiryMonth?: string; expiryYear?: string }): Promise<ApiObject>;
  settlePayout(payoutId: string, options?: { status?: 'success' | 'failed' }): Promise<ApiObject>;
  authoriseMandate(mandateId: string | number): Promise<ApiObject>;
  rejectMandate(mandateId: string | number): Promise<ApiObject>;
  settleCollection(collectionId: string | number, options?: { status?: BankOutcome; reasonCode?: string }): Promise<ApiObject>;
  settlePayment(paymentId: string | number, options?: { status?: BankOutcome; reasonCode?: string }): Promise<ApiObject>;

  deliveries(merchant?: MerchantRef | null, options?: { objectId?: string | number; kind?: DeliveryKind; after?: number; limit?: number }): Promise<Delivery[]>;
  waitForDelivery(eventType: string, merchant?: MerchantRef | null, options?: { objectId?: string | number; timeoutMs?: number }): Promise<Delivery>;

  verify(merchant: MerchantRef, items: Expectation | Expectation[], options?: { inOrder?: boolean; check?: boolean }): Promise<ExpectationReport>;
  waitFor(merchant: MerchantRef, items: Expectation | Expectation[], options?: WaitOptions): Promise<ExpectationReport>;

  exportState(merchant?: MerchantRef | null, options?: { format?: 'yaml' | 'json' }): Promise<string>;
  importState(state: string | Record<string, unknown>): Promise<ApiObject>;
  loadState(name: string): Promise<ApiObject>;
}

/** A test's clock: the server clock, or with a merchant that merchant's own. */
export class EmulatorClock {
  constructor(emulator: Emulator, merchant?: MerchantRef | null);
  readonly emulator: Emulator;
  readonly merchant: MerchantRef | null;
  info(): Promise<ClockInfo>;
  now(): Promise<Date>;
  mode(): Promise<ClockMode>;
  freeze(at?: Instant | null): Promise<Date>;
  resume(at?: Instant | null, options?: { system?: boolean }): Promise<Date>;
  /** How many jobs ran. */
  advance(by?: Duration | null, options?: { to?: Instant | 'next' }): Promise<number>;
  shift(by: Duration): Promise<number>;
  moveTo(at: Instant): Promise<Date>;
  next(): Promise<ScheduledJob>;
  schedule(options?: { objectId?: string; limit?: number }): Promise<ScheduledJob[]>;
}

/** The emulator answered with an error status. `message` is the emulator's own. */
export class EmulatorError extends Error {
  readonly status: number;
  readonly code: string;
  readonly body: unknown;
  readonly method: string;
  readonly url: string;
}

/** A success whose body is not the control plane's JSON: something else answers there. */
export class NotTheEmulator extends EmulatorError {}

/** No HTTP answer at all (refused, reset, timed out); the message says the URL. */
export class EmulatorConnectionError extends Error {
  readonly url: string;
}

/** A name or id that cannot be one path segment; thrown before any request. */
export class BadPathSegment extends TypeError {}

/** Emulator.start could not start one (the message says why, with its output). */
export class EmulatorStartError extends Error {}

/** Seconds of a duration ('3d', {days: 3}, seconds); a TypeError when it is not one. */
export function durationSeconds(value: Duration): number;

/** A sink or snapshot name no other test will pick. */
export function uniqueName(prefix?: string): string;

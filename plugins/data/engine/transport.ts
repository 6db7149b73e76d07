import { AsyncLocalStorage } from 'node:async_hooks'
import { Agent, request } from 'undici'
import type { FastifyBaseLogger } from 'fastify'
import type { EngineGeneration } from '../../../schemas/alarm-types.js'
import { EngineError, type EngineErrorDetails, type EngineHealth } from './types.js'
import { CircuitBreaker } from '../../../lib/circuit-breaker.js'
import { deadline } from '../../../lib/deadline.js'
import { startPeerCall } from '../../../lib/peer-calls.js'
import { BodyTooLargeError, readBounded } from '../../../lib/fetch-json.js'
import { systemClock, type Clock } from '../../base/clock.js'

/**
 * The HTTP side of the engine client: every call carries the shared secret and a timeout, percent-encodes
 * each path segment (webhook user ids are URLs), and checks both the HTTP status and the body's `status`
 * field, because PoracleJS reports most errors with HTTP 200. It also learns the engine's generation.
 */

export interface EngineClientOptions {
  /** PORACLE_API_ADDRESS, e.g. http://poracle:3030 */
  baseUrl: string
  /** PORACLE_API_SECRET; not sent when empty (an open PoracleNG API). */
  secret: string
  /** ENGINE_TIMEOUT_MS, applied to every call. */
  timeoutMs: number
  /** ENGINE_BREAKER_SECONDS in ms: how long calls fail fast after the engine did not answer; 0 never. */
  breakerOpenMs?: number
  /** ENGINE_MAX_BYTES: the largest answer read; past it the connection is dropped. */
  maxBytes?: number
  clock?: Clock
  log: Pick<FastifyBaseLogger, 'warn' | 'error'>
}

export type Json = Record<string, unknown>
export type Segment = string | number
type Query = Record<string, string | number | boolean | undefined>

export interface CallOptions {
  method?: 'GET' | 'POST' | 'DELETE'
  query?: Query
  body?: unknown
  /**
   * PoracleJS validates alarm rows by throwing before its try block, which fastify answers with a 500
   * carrying the reason: on routes that validate input that 500 is a rejected request, not a crash.
   */
  jsRejectsWith500?: boolean
  /** A budget shorter than ENGINE_TIMEOUT_MS for calls that may give up early (checks, health). */
  timeoutMs?: number
}

export const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value)
export const text = (value: unknown): string | null => (typeof value === 'string' ? value : null)
export const num = (value: unknown): number | null => {
  const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value
  return typeof n === 'number' && Number.isFinite(n) ? n : null
}
export const strings = (value: unknown): string[] => (Array.isArray(value) ? value.map(String) : [])

const urlPath = (segments: Segment[]) => '/' + segments.map((s) => encodeURIComponent(String(s))).join('/')
/** The path for logs and error details: a webhook user id is a URL whose last part is its secret token. */
export const pathOf = (segments: Segment[]) => '/' + segments.map((s) => (/^https?:\/\//i.test(String(s)) ? '{webhook}' : encodeURIComponent(String(s)))).join('/')

/** Past ENGINE_MAX_BYTES when no limit is given (the configuration's default). */
const DEFAULT_MAX_BYTES = 32 * 1024 * 1024

/**
 * One request's wait for the engine: when the current stretch of calls without any answer began (null
 * while the last call was answered). Every call of a request gets only what is left of ENGINE_TIMEOUT_MS
 * since then, so checks made before the route's own call (the block check, the generation probe) share
 * its budget, and a request against a hanging engine fails within one timeout.
 */
interface Wait { since: number | null }

export function createTransport (options: EngineClientOptions) {
  const baseUrl = options.baseUrl.replace(/\/+$/, '')
  const { secret, timeoutMs, log } = options
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES
  const waits = new AsyncLocalStorage<Wait>()
  // undici's request API over a keep-alive pool: the engine is called on nearly every user request, and
  // fetch's WHATWG layers cost about twice the CPU per call for nothing this client uses.
  const agent = new Agent({ keepAliveTimeout: 10_000, connections: 64 })
  const breaker = new CircuitBreaker(options.clock ?? systemClock, options.breakerOpenMs ?? 0)
  let detected: Promise<EngineGeneration> | null = null
  let known: EngineGeneration | null = null

  const engineName = (generation: EngineGeneration | null) =>
    generation === 'js' ? 'PoracleJS' : generation === 'ng' ? 'PoracleNG' : 'the alarm engine'

  function errorFor (status: number, body: Json | null, rawText: string, generation: EngineGeneration | null, opts: CallOptions, details: EngineErrorDetails): EngineError {
    const engineMessage = text(body?.message) ?? text(body?.error) ?? text(body?.reason) ?? (rawText.length > 0 && rawText.length <= 300 ? rawText : null)
    const d: EngineErrorDetails = engineMessage === null ? details : { ...details, engineMessage }
    if (body?.status === 'authError' || status === 401 || body?.webserver === 'unhappy' || (status === 403 && body === null)) {
      // A wrong secret or an IP allow-list miss is an operator problem: log it, show the user nothing.
      log.error({ method: d.method, path: d.path, status }, 'alarm engine refused the service: check PORACLE_API_SECRET and the engine\'s IP allow list')
      return new EngineError('auth', 'The alarm engine refused the service\'s credentials.', d)
    }
    // A 404 that is not a JSON error object (gin's text) or is fastify's route-not-found means the route is missing.
    if (status === 404 && (body === null || (body.statusCode === 404 && /^Route /.test(text(body.message) ?? '')))) {
      return new EngineError('unsupported', `Not supported by this alarm engine (${engineName(generation)}).`, d)
    }
    const message = engineMessage ?? 'The alarm engine rejected the request.'
    if (status === 200) {
      // PoracleJS: an error reported inside a 200.
      if (/not found/i.test(message)) return new EngineError('not_found', message, d)
      if (/not permitted/i.test(message)) return new EngineError('forbidden', message, d)
      return new EngineError('failed', `The alarm engine failed: ${message}`, d)
    }
    // PoracleJS crashes on a missing user's pokemon list before its own "User not found" check.
    if (status === 500 && /reading 'language'/.test(message)) return new EngineError('not_found', 'User not found', d)
    // fastify's own error shape ({ statusCode, error, message }) only comes from PoracleJS.
    if (status === 500 && opts.jsRejectsWith500 === true && typeof body?.statusCode === 'number') {
      return new EngineError('bad_request', message, d)
    }
    switch (status) {
      case 400: return new EngineError('bad_request', message, d)
      case 403: return new EngineError('forbidden', message, d)
      case 404: return new EngineError('not_found', message, d)
      case 409: return new EngineError('conflict', message, d)
      // Transient by definition (e.g. the summary store): the caller may retry, so no engine detail leaks.
      case 503: return new EngineError('unavailable', 'This alarm engine feature is temporarily unavailable.', d)
      default: return new EngineError('failed', `The alarm engine failed: ${message}`, d)
    }
  }

  async function call (segments: Segment[], opts: CallOptions = {}): Promise<unknown> {
    const method = opts.method ?? 'GET'
    const path = pathOf(segments)
    const search = new URLSearchParams()
    for (const [key, value] of Object.entries(opts.query ?? {})) if (value !== undefined) search.set(key, String(value))
    const pathWithQuery = search.toString() !== '' ? `${urlPath(segments)}?${search.toString()}` : urlPath(segments)
    const details: EngineErrorDetails = { method, path }
    if (baseUrl === '') throw new EngineError('unreachable', 'The alarm engine is unreachable: PORACLE_API_ADDRESS is not set.', details)

    const headers: Record<string, string> = { accept: 'application/json' }
    if (secret !== '') headers['x-poracle-secret'] = secret
    if (opts.body !== undefined) headers['content-type'] = 'application/json'
    const wait = waits.getStore()
    const started = performance.now()
    // This request already waited its whole ENGINE_TIMEOUT_MS (a check that fails open, such as the
    // disabled-types read, may have used it and opened the breaker): it fails with that timeout, not as
    // "known down", so a request against a hanging engine answers 504 once.
    if (wait?.since != null && started - wait.since >= timeoutMs) {
      throw new EngineError('timeout', `The alarm engine timed out after ${timeoutMs} ms.`, details)
    }
    if (!breaker.allow()) throw new EngineError('down', 'The alarm engine is not answering; try again in a few seconds.', details)
    if (wait !== undefined) wait.since ??= started
    const silentSince = wait?.since ?? started
    const ownBudget = Math.min(opts.timeoutMs ?? timeoutMs, timeoutMs)
    const budget = Math.min(ownBudget, timeoutMs - (started - silentSince))
    // Only a call that ran to the end of the request's ENGINE_TIMEOUT_MS without an answer says the engine
    // is down; a shorter budget of its own (a check) ran out on its own account.
    const lastChance = budget >= timeoutMs - (started - silentSince)
    const timedOut = () => {
      if (lastChance) breaker.failed()
      else breaker.gaveUp()
      log.warn({ method, path, timeoutMs: Math.max(budget, 0) }, 'alarm engine call timed out')
      return new EngineError('timeout', `The alarm engine timed out after ${ownBudget} ms.`, details)
    }
    if (budget <= 0) throw timedOut()
    let status: number
    let rawText: string
    const limit = deadline(budget)
    const timed = startPeerCall('engine')
    try {
      const response = await request(baseUrl + pathWithQuery, {
        method,
        headers,
        signal: limit.signal,
        dispatcher: agent,
        ...(opts.body !== undefined ? { body: JSON.stringify(opts.body) } : {})
      })
      status = response.statusCode
      rawText = await readBounded(response.body, maxBytes, response.headers['content-length'])
      timed(status)
      breaker.succeeded()
      if (wait !== undefined) wait.since = null
    } catch (err) {
      if (err instanceof BodyTooLargeError) {
        timed('too_large')
        breaker.succeeded()
        if (wait !== undefined) wait.since = null
        log.warn({ method, path, maxBytes }, 'alarm engine answer over ENGINE_MAX_BYTES: connection dropped')
        throw new EngineError('too_large', 'The alarm engine sent an answer larger than this service accepts.', details)
      }
      timed(limit.signal.aborted ? 'timeout' : 'unreachable')
      if (limit.signal.aborted) throw timedOut()
      breaker.failed()
      log.warn({ method, path, err: (err as Error).cause ?? err }, 'alarm engine unreachable')
      throw new EngineError('unreachable', 'The alarm engine is unreachable.', details)
    } finally {
      limit.clear()
    }

    let parsed: unknown
    let isJson = true
    try {
      parsed = JSON.parse(rawText)
    } catch {
      isJson = false
    }
    const body = isJson && isObject(parsed) ? parsed : null
    const failed = status < 200 || status >= 300 || body?.status === 'error' || body?.status === 'authError' || body?.webserver === 'unhappy'
    if (failed) {
      const error = errorFor(status, body, rawText, known, opts, { ...details, status })
      if (error.kind === 'failed' || error.kind === 'unsupported') log.warn({ method, path, status, engineMessage: error.details.engineMessage }, 'alarm engine call failed')
      throw error
    }
    if (!isJson) {
      log.warn({ method, path, status }, 'alarm engine answered something that is not JSON')
      throw new EngineError('invalid_response', 'The alarm engine sent an unreadable answer.', { ...details, status })
    }
    return parsed
  }

  const invalid = (method: string, segments: Segment[], what: string) =>
    new EngineError('invalid_response', `The alarm engine sent an unexpected answer (${what}).`, { method, path: pathOf(segments) })

  /** Calls a route whose answer must be a JSON object. */
  async function object (segments: Segment[], opts: CallOptions = {}): Promise<Json> {
    const answer = await call(segments, opts)
    if (!isObject(answer)) throw invalid(opts.method ?? 'GET', segments, 'not an object')
    return answer
  }

  function toHealth (answer: Json): EngineHealth {
    const capabilities = isObject(answer.capabilities)
      ? Object.fromEntries(Object.entries(answer.capabilities).filter(([, v]) => typeof v === 'boolean')) as Record<string, boolean>
      : null
    // PoracleJS answers {"webserver":"happy",...}; PoracleNG {"status":"healthy"} (newer ones add version and capabilities).
    return { generation: 'webserver' in answer ? 'js' : 'ng', version: text(answer.version), capabilities }
  }

  async function health (opts: { timeoutMs?: number } = {}): Promise<EngineHealth> {
    const result = toHealth(await object(['health'], opts))
    known ??= result.generation
    return result
  }

  /** The engine's generation, learnt once from /health and cached; a failed probe is retried next time. */
  function generation (): Promise<EngineGeneration> {
    if (known !== null) return Promise.resolve(known)
    if (detected === null) {
      const probe = health().then((h) => h.generation)
      detected = probe
      probe.catch(() => { if (detected === probe) detected = null })
    }
    return detected
  }

  async function requireNg (method: string, segments: Segment[]): Promise<void> {
    if (await generation() === 'js') {
      throw new EngineError('unsupported', 'Not supported by this alarm engine (PoracleJS).', { method, path: pathOf(segments) })
    }
  }

  /** Runs `work` (one request) with its own engine budget: see `Wait`. */
  const withBudget = <T>(work: () => T): T => waits.run({ since: null }, work)

  /** Ends the pooled connections (the app closes it on shutdown). */
  const close = () => agent.close()

  return { call, object, invalid, health, generation, requireNg, withBudget, close }
}

export type EngineTransport = ReturnType<typeof createTransport>

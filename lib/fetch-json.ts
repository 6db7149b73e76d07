import { request } from 'undici'
import { deadline } from './deadline.js'
import { startPeerCall } from './peer-calls.js'

/**
 * Why a call to a peer failed; the message names no URL, token or body. `unreachable`: no connection;
 * `timeout`: no complete answer in time; `status`: an HTTP status other than 2xx; `invalid`: a body
 * that is not the JSON asked for; `too_large`: a body past the peer's size limit (the connection was dropped).
 */
export type UpstreamReason = 'unreachable' | 'timeout' | 'status' | 'invalid' | 'too_large'

const DESCRIBE: Record<UpstreamReason, (status?: number) => string> = {
  unreachable: () => 'is unreachable',
  timeout: () => 'is too slow',
  status: (status) => `answered HTTP ${status ?? 0}`,
  invalid: () => 'sent an answer that is not JSON',
  too_large: () => 'sent an answer over the size limit'
}

export class UpstreamError extends Error {
  constructor (readonly service: string, readonly reason: UpstreamReason, readonly status?: number) {
    super(`${service} ${DESCRIBE[reason](status)}`)
    this.name = 'UpstreamError'
  }
}

/** A body longer than the reader's limit; the body was destroyed, which closes its connection. */
export class BodyTooLargeError extends Error {
  constructor (readonly limit: number) {
    super(`answer larger than ${limit} bytes`)
    this.name = 'BodyTooLargeError'
  }
}

interface DestroyableBody extends AsyncIterable<Uint8Array> {
  destroy: (error?: Error) => unknown
  /** A stream's error listener (undici's bodies have it). */
  on?: (event: 'error', listener: (error: Error) => void) => unknown
}

/**
 * Reads a response body, never holding more than `maxBytes` of it: a declared length over the limit is
 * refused before reading, and a streamed one is counted chunk by chunk and cut off at the limit. Either
 * way the body is destroyed, so the connection is dropped rather than drained, and BodyTooLargeError is
 * thrown.
 */
export async function readBoundedBytes (body: DestroyableBody, maxBytes: number, declaredLength?: string | string[]): Promise<Buffer> {
  const declared = typeof declaredLength === 'string' ? Number(declaredLength) : Number.NaN
  if (Number.isFinite(declared) && declared > maxBytes) {
    const error = new BodyTooLargeError(maxBytes)
    // Nothing reads this body, so the error its destroy emits has no other listener: unheard, it would
    // be an uncaught exception that ends the process. The caller gets the error thrown below.
    body.on?.('error', () => {})
    body.destroy(error)
    throw error
  }
  const chunks: Uint8Array[] = []
  let total = 0
  for await (const chunk of body) {
    total += chunk.byteLength
    if (total > maxBytes) {
      const error = new BodyTooLargeError(maxBytes)
      body.destroy(error)
      throw error
    }
    chunks.push(chunk)
  }
  return Buffer.concat(chunks, total)
}

/** `readBoundedBytes` as UTF-8 text. */
export async function readBounded (body: DestroyableBody, maxBytes: number, declaredLength?: string | string[]): Promise<string> {
  return (await readBoundedBytes(body, maxBytes, declaredLength)).toString('utf8')
}

export interface JsonRequest {
  service: string
  url: string
  timeoutMs: number
  /** The largest answer accepted (UPSTREAM_MAX_BYTES or the peer's own limit). */
  maxBytes: number
  method?: 'GET' | 'POST'
  headers?: Record<string, string>
  body?: unknown
}

/**
 * One JSON call with a hard timeout over the whole answer (a body that trickles in counts) and a size
 * limit: a non-2xx status, a timeout, an answer over the limit or a body that is not JSON all throw
 * UpstreamError.
 */
export async function fetchJson (options: JsonRequest): Promise<unknown> {
  const limit = deadline(options.timeoutMs)
  const timed = startPeerCall(options.service)
  let status: number
  let text: string
  try {
    const response = await request(options.url, {
      method: options.method ?? 'GET',
      headers: { accept: 'application/json', ...(options.body !== undefined ? { 'content-type': 'application/json' } : {}), ...options.headers },
      signal: limit.signal,
      ...(options.body !== undefined ? { body: JSON.stringify(options.body) } : {})
    })
    status = response.statusCode
    text = await readBounded(response.body, options.maxBytes, response.headers['content-length'])
    timed(status)
  } catch (err) {
    if (err instanceof BodyTooLargeError) {
      timed('too_large')
      throw new UpstreamError(options.service, 'too_large')
    }
    timed(limit.signal.aborted ? 'timeout' : 'unreachable')
    throw new UpstreamError(options.service, limit.signal.aborted ? 'timeout' : 'unreachable')
  } finally {
    limit.clear()
  }
  if (status < 200 || status >= 300) throw new UpstreamError(options.service, 'status', status)
  try {
    return text === '' ? null : JSON.parse(text)
  } catch {
    throw new UpstreamError(options.service, 'invalid', status)
  }
}

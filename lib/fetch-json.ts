import { request } from 'undici'
import { deadline } from './deadline.js'
import { startPeerCall } from './peer-calls.js'

/** Why a call to a third-party JSON API failed; the message names no URL, token or body. */
export class UpstreamError extends Error {
  constructor (readonly service: string, readonly reason: 'unreachable' | 'timeout' | 'status' | 'invalid', readonly status?: number) {
    super(`${service} ${reason === 'status' ? `answered HTTP ${status ?? 0}` : reason === 'invalid' ? 'sent an answer that is not JSON' : `is ${reason === 'timeout' ? 'too slow' : 'unreachable'}`}`)
    this.name = 'UpstreamError'
  }
}

export interface JsonRequest {
  service: string
  url: string
  timeoutMs: number
  method?: 'GET' | 'POST'
  headers?: Record<string, string>
  body?: unknown
}

/** One JSON call with a hard timeout: a non-2xx status, a timeout or a body that is not JSON all throw UpstreamError. */
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
    text = await response.body.text()
    timed(status)
  } catch {
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

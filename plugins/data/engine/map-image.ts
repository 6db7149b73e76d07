import { request } from 'undici'
import { deadline } from '../../../lib/deadline.js'
import { BodyTooLargeError, readBoundedBytes } from '../../../lib/fetch-json.js'

/** The largest image kept (the reference's limit; under the chat platform's upload limit). */
export const MAP_IMAGE_MAX_BYTES = 8 * 1024 * 1024

export type MapImageFault = 'address' | 'unreachable' | 'timeout' | 'stopped' | 'status' | 'too_large' | 'not_image'

const DESCRIBE: Record<MapImageFault, string> = {
  address: 'the map address is not an http(s) URL',
  unreachable: 'the map server is unreachable',
  timeout: 'the map image took longer than MAP_IMAGE_TIMEOUT_MS',
  stopped: 'the service shut down during the download',
  status: 'the map server answered an error',
  too_large: `the map image is over ${MAP_IMAGE_MAX_BYTES / 1024 / 1024} MB: connection dropped`,
  not_image: 'the map server answered something that is not an image'
}

/** A map image that could not be had; the message names the fault, never the address. */
export class MapImageError extends Error {
  constructor (readonly fault: MapImageFault, readonly status?: number, detail?: string) {
    super(`${DESCRIBE[fault]}${status === undefined ? '' : ` (HTTP ${status})`}${detail === undefined ? '' : ` (${detail})`}`)
    this.name = 'MapImageError'
  }
}

export interface MapImage {
  bytes: Buffer
  contentType: string
}

/**
 * Downloads a static map image at an address the engine's map routes answered (its tileserver renders
 * it). The address is the engine's word, not this service's configuration, so it is fetched as an
 * untrusted one: http(s) only; no credential of any kind (not the engine's secret, no cookie); no
 * redirect followed; the whole answer within `timeoutMs` (the MAP_IMAGE_TIMEOUT_MS setting) and MAP_IMAGE_MAX_BYTES, counted while
 * it streams, or until `stop` (the service shutting down); only an `image/*` answer is kept, and nothing of it reaches a user but the image itself
 * (docs/geofences.md, "The review post's map").
 */
export async function downloadMapImage (address: string, timeoutMs: number, stop?: AbortSignal): Promise<MapImage> {
  let url: URL
  try {
    url = new URL(address)
  } catch {
    throw new MapImageError('address')
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new MapImageError('address')
  const limit = deadline(timeoutMs)
  try {
    const signal = stop === undefined ? limit.signal : AbortSignal.any([limit.signal, stop])
    const res = await request(url, { method: 'GET', headers: { accept: 'image/*' }, signal, maxRedirections: 0 })
    const contentType = String(res.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase() ?? ''
    // An answer not kept is dropped unread (a dump with no allowance closes the connection).
    const refusal = res.statusCode < 200 || res.statusCode >= 300
      ? new MapImageError('status', res.statusCode)
      : contentType.startsWith('image/') ? null : new MapImageError('not_image')
    if (refusal !== null) {
      await res.body.dump({ limit: 0 })
      throw refusal
    }
    const bytes = await readBoundedBytes(res.body, MAP_IMAGE_MAX_BYTES, res.headers['content-length'])
    return { bytes, contentType }
  } catch (error) {
    if (error instanceof MapImageError) throw error
    if (error instanceof BodyTooLargeError) throw new MapImageError('too_large')
    if (stop?.aborted === true) throw new MapImageError('stopped')
    if (limit.signal.aborted) throw new MapImageError('timeout', undefined, `${timeoutMs / 1000} s`)
    throw new MapImageError('unreachable')
  } finally {
    limit.clear()
  }
}

import type { FastifyInstance } from 'fastify'
import { request } from 'undici'
import { deadline } from '../../lib/deadline.js'
import { badRequest } from '../edge/errors.js'
import { decoratorPlugin } from '../../lib/decorator-plugin.js'
import { isInsideRefusal, outsideOnly } from '../../lib/outside-only.js'

/** An icon set's index is a few hundred kB (the WWM set's is about 350 kB); far more is not an index. */
export const INDEX_MAX_BYTES = 4 * 1024 * 1024

/** What a check of `<base>/index.json` found: the set's categories (`pokemon`, `reward/item`, ...), or why it could not tell. */
export type IconSetCheck =
  | { ok: true, categories: string[] }
  | { ok: false, problem: 'unreachable' | 'timeout' | 'status' | 'too_large' | 'not_an_index', status?: number }

/**
 * Reads an icon set's (UICONS) root `index.json` so the admin learns whether an address is a usable set
 * and which categories it has, before members' pages load icons from it. Only the category names go
 * back: the address is the admin's own, and nothing of the answer is stored.
 */
function createIconSets (fastify: FastifyInstance) {
  // The address is an admin's: it must not map the service's own network (FETCH_ALLOWED_HOSTS aside).
  const outside = outsideOnly(fastify.config.FETCH_ALLOWED_HOSTS)
  fastify.addHook('onClose', async () => { await outside.close() })
  const refusedInside = () => badRequest('The icon set address is on a private or local network, which the service does not fetch from. The operator can allow the host with FETCH_ALLOWED_HOSTS.', { details: [{ field: '/url', message: 'is a private or local address' }] })

  async function readLimited (url: string): Promise<IconSetCheck | string> {
    // The check waits as long as the set's real download will (game-data.ts), so it says what that download will meet.
    const limit = deadline(fastify.config.GAME_DATA_TIMEOUT_MS)
    try {
      // No redirects: a 3xx is answered as a status, so it cannot lead to an inside address.
      const response = await request(url, { method: 'GET', headers: { accept: 'application/json' }, signal: limit.signal, maxRedirections: 0, dispatcher: outside.dispatcher })
      // Stopping a body early makes undici report the abort as the stream's error; it is expected here.
      response.body.on('error', () => {})
      if (response.statusCode < 200 || response.statusCode >= 300) {
        response.body.destroy()
        return { ok: false, problem: 'status', status: response.statusCode }
      }
      const declared = Number(response.headers['content-length'])
      if (Number.isFinite(declared) && declared > INDEX_MAX_BYTES) {
        response.body.destroy()
        return { ok: false, problem: 'too_large' }
      }
      const chunks: Buffer[] = []
      let size = 0
      for await (const chunk of response.body) {
        size += (chunk as Buffer).length
        // A server that does not say the length is cut off at the limit instead of read to the end.
        if (size > INDEX_MAX_BYTES) {
          response.body.destroy()
          return { ok: false, problem: 'too_large' }
        }
        chunks.push(chunk as Buffer)
      }
      return Buffer.concat(chunks).toString('utf8')
    } catch (error) {
      if (isInsideRefusal(error)) throw refusedInside()
      return { ok: false, problem: limit.signal.aborted ? 'timeout' : 'unreachable' }
    } finally {
      limit.clear()
    }
  }

  return {
    /** `base` is an absolute http(s) address without a trailing slash; `index.json` is read below it. */
    async check (base: string): Promise<IconSetCheck> {
      let url: URL
      try {
        url = new URL(base)
      } catch {
        throw badRequest('The icon set address must be an http:// or https:// address.', { details: [{ field: '/url', message: 'is not an address' }] })
      }
      if (url.protocol !== 'https:' && url.protocol !== 'http:') throw badRequest('The icon set address must be an http:// or https:// address.', { details: [{ field: '/url', message: 'is not an http(s) address' }] })
      if (url.username !== '' || url.password !== '') throw badRequest('The icon set address must not contain a user name or password.', { details: [{ field: '/url', message: 'contains credentials' }] })
      try {
        outside.refuseInsideLiteral(url)
      } catch {
        throw refusedInside()
      }
      const text = await readLimited(`${base.replace(/\/+$/, '')}/index.json`)
      if (typeof text !== 'string') return text
      let index: unknown
      try {
        index = JSON.parse(text)
      } catch {
        return { ok: false, problem: 'not_an_index' }
      }
      if (index === null || typeof index !== 'object' || Array.isArray(index)) return { ok: false, problem: 'not_an_index' }
      // A category is a folder: an array of file names, or an object of sub-folders (raid → egg, reward →
      // item), which are listed as `raid/egg`, `reward/item` as well.
      const categories: string[] = []
      for (const [key, value] of Object.entries(index as Record<string, unknown>)) {
        if (Array.isArray(value)) categories.push(key)
        else if (value !== null && typeof value === 'object') {
          categories.push(key)
          for (const [sub, inner] of Object.entries(value)) if (Array.isArray(inner) || (inner !== null && typeof inner === 'object')) categories.push(`${key}/${sub}`)
        }
      }
      categories.sort()
      return categories.length === 0 ? { ok: false, problem: 'not_an_index' } : { ok: true, categories }
    }
  }
}

export type IconSets = ReturnType<typeof createIconSets>

declare module 'fastify' {
  interface FastifyInstance {
    iconSets: IconSets
  }
}

/** Checks icon-set addresses for the site settings page (the `uicons_*` keys). */
export default decoratorPlugin('icon-sets', createIconSets, ['config'])

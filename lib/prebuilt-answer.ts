import { createHash } from 'node:crypto'
import { brotliCompressSync, constants as zlib, gzipSync } from 'node:zlib'
import { negotiate } from '@fastify/accept-negotiator'
import type { FastifyReply, FastifyRequest } from 'fastify'

type Encoding = 'br' | 'gzip'
const ENCODINGS: Encoding[] = ['br', 'gzip']

/** Whether an `If-None-Match` header names this entity tag (a list, weak tags and `*` included, RFC 9110 13.1.2). */
function matches (header: string | undefined, etag: string): boolean {
  if (header === undefined) return false
  return header.split(',').some((tag) => {
    const trimmed = tag.trim()
    return trimmed === '*' || trimmed.replace(/^W\//, '') === etag
  })
}

/**
 * A JSON answer serialized, compressed and tagged once and then sent as bytes to every request until
 * the data behind it changes: no serializer, no per-request compression (an answer that already has a
 * Content-Encoding is left alone by the compression plugin) and a 304 for a client that holds it.
 */
export class PrebuiltAnswer {
  readonly etag: string
  readonly #bodies: Record<Encoding | 'identity', Buffer>

  constructor (value: unknown) {
    const identity = Buffer.from(JSON.stringify(value))
    this.etag = `"${createHash('sha256').update(identity).digest('base64url').slice(0, 27)}"`
    this.#bodies = {
      identity,
      // Built once per change, so the slowest, smallest settings pay off on every later request.
      br: brotliCompressSync(identity, { params: { [zlib.BROTLI_PARAM_QUALITY]: 11, [zlib.BROTLI_PARAM_SIZE_HINT]: identity.length } }),
      gzip: gzipSync(identity, { level: 9 })
    }
  }

  /** Bytes of the answer in one encoding (`identity` for none). */
  size (encoding: Encoding | 'identity' = 'identity'): number {
    return this.#bodies[encoding].length
  }

  send (request: FastifyRequest, reply: FastifyReply): FastifyReply {
    // Revalidated on every use: the answer follows the site's switches the moment they change.
    reply.header('etag', this.etag).header('cache-control', 'private, no-cache').header('vary', 'accept-encoding')
    if (matches(request.headers['if-none-match'], this.etag)) return reply.code(304).send()
    const accepted = request.headers['accept-encoding']
    const encoding = accepted === undefined ? null : negotiate(accepted, ENCODINGS) as Encoding | null
    if (encoding !== null) reply.header('content-encoding', encoding)
    return reply.type('application/json; charset=utf-8').send(this.#bodies[encoding ?? 'identity'])
  }
}

import fp from 'fastify-plugin'
import compress from '@fastify/compress'

/** Smaller than this, a JSON answer fits in a packet or two: compressing it saves nothing worth the CPU. */
export const COMPRESS_MIN_BYTES = 1024

/**
 * Compresses answers above 1 KB (the API's JSON above all) with brotli or gzip, whichever the client
 * accepts, at a brotli level cheap enough for every request. The client's files are compressed once at
 * build time and sent as they are (plugins/spa.ts): an answer that already carries a Content-Encoding
 * is left alone.
 * @see https://github.com/fastify/fastify-compress
 */
export default fp(async (fastify) => {
  await fastify.register(compress, {
    global: true,
    threshold: COMPRESS_MIN_BYTES,
    encodings: ['br', 'gzip']
  })
}, { name: 'compression', fastify: '5.x' })

import fp from 'fastify-plugin'
import fastJson from 'fast-json-stringify'
import { compiledOnce } from '../../lib/compiled-once.js'

// Shared by every app the process builds: each distinct response schema is compiled once.
const serializerFor = compiledOnce((schema) => fastJson(schema))

/**
 * Answers are serialized by fast-json-stringify from each route's response schema, as Fastify does by
 * default (no shared schemas, no serializer options), with each distinct schema compiled once.
 */
export default fp(async (fastify) => {
  fastify.setSerializerCompiler(({ schema }) => serializerFor(schema))
}, { name: 'serialization', fastify: '5.x' })

import fp from 'fastify-plugin'
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify'
import { isCatalogued } from '../../schemas/errors.js'

/** The catalogue itself is `schemas/errors.ts` (schemas, plugins and routes all throw its entries). */
export * from '../../schemas/errors.js'

const GENERIC_5XX = 'An unexpected error occurred.'

interface ValidationItem { instancePath?: string, message?: string, params?: Record<string, unknown> }

/**
 * Validation errors (Ajv's, as a route's validator or `alarmCreateValidator` leaves them) as the
 * catalogue's `details`: the JSON pointer of the field at fault under `base` (the part of the body the
 * checked value came from), a missing or unexpected property named in it.
 */
export function validationDetails (items: readonly ValidationItem[], base = ''): Array<{ field: string, message: string }> {
  return items.map((item) => {
    const missing = item.params?.missingProperty ?? item.params?.additionalProperty
    const path = `${base}${item.instancePath ?? ''}`
    const field = missing !== undefined ? `${path}/${String(missing)}` : path || '/'
    return { field, message: item.message ?? 'is invalid' }
  })
}

/**
 * The one mapping from an error to its answer. Also Fastify's `frameworkErrors` (app.ts): a path the
 * router cannot read (bad percent-encoding, a parameter over `maxParamLength`) is answered before any
 * route or error handler, in Fastify's own shape, unless this is passed there too.
 */
export function answerError (error: FastifyError, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  if (isCatalogued(error)) {
    const status = error.statusCode ?? 500
    if (status >= 500) request.log.error({ err: error }, 'request failed')
    const message = status < 500 ? error.message : error.publicMessage ?? (error.expose === true ? error.message : GENERIC_5XX)
    return reply.code(status).headers(error.headers ?? {}).send({ error: message, ...error.extra })
  }
  if (error.validation) {
    return reply.code(400).send({ error: 'Invalid request', details: validationDetails(error.validation as ValidationItem[]) })
  }
  const status = error.statusCode ?? 500
  if (status >= 500) {
    request.log.error({ err: error }, 'request failed')
    return reply.code(status).send({ error: GENERIC_5XX })
  }
  // Fastify's own 4xx (bad JSON, wrong content type, body too large, rate limit) carry safe messages.
  return reply.code(status).send({ error: error.message })
}

/** Error and not-found handlers: every non-2xx `/api` answer is JSON `{ error, ... }`. */
export default fp(async (fastify) => {
  fastify.setErrorHandler(answerError)

  fastify.setNotFoundHandler((request, reply) => {
    reply.code(404).send({ error: `Route ${request.method} ${request.url.split('?')[0] ?? ''} not found` })
  })
}, { name: 'errors', fastify: '5.x' })

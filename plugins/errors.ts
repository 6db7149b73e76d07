import fp from 'fastify-plugin'
import type { FastifyError } from 'fastify'

/**
 * The one error type routes and services throw. `statusCode` becomes the HTTP status, `message` the
 * `error` field of the JSON body and `extra` is merged into the body (e.g. `{ disableKey }`).
 * 5xx messages are replaced by a generic text unless `expose` is set, so internals never leak.
 */
export class AppError extends Error {
  constructor (
    readonly statusCode: number,
    message: string,
    readonly extra: Record<string, unknown> = {},
    readonly expose = statusCode < 500,
    /** Response headers that belong to the answer, e.g. `retry-after` on a 503. */
    readonly headers: Record<string, string> = {}
  ) {
    super(message)
    this.name = 'AppError'
  }
}

export const badRequest = (message: string, extra?: Record<string, unknown>) => new AppError(400, message, extra)
export const unauthorized = (message = 'Authentication required.') => new AppError(401, message)
export const forbidden = (message = 'You do not have access to this resource.', extra?: Record<string, unknown>) => new AppError(403, message, extra)
export const notFound = (message = 'Not found.') => new AppError(404, message)
export const conflict = (message: string, extra?: Record<string, unknown>) => new AppError(409, message, extra)
/** A passing condition on our side: the message is shown and the client is told when to try again. */
export const unavailable = (message: string, retryAfterSeconds: number) =>
  new AppError(503, message, {}, true, { 'retry-after': String(retryAfterSeconds) })

/** Sign-in and "who am I" cannot work without the engine; say so plainly instead of a generic 500. */
export const engineUnavailable = () =>
  new AppError(503, 'The alarm engine is unreachable right now. Please try again in a moment.', {}, true)

const GENERIC_5XX = 'An unexpected error occurred.'

interface ValidationItem { instancePath?: string, message?: string, params?: Record<string, unknown> }

function validationDetails (error: FastifyError): Array<{ field: string, message: string }> {
  const items = (error.validation ?? []) as ValidationItem[]
  return items.map((item) => {
    const missing = item.params?.missingProperty ?? item.params?.additionalProperty
    const base = item.instancePath ?? ''
    const field = missing !== undefined ? `${base}/${String(missing)}` : base || '/'
    return { field, message: item.message ?? 'is invalid' }
  })
}

/** Error and not-found handlers: every non-2xx `/api` answer is JSON `{ error, ... }`. */
export default fp(async (fastify) => {
  fastify.setErrorHandler((error: FastifyError | AppError, request, reply) => {
    if (error instanceof AppError) {
      if (error.statusCode >= 500) request.log.error({ err: error }, 'request failed')
      return reply.code(error.statusCode).headers(error.headers).send({ error: error.expose ? error.message : GENERIC_5XX, ...error.extra })
    }
    if (error.validation) {
      return reply.code(400).send({ error: 'Invalid request', details: validationDetails(error) })
    }
    const status = error.statusCode ?? 500
    if (status >= 500) {
      request.log.error({ err: error }, 'request failed')
      return reply.code(status).send({ error: GENERIC_5XX })
    }
    // Fastify's own 4xx (bad JSON, wrong content type, body too large, rate limit) carry safe messages.
    return reply.code(status).send({ error: error.message })
  })

  fastify.setNotFoundHandler((request, reply) => {
    reply.code(404).send({ error: `Route ${request.method} ${request.url.split('?')[0] ?? ''} not found` })
  })
}, { name: 'errors', fastify: '5.x' })

import { LogController, type FastifyReply, type FastifyRequest, type FastifyServerOptions } from 'fastify'
import { LOG_REDACT_KEYWORD } from '../../schemas/common.js'
import type { Config } from '../../schemas/config.js'

const REDACTED = '[redacted]'

type JsonSchema = { properties?: Record<string, Record<string, unknown>> } | undefined

/** A property the route's schema marks `x-log-redact` (schemas/common.ts `LOG_REDACTED`). */
const marked = (schema: JsonSchema, name: string) => schema?.properties?.[name]?.[LOG_REDACT_KEYWORD] === true
/** A property the route's schema declares and leaves unmarked: only such values are logged as sent. */
const plain = (schema: JsonSchema, name: string) => schema?.properties?.[name] !== undefined && !marked(schema, name)

/**
 * The request's URL as a log line may hold it, decided by the route's own schema rather than a list of
 * names: a query value is kept only when the route's querystring schema declares the key and does not
 * mark it (every parameter that may carry a webhook address, a code or a token is marked), so an
 * undeclared key, a route without a querystring schema and a URL no route matched log `[redacted]`
 * values; a marked path parameter logs as `[redacted]` in the route's own pattern.
 */
export function loggedUrl (request: FastifyRequest): string {
  const schema = request.routeOptions.schema as { params?: JsonSchema, querystring?: JsonSchema } | undefined
  const at = request.url.indexOf('?')
  let path = at === -1 ? request.url : request.url.slice(0, at)
  const params = schema?.params?.properties
  if (params !== undefined && Object.keys(params).some((name) => marked(schema?.params, name))) {
    const values = request.params as Record<string, string | undefined>
    path = request.routeOptions.url?.replace(/:(\w+)/g, (_, name: string) => (marked(schema?.params, name) ? REDACTED : encodeURIComponent(values[name] ?? ''))) ?? path
  }
  if (at === -1) return path
  const query = new URLSearchParams(request.url.slice(at + 1))
  for (const key of new Set(query.keys())) {
    if (!plain(schema?.querystring, key)) query.set(key, REDACTED)
  }
  return `${path}?${query.toString()}`
}

/** Request lines carry the method, the URL as `loggedUrl` keeps it, the host and the client address. */
const serializers = {
  req: (request: FastifyRequest) => ({ method: request.method, url: loggedUrl(request), host: request.host, remoteAddress: request.ip })
}

/**
 * One line per request, when it is answered, instead of Fastify's two (received, completed): half the
 * serialisation and writes per call, and the line still has everything either of the two had.
 */
export class OneLinePerRequest extends LogController {
  override incomingRequest (): void {}

  override requestCompleted (error: Error | null, request: FastifyRequest, reply: FastifyReply): void {
    if (error) reply.log.error({ req: request, res: reply, err: error, responseTime: reply.elapsedTime }, 'request errored')
    else reply.log.info({ req: request, res: reply, responseTime: reply.elapsedTime }, 'request completed')
  }
}

export type LoggerOption = NonNullable<FastifyServerOptions['logger']>

/**
 * The request log, given to the Fastify constructor (it cannot be a registered plugin: the logger exists
 * before any plugin): pino at LOG_LEVEL, or the caller's options (tests pass a stream), with the request
 * serializer above.
 */
export function requestLogOptions (config: Pick<Config, 'LOG_LEVEL'>, logger?: LoggerOption): LoggerOption {
  const base = logger ?? { level: config.LOG_LEVEL }
  if (typeof base !== 'object' || base === null) return base
  return { ...base, serializers }
}

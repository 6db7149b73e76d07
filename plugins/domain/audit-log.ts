import fp from 'fastify-plugin'
import { and, desc, eq, gte, lt, lte, type SQL } from 'drizzle-orm'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { auditLog } from '../../db/schema/service.js'
import { fromSqlTime, toSqlTime } from '../../db/client.js'
import { isWebAddress, maskedAddress } from '../../lib/webhook-address.js'

const DAY_MS = 86_400_000
/** Longest text kept of any one value: the log records what changed, not whole documents. */
const VALUE_MAX = 500
/** Property names whose values are never written: a secret, token or password stays out of the log. */
const SECRET_NAME = /secret|token|password|passwd|api[_-]?key|credential|private|cookie|authorization/i

/** What a route declares in `config.audit`: the action's name and where its target is. */
export interface AuditSpec {
  action: string
  /** The target (a user id, a webhook, a fence id); by default `params.id`, else `query.id`, else `body.userId`. */
  target?: (request: FastifyRequest) => string | undefined
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Writes an audit entry for every successful answer of this route (plugins/audit-log.ts). */
    audit?: AuditSpec
    /** `false` on a POST that only reads (its body is a question too long for a query string): nothing to audit, nothing a member's kept state must forget. */
    changes?: false
  }
  interface FastifyRequest {
    /** Details the handler adds to the route's audit entry (what changed, never a secret). */
    auditDetails?: Record<string, unknown>
  }
}

/** A copy safe to keep: secret-named properties redacted, web addresses masked, long texts cut, depth bounded. */
export function redact (value: unknown, depth = 0): unknown {
  if (value === null || typeof value === 'number' || typeof value === 'boolean') return value
  if (typeof value === 'string') {
    // A webhook's address is its secret: any web address is kept masked.
    if (isWebAddress(value)) return maskedAddress(value)
    return value.length > VALUE_MAX ? `${value.slice(0, VALUE_MAX)}…` : value
  }
  if (depth > 4) return '…'
  if (Array.isArray(value)) return value.slice(0, 50).map((v) => redact(v, depth + 1))
  if (typeof value === 'object') {
    const object = value as Record<string, unknown>
    // `{ key: "discord_bot_token", value: "..." }`: a setting whose name is secret-like hides its value.
    const secretSetting = typeof object.key === 'string' && SECRET_NAME.test(object.key)
    const out: Record<string, unknown> = {}
    for (const [name, inner] of Object.entries(object).slice(0, 50)) {
      out[name] = SECRET_NAME.test(name) || (secretSetting && name === 'value') ? '[redacted]' : redact(inner, depth + 1)
    }
    return out
  }
  return undefined
}

function defaultTarget (request: FastifyRequest): string | undefined {
  const pick = (source: unknown, key: string): string | undefined => {
    const value = (source as Record<string, unknown> | undefined)?.[key]
    return typeof value === 'string' || typeof value === 'number' ? String(value) : undefined
  }
  return pick(request.params, 'id') ?? pick(request.query, 'id') ?? pick(request.body, 'userId')
}

export interface AuditEntry {
  id: number
  at: string
  actorId: string
  action: string
  target: string | null
  details: unknown
  requestId: string
  status: number
}

export interface AuditQuery {
  actor?: string | undefined
  target?: string | undefined
  action?: string | undefined
  from?: number | undefined
  to?: number | undefined
  /** Entries older than this id (the previous page's `nextCursor`). */
  before?: number | undefined
  limit: number
}

function createAuditLog (fastify: FastifyInstance) {
  const { db, clock, config, log } = fastify

  async function write (entry: { actorId: string, action: string, target?: string | undefined, details?: unknown, requestId: string, status: number }): Promise<void> {
    await db.db.insert(auditLog).values({
      at: toSqlTime(clock.now()),
      actorId: entry.actorId.slice(0, 255),
      action: entry.action.slice(0, 64),
      target: entry.target === undefined ? null : entry.target.slice(0, 500),
      details: entry.details === undefined ? null : redact(entry.details),
      requestId: entry.requestId.slice(0, 64),
      status: entry.status
    })
  }

  return {
    /** Writes one entry for an admin action the route-config hook cannot see (a sign-out ending an impersonation). */
    async record (request: FastifyRequest, action: string, target?: string, details?: Record<string, unknown>): Promise<void> {
      const user = request.user
      await write({ actorId: user.impersonatedBy ?? user.userId, action, target, details, requestId: String(request.id), status: 200 })
    },

    /** Entries newest first, filtered; `nextCursor` pages on. */
    async list (query: AuditQuery): Promise<{ entries: AuditEntry[], nextCursor: number | null }> {
      const where: SQL[] = []
      if (query.actor !== undefined) where.push(eq(auditLog.actorId, query.actor))
      if (query.target !== undefined) where.push(eq(auditLog.target, query.target))
      if (query.action !== undefined) where.push(eq(auditLog.action, query.action))
      if (query.from !== undefined) where.push(gte(auditLog.at, toSqlTime(query.from)))
      if (query.to !== undefined) where.push(lte(auditLog.at, toSqlTime(query.to)))
      if (query.before !== undefined) where.push(lt(auditLog.id, query.before))
      const rows = await db.db.select().from(auditLog).where(and(...where)).orderBy(desc(auditLog.id)).limit(query.limit + 1)
      const page = rows.slice(0, query.limit)
      return {
        entries: page.map((r) => ({ ...r, at: new Date(fromSqlTime(r.at)).toISOString(), details: r.details ?? null })),
        nextCursor: rows.length > query.limit ? page[page.length - 1]?.id ?? null : null
      }
    },

    /** Deletes entries older than AUDIT_RETENTION_DAYS. */
    async purgeStale (now: number): Promise<number> {
      // Raw: the query builder's aliased DELETE form is rejected by MariaDB.
      const result = await db.pool.query('DELETE FROM audit_log WHERE at < ?', [toSqlTime(now - config.AUDIT_RETENTION_DAYS * DAY_MS)]) as { affectedRows: number }
      return result.affectedRows
    },

    /** The hook's work: one entry for a successful answer of a route that declares `config.audit`. */
    async afterRoute (request: FastifyRequest, status: number): Promise<void> {
      const spec = request.routeOptions.config.audit
      if (spec === undefined || status >= 400 || request.user === undefined || request.user === null) return
      const user = request.user
      const given = (spec.target ?? defaultTarget)(request)
      const target = given !== undefined && isWebAddress(given) ? maskedAddress(given) : given
      // A setting named like a secret (PUT /api/settings/discord_bot_token) keeps its value out of the log.
      const body = target !== undefined && SECRET_NAME.test(target) ? '[redacted]' : request.body
      try {
        await write({
          actorId: user.impersonatedBy ?? user.userId,
          action: spec.action,
          target,
          details: {
            ...(request.query !== null && typeof request.query === 'object' && Object.keys(request.query).length > 0 && { query: request.query }),
            ...(body !== undefined && body !== null && { body }),
            ...request.auditDetails
          },
          requestId: String(request.id),
          status
        })
      } catch (error) {
        log.error({ action: spec.action, requestId: request.id, kind: (error as { code?: string }).code ?? (error as Error).name }, 'audit entry could not be written')
      }
    }
  }
}

export type AuditLog = ReturnType<typeof createAuditLog> & { unauditedRoutes: () => readonly string[] }

declare module 'fastify' {
  interface FastifyInstance {
    auditLog: AuditLog
  }
}

/**
 * The admin audit log: a route declares `config: { audit: { action: '...' } }` and every successful
 * answer writes an entry (actor, target, the request's query and body with secrets redacted, the
 * handler's `request.auditDetails`, time, request id) before the answer leaves, in an onSend hook, so
 * a route cannot forget it. A test checks that every admin route that changes something declares it.
 */
export default fp(async (fastify) => {
  const unaudited: string[] = []
  const auditLog = { ...createAuditLog(fastify), unauditedRoutes: (): readonly string[] => unaudited }
  fastify.decorate('auditLog', auditLog)
  // Admin routes that change something and declare no audit action: reported at start, so none is missed.
  fastify.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method]
    if (methods.every((m) => m === 'GET' || m === 'HEAD' || m === 'OPTIONS') || route.config?.changes === false) return
    const hooks = route.onRequest === undefined ? [] : Array.isArray(route.onRequest) ? route.onRequest : [route.onRequest]
    const adminOnly = route.url.startsWith('/api/admin') || hooks.includes(fastify.auth.requireAdmin)
    if (adminOnly && route.config?.audit === undefined) unaudited.push(`${methods.join(',')} ${route.url}`)
  })
  fastify.addHook('onReady', async () => {
    for (const route of unaudited) fastify.log.warn({ route }, 'an admin route changes something but writes no audit entry')
  })
  fastify.decorateRequest('auditDetails', undefined)
  fastify.addHook('onSend', async (request, reply, payload) => {
    await auditLog.afterRoute(request, reply.statusCode)
    return payload
  })
}, { name: 'audit-log', fastify: '5.x', dependencies: ['config', 'clock', 'db', 'auth'] })

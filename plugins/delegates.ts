import { and, asc, eq, inArray } from 'drizzle-orm'
import type { FastifyInstance } from 'fastify'
import { webhookDelegates } from '../db/schema/service.js'
import { humans } from '../db/schema/engine.js'
import { badRequest, conflict, notFound } from './errors.js'
import type { NamedDelegate } from '../schemas/delegates.js'
import { decoratorPlugin } from './decorator-plugin.js'

function createDelegates (fastify: FastifyInstance) {
  const { db, engineDb, cacheEviction } = fastify

  async function forWebhook (webhookId: string): Promise<string[]> {
    const rows = await db.db.select({ userId: webhookDelegates.userId }).from(webhookDelegates)
      .where(eq(webhookDelegates.webhookId, webhookId)).orderBy(asc(webhookDelegates.userId))
    return rows.map((r) => r.userId)
  }

  /** Every grant row, by webhook then user. */
  const grants = () => db.db.select().from(webhookDelegates).orderBy(asc(webhookDelegates.webhookId), asc(webhookDelegates.userId))

  async function typeOf (id: string): Promise<string | null> {
    const [row] = await engineDb.db.select({ type: humans.type }).from(humans).where(eq(humans.id, id)).limit(1)
    return row?.type ?? null
  }

  return {
    forWebhook,

    /** Every grant, webhook id → user ids. */
    async all (): Promise<Record<string, string[]>> {
      const rows = await grants()
      const map: Record<string, string[]> = {}
      for (const row of rows) (map[row.webhookId] ??= []).push(row.userId)
      return map
    },

    /**
     * Every grant with the delegate's engine name, webhook id → delegates ordered by id. Two reads: the
     * grants live in the service's database, the names in the engine's (possibly another server).
     */
    async allNamed (): Promise<Record<string, NamedDelegate[]>> {
      const rows = await grants()
      const ids = [...new Set(rows.map((r) => r.userId))]
      const names = new Map<string, string>()
      if (ids.length > 0) {
        for (const human of await engineDb.db.select({ id: humans.id, name: humans.name }).from(humans).where(inArray(humans.id, ids))) names.set(human.id, human.name)
      }
      const map: Record<string, NamedDelegate[]> = {}
      for (const row of rows) (map[row.webhookId] ??= []).push({ id: row.userId, name: names.get(row.userId) ?? null })
      return map
    },

    /**
     * Lets `userId` manage `webhookId`. The webhook must be an engine user of type `webhook` and the
     * delegate an existing engine user who is not a webhook itself (a webhook never signs in, so the grant
     * could never be used); the user's cached delegation is dropped on every instance.
     */
    async grant (webhookId: string, userId: string): Promise<string[]> {
      const [webhookType, userType] = await Promise.all([typeOf(webhookId), typeOf(userId)])
      if (webhookType !== 'webhook') throw badRequest('The webhook does not exist or is not a webhook.')
      if (userType === null) throw badRequest('The user does not exist.')
      if (userType === 'webhook') throw badRequest('A webhook cannot manage another webhook.')
      const [result] = await db.db.insert(webhookDelegates).ignore().values({ webhookId, userId })
      if (result.affectedRows === 0) throw conflict('This user already manages this webhook.')
      await cacheEviction.evict('roles', userId)
      return forWebhook(webhookId)
    },

    async revoke (webhookId: string, userId: string): Promise<string[]> {
      const [result] = await db.db.delete(webhookDelegates)
        .where(and(eq(webhookDelegates.webhookId, webhookId), eq(webhookDelegates.userId, userId)))
      if (result.affectedRows === 0) throw notFound('No such delegate.')
      await cacheEviction.evict('roles', userId)
      return forWebhook(webhookId)
    }
  }
}

export type Delegates = ReturnType<typeof createDelegates>

declare module 'fastify' {
  interface FastifyInstance {
    delegates: Delegates
  }
}

/** Webhook delegates: the service's own grants letting a non-admin manage a webhook's alarms. */
export default decoratorPlugin('delegates', createDelegates, ['db', 'engine-db', 'cache-eviction'])

import { open } from 'node:fs/promises'
import { join } from 'node:path'
import { and, asc, eq, inArray } from 'drizzle-orm'
import type { FastifyInstance } from 'fastify'
import { webhookDelegates } from '../../db/schema/service.js'
import { humans } from '../../db/schema/engine.js'
import { badRequest, conflict, notFound } from '../edge/errors.js'
import type { NamedDelegate } from '../../schemas/delegates.js'
import { decoratorPlugin } from '../../lib/decorator-plugin.js'

/** The engine's local.json is a few kilobytes; a file past this is not one to parse. */
export const ENGINE_CONFIG_MAX_BYTES = 2 * 1024 * 1024
/** Where the engine keeps its local.json inside DTS_SOURCE_DIR, first match wins. */
const ENGINE_CONFIG_FILES = ['local.json', join('config', 'local.json')]

/** The text of the first of these files that exists, or null when none does. Throws when it cannot be read whole. */
async function readFirst (dir: string, names: string[]): Promise<string | null> {
  for (const name of names) {
    let handle
    try {
      handle = await open(join(dir, name), 'r')
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') continue
      throw err
    }
    try {
      const info = await handle.stat()
      if (!info.isFile()) throw new Error(`${name} is not a regular file`)
      if (info.size > ENGINE_CONFIG_MAX_BYTES) throw new Error(`${name} is larger than ${ENGINE_CONFIG_MAX_BYTES} bytes`)
      // Read at most the limit, even if the file grew after the size check.
      const buffer = Buffer.alloc(ENGINE_CONFIG_MAX_BYTES + 1)
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0)
      if (bytesRead > ENGINE_CONFIG_MAX_BYTES) throw new Error(`${name} is larger than ${ENGINE_CONFIG_MAX_BYTES} bytes`)
      return buffer.subarray(0, bytesRead).toString('utf8')
    } finally {
      await handle.close()
    }
  }
  return null
}

const ids = (value: unknown): string[] => (Array.isArray(value)
  ? value.filter((v): v is string => typeof v === 'string').map((v) => v.trim()).filter((v) => v !== '')
  : [])

/**
 * The `delegateAdministration` list of the engine's config as webhook id → user ids. Entries name the
 * webhook as `webhookId` or `id` and the users as `discordIds` or `admins`; an entry without a webhook
 * or users is skipped, so one bad entry never hides the others.
 */
export function engineDelegateMap (config: unknown): Record<string, string[]> {
  const list = (config as { delegateAdministration?: unknown } | null)?.delegateAdministration
  const map: Record<string, string[]> = {}
  if (!Array.isArray(list)) return map
  for (const entry of list as unknown[]) {
    if (typeof entry !== 'object' || entry === null) continue
    const { webhookId, id, discordIds, admins } = entry as Record<string, unknown>
    const webhook = [webhookId, id].find((v): v is string => typeof v === 'string' && v.trim() !== '')?.trim()
    const users = [...ids(discordIds), ...ids(admins)]
    if (webhook === undefined || users.length === 0) continue
    map[webhook] = [...new Set([...(map[webhook] ?? []), ...users])]
  }
  return map
}

function createDelegates (fastify: FastifyInstance) {
  const { db, engineDb, cacheEviction, config, log } = fastify

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

    /**
     * The delegates configured in the engine itself (DTS_SOURCE_DIR's local.json), read afresh each call
     * so an edit there shows at once. Nothing configured, no file or a file that cannot be used is `{}`:
     * the admin page shows the service's own grants either way, and the reason is logged.
     */
    async engineConfigured (): Promise<Record<string, string[]>> {
      if (config.DTS_SOURCE_DIR === '') return {}
      let text: string | null
      try {
        text = await readFirst(config.DTS_SOURCE_DIR, ENGINE_CONFIG_FILES)
      } catch (err) {
        log.warn({ reason: (err as Error).message }, 'the engine\'s local.json could not be read; its delegates are left out')
        return {}
      }
      if (text === null) return {}
      try {
        return engineDelegateMap(JSON.parse(text))
      } catch {
        // The parser's message quotes the text around the fault, and this file holds the engine's tokens.
        log.warn('the engine\'s local.json is not valid JSON; its delegates are left out')
        return {}
      }
    },

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
export default decoratorPlugin('delegates', createDelegates, ['config', 'db', 'engine-db', 'cache-eviction'])

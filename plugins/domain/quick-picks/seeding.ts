import { eq, inArray } from 'drizzle-orm'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { quickPickAppliedStates, quickPickDefinitions } from '../../../db/schema/service.js'
import { toSqlTime } from '../../../db/client.js'
import type { QuickPickType } from '../../../schemas/quick-picks.js'
import { BUILT_IN_PICKS } from './built-in.js'

/** The site setting recording that the built-ins were seeded (read by the client's admin menu). */
export const SEEDED_KEY = 'quick_picks_seeded'

/**
 * Two seeds at once each take gap locks and then insert into the other's gap: MariaDB ends one as a
 * deadlock victim, and running the whole work again is the documented answer.
 */
async function retriedOnDeadlock<T> (work: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await work()
    } catch (err) {
      const code = (err as { code?: string, cause?: { code?: string } }).code ?? (err as { cause?: { code?: string } }).cause?.code
      if (code !== 'ER_LOCK_DEADLOCK' || attempt >= 5) throw err
    }
  }
}

/** The built-in set as rows, in its own order. */
function builtIns (now: string) {
  return BUILT_IN_PICKS.map((p, i) => ({
    id: p.id,
    name: p.name,
    description: p.description,
    icon: p.icon,
    category: p.category,
    alarmType: p.alarmType satisfies QuickPickType,
    sortOrder: i,
    enabled: true,
    scope: 'global' as const,
    ownerUserId: null,
    filtersJson: p.filters,
    createdAt: now,
    updatedAt: now
  }))
}

/**
 * The built-in quick picks as the site's global ones: published by an admin's seed, and on a new site at
 * start-up (a failed seed leaves the site without picks, not without its service: logged, and tried
 * again at the next start).
 */
export function quickPickSeeding (fastify: FastifyInstance) {
  const { db, siteSettings, clock, log } = fastify

  async function replaceGlobals (now: string): Promise<void> {
    await db.transaction(async (tx) => {
      const globals = (await tx.select({ id: quickPickDefinitions.id }).from(quickPickDefinitions).where(eq(quickPickDefinitions.scope, 'global'))).map((r) => r.id)
      if (globals.length > 0) await tx.delete(quickPickAppliedStates).where(inArray(quickPickAppliedStates.quickPickId, globals))
      await tx.delete(quickPickDefinitions).where(eq(quickPickDefinitions.scope, 'global'))
      await tx.insert(quickPickDefinitions).values(builtIns(now))
    })
  }

  const seeding = {
    /** Replaces every global pick with the built-in set (applied states of the old globals are dropped). */
    async seed (request: FastifyRequest): Promise<void> {
      const now = toSqlTime(clock.now())
      await retriedOnDeadlock(() => replaceGlobals(now))
      await siteSettings.set(SEEDED_KEY, { value: 'true', category: 'internal' }, request)
    },

    /**
     * A new site starts with the built-in picks: at start-up, when the set was never seeded and there is no
     * global pick, the built-ins are published. Either way the seed is recorded, so what an admin makes of
     * the set afterwards (replaced, cleared) stays; a site whose admins published picks before keeps them.
     * Says whether it seeded.
     */
    async seedNewSite (): Promise<boolean> {
      if (await siteSettings.get(SEEDED_KEY) !== undefined) return false
      const now = toSqlTime(clock.now())
      const seeded = await retriedOnDeadlock(() => db.transaction(async (tx) => {
        // Locks the globals' range: two instances starting at once do not both insert the set.
        const [any] = await tx.select({ id: quickPickDefinitions.id }).from(quickPickDefinitions).where(eq(quickPickDefinitions.scope, 'global')).limit(1).for('update')
        if (any !== undefined) return false
        await tx.insert(quickPickDefinitions).values(builtIns(now))
        return true
      }))
      await siteSettings.mark(SEEDED_KEY, 'true')
      return seeded
    }
  }

  fastify.addHook('onReady', async () => {
    try {
      if (await seeding.seedNewSite()) log.info({ picks: BUILT_IN_PICKS.length }, 'a new site: the built-in quick picks are published')
    } catch (err) {
      log.error({ err }, 'the built-in quick picks could not be published')
    }
  })
  return seeding
}

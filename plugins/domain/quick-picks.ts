import { randomBytes } from 'node:crypto'
import { and, asc, eq, inArray, or, sql } from 'drizzle-orm'
import type { FastifyInstance } from 'fastify'
import { quickPickAppliedStates, quickPickDefinitions } from '../../db/schema/service.js'
import { toSqlTime } from '../../db/client.js'
import { EngineError } from '../data/engine.js'
import { badRequest, conflict, forbidden, notFound } from '../edge/errors.js'
import type { UidChanged } from './alarm-events.js'
import { KIND_OF, type AlarmType } from '../../schemas/alarm-types.js'
import type { AppliedState, ApplyOptions, ApplyResult, QuickPick, QuickPickWrite, SkippedAlarm } from '../../schemas/quick-picks.js'
import { BUILT_IN_PICKS } from './quick-picks/built-in.js'
import { engineType, pickAlarms } from './quick-picks/pick-alarms.js'
import { quickPickSeeding } from './quick-picks/seeding.js'
import { decoratorPlugin } from '../../lib/decorator-plugin.js'
import type { Collision, FenceSplit } from './alarm-writer.js'

const BUILT_IN_IDS: ReadonlySet<string> = new Set(BUILT_IN_PICKS.map((p) => p.id))

/**
 * How many picks of their own a member keeps: every pick is a row the list reads on each page load,
 * and a few dozen is more than anyone applies by hand.
 */
export const MAX_OWN_PICKS = 50

type Row = Record<string, unknown>
type DefinitionRow = typeof quickPickDefinitions.$inferSelect
type StateRow = typeof quickPickAppliedStates.$inferSelect

/** The caller a quick-pick operation acts for: its own picks, its own applied states, admin rights. */
export interface Actor { userId: string, profileNo: number, isAdmin: boolean }

const parseJson = <T>(value: unknown, fallback: T): T => {
  if (typeof value !== 'string') return (value ?? fallback) as T
  try {
    return JSON.parse(value) as T
  } catch {
    return fallback
  }
}
const ints = (value: unknown): number[] => parseJson<unknown[]>(value, []).filter((n): n is number => Number.isInteger(n))

function toPick (row: DefinitionRow): QuickPick {
  return {
    id: row.id,
    name: row.name,
    description: row.description ?? null,
    icon: row.icon,
    category: row.category,
    alarmType: row.alarmType,
    sortOrder: row.sortOrder,
    enabled: Boolean(row.enabled),
    scope: row.scope === 'user' ? 'user' : 'global',
    ownerUserId: row.ownerUserId ?? null,
    filters: parseJson<Row>(row.filtersJson, {}),
    createdAt: row.createdAt,
    updatedAt: row.updatedAt
  }
}

function toState (row: StateRow): AppliedState {
  return {
    quickPickId: row.quickPickId,
    profileNo: row.profileNo,
    alarmType: row.alarmType,
    appliedAt: row.appliedAt,
    trackedUids: ints(row.trackedUidsJson),
    excludePokemonIds: ints(row.excludePokemonIdsJson)
  }
}

/** Ids of members' own picks: `u-` and a random tail, never a slug another member could guess or take first. */
export const OWN_ID_PREFIX = 'u-'
const ownId = (): string => `${OWN_ID_PREFIX}${randomBytes(8).readBigUInt64BE().toString(36).padStart(13, '0')}`

/** "Great League Top 10!" → "great-league-top-10"; never in the members' id space (`u-…`). */
export function slugOf (name: string): string {
  const slug = name.normalize('NFKD').toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 50).replace(/-+$/, '')
  if (slug.startsWith(OWN_ID_PREFIX)) return `pick-${slug}`.slice(0, 50).replace(/-+$/, '')
  return slug === '' || slug === 'user' || slug === 'seed' ? 'pick' : slug
}

/** How a skipped row is told to the member, by the alarm writer's collision. */
const SKIP_REASON: Record<Collision['code'], SkippedAlarm['reason']> = {
  present: 'already-have',
  takeover: 'would-change-yours',
  'same-key': 'same-key',
  repeated: 'repeated'
}

function createQuickPicks (fastify: FastifyInstance) {
  const { db, engine, alarmWriter, featureGates, alarmEvents, userWriteLock, clock, log } = fastify
  const seeding = quickPickSeeding(fastify)

  async function definition (id: string): Promise<DefinitionRow | null> {
    const [row] = await db.db.select().from(quickPickDefinitions).where(eq(quickPickDefinitions.id, id)).limit(1)
    return row ?? null
  }

  /** A pick the actor may see: any for admins, else global ones and their own. Others are "not found". */
  async function visible (id: string, actor: Actor): Promise<DefinitionRow> {
    const row = await definition(id)
    if (row === null || (!actor.isAdmin && row.scope !== 'global' && row.ownerUserId !== actor.userId)) throw notFound('Quick pick not found.')
    return row
  }

  /** One of the actor's own picks; any other id, taken or not, is "not found". */
  async function own (id: string, actor: Actor): Promise<DefinitionRow> {
    const row = await definition(id)
    if (row === null || row.scope !== 'user' || row.ownerUserId !== actor.userId) throw notFound('Quick pick not found.')
    return row
  }

  async function stateOf (actor: Actor, pickId: string): Promise<StateRow | null> {
    const [row] = await db.db.select().from(quickPickAppliedStates).where(and(
      eq(quickPickAppliedStates.userId, actor.userId),
      eq(quickPickAppliedStates.profileNo, actor.profileNo),
      eq(quickPickAppliedStates.quickPickId, pickId)
    )).limit(1)
    return row ?? null
  }

  /** Which uids of the type the user has now (active profile); a user the engine lost is "account gone". */
  async function currentUids (type: AlarmType, userId: string): Promise<Set<number>> {
    return new Set((await engine.tracking.get(type, userId)).map((r) => r.uid))
  }

  /**
   * A free id for a new global pick: the slug, then slug-2 … slug-50, then a random tail. The built-ins'
   * ids count as taken, so seeding never meets another pick under one of them.
   */
  async function freeId (name: string): Promise<string> {
    const base = slugOf(name)
    for (let n = 1; n <= 50; n++) {
      const candidate = n === 1 ? base : `${base.slice(0, 50 - String(n).length - 1)}-${n}`
      if (!BUILT_IN_IDS.has(candidate) && await definition(candidate) === null) return candidate
    }
    return `${base.slice(0, 41)}-${Math.random().toString(36).slice(2, 10)}`
  }

  /** A new pick of the actor's own fits under the limit; callers hold the actor's write lock, so two creates do not both pass. */
  async function ensureRoom (actor: Actor): Promise<void> {
    const [row] = await db.db.select({ n: sql<number>`COUNT(*)` }).from(quickPickDefinitions)
      .where(and(eq(quickPickDefinitions.scope, 'user'), eq(quickPickDefinitions.ownerUserId, actor.userId)))
    // A 403, not a 409: nothing is in the way that another try could clear; only a delete makes room.
    if (Number(row?.n ?? 0) >= MAX_OWN_PICKS) throw forbidden(`You already keep ${MAX_OWN_PICKS} quick picks of your own; delete one first.`)
  }

  async function save (write: QuickPickWrite, scope: 'global' | 'user', ownerUserId: string | null, existing: DefinitionRow | null): Promise<QuickPick> {
    pickAlarms(write.alarmType, write.filters)
    const id = write.id ?? (scope === 'user' ? ownId() : await freeId(write.name))
    const now = toSqlTime(clock.now())
    const values = {
      name: write.name.trim(),
      description: write.description ?? null,
      icon: write.icon ?? 'bolt',
      category: write.category ?? 'Common',
      alarmType: write.alarmType,
      sortOrder: write.sortOrder ?? 0,
      enabled: write.enabled ?? true,
      scope,
      ownerUserId,
      filtersJson: write.filters,
      updatedAt: now
    }
    if (existing === null) await db.db.insert(quickPickDefinitions).values({ id, ...values, createdAt: now })
    else await db.db.update(quickPickDefinitions).set(values).where(eq(quickPickDefinitions.id, id))
    return toPick(await definition(id) as DefinitionRow)
  }

  /**
   * Creates those of the pick's alarms the member lacks and records exactly the uids it created. A row the
   * engine would match to one of the member's alarms (alarm-engine.md 1.3: the same alarm, one updatable
   * field apart, or the table's unique key) is skipped, not sent: the engine would rewrite the member's
   * alarm, and a later remove would delete it. Override areas naming the user's own fences are written
   * by the alarm writer (docs/geofences.md).
   */
  async function applyRows (actor: Actor, pick: DefinitionRow, rows: Row[], excluded: number[]): Promise<ApplyResult> {
    // The engine's refusal of the write (an unknown area, say) is the apply's answer, as for one alarm.
    const outcomes = await alarmWriter.createMany(KIND_OF[engineType(pick.alarmType)], actor.userId, rows, { whole: true })
    const added: number[] = []
    const skipped: SkippedAlarm[] = []
    for (const outcome of outcomes) {
      if (outcome.status === 'created' && outcome.alarm !== undefined) added.push(outcome.alarm.uid)
      else skipped.push({ uid: outcome.collision?.uid ?? null, reason: outcome.collision === undefined ? 'refused' : SKIP_REASON[outcome.collision.code], message: outcome.reason ?? null })
    }
    added.sort((a, b) => a - b)
    const values = {
      userId: actor.userId,
      profileNo: actor.profileNo,
      quickPickId: pick.id,
      alarmType: pick.alarmType,
      appliedAt: toSqlTime(clock.now()),
      excludePokemonIdsJson: excluded.length > 0 ? excluded : null,
      trackedUidsJson: added
    }
    await db.db.insert(quickPickAppliedStates).values(values).onDuplicateKeyUpdate({
      set: { alarmType: values.alarmType, appliedAt: values.appliedAt, excludePokemonIdsJson: values.excludePokemonIdsJson, trackedUidsJson: added }
    })
    return { ...toState(await stateOf(actor, pick.id) as StateRow), requested: rows.length, added, skipped }
  }

  /**
   * The rows an apply will send, after the type's gate and every check: nothing is written before this
   * passes. Override areas keep the user's own fences; the alarm writer sends them as the engine can take them.
   */
  async function prepare (pick: DefinitionRow, options: ApplyOptions, actor: Actor): Promise<Row[]> {
    if (!pick.enabled) throw badRequest('This quick pick is disabled.')
    const type = engineType(pick.alarmType)
    await featureGates.ensure(KIND_OF[type].disableKey)
    const extra: Row = {}
    if (options.distance !== undefined) extra.distance = options.distance
    if (options.clean !== undefined) extra.clean = options.clean
    if (options.template !== undefined) extra.template = options.template
    if (options.overrideLocationLabel !== undefined) extra.override_location_label = options.overrideLocationLabel
    if (options.overrideAreas !== undefined) {
      // Another member's private fence is refused here, before anything is written.
      const [split] = await alarmWriter.splitOwnFences(actor.userId, [{ names: options.overrideAreas, field: '/overrideAreas' }]) as [FenceSplit]
      if (split.names.length > 0) extra.override_areas = split.names
    }
    const filters = parseJson<Row>(pick.filtersJson, {})
    const excluded = options.excludePokemonIds ?? []
    if (excluded.length === 0) return pickAlarms(pick.alarmType, filters, extra)
    const chosen = filters.pokemon_id ?? 0
    if (type === 'pokemon' && Array.isArray(chosen)) {
      // "All of this set except these": one alarm per species of the pick the member kept.
      const kept = chosen.filter((id) => !excluded.includes(Number(id)))
      if (kept.length === chosen.length) throw badRequest('Only pokemon of the pick can be left out.', { details: [{ field: '/excludePokemonIds', message: 'names no pokemon of the pick' }] })
      if (kept.length === 0) throw badRequest('Every pokemon of the pick is left out: nothing to add.', { details: [{ field: '/excludePokemonIds', message: 'leaves no pokemon' }] })
      return pickAlarms(pick.alarmType, { ...filters, pokemon_id: kept }, extra)
    }
    if (type !== 'pokemon' || chosen !== 0) throw badRequest('Pokemon can only be excluded from picks for every pokemon or for a set of pokemon.')
    // "Every pokemon but these": one alarm per remaining species of the engine's game data.
    const species = new Set(Object.keys(await engine.masterdata.monsters()).map((key) => Number.parseInt(key, 10)).filter((id) => id > 0))
    for (const id of excluded) species.delete(id)
    return pickAlarms(pick.alarmType, { ...filters, pokemon_id: [...species].sort((a, b) => a - b) }, extra)
  }

  /** Deletes the alarms an apply created that still exist, and forgets the applied state. */
  async function removeApplied (actor: Actor, state: StateRow): Promise<void> {
    await alarmWriter.removeExisting(engineType(state.alarmType), actor.userId, ints(state.trackedUidsJson))
    await db.db.delete(quickPickAppliedStates).where(eq(quickPickAppliedStates.id, state.id))
  }

  /**
   * Follows an alarm to its new uid (PoracleNG re-keys edited rows), so "remove" still finds it. Runs
   * after the engine took the edit and before the edit answers: a failure here is logged and leaves the
   * old uid, which remove then skips.
   */
  async function followUid (change: UidChanged): Promise<void> {
    const pickTypes = change.type === 'pokemon' ? ['monster', 'pokemon'] : [change.type]
    const states = await db.db.select().from(quickPickAppliedStates).where(and(
      eq(quickPickAppliedStates.userId, change.userId),
      inArray(quickPickAppliedStates.alarmType, pickTypes),
      sql`JSON_CONTAINS(${quickPickAppliedStates.trackedUidsJson}, ${String(change.oldUid)})`
    ))
    for (const state of states) {
      const uids = ints(state.trackedUidsJson).map((uid) => (uid === change.oldUid ? change.newUid : uid))
      await db.db.update(quickPickAppliedStates).set({ trackedUidsJson: uids }).where(eq(quickPickAppliedStates.id, state.id))
    }
  }
  alarmEvents.on('uidChanged', async (change) => {
    await followUid(change).catch((err: unknown) => { log.error({ err, type: change.type }, 'quick pick could not follow an alarm\'s new uid') })
  })

  const quickPicks = {
    /** Global picks and the actor's own, each with the actor's applied state on the active profile. */
    async list (actor: Actor): Promise<Array<{ definition: QuickPick, appliedState: AppliedState | null }>> {
      const picks = await db.db.select().from(quickPickDefinitions)
        .where(or(eq(quickPickDefinitions.scope, 'global'), and(eq(quickPickDefinitions.scope, 'user'), eq(quickPickDefinitions.ownerUserId, actor.userId))))
        .orderBy(asc(quickPickDefinitions.category), asc(quickPickDefinitions.sortOrder), asc(quickPickDefinitions.name))
      const states = await db.db.select().from(quickPickAppliedStates)
        .where(and(eq(quickPickAppliedStates.userId, actor.userId), eq(quickPickAppliedStates.profileNo, actor.profileNo)))
      // Alarms deleted elsewhere since the apply are dropped from the tracked uids (one engine read per type).
      const uidsByType = new Map<AlarmType, Set<number>>()
      for (const state of states) {
        const type = engineType(state.alarmType)
        if (!uidsByType.has(type)) uidsByType.set(type, await currentUids(type, actor.userId))
        const tracked = ints(state.trackedUidsJson)
        const live = tracked.filter((uid) => uidsByType.get(type)?.has(uid))
        if (live.length !== tracked.length) {
          state.trackedUidsJson = live
          await db.db.update(quickPickAppliedStates).set({ trackedUidsJson: live }).where(eq(quickPickAppliedStates.id, state.id))
        }
      }
      return picks.map((pick) => {
        const state = states.find((s) => s.quickPickId === pick.id)
        return { definition: toPick(pick), appliedState: state === undefined ? null : toState(state) }
      })
    },

    async one (id: string, actor: Actor): Promise<QuickPick> {
      return toPick(await visible(id, actor))
    },

    /** Admins publish global picks; a user's pick keeps its owner and cannot be turned into a global one. */
    async saveGlobal (write: QuickPickWrite): Promise<QuickPick> {
      if (write.id?.startsWith(OWN_ID_PREFIX) === true) throw badRequest(`Ids starting with "${OWN_ID_PREFIX}" are members' own quick picks.`)
      const existing = write.id === undefined ? null : await definition(write.id)
      if (existing !== null && existing.scope !== 'global') throw badRequest('This id belongs to a user\'s own quick pick.')
      return save(write, 'global', null, existing)
    },

    /**
     * Creates one of the actor's own picks under a new id of the members' id space, or, given an `id`,
     * replaces the actor's own pick of that id. Any other id (someone else's, a global one, none at all)
     * answers exactly as a missing pick does, so nobody learns which ids exist.
     */
    async saveOwn (write: QuickPickWrite, actor: Actor): Promise<QuickPick> {
      return await userWriteLock.run(actor.userId, async () => {
        if (write.id !== undefined) return save(write, 'user', actor.userId, await own(write.id, actor))
        await ensureRoom(actor)
        return save(write, 'user', actor.userId, null)
      })
    },

    /**
     * Edits one of the actor's own picks that exists now: a pick deleted meanwhile (another tab) is not
     * made again, and someone else's is "not found", as it is to every other read.
     */
    async updateOwn (id: string, write: Omit<QuickPickWrite, 'id'>, actor: Actor): Promise<QuickPick> {
      return save({ ...write, id }, 'user', actor.userId, await own(id, actor))
    },

    /** Deletes a pick and every user's applied state of it (their alarms stay). */
    async delete (id: string): Promise<void> {
      if (await definition(id) === null) throw notFound('Quick pick not found.')
      await db.transaction(async (tx) => {
        await tx.delete(quickPickAppliedStates).where(eq(quickPickAppliedStates.quickPickId, id))
        await tx.delete(quickPickDefinitions).where(eq(quickPickDefinitions.id, id))
      })
    },

    async deleteOwn (id: string, actor: Actor): Promise<void> {
      await own(id, actor)
      await db.transaction(async (tx) => {
        await tx.delete(quickPickAppliedStates).where(and(eq(quickPickAppliedStates.quickPickId, id), eq(quickPickAppliedStates.userId, actor.userId)))
        await tx.delete(quickPickDefinitions).where(eq(quickPickDefinitions.id, id))
      })
    },

    async apply (id: string, actor: Actor, options: ApplyOptions): Promise<ApplyResult> {
      return await userWriteLock.run(actor.userId, async () => {
        const pick = await visible(id, actor)
        const prepared = await prepare(pick, options, actor)
        if (await stateOf(actor, id) !== null) throw conflict('This quick pick is already applied; re-apply or remove it.')
        return applyRows(actor, pick, prepared, options.excludePokemonIds ?? [])
      })
    },

    /** Checks the new apply completely before removing the old one's alarms. */
    async reapply (id: string, actor: Actor, options: ApplyOptions): Promise<ApplyResult> {
      return await userWriteLock.run(actor.userId, async () => {
        const pick = await visible(id, actor)
        const prepared = await prepare(pick, options, actor)
        const state = await stateOf(actor, id)
        if (state !== null) await removeApplied(actor, state)
        return applyRows(actor, pick, prepared, options.excludePokemonIds ?? [])
      })
    },

    /** Removes exactly the alarms the apply created (as re-keyed since); a pick that is disabled or gone can still be removed. */
    async remove (id: string, actor: Actor): Promise<void> {
      return await userWriteLock.run(actor.userId, async () => {
        const state = await stateOf(actor, id)
        if (state === null) throw notFound('This quick pick is not applied.')
        try {
          await removeApplied(actor, state)
        } catch (err) {
          if (err instanceof EngineError && err.kind === 'unsupported') throw notFound('This alarm type is not supported by the alarm engine.')
          throw err
        }
      })
    },

    seed: seeding.seed,
    seedNewSite: seeding.seedNewSite
  }
  return quickPicks
}

export type QuickPicks = ReturnType<typeof createQuickPicks>

declare module 'fastify' {
  interface FastifyInstance {
    quickPicks: QuickPicks
  }
}

/** One-click alarm presets: global and personal definitions, and which alarms each apply created. */
export default decoratorPlugin('quick-picks', createQuickPicks, ['db', 'engine', 'user-write-lock', 'alarm-writer', 'feature-gates', 'site-settings', 'alarm-events', 'clock'])

import { randomBytes } from 'node:crypto'
import { and, desc, eq, gt, isNull, or, sql } from 'drizzle-orm'
import type { FastifyInstance } from 'fastify'
import { sharedSets } from '../../db/schema/service.js'
import { toSqlTime } from '../../db/client.js'
import type { AlarmRow } from '../data/engine.js'
import { badRequest, featureDisabled, forbidden, notFound } from '../edge/errors.js'
import type { PageHead } from '../edge/spa.js'
import { ALARM_TYPES, KIND_OF, type AlarmType } from '../../schemas/alarm-types.js'
import { toTransferAlarm } from '../../schemas/profiles.js'
import {
  MAX_OWN_SETS, MAX_SHARED_ALARMS, type CatalogueQuery, type ShareCreate, type SharedAlarm, type SharedSetView, type Unavailable
} from '../../schemas/shared-sets.js'
import { QUICK_PICK_TYPES, type QuickPickType } from '../../schemas/quick-picks.js'
import { decoratorPlugin } from '../../lib/decorator-plugin.js'
import { createBody, createSetCopies } from './shared-sets/set-copies.js'

type Row = Record<string, unknown>
type SetRow = typeof sharedSets.$inferSelect

/** The site switch that turns sharing off: no new sets, and every link answers "switched off". */
export const SHARING_OFF_KEY = 'disable_sharing'
/** The site switch that closes the community catalogue (links keep working). */
export const CATALOGUE_OFF_KEY = 'disable_shared_catalogue'

/** Fields a quick pick's apply form sets itself (scope, delivery): a promoted set leaves them out. */
const DELIVERY_FIELDS = new Set(['distance', 'template', 'clean', 'override_areas', 'override_location_label', 'ping'])

const DAY_MS = 86_400_000

/** A token as the links carry it (schemas/shared-sets.ts). */
const TOKEN_PATTERN = /^[A-Za-z0-9_-]{22}$/

/**
 * Fields of an alarm a shared set never carries: `ping` is the member's own words, and a saved place's
 * label (`override_location_label`) names where the member lives or works. Owner, uid and profile are
 * not filters and never reach the snapshot either (toTransferAlarm keeps only the type's fields).
 */
const PERSONAL_FIELDS = new Set(['ping', 'override_location_label'])

/** The type's word in the one-line summary (Open Graph description, catalogue). */
const TYPE_WORDS: Record<AlarmType, [string, string]> = {
  pokemon: ['pokemon', 'pokemon'],
  raid: ['raid', 'raid'],
  egg: ['egg', 'egg'],
  quest: ['quest', 'quest'],
  invasion: ['invasion', 'invasion'],
  lure: ['lure', 'lure'],
  nest: ['nest', 'nest'],
  gym: ['gym', 'gym'],
  fort: ['fort change', 'fort change'],
  maxbattle: ['max battle', 'max battle']
}

/** "12 raid alarms", "1 alarm: …", "7 alarms: 5 pokemon, 2 raid": the set in words, nothing of its sharer. */
export function summaryOf (alarms: SharedAlarm[]): string {
  const counts = new Map<AlarmType, number>()
  for (const alarm of alarms) counts.set(alarm.type, (counts.get(alarm.type) ?? 0) + 1)
  const plural = (n: number) => (n === 1 ? 'alarm' : 'alarms')
  if (counts.size === 1) {
    const [type, n] = [...counts][0] as [AlarmType, number]
    return `${n} ${TYPE_WORDS[type][0]} ${plural(n)}`
  }
  const parts = [...counts].map(([type, n]) => `${n} ${TYPE_WORDS[type][1]}`)
  return `${alarms.length} ${plural(alarms.length)}: ${parts.join(', ')}`
}

/** Words the catalogue searches: the types and the pokemon ids of the set. */
function searchTextOf (alarms: SharedAlarm[]): string {
  const words = new Set<string>()
  for (const alarm of alarms) {
    words.add(alarm.type)
    if (typeof alarm.pokemon_id === 'number' && alarm.pokemon_id > 0) words.add(`#${alarm.pokemon_id}`)
  }
  return [...words].join(' ').slice(0, 2000)
}

/** Text cut to `max` characters, the cut marked. */
const clipped = (text: string, max: number): string => (text.length <= max ? text : `${text.slice(0, max - 1)}…`)

const newToken = (): string => randomBytes(16).toString('base64url')

function createSharedSets (fastify: FastifyInstance) {
  const { db, engine, featureGates, siteSettings, engineFences, userGeofences, quickPicks, clock } = fastify

  async function ensureSharingOn (): Promise<void> {
    if (await siteSettings.isTrue(SHARING_OFF_KEY)) throw featureDisabled(SHARING_OFF_KEY)
  }

  const now = () => toSqlTime(clock.now())
  const isExpired = (row: SetRow) => row.expiresAt !== null && row.expiresAt <= now()

  /** A set that answers: it exists, has not expired and was not taken down. Anything else is "not found", to everyone. */
  async function live (token: string): Promise<SetRow> {
    const [row] = await db.db.select().from(sharedSets).where(eq(sharedSets.token, token)).limit(1)
    if (row === undefined || row.hidden || isExpired(row)) throw notFound('This shared set does not exist or has ended.')
    return row
  }

  const alarmsOf = (row: SetRow): SharedAlarm[] => {
    const value = typeof row.snapshotJson === 'string' ? JSON.parse(row.snapshotJson) as unknown : row.snapshotJson
    return Array.isArray(value) ? value as SharedAlarm[] : []
  }

  /**
   * One stored alarm as a set carries it: the type's filter fields only, without the personal ones,
   * and override areas only by the names of the site's own areas (a member's private fence is dropped:
   * its name and shape are the member's).
   */
  function snapshotOf (type: AlarmType, filters: Row, isSiteArea: (name: string) => boolean): SharedAlarm {
    for (const field of PERSONAL_FIELDS) delete filters[field]
    if (Array.isArray(filters.override_areas)) {
      const areas = (filters.override_areas as unknown[]).map((n) => String(n).toLowerCase()).filter(isSiteArea)
      if (areas.length > 0) filters.override_areas = areas
      else delete filters.override_areas
    }
    return { type, ...filters }
  }

  /** The sharer's alarms the request names: a selection by type and uid (any profile), or one whole profile. */
  async function chosenRows (userId: string, body: ShareCreate): Promise<Array<{ type: AlarmType, row: AlarmRow }>> {
    const all = await engine.tracking.allProfiles(userId)
    if ('profileNo' in body) {
      const known = all.profiles.some((p) => Number(p.profile_no) === body.profileNo) || Number(all.human.current_profile_no) === body.profileNo
      if (!known) throw notFound('Profile not found.')
      const rows = ALARM_TYPES.flatMap((type) => all.alarms[type].filter((r) => Number(r.profile_no) === body.profileNo).map((row) => ({ type, row })))
      if (rows.length === 0) throw badRequest('This profile has no alarms to share.')
      if (rows.length > MAX_SHARED_ALARMS) throw badRequest(`A shared set holds at most ${MAX_SHARED_ALARMS} alarms; share a selection instead.`)
      return rows
    }
    return body.alarms.map((ref, i) => {
      const row = all.alarms[ref.type].find((r) => r.uid === ref.uid)
      if (row === undefined) throw badRequest('An alarm to share is not one of yours.', { details: [{ field: `/alarms/${i}`, message: 'no such alarm' }] })
      return { type: ref.type, row }
    })
  }

  /** The site's areas by name: the engine's fences, less the private fences members drew. */
  async function siteAreaCheck (): Promise<(name: string) => boolean> {
    const [fences, privateNames] = await Promise.all([engineFences.current(), userGeofences.privateNames()])
    return (name) => fences.known(name) && !privateNames.has(name.toLowerCase())
  }

  /** What of the set this site and the viewer's engine do not offer now, by the alarm's place in the set. */
  async function unavailableOf (alarms: SharedAlarm[]): Promise<Unavailable[]> {
    const generation = await engine.generation()
    const types = [...new Set(alarms.map((a) => a.type))]
    const off = new Set<AlarmType>()
    for (const type of types) if (await featureGates.isDisabled(KIND_OF[type].disableKey)) off.add(type)
    const needsAreas = alarms.some((a) => Array.isArray(a.override_areas) && a.override_areas.length > 0)
    const isSiteArea = needsAreas ? await siteAreaCheck() : () => true
    const out: Unavailable[] = []
    alarms.forEach((alarm, index) => {
      const kind = KIND_OF[alarm.type]
      if (!kind.generations.includes(generation)) {
        out.push({ index, type: alarm.type, reason: 'type-not-offered', message: `${TYPE_WORDS[alarm.type][0]} alarms are not offered by this site's alarm engine` })
      } else if (off.has(alarm.type)) {
        out.push({ index, type: alarm.type, reason: 'type-off', message: `${TYPE_WORDS[alarm.type][0]} alarms are switched off on this site` })
      } else {
        const unknown = ((alarm.override_areas ?? []) as unknown[]).map(String).find((name) => !isSiteArea(name))
        if (unknown !== undefined) out.push({ index, type: alarm.type, reason: 'unknown-area', message: `the area "${unknown}" is not one of this site's areas` })
      }
    })
    return out
  }

  /** The link of a set on this site. */
  const urlOf = (origin: string, token: string) => `${origin}/s/${token}`

  /** A set as the catalogue lists it: what it holds, in words, and how often it was copied. */
  const entryOf = (row: SetRow, origin: string) => {
    const alarms = alarmsOf(row)
    return {
      token: row.token,
      url: urlOf(origin, row.token),
      title: row.title,
      sharer: row.displayName ?? 'a member',
      summary: summaryOf(alarms),
      types: [...new Set(alarms.map((a) => a.type))],
      alarms: row.alarmCount,
      copies: row.copies
    }
  }

  /** A word of the set's search text: the type, or `#<pokemon id>`; LIKE's wildcards cannot occur in either. */
  const hasWord = (word: string) => sql`CONCAT(' ', ${sharedSets.searchText}, ' ') LIKE ${`% ${word} %`}`

  /**
   * One quick pick's filters for a set's alarms of one type: the alarms must differ in one filter at most,
   * which becomes the pick's list (a pick fans a list out into one alarm per value). Delivery fields are
   * left to the member who applies the pick.
   */
  function pickFilters (type: AlarmType, alarms: SharedAlarm[]): Row {
    const rows = alarms.map((alarm) => Object.fromEntries(Object.entries(createBody(alarm)).filter(([field]) => !DELIVERY_FIELDS.has(field))))
    const fields = [...new Set(rows.flatMap((row) => Object.keys(row)))]
    const varying = fields.filter((field) => new Set(rows.map((row) => JSON.stringify(row[field] ?? null))).size > 1)
    if (varying.length > 1) throw badRequest(`The set's ${TYPE_WORDS[type][0]} alarms differ in more than one filter (${varying.join(', ')}); a quick pick lists values of one filter only.`)
    const filters: Row = { ...rows[0] }
    const [field] = varying
    if (field !== undefined) filters[field] = [...new Set(rows.map((row) => row[field]))]
    return filters
  }

  return {
    /**
     * Makes a set from the member's alarms: a snapshot of their filters, under a new token. The
     * member's location, saved places, private fences, uids and profile never enter it.
     */
    async create (userId: string, body: ShareCreate, origin: string): Promise<{ token: string, url: string, alarms: number }> {
      await ensureSharingOn()
      const [{ n } = { n: 0 }] = await db.db.select({ n: sql<number>`COUNT(*)` }).from(sharedSets).where(eq(sharedSets.ownerUserId, userId))
      if (Number(n) >= MAX_OWN_SETS) throw forbidden(`You already share ${MAX_OWN_SETS} sets; revoke one first.`)
      const rows = (await chosenRows(userId, body)).map(({ type, row }) => ({ type, filters: toTransferAlarm(type, row as Row) }))
      const needsAreas = rows.some(({ filters }) => Array.isArray(filters.override_areas) && filters.override_areas.length > 0)
      const isSiteArea = needsAreas ? await siteAreaCheck() : () => false
      const alarms = rows.map(({ type, filters }) => snapshotOf(type, filters, isSiteArea))
      const token = newToken()
      await db.db.insert(sharedSets).values({
        token,
        ownerUserId: userId,
        title: body.title?.trim() ?? clipped(summaryOf(alarms), 100),
        displayName: body.displayName?.trim() ?? null,
        snapshotJson: alarms,
        alarmCount: alarms.length,
        searchText: searchTextOf(alarms),
        expiresAt: body.expiresInDays == null ? null : toSqlTime(clock.now() + body.expiresInDays * DAY_MS),
        inCatalogue: body.inCatalogue ?? false,
        createdAt: now()
      })
      return { token, url: urlOf(origin, token), alarms: alarms.length }
    },

    /** The member's own sets, newest first, with how often each was copied (expired and taken-down ones too, marked). */
    async mine (userId: string, origin: string) {
      const rows = await db.db.select().from(sharedSets).where(eq(sharedSets.ownerUserId, userId)).orderBy(desc(sharedSets.createdAt))
      return rows.map((row) => ({
        token: row.token,
        url: urlOf(origin, row.token),
        title: row.title,
        displayName: row.displayName,
        alarms: row.alarmCount,
        copies: row.copies,
        expiresAt: row.expiresAt,
        expired: isExpired(row),
        hidden: row.hidden,
        inCatalogue: row.inCatalogue,
        createdAt: row.createdAt
      }))
    },

    /** Ends a link at once. Only its sharer may; to anyone else the token does not exist. */
    async revoke (userId: string, token: string): Promise<void> {
      const [result] = await db.db.delete(sharedSets).where(and(eq(sharedSets.token, token), eq(sharedSets.ownerUserId, userId)))
      if (result.affectedRows === 0) throw notFound('This shared set does not exist or has ended.')
    },

    /** The community catalogue: sets their sharers offered, not taken down or ended, most copied first. */
    async catalogue (query: CatalogueQuery, origin: string) {
      await ensureSharingOn()
      if (await siteSettings.isTrue(CATALOGUE_OFF_KEY)) throw featureDisabled(CATALOGUE_OFF_KEY)
      const rows = await db.db.select().from(sharedSets).where(and(
        eq(sharedSets.inCatalogue, true),
        eq(sharedSets.hidden, false),
        or(isNull(sharedSets.expiresAt), gt(sharedSets.expiresAt, now())),
        ...(query.type !== undefined ? [hasWord(query.type)] : []),
        ...(query.species !== undefined ? [hasWord(`#${query.species}`)] : [])
      )).orderBy(desc(sharedSets.copies), desc(sharedSets.createdAt)).limit(query.limit ?? 50)
      return rows.map((row) => entryOf(row, origin))
    },

    /** Every set of the site, newest first, for administrators to moderate (taken-down and ended ones too). */
    async all (origin: string) {
      const rows = await db.db.select().from(sharedSets).orderBy(desc(sharedSets.createdAt)).limit(500)
      return rows.map((row) => ({ ...entryOf(row, origin), hidden: row.hidden, inCatalogue: row.inCatalogue, expired: isExpired(row), createdAt: row.createdAt }))
    },

    /** Takes a set down (its link and its catalogue entry answer "not found") or puts it back. */
    async setHidden (token: string, hidden: boolean): Promise<void> {
      const [result] = await db.db.update(sharedSets).set({ hidden }).where(eq(sharedSets.token, token))
      if (result.affectedRows === 0) throw notFound('This shared set does not exist.')
    },

    /**
     * Publishes a set as site quick picks, one per alarm type, named after the set. Nothing is published
     * unless every type can be one pick.
     */
    async promote (token: string) {
      const [row] = await db.db.select().from(sharedSets).where(eq(sharedSets.token, token)).limit(1)
      if (row === undefined) throw notFound('This shared set does not exist.')
      const byType = new Map<AlarmType, SharedAlarm[]>()
      for (const alarm of alarmsOf(row)) byType.set(alarm.type, [...byType.get(alarm.type) ?? [], alarm])
      const picks = [...byType].map(([type, alarms]) => {
        const alarmType = type === 'pokemon' ? 'monster' : type
        if (!(QUICK_PICK_TYPES as readonly string[]).includes(alarmType)) throw badRequest(`${TYPE_WORDS[type][0]} alarms cannot be a quick pick.`)
        return {
          name: clipped(byType.size === 1 ? row.title : `${row.title} (${TYPE_WORDS[type][0]})`, 200),
          description: `From a shared set: ${summaryOf(alarms)}.`,
          category: 'Community',
          alarmType: alarmType as QuickPickType,
          filters: pickFilters(type, alarms)
        }
      })
      const saved = []
      for (const pick of picks) saved.push(await quickPicks.saveGlobal(pick))
      return { quickPicks: saved.map((p) => ({ id: p.id, name: p.name, alarmType: p.alarmType })) }
    },

    /**
     * What a link preview shows without sign-in (chat apps read it): the title and the summary in words,
     * nothing else of the set or its sharer. Null for a link that does not answer (or while sharing is off).
     */
    async preview (token: string): Promise<PageHead | null> {
      if (!TOKEN_PATTERN.test(token) || await siteSettings.isTrue(SHARING_OFF_KEY)) return null
      const row = await live(token).catch(() => null)
      return row === null ? null : { title: row.title, description: summaryOf(alarmsOf(row)) }
    },

    /** The set as a viewer sees it: title, sharer's chosen name, the alarms, and what this site does not offer. */
    async view (token: string, viewerId: string): Promise<SharedSetView> {
      await ensureSharingOn()
      const row = await live(token)
      const alarms = alarmsOf(row)
      return {
        token: row.token,
        title: row.title,
        sharer: row.displayName ?? 'a member',
        summary: summaryOf(alarms),
        alarms,
        unavailable: await unavailableOf(alarms),
        copies: row.copies,
        expiresAt: row.expiresAt,
        mine: row.ownerUserId === viewerId
      }
    },

    ...createSetCopies(fastify, { ensureSharingOn, live, alarmsOf, unavailableOf })
  }
}

export type SharedSets = ReturnType<typeof createSharedSets>

declare module 'fastify' {
  interface FastifyInstance {
    sharedSets: SharedSets
  }
}

/** Alarm sets shared as links: snapshots of filters, their copies into a viewer's profile, and revocation. */
export default decoratorPlugin('shared-sets', createSharedSets, ['db', 'engine', 'alarm-writer', 'feature-gates', 'site-settings', 'profiles', 'engine-fences', 'user-geofences', 'user-write-lock', 'quick-picks', 'clock'])

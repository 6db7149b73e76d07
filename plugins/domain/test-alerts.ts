import type { FastifyInstance } from 'fastify'
import { EngineError, type EngineClient, type EngineHuman } from '../data/engine.js'
import { notFound, notSupported } from '../edge/errors.js'
import { TtlCache } from '../../lib/ttl-cache.js'
import { present } from './alarm-writer.js'
import { decoratorPlugin } from '../../lib/decorator-plugin.js'
import { KIND_OF, type AlarmType } from '../../schemas/alarm-types.js'

/**
 * Test alerts (reference 1.18, alarm-engine.md 1.10): a synthetic scanner webhook whose values fall inside
 * the alarm's filters, at the user's location, posted to the engine's /api/test, which renders it with the
 * alarm's template and delivers it to the user. Nothing is matched or stored by the engine. The same sample
 * gives template previews: the engine's template editor API renders it without delivering anything.
 */

type Row = Record<string, unknown>

/** Where to put the sample when the user has no location: the engine's scheduler treats 0,0 as unset too. */
const FALLBACK_PLACE = { latitude: 40.758, longitude: -73.9855 }
const ANY = 9000

const num = (value: unknown, fallback: number): number => {
  const n = typeof value === 'string' ? Number(value) : value
  return typeof n === 'number' && Number.isFinite(n) ? n : fallback
}
const clamp = (value: number, low: number, high: number) => Math.min(Math.max(value, low), high)
/** "Any team" (4) shows as Mystic. */
const team = (alarm: Row) => { const t = num(alarm.team, 4); return t >= 0 && t <= 3 ? t : 1 }

/** The highest IV spread inside the alarm's per-stat and percentage bounds. */
function ivs (alarm: Row): [number, number, number] {
  const low = [num(alarm.atk, 0), num(alarm.def, 0), num(alarm.sta, 0)] as const
  const high = [num(alarm.max_atk, 15), num(alarm.max_def, 15), num(alarm.max_sta, 15)] as const
  const minIv = Math.max(num(alarm.min_iv, -1), 0)
  const maxIv = num(alarm.max_iv, 100)
  for (let a = high[0]; a >= low[0]; a--) {
    for (let d = high[1]; d >= low[1]; d--) {
      for (let s = high[2]; s >= low[2]; s--) {
        const percent = ((a + d + s) / 45) * 100
        if (percent >= minIv && percent <= maxIv) return [a, d, s]
      }
    }
  }
  return [high[0], high[1], high[2]]
}

function pokemon (alarm: Row, place: Row, now: number): Row {
  const [atk, def, sta] = ivs(alarm)
  const size = num(alarm.size, -1)
  return {
    ...place,
    encounter_id: `test-${String(alarm.uid)}-${now}`,
    spawnpoint_id: 'test',
    pokemon_id: num(alarm.pokemon_id, 0) || 25,
    form: num(alarm.form, 0),
    individual_attack: atk,
    individual_defense: def,
    individual_stamina: sta,
    cp: clamp(1500, num(alarm.min_cp, 0), num(alarm.max_cp, 9000)),
    pokemon_level: clamp(30, num(alarm.min_level, 0), num(alarm.max_level, 55)),
    weight: clamp(10, num(alarm.min_weight, 0), num(alarm.max_weight, 9000000)),
    height: 1,
    gender: num(alarm.gender, 0) || 1,
    size: size >= 1 ? size : 3,
    move_1: 214,
    move_2: 90,
    weather: 0,
    costume: 0,
    first_seen: now,
    disappear_time: now + Math.max(num(alarm.min_time, 0), 0) + 900,
    disappear_time_verified: true,
    verified: true
  }
}

function gym (alarm: Row, place: Row): Row {
  const gymId = typeof alarm.gym_id === 'string' ? alarm.gym_id : 'test-gym'
  return { ...place, gym_id: gymId, gym_name: 'Test Gym', team_id: team(alarm), ex_raid_eligible: false, is_exclusive: num(alarm.exclusive, 0) === 1 }
}

function raidLevel (alarm: Row): number {
  const level = num(alarm.level, 5)
  return level >= 1 && level <= 15 ? level : 5
}

function raid (alarm: Row, place: Row, now: number): Row {
  const pokemonId = num(alarm.pokemon_id, ANY)
  const move = num(alarm.move, ANY)
  const evolution = num(alarm.evolution, ANY)
  return {
    ...gym(alarm, place),
    level: raidLevel(alarm),
    pokemon_id: pokemonId === ANY ? 150 : pokemonId,
    form: num(alarm.form, 0),
    move_1: move === ANY ? 214 : move,
    move_2: 90,
    cp: 40000,
    gender: 0,
    evolution: evolution === ANY ? 0 : evolution,
    spawn: now - 3600,
    start: now - 60,
    end: now + 2700
  }
}

function egg (alarm: Row, place: Row, now: number): Row {
  return { ...gym(alarm, place), level: raidLevel(alarm), pokemon_id: 0, spawn: now, start: now + 1800, end: now + 4500 }
}

function questReward (alarm: Row): Row {
  const reward = num(alarm.reward, 0)
  const amount = num(alarm.amount, 0)
  switch (num(alarm.reward_type, 2)) {
    case 3: return { type: 3, info: { amount: Math.max(reward, amount, 500) } }
    case 4: return { type: 4, info: { pokemon_id: reward || 1, amount: amount || 3 } }
    case 7: return { type: 7, info: { pokemon_id: reward || 25, form_id: num(alarm.form, 0), shiny: num(alarm.shiny, 0) === 1 } }
    case 12: return { type: 12, info: { pokemon_id: reward || 3, amount: amount || 10 } }
    default: return { type: 2, info: { item_id: reward || 1, amount: amount || 1 } }
  }
}

const stop = (place: Row, now: number) => ({ ...place, pokestop_id: 'test-stop', pokestop_name: 'Test Stop', name: 'Test Stop', url: '', updated: now })

function quest (alarm: Row, place: Row, now: number): Row {
  return { ...stop(place, now), type: 4, target: 3, template: 'challenge_catch_easy', title: 'quest_catch_pokemon_plural', conditions: [], rewards: [questReward(alarm)], with_ar: false }
}

/** The grunt id of the alarm's grunt type and gender, from the engine's own grunt list (4 when it has none). */
function gruntId (grunts: Record<string, unknown>, alarm: Row): number {
  const wanted = String(alarm.grunt_type ?? '').toLowerCase()
  const gender = num(alarm.gender, 0)
  const entries = Object.entries(grunts).map(([id, g]) => ({ id: Number(id), g: g as Row }))
  const hit = entries.find(({ g }) => String(g.type).toLowerCase() === wanted && (gender === 0 || num(g.gender, 0) === gender)) ??
    entries.find(({ g }) => String(g.type).toLowerCase() === wanted || String(g.grunt).toLowerCase() === wanted)
  return hit !== undefined && Number.isInteger(hit.id) ? hit.id : 4
}

function invasion (grunts: Record<string, unknown>, alarm: Row, place: Row, now: number): Row {
  const id = gruntId(grunts, alarm)
  return {
    ...stop(place, now),
    grunt_type: id,
    incident_grunt_type: id,
    character: id,
    display_type: 1,
    incident_display_type: 1,
    start: now,
    incident_expiration: now + 1800,
    incident_expire_timestamp: now + 1800
  }
}

function lure (alarm: Row, place: Row, now: number): Row {
  return { ...stop(place, now), lure_id: num(alarm.lure_id, 0) || 501, lure_expiration: now + 1800 }
}

function gymChange (alarm: Row, place: Row, now: number): Row {
  const info = gym(alarm, place)
  return { ...info, id: info.gym_id, name: info.gym_name, slots_available: 3, in_battle: num(alarm.battle_changes, 0) === 1, last_modified: now, updated: now }
}

/** The DTS template type each alarm type renders with (alarm-engine.md 1.2; fort updates are "fort-update"). */
const TEMPLATE_TYPE: Partial<Record<AlarmType, string>> = {
  pokemon: 'monster', raid: 'raid', egg: 'egg', quest: 'quest', invasion: 'invasion', lure: 'lure', gym: 'gym'
}

export interface TemplatePreview {
  template: string
  platform: 'discord' | 'telegram'
  language: string
  /** The engine's rendered message: Discord `content`/`embed`, Telegram `content`. */
  message: Row
}

/** How long one rendering is reused: the engine's templates change only when an admin edits them. */
const PREVIEW_MS = 60_000

function createTestAlerts (fastify: FastifyInstance) {
  const { engine, featureGates, clock, log } = fastify
  const previews = new TtlCache<string, TemplatePreview>(clock, 500)

  /** The engine's grunt list; without it the sample still renders with a generic grunt. */
  const grunts = () => engine.orFallback(() => engine.masterdata.grunts(), {
    log, message: 'could not read the engine\'s grunt list for a test alert', fallback: {}, anyError: true
  })

  /** A scanner webhook whose values fall inside the alarm's filters, at the member's location. */
  async function sampleWebhook (type: AlarmType, alarm: Row, human: EngineHuman): Promise<{ webhook: Row, place: Row }> {
    const now = Math.floor(clock.now() / 1000)
    const located = num(human.latitude, 0) !== 0 || num(human.longitude, 0) !== 0
    const place = located ? { latitude: num(human.latitude, 0), longitude: num(human.longitude, 0) } : FALLBACK_PLACE
    const webhooks: Partial<Record<AlarmType, () => Row | Promise<Row>>> = {
      pokemon: () => pokemon(alarm, place, now),
      raid: () => raid(alarm, place, now),
      egg: () => egg(alarm, place, now),
      quest: () => quest(alarm, place, now),
      invasion: async () => invasion(await grunts(), alarm, place, now),
      lure: () => lure(alarm, place, now),
      gym: () => gymChange(alarm, place, now)
    }
    const webhook = webhooks[type]
    if (webhook === undefined) {
      throw new EngineError('unsupported', `Test alerts and previews are not available for ${type} alarms.`, { method: 'POST', path: '/api/test' })
    }
    return { webhook: await webhook(), place }
  }

  return {
    /** Has the engine render and deliver a sample alert matching the user's alarm `uid` of `type` (gated like the type). */
    async send (userId: string, type: AlarmType, uid: number): Promise<void> {
      await featureGates.ensure(KIND_OF[type].disableKey)
      const { human, alarms } = await engine.tracking.all(userId)
      const row = alarms[type].find((r) => r.uid === uid)
      if (row === undefined) throw notFound('Alarm not found.')
      const alarm: Row = present(row)
      const { webhook, place } = await sampleWebhook(type, alarm, human)
      const target: Parameters<EngineClient['test']>[0]['target'] = { id: human.id, name: human.name, type: human.type, ...place }
      if (typeof human.language === 'string' && human.language !== '') target.language = human.language
      if (alarm.template !== null && alarm.template !== undefined && alarm.template !== '') target.template = String(alarm.template)
      await engine.test({ type, webhook, target })
    },

    /**
     * How an alert of this alarm body would look to the member: the engine renders `template` (else the
     * body's, else the engine's default) for a sample matching the body, on the member's platform and in
     * their language. Nothing is delivered. Gated like the type.
     */
    async preview (userId: string, type: AlarmType, alarm: Row, template: string | undefined): Promise<TemplatePreview> {
      await featureGates.ensure(KIND_OF[type].disableKey)
      const templateType = TEMPLATE_TYPE[type]
      if (templateType === undefined) throw notSupported(`The alarm engine renders no preview of ${type} alarms.`)
      const human = await engine.humans.one(userId)
      const chosen = template ?? (alarm.template === undefined || alarm.template === null || alarm.template === '' ? undefined : String(alarm.template))
      const name = chosen ?? (await engine.config.poracleWeb()).defaultTemplateName
      const platform = human.type.startsWith('telegram') ? 'telegram' : 'discord'
      const language = typeof human.language === 'string' && human.language !== '' ? human.language : 'en'
      const key = JSON.stringify([type, name, platform, language, alarm, human.latitude, human.longitude])
      return await previews.getOrLoad(key, async () => {
        const { webhook } = await sampleWebhook(type, alarm, human)
        try {
          const message = await engine.dts.render({ webhookType: type, webhook, templateType, template: name, platform, language })
          return { value: { template: name, platform, language, message }, ttlMs: PREVIEW_MS }
        } catch (err) {
          if (err instanceof EngineError && err.kind === 'not_found') throw notFound(`The alarm engine has no template "${name}" for ${type} alerts on ${platform}.`)
          throw err
        }
      })
    }
  }
}

export type TestAlerts = ReturnType<typeof createTestAlerts>

declare module 'fastify' {
  interface FastifyInstance {
    testAlerts: TestAlerts
  }
}

export default decoratorPlugin('test-alerts', createTestAlerts, ['engine', 'feature-gates', 'clock'])

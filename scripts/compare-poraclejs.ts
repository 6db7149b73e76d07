/**
 * A local check, never run in CI: does the service's matcher (lib/alarm-match.ts, lib/alarm-explain.ts,
 * behind POST /api/alarm-explanations) count the same alerts as a real PoracleJS?
 *
 * Needs a PoracleJS set up by hand outside the repository (docs/explanations.md), its console log written
 * to a file, and a database of its own (it deletes and re-creates its own `cmp-*` members).
 * It seeds members (enabled, paused, admin-disabled, blocked kinds, a second active profile) and alarms of
 * six kinds straight into the engine's tables, starts the service in process pointed at that engine and
 * database, asks the service (the admin route, audited in a service database `<database>_service`) for
 * every member's explanation of each generated scanner event, then sends the same events to the engine
 * (POST /, one unique id each). The engine's "… and N humans cared." line
 * counts, among enabled members in their current profile, the matching `monsters` rows of a pokemon but
 * the matching members of every other kind (its raid, egg, quest, invasion and lure controllers keep one
 * row per member); the service's figure counts the same from the alarms its explanations say match in
 * the active profile of the members it says are alerted.
 *
 *   npm run compare:poraclejs -- --engine http://127.0.0.1:3031 --secret <apiSecret> \
 *     --database <engine database> --log <engine console log> [--events 450] [--seed 1]
 *
 * Prints the events sent per type, the agreements and each disagreement with both answers; exits 1 on
 * any disagreement.
 */
import { parseArgs } from 'node:util'
import { randomBytes } from 'node:crypto'
import { readFile, stat } from 'node:fs/promises'
import mariadb, { type Connection } from 'mariadb'
import { buildApp } from '../app.js'
import { loadConfig } from '../plugins/base/config.js'
import { ALARM_DEFAULTS, ALARM_TABLES, insertHuman, insertProfile, type EngineAlarmType } from '../test/fakes/engine-db.js'

const { values: args } = parseArgs({
  options: {
    engine: { type: 'string', default: 'http://127.0.0.1:3031' },
    secret: { type: 'string', default: '' },
    database: { type: 'string' },
    log: { type: 'string' },
    events: { type: 'string', default: '450' },
    seed: { type: 'string', default: '1' },
    'db-host': { type: 'string', default: '127.0.0.1' },
    'db-port': { type: 'string', default: '3306' },
    'db-user': { type: 'string', default: 'root' },
    'db-password': { type: 'string', default: '' }
  }
})
if (args.database === undefined || args.log === undefined) {
  console.error('usage: npm run compare:poraclejs -- --engine <url> --secret <apiSecret> --database <engine db> --log <engine console log>')
  process.exit(2)
}
const DB = { host: args['db-host'], port: Number(args['db-port']), user: args['db-user'], password: args['db-password'] }
const ENGINE_DB = args.database
const SERVICE_DB = `${ENGINE_DB}_service`
const ADMIN = 'cmp-admin'

/** A deterministic generator, so runs compare. */
function random (seed: number): () => number {
  let s = seed
  return () => { s = (s * 1_103_515_245 + 12_345) % 2 ** 31; return s / 2 ** 31 }
}
const rnd = random(Number(args.seed))
const pick = <T>(list: readonly T[]): T => list[Math.floor(rnd() * list.length)] as T
const between = (lo: number, hi: number) => lo + Math.floor(rnd() * (hi - lo + 1))

// Two fences in the engine's geofence file: Centre 51.50–51.52, North 51.52–51.54, both −0.14…−0.10.
const PLACES = {
  centre: [51.51, -0.12],
  north: [51.53, -0.12],
  outside: [51.49, -0.12]
} as const
const PLACE_NAMES = Object.keys(PLACES) as Array<keyof typeof PLACES>

type Row = Record<string, unknown>
interface Member {
  id: string
  enabled?: boolean
  adminDisable?: boolean
  blocked?: string[]
  area: string[]
  place: readonly [number, number]
  currentProfileNo?: number
  profiles?: Array<{ profileNo: number, name: string, area: string[], place: readonly [number, number] }>
  alarms: Array<[EngineAlarmType, Row]>
}

const EVERYDAY: Member['alarms'] = [
  ['pokemon', { pokemon_id: 0, min_iv: 90 }],
  ['pokemon', { pokemon_id: 25, distance: 3000 }],
  ['pokemon', { pokemon_id: 133, min_cp: 1000, max_cp: 2000 }],
  ['pokemon', { pokemon_id: 0, min_level: 30, min_iv: 0 }],
  ['pokemon', { pokemon_id: 1, gender: 1 }],
  ['pokemon', { pokemon_id: 0, size: 5, max_size: 5 }],
  ['pokemon', { pokemon_id: 0, atk: 15, def: 15, sta: 14 }],
  ['raid', { level: 5 }],
  ['raid', { pokemon_id: 150 }],
  ['egg', { level: 5 }],
  ['quest', { reward_type: 3, reward: 1000 }],
  ['quest', { reward_type: 2, reward: 1 }],
  ['quest', { reward_type: 7, reward: 25 }],
  ['invasion', { grunt_type: 'mixed' }],
  ['invasion', { grunt_type: 'fire', gender: 1 }],
  ['lure', { lure_id: 501 }],
  ['lure', { lure_id: 0, distance: 1500 }]
]

const MEMBERS: Member[] = [
  { id: 'cmp-everyday', area: ['centre'], place: PLACES.centre, alarms: EVERYDAY },
  { id: 'cmp-paused', enabled: false, area: ['centre'], place: PLACES.centre, alarms: EVERYDAY },
  { id: 'cmp-disabled', adminDisable: true, area: ['centre', 'north'], place: PLACES.centre, alarms: [['pokemon', { pokemon_id: 0 }], ['raid', { level: 9000 }]] },
  { id: 'cmp-blocked', blocked: ['monster', 'egg'], area: ['centre'], place: PLACES.centre, alarms: [['pokemon', { pokemon_id: 0 }], ['raid', { level: 5 }], ['egg', { level: 5 }], ['lure', { lure_id: 0 }]] },
  {
    id: 'cmp-work',
    area: ['north'],
    place: PLACES.north,
    currentProfileNo: 2,
    profiles: [{ profileNo: 1, name: 'Home', area: ['centre'], place: PLACES.centre }],
    alarms: [
      ['pokemon', { pokemon_id: 0, min_iv: 0, profile_no: 1 }],
      ['raid', { level: 9000, profile_no: 1 }],
      ['pokemon', { pokemon_id: 0, min_iv: 80, profile_no: 2 }],
      ['pokemon', { pokemon_id: 0, min_iv: -1, max_iv: 100, distance: 1200, profile_no: 2 }],
      ['raid', { level: 9000, team: 2, profile_no: 2 }],
      ['egg', { level: 9000, profile_no: 2 }],
      ['quest', { reward_type: 3, reward: 0, profile_no: 2 }],
      ['lure', { lure_id: 0, profile_no: 2 }],
      ['invasion', { grunt_type: 'everything', profile_no: 2 }]
    ]
  },
  {
    id: 'cmp-north',
    area: ['north'],
    place: PLACES.north,
    alarms: [
      ['pokemon', { pokemon_id: 0, min_weight: 30000, max_weight: 9000000 }],
      ['pokemon', { pokemon_id: 0, max_iv: 10 }],
      ['pokemon', { pokemon_id: 16, min_iv: -1, max_iv: 100, distance: 2500 }],
      ['pokemon', { pokemon_id: 0, min_level: 20, max_level: 25, gender: 2 }],
      ['raid', { level: 3, exclusive: 1 }],
      ['raid', { pokemon_id: 9000, level: 9000, team: 1 }],
      ['egg', { level: 1 }],
      ['quest', { reward_type: 7, reward: 0, distance: 2500 }],
      ['invasion', { grunt_type: 'water', gender: 2 }],
      ['lure', { lure_id: 502 }],
      ['pokemon', { pokemon_id: 16, max_cp: 500 }],
      ['pokemon', { pokemon_id: 0, max_level: 10, min_iv: 50 }],
      ['raid', { pokemon_id: 144, move: 1 }],
      ['egg', { level: 90, team: 2 }],
      ['quest', { reward_type: 2, reward: 2, amount: 3 }],
      ['quest', { reward_type: 3, reward: 1500, distance: 800 }],
      ['invasion', { grunt_type: 'mixed', gender: 2 }]
    ]
  },
  { id: 'cmp-nowhere', area: [], place: [0, 0], alarms: [['pokemon', { pokemon_id: 0 }], ['pokemon', { pokemon_id: 0, distance: 500 }], ['raid', { level: 5 }]] }
]

/** The engine's columns of each table: the shared defaults name a few columns a PoracleJS schema does not have. */
async function columnsOf (db: Connection): Promise<Map<string, Set<string>>> {
  const rows = await db.query('SELECT table_name AS t, column_name AS c FROM information_schema.columns WHERE table_schema = DATABASE()') as Array<{ t: string, c: string }>
  const map = new Map<string, Set<string>>()
  for (const { t, c } of rows) map.set(t, (map.get(t) ?? new Set()).add(c))
  return map
}

async function seed (db: Connection): Promise<number> {
  const columns = await columnsOf(db)
  const ids = MEMBERS.map((m) => m.id)
  for (const table of [...new Set(Object.values(ALARM_TABLES)), 'profiles', 'humans']) {
    if (columns.has(table)) await db.query(`DELETE FROM \`${table}\` WHERE id IN (?)`, [ids])
  }
  let rows = 0
  for (const m of MEMBERS) {
    await insertHuman(db, { id: m.id, area: m.area, latitude: m.place[0], longitude: m.place[1], enabled: m.enabled !== false, adminDisable: m.adminDisable === true, currentProfileNo: m.currentProfileNo ?? 1, profileName: m.currentProfileNo === undefined ? 'Default' : null })
    if (m.blocked !== undefined) await db.query('UPDATE humans SET blocked_alerts = ? WHERE id = ?', [JSON.stringify(m.blocked), m.id])
    if (m.currentProfileNo !== undefined) await insertProfile(db, { id: m.id, profileNo: m.currentProfileNo, name: 'Work', area: m.area, latitude: m.place[0], longitude: m.place[1] })
    for (const p of m.profiles ?? []) await insertProfile(db, { id: m.id, profileNo: p.profileNo, name: p.name, area: p.area, latitude: p.place[0], longitude: p.place[1] })
    for (const [type, alarm] of m.alarms) {
      const table = ALARM_TABLES[type]
      const known = columns.get(table) ?? new Set()
      const row: Row = { id: m.id, ping: '', template: '1', profile_no: m.currentProfileNo ?? 1, ...ALARM_DEFAULTS[type], ...alarm }
      const names = Object.keys(row).filter((c) => known.has(c))
      await db.query(`INSERT INTO \`${table}\` (${names.map((c) => `\`${c}\``).join(', ')}) VALUES (${names.map(() => '?').join(', ')})`, names.map((c) => row[c]))
      rows++
    }
  }
  return rows
}

interface ScannerEvent { kind: string, ref: string, webhook: { type: string, message: Row }, explain: { type: string, message: Row } }

function place (): Row {
  const [lat, lon] = PLACES[pick(PLACE_NAMES)]
  // Up to ~1.4 km either way: distance alarms of 1.2–3 km are decided both ways.
  return { latitude: lat + (rnd() - 0.5) * 0.02, longitude: lon + (rnd() - 0.5) * 0.03 }
}

function generate (count: number, runId: string, nowS: number): ScannerEvent[] {
  const events: ScannerEvent[] = []
  const kinds = ['pokemon', 'pokemon', 'pokemon', 'pokemon', 'raid', 'egg', 'quest', 'invasion', 'lure'] as const
  for (let i = 0; i < count; i++) {
    const kind = kinds[i % kinds.length] as (typeof kinds)[number]
    const ref = `${runId}${String(i).padStart(5, '0')}`
    const where = place()
    let webhook: ScannerEvent['webhook']
    if (kind === 'pokemon') {
      const encountered = rnd() < 0.8
      const high = rnd() < 0.4
      const iv = () => (high ? between(12, 15) : between(0, 15))
      const message: Row = {
        encounter_id: ref,
        spawnpoint_id: 'abc',
        pokemon_id: pick([1, 16, 25, 133, 147, 150]),
        form: 0,
        costume: 0,
        ...where,
        disappear_time: nowS + 1800,
        disappear_time_verified: true,
        gender: between(1, 2),
        weather: 0,
        size: between(1, 5)
      }
      if (encountered) {
        Object.assign(message, {
          individual_attack: iv(),
          individual_defense: iv(),
          individual_stamina: iv(),
          cp: between(10, 3000),
          pokemon_level: between(1, 35),
          weight: Math.round(rnd() * 8000) / 100,
          height: Math.round(rnd() * 300) / 100,
          move_1: 214,
          move_2: 79
        })
      }
      webhook = { type: 'pokemon', message }
    } else if (kind === 'raid' || kind === 'egg') {
      const level = pick([1, 3, 5, 6])
      webhook = {
        type: 'raid',
        message: {
          gym_id: ref,
          gym_name: `Gym ${ref}`,
          ...where,
          level,
          pokemon_id: kind === 'egg' ? 0 : pick([150, 144, 25, 382]),
          form: 0,
          team_id: between(0, 3),
          ex_raid_eligible: rnd() < 0.3,
          start: kind === 'egg' ? nowS + 1200 : nowS - 60,
          end: kind === 'egg' ? nowS + 3900 : nowS + 2400,
          spawn: nowS - 3600,
          move_1: kind === 'egg' ? 0 : 1,
          move_2: kind === 'egg' ? 0 : 2,
          evolution: 0,
          cp: kind === 'egg' ? 0 : 40000
        }
      }
    } else if (kind === 'quest') {
      const reward = pick([
        { type: 3, info: { amount: pick([500, 1000, 1500]) } },
        { type: 2, info: { item_id: pick([1, 2, 701]), amount: pick([1, 3, 5]) } },
        { type: 7, info: { pokemon_id: pick([25, 133, 1]), form_id: 0, shiny: false } }
      ])
      webhook = { type: 'quest', message: { pokestop_id: ref, pokestop_name: `Stop ${ref}`, ...where, type: 4, target: 3, title: 'quest_catch_pokemon_plural', template: 'challenge_catch_easy', conditions: [], rewards: [reward], updated: nowS } }
    } else if (kind === 'invasion') {
      webhook = { type: 'invasion', message: { pokestop_id: ref, name: `Stop ${ref}`, ...where, incident_expire_timestamp: nowS + 1500, incident_grunt_type: pick([4, 5, 18, 19, 38, 39, 6]), display_type: 1, incident_display_type: 1 } }
    } else {
      webhook = { type: 'pokestop', message: { pokestop_id: ref, name: `Stop ${ref}`, ...where, lure_expiration: nowS + 1500, lure_id: pick([501, 502, 503, 504]) } }
    }
    const explainType = webhook.type === 'pokestop' ? 'lure' : webhook.type
    events.push({ kind, ref, webhook, explain: { type: explainType, message: webhook.message } })
  }
  return events
}

/** The field the engine names an event by in its log lines (and keeps in its duplicate cache). */
const ID_FIELD: Record<string, string> = { pokemon: 'encounter_id', raid: 'gym_id', quest: 'pokestop_id', invasion: 'pokestop_id', pokestop: 'pokestop_id' }

/** The engine's answer per event: N of its "… and N humans cared." line, by the line's leading reference. */
async function engineAnswers (logPath: string, from: number, refs: Set<string>, waitMs: number): Promise<Map<string, number>> {
  const found = new Map<string, number>()
  const deadline = Date.now() + waitMs
  for (;;) {
    // eslint-disable-next-line no-control-regex
    const text = (await readFile(logPath, 'utf8')).slice(from).replace(/\u001b\[[0-9;]*m/g, '')
    for (const line of text.split('\n')) {
      const m = /^\s*\w+: (\S+): .* and (\d+) humans cared\./.exec(line)
      if (m !== null && refs.has(m[1] as string)) found.set(m[1] as string, Number(m[2]))
    }
    if (found.size === refs.size || Date.now() > deadline) return found
    await new Promise((resolve) => setTimeout(resolve, 500))
  }
}

async function main (): Promise<void> {
  const engineDb = await mariadb.createConnection({ ...DB, database: ENGINE_DB, bigIntAsNumber: true, insertIdAsNumber: true })
  const alarmRows = await seed(engineDb)
  await engineDb.end()

  const config = loadConfig({
    NODE_ENV: 'production',
    LOG_LEVEL: 'warn',
    JWT_SECRET: randomBytes(48).toString('base64'),
    CORS_ORIGIN: 'https://alarms.example.org',
    WEB_DB_HOST: DB.host,
    WEB_DB_PORT: String(DB.port),
    WEB_DB_USER: DB.user,
    WEB_DB_PASSWORD: DB.password,
    WEB_DB_NAME: SERVICE_DB,
    DB_HOST: DB.host,
    DB_PORT: String(DB.port),
    DB_USER: DB.user,
    DB_PASSWORD: DB.password,
    DB_NAME: ENGINE_DB,
    PORACLE_API_ADDRESS: args.engine,
    PORACLE_API_SECRET: args.secret,
    PORACLE_ADMIN_IDS: ADMIN
  })
  const app = await buildApp({ config: { ...config, EXPLAIN_RATE_MAX: 1_000_000 }, logger: false })
  await app.ready()
  // The admin's question about each member (an admin-disabled member may not ask for themself).
  const admin = { authorization: `Bearer ${app.auth.mint({ username: ADMIN, userId: ADMIN, type: 'discord:user', isAdmin: true, enabled: true, profileNo: 1 }, 120).token}` }

  const nowS = Math.floor(Date.now() / 1000)
  const runId = `${nowS.toString(36)}${randomBytes(2).toString('hex')}`
  const events = generate(Number(args.events), runId, nowS)
  const logStart = (await stat(args.log as string)).size

  // The service's answers first (the explanations read the engine's tables, which the events do not change).
  const service = new Map<string, { n: number, per: string[] }>()
  for (const e of events) {
    let n = 0
    const per: string[] = []
    for (const m of MEMBERS) {
      const ask = { method: 'POST' as const, url: `/api/admin/users/${m.id}/alarm-explanations`, headers: admin, payload: { event: e.explain } }
      let res = await app.inject(ask)
      // A busy shared database makes the engine fail a read now and then: a few tries before giving up.
      for (let tries = 1; res.statusCode >= 500 && tries < 30; tries++) {
        await new Promise((resolve) => setTimeout(resolve, 2000))
        res = await app.inject(ask)
      }
      if (res.statusCode !== 200) throw new Error(`explanation of ${e.ref} for ${m.id}: ${res.statusCode} ${res.body}`)
      const body = res.json() as { alerted: boolean, alarms: Array<{ uid: number, active: boolean, matches: boolean }> }
      const matching = body.alerted ? body.alarms.filter((a) => a.active && a.matches) : []
      // PoracleJS keeps every matching monsters row, but one row per member for the other kinds.
      n += e.kind === 'pokemon' ? matching.length : Math.min(matching.length, 1)
      if (matching.length > 0) per.push(`${m.id}: ${matching.map((a) => a.uid).join(',')}`)
    }
    service.set(e.ref, { n, per })
  }

  // A database shared with other work can refuse the engine a connection: an event it failed on goes
  // again under a fresh id (its duplicate cache would drop the same one) until every event has its line.
  const engine = new Map<string, number>()
  for (let round = 0; round < 6 && engine.size < events.length; round++) {
    const pending = events.filter((e) => !engine.has(e.ref)).map((e) => ({ e, id: round === 0 ? e.ref : `${e.ref}r${round}` }))
    for (let i = 0; i < pending.length; i += 20) {
      const batch = pending.slice(i, i + 20).map(({ e, id }) => ({ type: e.webhook.type, message: { ...e.webhook.message, [ID_FIELD[e.webhook.type] as string]: id } }))
      const res = await fetch(new URL('/', args.engine), { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(batch) })
      if (!res.ok) throw new Error(`engine: POST / answered ${res.status}`)
    }
    const lines = await engineAnswers(args.log as string, logStart, new Set(pending.map((p) => p.id)), 30_000)
    for (const { e, id } of pending) if (lines.has(id)) engine.set(e.ref, lines.get(id) as number)
  }
  await app.close()

  const perKind = new Map<string, { sent: number, alerted: number, agree: number, disagree: number, unanswered: number }>()
  const disagreements: string[] = []
  for (const e of events) {
    const k = perKind.get(e.kind) ?? { sent: 0, alerted: 0, agree: 0, disagree: 0, unanswered: 0 }
    perKind.set(e.kind, k)
    k.sent++
    const ours = service.get(e.ref) as { n: number, per: string[] }
    const theirs = engine.get(e.ref)
    if (theirs === undefined) { k.unanswered++; disagreements.push(`${e.kind} ${e.ref}: engine logged no "humans cared" line; service ${ours.n} [${ours.per.join('; ')}]\n    ${JSON.stringify(e.webhook.message)}`); continue }
    if (theirs > 0) k.alerted++
    if (theirs === ours.n) { k.agree++; continue }
    k.disagree++
    disagreements.push(`${e.kind} ${e.ref}: engine ${theirs}, service ${ours.n} [${ours.per.join('; ')}]\n    ${JSON.stringify(e.webhook.message)}`)
  }
  console.log(`${MEMBERS.length} members, ${alarmRows} alarm rows seeded into ${ENGINE_DB}; ${events.length} events sent to ${args.engine}`)
  for (const [kind, k] of perKind) console.log(`  ${kind.padEnd(9)} sent ${k.sent} (engine N > 0: ${k.alerted})  agree ${k.agree}  disagree ${k.disagree}  no engine line ${k.unanswered}`)
  const total = [...perKind.values()].reduce((s, k) => ({ agree: s.agree + k.agree, other: s.other + k.disagree + k.unanswered }), { agree: 0, other: 0 })
  console.log(`agreements ${total.agree}, disagreements ${total.other}`)
  for (const d of disagreements) console.log(`  ${d}`)
  process.exitCode = total.other === 0 ? 0 : 1
}

await main()

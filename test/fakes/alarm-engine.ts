import { createHash } from 'node:crypto'
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import mariadb from 'mariadb'
import { ALARM_DEFAULTS, ALARM_TABLES, PROFILE_TABLES, type EngineAlarmType } from './engine-db.js'

/**
 * A stand-in for the alarm engine: a real HTTP server on 127.0.0.1 that answers like PoracleNG 5.x
 * (`mode: 'ng'`) or PoracleJS 4.8 (`mode: 'js'`), following alarm-engine.md sections 1 and 5 including
 * their quirks. All user, profile, alarm and schedule state lives in the engine tables of the given
 * database (see engine-db.ts), so rows the service writes with SQL and rows written through this API
 * are the same rows. Configuration, geofences and delegated-admin answers are settable in memory.
 */

export type EngineGeneration = 'ng' | 'js'

export interface RecordedRequest {
  method: string
  /** The path as it arrived, still percent-encoded, without the query string. */
  path: string
  /** Percent-decoded path parameters of the matched route (empty when no route matched). */
  params: Record<string, string>
  query: Record<string, string>
  headers: IncomingHttpHeaders
  /** Parsed JSON, the raw text when it is not JSON, undefined when empty. */
  body: unknown
}

/** A geofence in Poracle format (path entries are [lat, lon]). */
export interface FakeFence {
  name: string
  id?: number
  color?: string
  group?: string
  description?: string
  path?: Array<[number, number]>
  multipath?: Array<Array<[number, number]>>
  userSelectable?: boolean
  displayInMatches?: boolean
}

export interface FakeEngineSettings {
  locale: string
  /** NG's `?locale=` of /api/masterdata/monsters: species names by locale, over the English sample (none by default). */
  monsterNames: Record<string, Record<number, string>>
  /** null: the generation's own version ("5.1.0" or "4.8.3"). */
  version: string | null
  admins: { discord: string[], telegram: string[] }
  disabledHooks: string[]
  /** null: the generation's default (JS the number 1, NG the string "1"). NG always answers a string. */
  defaultTemplateName: number | string | null
  maxDistance: number
  defaultDistance: number
  everythingFlagPermissions: string
  gymBattles: boolean
  /** `values.tracking.quest_summary_enabled` of NG's /api/config/values. */
  questSummaryEnabled: boolean
  /** `values.general.disable_fort_update` of NG's /api/config/values. */
  disableFortUpdate: boolean
  /** false: the summary routes answer 503, as NG does when its schedule store was not constructed. */
  summaryFeature: boolean
  /** Area security: humans with an `area_restriction` may only choose and stand in those fences. */
  areaSecurity: boolean
  /** Whether a static-map provider is configured (the geofence map routes). */
  staticMaps: boolean
  /**
   * What the tileserver behind the map routes answers for a rendered map (`GET /staticmap/<name>.png`,
   * the address the map routes name; no secret, as tileservercache serves it): the image, whether its
   * length is declared (a streamed answer declares none), and how long it waits before answering.
   */
  mapImage: { bytes: Buffer, contentType: string, declareLength: boolean, delayMs: number }
  /** The geocoder (Nominatim) base URL the engine's config names; '' as the engines ship it. */
  providerURL: string
  fences: FakeFence[]
  /** A Koji-style feed (`{ data: fences }`) downloaded on geofence reload, as the engines do with URL paths. */
  geofenceUrl: string | null
  /** The engines download URL fences only when a bearer token is configured. */
  geofenceBearerToken: string
}

export interface FailureOptions {
  /** HTTP status to answer (default 500). */
  status?: number
  /** Raw body to answer (default an NG-style error object); use any text to send garbage. */
  body?: string
  contentType?: string
  /** Destroy the connection without answering (the engine went away mid-request). */
  drop?: boolean
  /** Only requests whose raw path matches (default: every request). */
  path?: string | RegExp
  /** Fail only this many matching requests, then answer normally again. */
  times?: number
}

export interface AlarmEngineFakeOptions {
  /** The database holding the engine tables (created with `createEngineSchema`). */
  database: string
  /** The shared secret; '' means NG's open API and JS's disabled API. */
  secret: string
  mode?: EngineGeneration
  host?: string
  port?: number
  user?: string
  password?: string
  settings?: Partial<FakeEngineSettings>
}

export interface AlarmEngineFake {
  readonly url: string
  readonly mode: EngineGeneration
  setMode(mode: EngineGeneration): void
  /** Every request received, in order, before any failure switch applies. */
  readonly requests: RecordedRequest[]
  readonly settings: FakeEngineSettings
  set(patch: Partial<FakeEngineSettings>): void
  setSecret(secret: string): void
  /** What `GET /api/humans/:id/getAdministrationRoles` answers in `admin` for that user (default `{}`). */
  setAdministrationRoles(userId: string, admin: Record<string, unknown>): void
  /** Confirmation messages the engine would have sent to users (a write without `?silent`). */
  readonly messages: Array<{ target: string, text: string }>
  /** Bodies accepted by `POST /api/test`. */
  readonly testAlerts: unknown[]
  /**
   * DTS entries served besides the shipped defaults (`{ id, type, platform, language, template }`), for
   * `/api/dts/templates` and `/api/dts/render`; a test pushes its own.
   */
  readonly dtsTemplates: Array<Record<string, unknown>>
  /** Calls of the state reload routes (`/api/reload`, `/api/tracking/pokemon/refresh`, geofence reload). */
  readonly reloads: string[]
  failWith(options?: FailureOptions): void
  /** Answer every request this many milliseconds late. */
  delay(ms: number): void
  /** Never answer requests from now on (until `reset`). */
  hang(): void
  /** Clears the failure, delay and hang switches and the recorded requests, messages, alerts and reloads. */
  reset(): void
  close(): Promise<void>
}

type Row = Record<string, unknown>

/** A finished answer; handlers return or throw one. */
class Answer {
  constructor (readonly status: number, readonly body: unknown, readonly contentType = 'application/json; charset=utf-8') {}
}

const ok = (extra: Row = {}): Answer => new Answer(200, { status: 'ok', ...extra })

/** A 1×1 PNG: what the fake's tileserver renders for every map. */
export const MAP_PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64')

const ALARM_TYPES = Object.keys(ALARM_TABLES) as EngineAlarmType[]
const NG_ONLY_TYPES: EngineAlarmType[] = ['fort', 'maxbattle']
/** The order of the keys in `/api/tracking/all` answers. */
const JS_ALL_ORDER: EngineAlarmType[] = ['gym', 'raid', 'egg', 'pokemon', 'invasion', 'lure', 'nest', 'quest']
const NG_ALL_ORDER: EngineAlarmType[] = ['pokemon', 'raid', 'egg', 'quest', 'invasion', 'lure', 'nest', 'gym', 'maxbattle', 'fort']
const JS_DESCRIBED: EngineAlarmType[] = ['pokemon', 'raid', 'egg', 'gym']
const MAX_DISTANCE = 40000000
const VALID_LURES = new Set([0, 501, 502, 503, 504, 505, 506])
const VALID_REWARD_TYPES = new Set([2, 3, 4, 7, 12])
const FORT_TYPES = new Set(['pokestop', 'gym', 'everything'])

interface DiffRules {
  /** Fields that must be equal for two rows to be related; null: never compared (always insert). */
  match: string[] | null
  /** A single difference in one of these updates the existing row. */
  updatable: string[]
}

const COMMON_UPDATABLE = ['distance', 'template', 'clean']

/** Match keys and updatable fields (alarm-engine.md 1.3). */
function diffRules (mode: EngineGeneration, type: EngineAlarmType): DiffRules {
  switch (type) {
    case 'pokemon': return { match: mode === 'js' ? ['pokemon_id'] : [], updatable: [...COMMON_UPDATABLE, 'min_iv'] }
    case 'raid': case 'egg': return { match: ['team'], updatable: COMMON_UPDATABLE }
    case 'gym': return { match: ['team'], updatable: mode === 'ng' ? [...COMMON_UPDATABLE, 'slot_changes', 'battle_changes'] : COMMON_UPDATABLE }
    case 'quest': return { match: mode === 'ng' ? ['reward_type', 'reward', 'form'] : ['reward_type', 'reward'], updatable: COMMON_UPDATABLE }
    case 'invasion': return { match: ['grunt_type'], updatable: COMMON_UPDATABLE }
    case 'lure': return { match: ['lure_id'], updatable: COMMON_UPDATABLE }
    // JS filters nests on a field they do not have, so every row is compared.
    case 'nest': return { match: mode === 'ng' ? ['pokemon_id', 'form'] : [], updatable: COMMON_UPDATABLE }
    case 'fort': return { match: ['fort_type'], updatable: ['distance', 'template'] }
    case 'maxbattle': return { match: null, updatable: [] }
  }
}

/** Database values are numbers and strings while request values were coerced: compare as text. */
function same (a: unknown, b: unknown): boolean {
  if (a === undefined || a === null || b === undefined || b === null) return (a ?? null) === (b ?? null)
  return String(a) === String(b)
}

/** Entries as the engine's game data holds them: `evolutions` names the next stage (`evoId`) and its form (`id`). */
const SAMPLE_MONSTERS: Record<string, { id: number, name: string, form: { id: number, name: string }, types: Array<{ id: number, name: string }>, evolutions?: Array<{ evoId: number, id: number }> }> = {
  '1_0': { id: 1, name: 'Bulbasaur', form: { id: 0, name: 'Normal' }, types: [{ id: 12, name: 'Grass' }, { id: 4, name: 'Poison' }], evolutions: [{ evoId: 2, id: 0 }] },
  '2_0': { id: 2, name: 'Ivysaur', form: { id: 0, name: 'Normal' }, types: [{ id: 12, name: 'Grass' }, { id: 4, name: 'Poison' }], evolutions: [{ evoId: 3, id: 0 }] },
  '3_0': { id: 3, name: 'Venusaur', form: { id: 0, name: 'Normal' }, types: [{ id: 12, name: 'Grass' }, { id: 4, name: 'Poison' }] },
  '4_0': { id: 4, name: 'Charmander', form: { id: 0, name: 'Normal' }, types: [{ id: 10, name: 'Fire' }] },
  '7_0': { id: 7, name: 'Squirtle', form: { id: 0, name: 'Normal' }, types: [{ id: 11, name: 'Water' }] },
  '25_0': { id: 25, name: 'Pikachu', form: { id: 0, name: 'Normal' }, types: [{ id: 13, name: 'Electric' }] },
  '129_0': { id: 129, name: 'Magikarp', form: { id: 0, name: 'Normal' }, types: [{ id: 11, name: 'Water' }] },
  '150_0': { id: 150, name: 'Mewtwo', form: { id: 0, name: 'Normal' }, types: [{ id: 14, name: 'Psychic' }] },
  '150_135': { id: 150, name: 'Mewtwo', form: { id: 135, name: 'Armored' }, types: [{ id: 14, name: 'Psychic' }] },
  '201_1': { id: 201, name: 'Unown', form: { id: 1, name: 'A' }, types: [{ id: 14, name: 'Psychic' }] }
}

const SAMPLE_GRUNTS: Record<string, { type: string, gender: number, grunt: string }> = {
  1: { type: 'Mixed', gender: 0, grunt: 'Blanche' },
  4: { type: 'Mixed', gender: 2, grunt: 'Grunt' },
  6: { type: 'Bug', gender: 1, grunt: 'Grunt' },
  18: { type: 'Fire', gender: 2, grunt: 'Grunt' },
  41: { type: 'Metal', gender: 0, grunt: 'Cliff' },
  42: { type: 'Metal', gender: 0, grunt: 'Arlo' },
  43: { type: 'Metal', gender: 0, grunt: 'Sierra' },
  44: { type: 'Metal', gender: 0, grunt: 'Giovanni' },
  49: { type: 'Water', gender: 2, grunt: 'Grunt' }
}

function monsterName (id: unknown, form: unknown = 0): string {
  if (Number(id) === 0) return 'Everything'
  const entry = SAMPLE_MONSTERS[`${String(id)}_${String(form ?? 0)}`] ?? SAMPLE_MONSTERS[`${String(id)}_0`]
  return entry ? entry.name : `Pokemon #${String(id)}`
}

const TEAMS = ['Neutral', 'Mystic', 'Valor', 'Instinct', 'any team']

/** The human-readable line each engine shows for a tracking row ("rowtext"). */
function describe (type: EngineAlarmType, r: Row): string {
  const distance = Number(r.distance) > 0 ? ` | distance: ${String(r.distance)}m` : ''
  const team = TEAMS[Number(r.team)] ?? 'any team'
  switch (type) {
    case 'pokemon': return `${monsterName(r.pokemon_id, r.form)} | iv: ${String(r.min_iv)}%-${String(r.max_iv)}% | cp: ${String(r.min_cp)}-${String(r.max_cp)} | level: ${String(r.min_level)}-${String(r.max_level)}${distance}`
    case 'raid': return (Number(r.pokemon_id) === 9000 ? `Level ${String(r.level)} raids` : `${monsterName(r.pokemon_id, r.form)} raids`) + ` | ${team}${distance}`
    case 'egg': return `Level ${String(r.level)} eggs | ${team}${distance}`
    case 'quest': return `Quest reward type ${String(r.reward_type)} reward ${String(r.reward)}${distance}`
    case 'invasion': return `Invasion ${String(r.grunt_type)}${distance}`
    case 'lure': return `Lure ${Number(r.lure_id) === 0 ? 'any' : String(r.lure_id)}${distance}`
    case 'nest': return `${monsterName(r.pokemon_id, r.form)} nests | min spawn avg ${String(r.min_spawn_avg)}${distance}`
    case 'gym': return `Gym changes | ${team}${distance}`
    case 'fort': return `Fort changes of ${String(r.fort_type)}${distance}`
    case 'maxbattle': return (Number(r.pokemon_id) === 9000 ? `Level ${String(r.level)} max battles` : `${monsterName(r.pokemon_id, r.form)} max battles`) + distance
  }
}

function pointInPolygon (lat: number, lon: number, polygon: Array<[number, number]>): boolean {
  if (polygon.length < 3) return false
  let inside = false
  for (let i = 0, j = polygon.length - 1; i < polygon.length; j = i++) {
    const [yi, xi] = polygon[i] as [number, number]
    const [yj, xj] = polygon[j] as [number, number]
    if ((yi > lat) !== (yj > lat) && lon < ((xj - xi) * (lat - yi)) / (yj - yi) + xi) inside = !inside
  }
  return inside
}

function fenceContains (fence: FakeFence, lat: number, lon: number): boolean {
  const polygons = fence.multipath ?? (fence.path ? [fence.path] : [])
  return polygons.some((p) => pointInPolygon(lat, lon, p))
}

/** Poracle-format or GeoJSON fences, as both engines accept them in a feed's `data`. */
function parseFences (data: unknown): FakeFence[] {
  if (Array.isArray(data)) return data as FakeFence[]
  const collection = data as { type?: string, features?: Array<{ geometry?: { type?: string, coordinates?: unknown }, properties?: Row }> }
  if (collection?.type !== 'FeatureCollection' || !Array.isArray(collection.features)) throw new Error('unrecognised geofence format')
  return collection.features.map((feature, index) => {
    const props = feature.properties ?? {}
    const swap = (ring: Array<[number, number]>) => ring.map(([lon, lat]) => [lat, lon] as [number, number])
    const coordinates = feature.geometry?.coordinates
    const fence: FakeFence = { ...(props as Partial<FakeFence>), name: String(props.name ?? `city${index}`), id: index }
    if (feature.geometry?.type === 'MultiPolygon') fence.multipath = (coordinates as Array<Array<Array<[number, number]>>>).map((poly) => swap(poly[0] ?? []))
    else fence.path = swap((coordinates as Array<Array<[number, number]>>)[0] ?? [])
    return fence
  })
}

/** A route pattern: literal segments and `:name` parameters, matched against raw path segments. */
interface Route {
  methods: string[]
  segments: string[]
  ngOnly: boolean
  /** JS registers tracking routes per type and has no fort/maxbattle ones. */
  typeParam: boolean
  handler: (ctx: Ctx) => Promise<Answer>
}

interface Ctx {
  params: Record<string, string>
  query: Record<string, string>
  /** The JSON body; NG parses it here (400 on empty or bad JSON), JS already did in the content-type parser. */
  body(): unknown
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

export async function startAlarmEngineFake (options: AlarmEngineFakeOptions): Promise<AlarmEngineFake> {
  let mode: EngineGeneration = options.mode ?? 'ng'
  let secret = options.secret
  const settings: FakeEngineSettings = {
    locale: 'en',
    monsterNames: {},
    version: null,
    admins: { discord: [], telegram: [] },
    disabledHooks: [],
    defaultTemplateName: null,
    maxDistance: 0,
    defaultDistance: 0,
    everythingFlagPermissions: 'allow-any',
    gymBattles: false,
    questSummaryEnabled: true,
    disableFortUpdate: false,
    summaryFeature: true,
    areaSecurity: false,
    staticMaps: false,
    mapImage: { bytes: MAP_PNG, contentType: 'image/png', declareLength: true, delayMs: 0 },
    providerURL: '',
    fences: [],
    geofenceUrl: null,
    geofenceBearerToken: '',
    ...options.settings
  }
  const adminRoles = new Map<string, Record<string, unknown>>()
  const requests: RecordedRequest[] = []
  const messages: Array<{ target: string, text: string }> = []
  const testAlerts: unknown[] = []
  const dtsTemplates: Row[] = []
  const reloads: string[] = []
  let failure: (FailureOptions & { remaining: number }) | null = null
  let delayMs = 0
  let hanging = false
  let geofenceDownloaded = false

  const pool = mariadb.createPool({
    host: options.host ?? '127.0.0.1',
    port: options.port ?? 3306,
    user: options.user ?? 'root',
    password: options.password ?? '',
    database: options.database,
    connectionLimit: 5,
    bigIntAsNumber: true,
    insertIdAsNumber: true,
    dateStrings: true
  })
  const query = <T = Row[]>(sql: string, values: unknown[] = []) => pool.query<T>(sql, values)

  // ---- answers in the generation's own error style -------------------------------------------------

  /** An error the engine reports on purpose: NG with a real status, JS with HTTP 200. */
  const fail = (status: number, message: string) =>
    new Answer(mode === 'ng' ? status : 200, { status: 'error', message })
  /** A rejected row: NG 400; JS throws before its try block, which fastify turns into a 500. */
  const invalid = (message: string) => mode === 'ng'
    ? new Answer(400, { status: 'error', message })
    : new Answer(500, { statusCode: 500, error: 'Internal Server Error', message })
  /** A failed SQL statement: NG 500 "database error"; JS catches it and answers HTTP 200. */
  const dbError = () => mode === 'ng'
    ? new Answer(500, { status: 'error', message: 'database error' })
    : new Answer(200, { status: 'error', message: 'Exception raised during execution' })
  const routeNotFound = (method: string, path: string) => mode === 'ng'
    ? new Answer(404, '404 page not found', 'text/plain')
    : new Answer(404, { message: `Route ${method}:${path} not found`, error: 'Not Found', statusCode: 404 })

  const defaultTemplate = () => String(settings.defaultTemplateName ?? 1)
  const isAdmin = (id: string) => settings.admins.discord.includes(id) || settings.admins.telegram.includes(id)

  // ---- value coercion: NG's flexInt/flexBool, JS's unary plus --------------------------------------

  function int (value: unknown, fallback: number): number {
    if (value === undefined || (mode === 'ng' && value === null)) return fallback
    if (mode === 'js') {
      const n = Number(value)
      // JS writes NaN into the SQL, which fails inside its try block.
      if (Number.isNaN(n)) throw dbError()
      return n
    }
    if (typeof value === 'number') return Math.trunc(value)
    if (typeof value === 'boolean') return value ? 1 : 0
    if (typeof value === 'string' && /^-?\d+(\.\d+)?$/.test(value.trim())) return Math.trunc(Number(value))
    throw invalid('invalid request body')
  }
  const flag = (value: unknown, fallback: number) => (int(value, fallback) !== 0 ? 1 : 0)

  function template (value: unknown): string {
    if (typeof value === 'string' && value !== '') return value
    if (typeof value === 'number') return String(Math.trunc(value))
    return defaultTemplate()
  }

  function fenceByName (name: string): FakeFence | undefined {
    const wanted = name.toLowerCase().replace(/_/g, ' ')
    return settings.fences.find((f) => f.name.toLowerCase() === wanted || f.name.toLowerCase() === name.toLowerCase())
  }

  /** NG 5.1's per-rule override columns: known area names only, stored as JSON text. */
  function overrideFields (raw: Row): Row {
    const areas = raw.override_areas
    let overrideAreas: string | null = null
    if (Array.isArray(areas) && areas.length > 0) {
      const names = areas.map((a) => String(a).toLowerCase().replace(/_/g, ' '))
      const unknown = names.find((n) => !fenceByName(n))
      if (unknown !== undefined) throw invalid(`unknown area: ${unknown}`)
      overrideAreas = JSON.stringify([...new Set(names)])
    } else if (areas !== undefined && areas !== null && !Array.isArray(areas)) {
      throw invalid('invalid request body')
    }
    const label = raw.override_location_label
    // Saved places are not modelled, so no label can name one.
    if (typeof label === 'string' && label !== '') throw invalid(`unknown location label: ${label}`)
    return { override_location_label: null, override_areas: overrideAreas }
  }

  function levels (value: unknown, fallback: number | null, check: (n: number) => boolean, message: string): number[] {
    if (value === undefined || value === null) {
      if (fallback === null) throw invalid(message)
      return [fallback]
    }
    const list = (Array.isArray(value) ? value : [value]).map((v) => int(v, 0))
    if (list.length === 0 || list.some((n) => !check(n))) throw invalid(message)
    return list
  }

  const jsLevel = (n: number) => (n >= 1 && n <= 15) || n === 90
  const jsTeam = (raw: Row) => { const t = int(raw.team, 4); return t >= 0 && t <= 4 ? t : 4 }

  /** The fields of one posted row after defaults and validation (alarm-engine.md 1.4); raid, egg and maxbattle may expand to several rows. */
  function normalize (type: EngineAlarmType, raw: Row, profileNo: number): Row[] {
    const d = ALARM_DEFAULTS[type]
    const base = (fields: string[]) => Object.fromEntries(fields.map((f) => [f, int(raw[f], d[f] as number)]))
    const common = (): Row => ({
      // NG stores `clean` as a bitmask (1 delete, 2 edit, 4 summary); JS as a boolean.
      clean: type === 'fort' ? undefined : mode === 'ng' ? int(raw.clean, 0) : flag(raw.clean, 0),
      distance: Math.min(int(raw.distance, 0), MAX_DISTANCE),
      template: template(raw.template),
      profile_no: profileNo
    })
    const gymId = (value: unknown) => (value === undefined || value === null ? null : String(value))
    let rows: Row[]
    switch (type) {
      case 'pokemon': {
        if (raw.pokemon_id === undefined || raw.pokemon_id === null) throw invalid('Pokemon id must be specified')
        const fields = Object.keys(d).filter((f) => !(mode === 'js' && f === 'pvp_ranking_evolution'))
        const row: Row = { ...base(fields), ...common() }
        if (mode === 'js') {
          const wanted = Number(raw.distance) || settings.defaultDistance || 0
          row.distance = Math.min(wanted, settings.maxDistance || MAX_DISTANCE)
        }
        // Both engines take profile_no from the body at face value for pokemon.
        if (raw.profile_no !== undefined && raw.profile_no !== null) row.profile_no = int(raw.profile_no, profileNo)
        rows = [row]
        break
      }
      case 'raid': {
        const shared = { team: mode === 'js' ? jsTeam(raw) : int(raw.team, 4), exclusive: flag(raw.exclusive, 0), move: int(raw.move, 9000), evolution: int(raw.evolution, 9000), gym_id: gymId(raw.gym_id), rsvp_changes: int(raw.rsvp_changes, 0), ...common() }
        if (mode === 'js') {
          if (raw.clean === undefined) throw dbError()
          // JS reads a level only when pokemon_id is the JSON number 9000.
          const level = raw.pokemon_id === 9000 ? levels(raw.level, null, jsLevel, 'Invalid raid level')[0] as number : 9000
          rows = [{ pokemon_id: int(raw.pokemon_id, 9000), form: int(raw.form, 0), level, ...shared }]
        } else if (Array.isArray(raw.pokemon_form)) {
          rows = (raw.pokemon_form as Row[]).map((pf) => ({ pokemon_id: int(pf.pokemon_id, 9000), form: int(pf.form, 0), level: 9000, ...shared }))
        } else {
          const pokemonId = int(raw.pokemon_id, 9000)
          rows = pokemonId === 9000
            ? levels(raw.level, null, (n) => n >= 1, 'invalid raid level').map((level) => ({ pokemon_id: 9000, form: int(raw.form, 0), level, ...shared }))
            : [{ pokemon_id: pokemonId, form: int(raw.form, 0), level: 9000, ...shared }]
        }
        break
      }
      case 'egg': {
        const shared = { team: mode === 'js' ? jsTeam(raw) : int(raw.team, 4), exclusive: flag(raw.exclusive, 0), gym_id: gymId(raw.gym_id), rsvp_changes: int(raw.rsvp_changes, 0), ...common() }
        const list = mode === 'js'
          ? [levels(raw.level, null, jsLevel, 'Invalid egg level')[0] as number]
          : levels(raw.level, null, (n) => n >= 1, 'invalid egg level')
        rows = list.map((level) => ({ level, ...shared }))
        break
      }
      case 'quest': {
        const rewardType = int(raw.reward_type, 0)
        if (!VALID_REWARD_TYPES.has(rewardType)) throw invalid('Invalid reward_type')
        rows = [{ reward_type: rewardType, reward: int(raw.reward, 0), amount: int(raw.amount, 0), form: int(raw.form, 0), shiny: mode === 'ng' ? flag(raw.shiny, 0) : 0, ...common() }]
        break
      }
      case 'invasion': {
        if (typeof raw.grunt_type !== 'string' || raw.grunt_type.trim() === '') throw invalid('grunt_type is required')
        rows = [{ grunt_type: raw.grunt_type, gender: int(raw.gender, 0), ...common() }]
        break
      }
      case 'lure': {
        if (mode === 'js' && raw.lure_id === undefined) throw invalid('lure_id is required')
        const lureId = int(raw.lure_id, 0)
        if (!VALID_LURES.has(lureId)) throw invalid('Unrecognised lure_id value')
        rows = [{ lure_id: lureId, ...common() }]
        break
      }
      case 'nest': {
        if (mode === 'js' && raw.pokemon_id === undefined) throw dbError()
        rows = [{ ...base(['pokemon_id', 'min_spawn_avg', 'form']), ...common() }]
        break
      }
      case 'gym': {
        const team = raw.team === undefined || raw.team === null ? -1 : int(raw.team, -1)
        if (team < 0 || team > 4) throw invalid('team must be between 0 and 4')
        rows = [{ team, slot_changes: flag(raw.slot_changes, 0), battle_changes: flag(raw.battle_changes, 0), gym_id: gymId(raw.gym_id), ...common() }]
        break
      }
      case 'fort': {
        const fortType = raw.fort_type === undefined || raw.fort_type === null ? 'everything' : String(raw.fort_type)
        if (!FORT_TYPES.has(fortType)) throw invalid('invalid fort_type')
        const changeTypes = Array.isArray(raw.change_types) ? JSON.stringify(raw.change_types) : typeof raw.change_types === 'string' ? raw.change_types : '[]'
        const { clean: _noCleanColumn, ...rest } = common()
        rows = [{ fort_type: fortType, include_empty: flag(raw.include_empty, 0), change_types: changeTypes, ...rest }]
        break
      }
      case 'maxbattle': {
        const pokemonId = int(raw.pokemon_id, 9000)
        const list = pokemonId === 9000 ? levels(raw.level, 9000, (n) => n >= 1, 'invalid max battle level') : [9000]
        rows = list.map((level) => ({ pokemon_id: pokemonId, level, form: int(raw.form, 0), move: int(raw.move, 9000), gmax: flag(raw.gmax, 0), evolution: int(raw.evolution, 9000), station_id: gymId(raw.station_id), ...common() }))
        break
      }
    }
    return mode === 'ng' ? rows.map((r) => ({ ...r, ...overrideFields(raw) })) : rows
  }

  // ---- database helpers -----------------------------------------------------------------------------

  async function getHuman (id: string): Promise<Row | null> {
    const rows = await query('SELECT * FROM humans WHERE id = ?', [id])
    return rows[0] ?? null
  }
  async function requireHuman (id: string): Promise<Row> {
    const human = await getHuman(id)
    if (!human) throw fail(404, 'User not found')
    return human
  }
  async function insertRow (table: string, row: Row): Promise<number> {
    const columns = Object.keys(row)
    const result = await query<{ insertId: number }>(
      `INSERT INTO \`${table}\` (${columns.map((c) => `\`${c}\``).join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`,
      columns.map((c) => row[c])
    )
    return Number(result.insertId)
  }
  async function updateRow (table: string, set: Row, where: string, values: unknown[]): Promise<void> {
    const columns = Object.keys(set)
    await query(`UPDATE \`${table}\` SET ${columns.map((c) => `\`${c}\` = ?`).join(', ')} WHERE ${where}`, [...columns.map((c) => set[c]), ...values])
  }
  const alarmRows = (type: EngineAlarmType, id: string, profileNo: number | null) => profileNo === null
    ? query(`SELECT * FROM \`${ALARM_TABLES[type]}\` WHERE id = ? ORDER BY uid`, [id])
    : query(`SELECT * FROM \`${ALARM_TABLES[type]}\` WHERE id = ? AND profile_no = ? ORDER BY uid`, [id, profileNo])

  /** NG honours `?profile_no=`; everything else reads and writes the human's current profile. */
  function requestProfile (ctx: Ctx, human: Row): number {
    const asked = ctx.query.profile_no
    if (mode === 'ng' && asked !== undefined && /^\d+$/.test(asked)) return Number(asked)
    return Number(human.current_profile_no)
  }
  const isSilent = (ctx: Ctx) => mode === 'ng' && ((ctx.query.silent ?? '') !== '' || (ctx.query.suppressMessage ?? '') !== '')
  const notify = (target: string, text: string) => { if (text !== '') messages.push({ target, text }) }

  function withDescriptions (type: EngineAlarmType, rows: Row[], on: boolean): Row[] {
    return on ? rows.map((r) => ({ ...r, description: describe(type, r) })) : rows
  }

  // ---- tracking -------------------------------------------------------------------------------------

  async function getTracking (type: EngineAlarmType, ctx: Ctx): Promise<Answer> {
    const human = await getHuman(ctx.params.id as string)
    if (!human) {
      // JS reads human.language before its null check for pokemon only.
      if (mode === 'js' && type === 'pokemon') throw new Answer(500, { statusCode: 500, error: 'Internal Server Error', message: "Cannot read properties of null (reading 'language')" })
      throw fail(404, 'User not found')
    }
    const rows = await alarmRows(type, human.id as string, requestProfile(ctx, human))
    return ok({ [type]: withDescriptions(type, rows, mode === 'ng' || JS_DESCRIBED.includes(type)) })
  }

  async function postTracking (type: EngineAlarmType, ctx: Ctx): Promise<Answer> {
    const human = await requireHuman(ctx.params.id as string)
    const body = ctx.body()
    const posted = (Array.isArray(body) ? body : [body]) as unknown[]
    if (posted.some((r) => r === null || typeof r !== 'object' || Array.isArray(r))) throw invalid('invalid request body')
    const profileNo = requestProfile(ctx, human)
    const table = ALARM_TABLES[type]
    const explicit: Row[] = []
    let candidates: Row[] = []
    for (const raw of posted as Row[]) {
      const rows = normalize(type, raw, profileNo)
      // Only pokemon knows `uid`: NG treats any present uid (even 0) as an update, JS only a truthy one.
      const hasUid = type === 'pokemon' && (mode === 'ng' ? raw.uid !== undefined && raw.uid !== null : Boolean(raw.uid))
      if (hasUid) explicit.push(...rows.map((r) => ({ ...r, uid: int(raw.uid, 0) })))
      else candidates.push(...rows)
    }

    const rules = diffRules(mode, type)
    const existing = rules.match === null ? [] : await alarmRows(type, human.id as string, profileNo)
    const alreadyPresent: Row[] = []
    const updates: Row[] = []
    // Same loop as the engines: candidates from last to first, first related existing row wins.
    for (let i = candidates.length - 1; i >= 0; i--) {
      const candidate = candidates[i] as Row
      for (const row of existing) {
        if ((rules.match ?? []).some((f) => !same(row[f], candidate[f]))) continue
        const differing = Object.keys(candidate).filter((f) => f !== 'profile_no' && !same(row[f], candidate[f]))
        if (differing.length === 0) {
          alreadyPresent.push(candidate)
          candidates = candidates.filter((_, j) => j !== i)
          break
        }
        if (differing.length === 1 && rules.updatable.includes(differing[0] as string)) {
          updates.push({ ...candidate, uid: row.uid })
          candidates = candidates.filter((_, j) => j !== i)
          break
        }
      }
    }
    const allUpdates = [...explicit, ...updates]

    const total = alreadyPresent.length + allUpdates.length + candidates.length
    const message = total > 50
      ? 'I have made a lot of changes. See !tracked for details\n'
      : [
          ...alreadyPresent.map((r) => `Unchanged: ${describe(type, r)}\n`),
          ...allUpdates.map((r) => `Updated: ${describe(type, r)}\n`),
          ...candidates.map((r) => `New: ${describe(type, r)}\n`)
        ].join('')

    const newUids: number[] = []
    const id = human.id as string
    try {
      if (type === 'pokemon') {
        for (const row of candidates) newUids.push(await insertRow(table, { id, ping: '', ...row }))
        for (const { uid, ...row } of allUpdates) {
          // NG updates WHERE uid=? without checking the owner; JS also moves the row to the caller.
          await updateRow(table, mode === 'js' ? { ...row, id } : row, 'uid = ?', [uid])
          newUids.push(Number(uid))
        }
      } else if (mode === 'ng') {
        // NG rewrites an updated row as delete + insert, so it gets a new uid.
        if (updates.length > 0) await query(`DELETE FROM \`${table}\` WHERE id = ? AND uid IN (?)`, [id, updates.map((u) => u.uid)])
        for (const { uid: _replaced, ...row } of [...candidates, ...updates]) newUids.push(await insertRow(table, { id, ping: '', ...row }))
      } else {
        // JS deletes and re-inserts an updated row under the same uid.
        for (const row of updates) {
          await query(`DELETE FROM \`${table}\` WHERE id = ? AND uid = ?`, [id, row.uid])
          await insertRow(table, { id, ping: '', ...row })
        }
        for (const row of candidates) await insertRow(table, { id, ping: '', ...row })
      }
    } catch {
      throw dbError()
    }

    if (mode === 'js') {
      notify(id, message)
      return ok({ message })
    }
    const silent = isSilent(ctx)
    if (!silent) notify(id, message)
    return ok({
      message: silent ? '' : message,
      newUids: newUids.length > 0 ? newUids : null,
      alreadyPresent: alreadyPresent.length,
      updates: allUpdates.length,
      insert: candidates.length
    })
  }

  async function deleteTracking (type: EngineAlarmType, ctx: Ctx, uids: number[]): Promise<Answer> {
    const id = ctx.params.id as string
    const table = ALARM_TABLES[type]
    const doomed = uids.length === 0 ? [] : await query(`SELECT * FROM \`${table}\` WHERE id = ? AND uid IN (?)`, [id, uids])
    if (uids.length > 0) await query(`DELETE FROM \`${table}\` WHERE id = ? AND uid IN (?)`, [id, uids])
    if (mode === 'js') return ok()
    const message = doomed.map((r) => `Removed: ${describe(type, r)}\n`).join('')
    if (!isSilent(ctx)) notify(id, message)
    return ok({ message })
  }

  async function deleteByUid (type: EngineAlarmType, ctx: Ctx): Promise<Answer> {
    const raw = ctx.params.uid as string
    if (!/^-?\d+$/.test(raw)) {
      if (mode === 'ng') throw invalid('invalid uid')
      return ok()
    }
    return deleteTracking(type, ctx, [Number(raw)])
  }

  async function bulkDelete (type: EngineAlarmType, ctx: Ctx): Promise<Answer> {
    const body = ctx.body()
    const list = Array.isArray(body) ? body : [body]
    if (list.some((u) => typeof u !== 'number' && !(mode === 'js' && typeof u === 'string'))) throw invalid('invalid request body')
    return deleteTracking(type, ctx, list.map(Number).filter((n) => Number.isInteger(n)))
  }

  async function trackingAll (ctx: Ctx, allProfiles: boolean): Promise<Answer> {
    const human = await requireHuman(ctx.params.id as string)
    const id = human.id as string
    const profileNo = allProfiles ? null : requestProfile(ctx, human)
    const descriptions = mode === 'js'
      ? allProfiles
      : allProfiles ? ctx.query.includeDescriptions !== 'false' : ctx.query.includeDescriptions === 'true'
    const answer: Row = { status: 'ok', human }
    for (const type of mode === 'js' ? JS_ALL_ORDER : NG_ALL_ORDER) {
      const rows = withDescriptions(type, await alarmRows(type, id, profileNo), descriptions && (mode === 'ng' || JS_DESCRIBED.includes(type)))
      // NG serialises an empty Go slice as null when descriptions are off.
      answer[type] = mode === 'ng' && !descriptions && rows.length === 0 ? null : rows
    }
    if (allProfiles) answer.profile = await query('SELECT * FROM profiles WHERE id = ? ORDER BY profile_no', [id])
    else if (mode === 'js') {
      const [current] = await query('SELECT * FROM profiles WHERE id = ? AND profile_no = ?', [id, human.current_profile_no])
      if (current) answer.profile = current
    }
    return new Answer(200, answer)
  }

  // ---- humans ---------------------------------------------------------------------------------------

  /** The fences a human may choose: all of them, narrowed by area security for restricted non-admins. */
  function allowedFences (human: Row): FakeFence[] {
    const restriction = human.area_restriction
    if (!settings.areaSecurity || isAdmin(human.id as string) || restriction === null || restriction === undefined) return settings.fences
    const allowed = (JSON.parse(String(restriction)) as string[]).map((a) => a.toLowerCase())
    return settings.fences.filter((f) => allowed.includes(f.name.toLowerCase()))
  }

  async function createHuman (ctx: Ctx): Promise<Answer> {
    const body = ctx.body() as Row
    if (body === null || typeof body !== 'object' || typeof body.id !== 'string' || body.id === '' || typeof body.name !== 'string' || body.name === '') {
      throw invalid('id and name are required')
    }
    // The field is bound as a Go string: a JSON array fails the bind.
    if (body.area !== undefined && typeof body.area !== 'string') throw invalid('invalid request body')
    if (await getHuman(body.id)) throw fail(409, 'User already exists')
    const community = body.community === undefined ? [] : (Array.isArray(body.community) ? body.community : [body.community]).map((c) => String(c).toLowerCase())
    const area = (body.area as string | undefined) ?? '[]'
    const latitude = Number(body.latitude ?? 0)
    const longitude = Number(body.longitude ?? 0)
    await insertRow('humans', {
      id: body.id,
      type: typeof body.type === 'string' && body.type !== '' ? body.type : 'discord:user',
      name: body.name,
      enabled: flag(body.enabled, 1),
      area,
      latitude,
      longitude,
      language: typeof body.language === 'string' ? body.language : settings.locale,
      admin_disable: flag(body.admin_disable, 0),
      community_membership: JSON.stringify(community),
      notes: typeof body.notes === 'string' ? body.notes : ''
    })
    await insertRow('profiles', { id: body.id, profile_no: 1, name: typeof body.profile_name === 'string' ? body.profile_name : 'Default', area, latitude, longitude })
    return ok({ message: 'User created successfully', human: await getHuman(body.id) })
  }

  async function setEnabled (ctx: Ctx, enabled: number): Promise<Answer> {
    const human = await requireHuman(ctx.params.id as string)
    await query('UPDATE humans SET enabled = ? WHERE id = ?', [enabled, human.id])
    return ok()
  }

  async function adminDisabled (ctx: Ctx): Promise<Answer> {
    const body = ctx.body() as Row
    if (body === null || typeof body !== 'object' || typeof body.state !== 'boolean') throw invalid('state is required (true/false)')
    const human = await requireHuman(ctx.params.id as string)
    const value = body.state ? 1 : 0
    await query('UPDATE humans SET admin_disable = ? WHERE id = ?', [value, human.id])
    return ok({ admin_disabled: value })
  }

  async function switchProfile (ctx: Ctx): Promise<Answer> {
    const human = await requireHuman(ctx.params.id as string)
    const [profile] = await query('SELECT * FROM profiles WHERE id = ? AND profile_no = ?', [human.id, Number(ctx.params.profile)])
    if (!profile) throw fail(404, 'Profile not found')
    await query('UPDATE humans SET current_profile_no = ?, area = ?, latitude = ?, longitude = ? WHERE id = ?',
      [profile.profile_no, profile.area, profile.latitude, profile.longitude, human.id])
    return ok()
  }

  function coordinates (ctx: Ctx): [number, number] {
    const lat = Number(ctx.params.lat)
    const lon = Number(ctx.params.lon)
    if (Number.isNaN(lat) || Number.isNaN(lon)) throw invalid('invalid latitude or longitude')
    return [lat, lon]
  }

  function locationPermitted (human: Row, lat: number, lon: number): boolean {
    if (!settings.areaSecurity || human.area_restriction === null || isAdmin(human.id as string)) return true
    return allowedFences(human).some((f) => fenceContains(f, lat, lon))
  }

  async function setLocation (ctx: Ctx): Promise<Answer> {
    const human = await requireHuman(ctx.params.id as string)
    const [lat, lon] = coordinates(ctx)
    if (!locationPermitted(human, lat, lon)) throw fail(403, 'Location not permitted')
    await query('UPDATE humans SET latitude = ?, longitude = ? WHERE id = ?', [lat, lon, human.id])
    await query('UPDATE profiles SET latitude = ?, longitude = ? WHERE id = ? AND profile_no = ?', [lat, lon, human.id, human.current_profile_no])
    return ok()
  }

  async function setAreas (ctx: Ctx): Promise<Answer> {
    const human = await requireHuman(ctx.params.id as string)
    const body = ctx.body()
    if (!Array.isArray(body)) throw invalid('invalid request body')
    // NG enforces userSelectable for non-admins; JS's admin test is inverted, so it never does.
    const choosable = allowedFences(human).filter((f) => mode === 'js' || isAdmin(human.id as string) || f.userSelectable !== false)
    const names = choosable.map((f) => f.name.toLowerCase())
    const chosen = [...new Set(body.map((a) => String(a).toLowerCase()))].filter((a) => names.includes(a))
    const text = JSON.stringify(chosen)
    await query('UPDATE humans SET area = ? WHERE id = ?', [text, human.id])
    await query('UPDATE profiles SET area = ? WHERE id = ? AND profile_no = ?', [text, human.id, human.current_profile_no])
    return ok({ setAreas: chosen })
  }

  // ---- profiles -------------------------------------------------------------------------------------

  const PROFILE_COLUMNS = 'uid, id, profile_no, name, area, latitude, longitude, active_hours'

  /** NG stores a string as it is and encodes anything else; JS always JSON-encodes. */
  const activeHoursText = (value: unknown) => (mode === 'ng' && typeof value === 'string' ? value : JSON.stringify(value))

  async function addProfiles (ctx: Ctx): Promise<Answer> {
    const human = await requireHuman(ctx.params.id as string)
    const body = ctx.body()
    const list = (Array.isArray(body) ? body : [body]) as Row[]
    if (list.some((p) => p === null || typeof p !== 'object' || typeof p.name !== 'string' || p.name === '')) throw invalid('name is required')
    for (const profile of list) {
      const taken = new Set((await query<Array<{ profile_no: number }>>('SELECT profile_no FROM profiles WHERE id = ?', [human.id])).map((r) => r.profile_no))
      let profileNo = 1
      while (taken.has(profileNo)) profileNo++
      // JS coerces active_hours with unary plus into NaN and always stores {}.
      const activeHours = mode === 'ng' && profile.active_hours !== undefined ? activeHoursText(profile.active_hours) : '{}'
      await insertRow('profiles', { id: human.id, profile_no: profileNo, name: profile.name, area: human.area, latitude: human.latitude, longitude: human.longitude, active_hours: activeHours })
    }
    return ok()
  }

  async function updateProfiles (ctx: Ctx): Promise<Answer> {
    const body = ctx.body()
    const list = (Array.isArray(body) ? body : [body]) as Row[]
    if (list.some((p) => p === null || typeof p !== 'object' || p.profile_no === undefined || p.profile_no === null)) throw invalid('profile_no is required')
    for (const profile of list) {
      await query('UPDATE profiles SET active_hours = ? WHERE id = ? AND profile_no = ?',
        [activeHoursText(profile.active_hours ?? []), ctx.params.id, int(profile.profile_no, 0)])
    }
    return ok()
  }

  async function copyProfile (ctx: Ctx): Promise<Answer> {
    const id = ctx.params.id as string
    const from = Number(ctx.params.from)
    const to = Number(ctx.params.to)
    const tables = mode === 'js' ? PROFILE_TABLES.filter((t) => t !== 'forts' && t !== 'maxbattle') : PROFILE_TABLES
    for (const table of tables) {
      await query(`DELETE FROM \`${table}\` WHERE id = ? AND profile_no = ?`, [id, to])
      for (const { uid: _source, ...row } of await query(`SELECT * FROM \`${table}\` WHERE id = ? AND profile_no = ?`, [id, from])) {
        await insertRow(table, { ...row, profile_no: to })
      }
    }
    return ok()
  }

  async function deleteProfile (ctx: Ctx): Promise<Answer> {
    const id = ctx.params.id as string
    const profileNo = Number(ctx.params.profile_no)
    const profiles = await query('SELECT * FROM profiles WHERE id = ? ORDER BY profile_no', [id])
    if (profileNo === 1 && profiles.length === 1 && profiles[0]?.profile_no === 1) return ok()
    await query('DELETE FROM profiles WHERE id = ? AND profile_no = ?', [id, profileNo])
    for (const table of PROFILE_TABLES) await query(`DELETE FROM \`${table}\` WHERE id = ? AND profile_no = ?`, [id, profileNo])
    const human = await getHuman(id)
    // JS compares the path string with === to a number, so it never switches away (alarm-engine.md 1.6).
    if (mode === 'ng' && human && Number(human.current_profile_no) === profileNo) {
      const next = profiles.find((p) => p.profile_no !== profileNo)
      if (next) {
        await query('UPDATE humans SET current_profile_no = ?, area = ?, latitude = ?, longitude = ? WHERE id = ?', [next.profile_no, next.area, next.latitude, next.longitude, id])
      } else {
        await query('UPDATE humans SET current_profile_no = 1 WHERE id = ?', [id])
      }
    }
    return ok()
  }

  // ---- config, summaries, geofences, misc -----------------------------------------------------------

  function poracleWeb (): Row {
    return {
      status: 'ok',
      version: settings.version ?? (mode === 'ng' ? '5.1.0' : '4.8.3'),
      locale: settings.locale,
      prefix: '!',
      providerURL: settings.providerURL,
      addressFormat: '{{{streetName}}} {{streetNumber}}',
      staticKey: [],
      pvpFilterMaxRank: 100,
      pvpFilterGreatMinCP: 1400,
      pvpFilterUltraMinCP: 2350,
      pvpFilterLittleMinCP: 450,
      pvpLittleLeagueAllowed: true,
      pvpCaps: [50],
      pvpRequiresMinCp: true,
      defaultPvpCap: 50,
      defaultTemplateName: mode === 'ng' ? defaultTemplate() : (settings.defaultTemplateName ?? 1),
      channelNotesContainsCategory: false,
      admins: { discord: [...settings.admins.discord], telegram: [...settings.admins.telegram] },
      maxDistance: settings.maxDistance,
      defaultDistance: settings.defaultDistance,
      everythingFlagPermissions: settings.everythingFlagPermissions,
      disabledHooks: [...settings.disabledHooks],
      gymBattles: settings.gymBattles
    }
  }

  function configValues (ctx: Ctx): Answer {
    const values: Record<string, Row> = {
      general: { locale: settings.locale, default_template_name: defaultTemplate(), disable_fort_update: settings.disableFortUpdate },
      tracking: { quest_summary_enabled: settings.questSummaryEnabled, default_distance: settings.defaultDistance, max_distance: settings.maxDistance },
      discord: { admins: [...settings.admins.discord], token: ['****'], prefix: '!' },
      telegram: { admins: [...settings.admins.telegram], token: ['****'] },
      processor: { api_secret: '****' }
    }
    const section = ctx.query.section
    const picked = section === undefined ? values : Object.fromEntries(Object.entries(values).filter(([name]) => name === section))
    return ok({ values: picked, overridden: [] })
  }

  const TEMPLATE_TYPES = ['monster', 'monsterNoIv', 'raid', 'egg', 'quest', 'invasion', 'lure', 'nest', 'gym', 'fort-update', 'weatherchange', 'greeting']
  const templates = () => {
    const perPlatform = Object.fromEntries(TEMPLATE_TYPES.map((t) => [t, { '%': [defaultTemplate()] }]))
    return ok({ discord: perPlatform, telegram: perPlatform })
  }

  // ---- the template editor API (NG /api/dts/*): enrich a webhook, render a template ---------------------

  /** The shipped default template of every type on both platforms, then what a test added (`dtsTemplates`). */
  const dtsEntries = (): Row[] => [
    ...TEMPLATE_TYPES.flatMap((type) => [
      { id: defaultTemplate(), type, default: true, platform: 'discord', language: 'en', template: { embed: { title: '{{name}}', description: '{{summary}}', color: 3447003 } } },
      { id: defaultTemplate(), type, default: true, platform: 'telegram', language: 'en', template: { content: '{{name}}: {{summary}}' } }
    ]),
    ...dtsTemplates
  ]

  /** The webhook kinds NG's EnrichWebhook accepts (anything else is its "unsupported webhook type"). */
  const ENRICHED = new Set(['pokemon', 'monster', 'raid', 'egg', 'quest', 'invasion', 'lure', 'nest', 'gym', 'fort_update', 'fort-update', 'max_battle', 'maxbattle'])
  const speciesName = (id: unknown) => SAMPLE_MONSTERS[`${String(id)}_0`]?.name ?? `Pokémon #${String(id)}`

  /** A few of the variables NG's enrichment computes, enough for templates to show the sample's values. */
  function variablesOf (type: string, webhook: Row): Row {
    const n = (key: string) => Number(webhook[key] ?? 0)
    const scalars = Object.fromEntries(Object.entries(webhook).filter(([, v]) => v === null || typeof v !== 'object'))
    switch (type) {
      case 'pokemon': case 'monster': {
        const iv = Math.round(((n('individual_attack') + n('individual_defense') + n('individual_stamina')) / 45) * 1000) / 10
        return { ...scalars, name: speciesName(webhook.pokemon_id), iv, summary: `IV ${iv}% CP ${n('cp')} L${n('pokemon_level')}` }
      }
      case 'raid': return { ...scalars, name: speciesName(webhook.pokemon_id), summary: `Level ${n('level')} raid at ${String(webhook.gym_name)}` }
      case 'egg': return { ...scalars, name: `Level ${n('level')} egg`, summary: `Hatches at ${String(webhook.gym_name)}` }
      default: return { ...scalars, name: String(webhook.pokestop_name ?? webhook.gym_name ?? type), summary: `A ${type} alert` }
    }
  }

  async function enrichWebhook (ctx: Ctx): Promise<Answer> {
    let body: Row
    try {
      body = ctx.body() as Row
    } catch {
      throw new Answer(400, { status: 'error', message: 'invalid request body: invalid JSON' })
    }
    const type = typeof body?.type === 'string' ? body.type : ''
    if (type === '') throw new Answer(400, { status: 'error', message: 'type is required' })
    if (body.webhook === undefined || body.webhook === null) throw new Answer(400, { status: 'error', message: 'webhook is required' })
    if (!ENRICHED.has(type)) throw new Answer(500, { status: 'error', message: `unsupported webhook type: ${type}` })
    return ok({ variables: variablesOf(type, body.webhook as Row) })
  }

  /** Fills `{{name}}` placeholders inside the template's JSON text, as Handlebars would for plain variables. */
  async function renderTemplate (ctx: Ctx): Promise<Answer> {
    let body: Row
    try {
      body = ctx.body() as Row
    } catch {
      throw new Answer(400, { status: 'error', error: 'invalid request body: invalid JSON' })
    }
    const [type, id, platform, language] = ['type', 'id', 'platform', 'language'].map((k) => String(body?.[k] ?? ''))
    const candidates = dtsEntries().filter((e) => e.type === type && e.platform === platform && String(e.id) === id)
    const entry = candidates.find((e) => e.language === language) ?? candidates.find((e) => e.default === true) ?? candidates[0]
    if (entry === undefined) throw new Answer(404, { status: 'error', error: `no template found for ${type}/${platform}/${id}/${language}` })
    const view = (body.view ?? {}) as Row
    const text = JSON.stringify(entry.template).replace(/\{\{\s*([\w.]+)\s*\}\}/g, (_all, name: string) => JSON.stringify(String(view[name] ?? '')).slice(1, -1))
    try {
      return ok({ message: JSON.parse(text) })
    } catch (err) {
      throw new Answer(500, { status: 'error', error: `rendered template is not valid JSON: ${(err as Error).message}` })
    }
  }

  /** NG fills every key of a fence; JS passes through what the source had. */
  function servedFences (): Row[] {
    if (mode === 'js') return settings.fences.map((f) => ({ ...f }))
    return settings.fences.map((f, index) => ({
      name: f.name,
      id: f.id ?? index,
      color: f.color ?? '#3399ff',
      path: f.path ?? [],
      ...(f.multipath ? { multipath: f.multipath } : {}),
      group: f.group ?? '',
      description: f.description ?? '',
      userSelectable: f.userSelectable ?? true,
      displayInMatches: f.displayInMatches ?? true
    }))
  }

  function geoJson (): Row {
    const ring = (path: Array<[number, number]>) => {
      const coords = path.map(([lat, lon]) => [lon, lat])
      const first = coords[0]
      const last = coords[coords.length - 1]
      if (first && last && (first[0] !== last[0] || first[1] !== last[1])) coords.push(first)
      return coords
    }
    return {
      type: 'FeatureCollection',
      features: settings.fences.map((f, index) => ({
        type: 'Feature',
        properties: { name: f.name, color: f.color ?? '#3399ff', id: f.id ?? index, group: f.group ?? '', description: f.description ?? '', userSelectable: f.userSelectable ?? true, displayInMatches: f.displayInMatches ?? true },
        geometry: f.multipath
          ? { type: 'MultiPolygon', coordinates: f.multipath.map((p) => [ring(p)]) }
          : { type: 'Polygon', coordinates: [ring(f.path ?? [])] }
      }))
    }
  }

  /** Re-downloads URL fences the way both engines do: only with a bearer token, keeping the old ones on failure. */
  async function reloadGeofences (): Promise<Answer> {
    reloads.push('geofence')
    if (settings.geofenceUrl === null || settings.geofenceBearerToken === '') return ok()
    try {
      const response = await fetch(settings.geofenceUrl, {
        headers: { authorization: `Bearer ${settings.geofenceBearerToken}`, 'content-type': 'application/json' },
        signal: AbortSignal.timeout(5000)
      })
      if (mode === 'ng' && response.status !== 200) throw new Error(`geofence download answered ${response.status}`)
      const payload = await response.json() as { data?: unknown }
      settings.fences = parseFences(payload.data)
      geofenceDownloaded = true
      return ok()
    } catch (err) {
      // NG without a cached copy cannot load the fences at all; JS just warns.
      if (mode === 'ng' && !geofenceDownloaded) return new Answer(500, { error: (err as Error).message })
      return ok()
    }
  }

  function staticMap (what: string): Answer {
    if (!settings.staticMaps) {
      return mode === 'ng'
        ? new Answer(503, { status: 'error', message: 'static map provider not configured' })
        : new Answer(200, { status: 'error', message: 'Unsupported configuration for staticProvider' })
    }
    return ok({ url: `${url}/staticmap/${what}.png` })
  }

  async function summaries (ctx: Ctx, action: 'list' | 'get' | 'set' | 'delete' | 'trigger'): Promise<Answer> {
    if (!settings.summaryFeature) throw new Answer(503, { status: 'error', message: 'summary feature is disabled' })
    const human = await requireHuman(ctx.params.id as string)
    const id = human.id as string
    const alertType = ctx.params.alertType
    if (alertType !== undefined && alertType !== 'quest') throw invalid(`unknown alert type: ${alertType}`)
    const toSchedule = (r: Row) => ({ id: r.id, alert_type: r.alert_type, active_hours: JSON.parse(String(r.active_hours)) as unknown })
    switch (action) {
      case 'list':
        return ok({ schedules: (await query('SELECT * FROM summary_schedules WHERE id = ? ORDER BY alert_type', [id])).map(toSchedule) })
      case 'get': {
        const [row] = await query('SELECT * FROM summary_schedules WHERE id = ? AND alert_type = ?', [id, alertType])
        if (!row) throw fail(404, 'schedule not found')
        return ok({ schedule: toSchedule(row) })
      }
      case 'set': {
        const body = ctx.body() as Row
        const hours = body !== null && typeof body === 'object' ? body.active_hours : undefined
        if (hours === undefined || hours === null) throw invalid('active_hours is required')
        const text = typeof hours === 'string' ? hours : JSON.stringify(hours)
        try {
          JSON.parse(text)
        } catch {
          throw invalid('active_hours must be JSON')
        }
        await query('INSERT INTO summary_schedules (id, alert_type, active_hours) VALUES (?, ?, ?) ON DUPLICATE KEY UPDATE active_hours = VALUES(active_hours)', [id, alertType, text])
        return ok({ schedule: { id, alert_type: alertType, active_hours: JSON.parse(text) as unknown } })
      }
      case 'delete':
        await query('DELETE FROM summary_schedules WHERE id = ? AND alert_type = ?', [id, alertType])
        return ok()
      case 'trigger':
        return ok()
    }
  }

  async function testAlert (ctx: Ctx): Promise<Answer> {
    let body: Row
    try {
      body = ctx.body() as Row
    } catch {
      throw new Answer(400, { error: 'invalid JSON' })
    }
    const target = body?.target as Row | undefined
    if (typeof body?.type !== 'string' || body.webhook === undefined || typeof target?.id !== 'string') {
      throw new Answer(400, { error: 'type, webhook, and target.id are required' })
    }
    testAlerts.push(body)
    return ok()
  }

  // ---- routing --------------------------------------------------------------------------------------

  const routes: Route[] = []
  const route = (methods: string | string[], pattern: string, handler: Route['handler'], opts: { ngOnly?: boolean } = {}) => {
    routes.push({ methods: ([] as string[]).concat(methods), segments: pattern.split('/').slice(1), ngOnly: opts.ngOnly ?? false, typeParam: pattern.includes(':type'), handler })
  }
  const typeOf = (ctx: Ctx) => ctx.params.type as EngineAlarmType

  route('GET', '/health', async (ctx) => new Answer(200, mode === 'ng' ? { status: 'healthy' } : { webserver: 'happy', query: ctx.query, port: 3030 }))

  route('GET', '/api/tracking/pokemon/refresh', async () => { reloads.push('pokemon/refresh'); return ok() })
  route('GET', '/api/tracking/all/:id', (ctx) => trackingAll(ctx, false))
  route('GET', '/api/tracking/allProfiles/:id', (ctx) => trackingAll(ctx, true))
  route('GET', '/api/tracking/:type/:id', (ctx) => getTracking(typeOf(ctx), ctx))
  route('POST', '/api/tracking/:type/:id', (ctx) => postTracking(typeOf(ctx), ctx))
  route('DELETE', '/api/tracking/:type/:id/byUid/:uid', (ctx) => deleteByUid(typeOf(ctx), ctx))
  route('POST', '/api/tracking/:type/:id/delete', (ctx) => bulkDelete(typeOf(ctx), ctx))

  route('POST', '/api/humans', createHuman, { ngOnly: true })
  route('GET', '/api/humans/one/:id', async (ctx) => ok({ human: await requireHuman(ctx.params.id as string) }))
  route('GET', '/api/humans/:id', async (ctx) => {
    const found = await requireHuman(ctx.params.id as string)
    return ok({ areas: allowedFences(found).map((f) => ({ name: f.name, group: f.group ?? '', description: f.description ?? '', userSelectable: f.userSelectable ?? true })) })
  })
  route('POST', '/api/humans/:id/start', (ctx) => setEnabled(ctx, 1))
  route('POST', '/api/humans/:id/stop', (ctx) => setEnabled(ctx, 0))
  route('POST', '/api/humans/:id/adminDisabled', adminDisabled, { ngOnly: true })
  route('POST', '/api/humans/:id/switchProfile/:profile', switchProfile)
  route('POST', '/api/humans/:id/setLocation/:lat/:lon', setLocation)
  route('GET', '/api/humans/:id/checkLocation/:lat/:lon', async (ctx) => {
    const found = await requireHuman(ctx.params.id as string)
    const [lat, lon] = coordinates(ctx)
    return ok({ locationOk: locationPermitted(found, lat, lon) })
  })
  route('POST', '/api/humans/:id/setAreas', setAreas)
  route('GET', '/api/humans/:id/getAdministrationRoles', async (ctx) => {
    const id = ctx.params.id as string
    if (mode === 'ng') await requireHuman(id)
    return ok({ admin: adminRoles.get(id) ?? {} })
  })

  route('GET', '/api/profiles/:id', async (ctx) => ok({ profile: await query(`SELECT ${PROFILE_COLUMNS} FROM profiles WHERE id = ? ORDER BY profile_no`, [ctx.params.id]) }))
  route('POST', '/api/profiles/:id/add', addProfiles)
  route('POST', '/api/profiles/:id/update', updateProfiles)
  route('POST', '/api/profiles/:id/copy/:from/:to', copyProfile)
  route('DELETE', '/api/profiles/:id/byProfileNo/:profile_no', deleteProfile)

  route('GET', '/api/config/poracleWeb', async () => new Answer(200, poracleWeb()))
  route('GET', '/api/config/values', async (ctx) => configValues(ctx), { ngOnly: true })
  route('GET', '/api/config/templates', async () => templates())

  route('GET', '/api/summaries/:id', (ctx) => summaries(ctx, 'list'), { ngOnly: true })
  route('GET', '/api/summaries/:id/:alertType', (ctx) => summaries(ctx, 'get'), { ngOnly: true })
  route('POST', '/api/summaries/:id/:alertType', (ctx) => summaries(ctx, 'set'), { ngOnly: true })
  route('DELETE', '/api/summaries/:id/:alertType', (ctx) => summaries(ctx, 'delete'), { ngOnly: true })
  route('POST', '/api/summaries/:id/:alertType/trigger', (ctx) => summaries(ctx, 'trigger'), { ngOnly: true })

  route('GET', '/api/geofence/all', async () => ok({ geofence: servedFences() }))
  route('GET', '/api/geofence/all/hash', async () => ok({ areas: Object.fromEntries(settings.fences.map((f) => [f.name, createHash('md5').update(JSON.stringify(f.path ?? f.multipath ?? [])).digest('hex')])) }))
  route('GET', '/api/geofence/all/geojson', async () => ok({ geoJSON: geoJson() }))
  route('GET', '/api/geofence/reload', reloadGeofences)
  route('POST', '/api/geofence/reload', reloadGeofences, { ngOnly: true })
  route('GET', '/api/geofence/:area/map', async (ctx) => {
    const fence = fenceByName(ctx.params.area as string)
    if (mode === 'ng' && settings.staticMaps && !fence) throw fail(404, 'area not found')
    return staticMap(`area-${encodeURIComponent(fence?.name ?? ctx.params.area as string)}`)
  })
  route('GET', '/api/geofence/distanceMap/:lat/:lon/:distance', async (ctx) => staticMap(`distance-${ctx.params.lat as string}-${ctx.params.lon as string}-${ctx.params.distance as string}`))
  route('GET', '/api/geofence/locationMap/:lat/:lon', async (ctx) => staticMap(`location-${ctx.params.lat as string}-${ctx.params.lon as string}`))

  route('GET', '/api/masterdata/monsters', async (ctx) => {
    const names = mode === 'ng' ? settings.monsterNames[String(ctx.query.locale ?? '')] : undefined
    return new Answer(200, names === undefined
      ? SAMPLE_MONSTERS
      : Object.fromEntries(Object.entries(SAMPLE_MONSTERS).map(([key, entry]) => [key, { ...entry, name: names[entry.id] ?? entry.name }])))
  })
  route('GET', '/api/masterdata/grunts', async () => new Answer(200, SAMPLE_GRUNTS))
  route('GET', '/api/dts/templates', async () => ok({ templates: dtsEntries() }), { ngOnly: true })
  route('POST', '/api/dts/enrich', enrichWebhook, { ngOnly: true })
  route('POST', '/api/dts/render', renderTemplate, { ngOnly: true })
  route('POST', '/api/test', testAlert, { ngOnly: true })
  route(['GET', 'POST'], '/api/reload', async () => { reloads.push('reload'); return ok() }, { ngOnly: true })

  function match (method: string, rawPath: string): { route: Route, params: Record<string, string> } | null {
    const segments = rawPath.split('/').slice(1)
    for (const candidate of routes) {
      if (!candidate.methods.includes(method) || candidate.segments.length !== segments.length) continue
      if (candidate.ngOnly && mode === 'js') continue
      const params: Record<string, string> = {}
      let matched = true
      for (let i = 0; i < segments.length && matched; i++) {
        const pattern = candidate.segments[i] as string
        const segment = segments[i] as string
        if (pattern.startsWith(':')) {
          // fastify's maxParamLength (JS) turns long parameters into a missing route.
          if (segment === '' || (mode === 'js' && segment.length > 256)) { matched = false; break }
          try {
            params[pattern.slice(1)] = decodeURIComponent(segment)
          } catch {
            matched = false
          }
        } else if (pattern !== segment) {
          matched = false
        }
      }
      if (!matched) continue
      if (candidate.typeParam) {
        const type = params.type as EngineAlarmType
        if (!ALARM_TYPES.includes(type) || (mode === 'js' && NG_ONLY_TYPES.includes(type))) continue
      }
      return { route: candidate, params }
    }
    return null
  }

  /** The secret check: NG's middleware on /api (open when no secret is set); JS's per-handler test. */
  function authorised (headers: IncomingHttpHeaders): boolean {
    const given = headers['x-poracle-secret']
    if (mode === 'ng' && secret === '') return true
    return secret !== '' && given === secret
  }

  const readBody = (req: IncomingMessage) => new Promise<string>((resolve, reject) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')))
    req.on('error', reject)
  })

  function send (res: ServerResponse, answer: Answer): void {
    const text = typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body)
    res.writeHead(answer.status, { 'content-type': answer.contentType, 'content-length': Buffer.byteLength(text) })
    res.end(text)
  }

  async function respond (req: IncomingMessage, rawText: string, rawPath: string, search: URLSearchParams, found: ReturnType<typeof match>): Promise<Answer> {
    const method = req.method ?? 'GET'
    if (!found) return routeNotFound(method, rawPath)
    let preParsed: unknown
    const contentType = String(req.headers['content-type'] ?? '')
    if (mode === 'js' && rawText === '' && contentType.startsWith('application/json')) {
      return new Answer(400, { statusCode: 400, code: 'FST_ERR_CTP_EMPTY_JSON_BODY', error: 'Bad Request', message: "Body cannot be empty when content-type is set to 'application/json'" })
    }
    if (mode === 'js' && rawText !== '') {
      // fastify's content-type parser runs before the handler.
      const type = contentType
      if (!type.startsWith('application/json')) return new Answer(415, { statusCode: 415, code: 'FST_ERR_CTP_INVALID_MEDIA_TYPE', error: 'Unsupported Media Type', message: `Unsupported Media Type: ${type}` })
      try {
        preParsed = JSON.parse(rawText)
      } catch {
        return new Answer(400, { statusCode: 400, code: 'FST_ERR_CTP_INVALID_JSON_BODY', error: 'Bad Request', message: "Body is not valid JSON but content-type is set to 'application/json'" })
      }
    }
    if (rawPath.startsWith('/api/') && !authorised(req.headers)) {
      return new Answer(mode === 'ng' ? 401 : 200, { status: 'authError', reason: 'incorrect or missing api secret' })
    }
    const ctx: Ctx = {
      params: found.params,
      query: Object.fromEntries(search),
      body: () => {
        if (mode === 'js') return preParsed
        if (rawText.trim() === '') throw invalid('empty request body')
        try {
          return JSON.parse(rawText) as unknown
        } catch {
          throw invalid('invalid request body')
        }
      }
    }
    try {
      return await found.route.handler(ctx)
    } catch (err) {
      if (err instanceof Answer) return err
      return mode === 'ng'
        ? new Answer(500, { status: 'error', message: 'database error' })
        : new Answer(500, { statusCode: 500, error: 'Internal Server Error', message: (err as Error).message })
    }
  }

  const server = createServer((req, res) => {
    (async () => {
      const requestUrl = req.url ?? '/'
      const queryAt = requestUrl.indexOf('?')
      const rawPath = queryAt === -1 ? requestUrl : requestUrl.slice(0, queryAt)
      const search = new URLSearchParams(queryAt === -1 ? '' : requestUrl.slice(queryAt + 1))
      const rawText = await readBody(req)
      let parsed: unknown
      try {
        parsed = rawText === '' ? undefined : JSON.parse(rawText)
      } catch {
        parsed = rawText
      }
      const found = match(req.method ?? 'GET', rawPath)
      requests.push({ method: req.method ?? 'GET', path: rawPath, params: found?.params ?? {}, query: Object.fromEntries(search), headers: req.headers, body: parsed })

      if (hanging) return
      if (delayMs > 0) await sleep(delayMs)
      if (failure && (failure.path === undefined || (typeof failure.path === 'string' ? rawPath === failure.path : failure.path.test(rawPath)))) {
        const current = failure
        if (--current.remaining <= 0) failure = null
        if (current.drop) {
          req.socket.destroy()
          return
        }
        send(res, new Answer(current.status ?? 500, current.body ?? JSON.stringify({ status: 'error', message: 'fake failure' }), current.contentType ?? 'application/json; charset=utf-8'))
        return
      }
      if (req.method === 'GET' && rawPath.startsWith('/staticmap/')) {
        const image = settings.mapImage
        if (image.delayMs > 0) await sleep(image.delayMs)
        res.writeHead(200, { 'content-type': image.contentType, ...(image.declareLength && { 'content-length': image.bytes.length }) })
        res.end(image.bytes)
        return
      }
      send(res, await respond(req, rawText, rawPath, search, found))
    })().catch((err: unknown) => {
      if (!res.headersSent) send(res, new Answer(500, { status: 'error', message: (err as Error).message }))
    })
  })

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`

  return {
    url,
    get mode () { return mode },
    setMode (next) { mode = next },
    requests,
    settings,
    set (patch) { Object.assign(settings, patch) },
    setSecret (next) { secret = next },
    setAdministrationRoles (userId, admin) { adminRoles.set(userId, admin) },
    messages,
    testAlerts,
    dtsTemplates,
    reloads,
    failWith (failureOptions = {}) { failure = { ...failureOptions, remaining: failureOptions.times ?? Number.POSITIVE_INFINITY } },
    delay (ms) { delayMs = ms },
    hang () { hanging = true },
    reset () {
      failure = null
      delayMs = 0
      hanging = false
      requests.length = 0
      messages.length = 0
      testAlerts.length = 0
      dtsTemplates.length = 0
      reloads.length = 0
    },
    async close () {
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
      await pool.end()
    }
  }
}

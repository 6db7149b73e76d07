import t from 'tap'
import { Ajv, type ValidateFunction } from 'ajv'
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import { build, bearer, seedHuman, ENGINE_SECRET, JWT_SECRET, type TestApp } from './helper.js'
import { startKojiFake } from './fakes/koji.js'
import { startNominatimFake } from './fakes/nominatim.js'
import { startGolbatFake } from './fakes/golbat.js'
import { startMasterfileFake } from './fakes/masterfile.js'
import { scannerDatabase } from './fakes/scanner-db.js'

/**
 * Every route the app registers, asked with hostile input by a stranger, a member and an admin: bad
 * input is a 4xx in the catalogue's shape that changes nothing; nothing answers a 5xx (but the few
 * documented ones below) or a stack trace; no secret, token or code reaches an answer or a log line.
 * The routes come from the app's own OpenAPI document, so a route added tomorrow is swept too.
 */

const MEMBER = '100000000000000003'
const ADMIN = '100000000000000001'
const WEBHOOK = 'https://discord.com/api/webhooks/11/webhook-token-a'

/** Secrets of the configuration: none may appear in any answer or log line. */
const SECRETS = {
  JWT_SECRET,
  PORACLE_API_SECRET: ENGINE_SECRET,
  DISCORD_CLIENT_SECRET: 'discord-client-secret-5d8f1e',
  DISCORD_BOT_TOKEN: 'discord-bot-token-77aa3c',
  TELEGRAM_BOT_TOKEN: '123456:telegram-bot-token-e41b',
  OIDC_CLIENT_SECRET: 'oidc-client-secret-0c9b2d',
  OIDC_TOKEN_ENCRYPTION_KEY: 'k3J9mQ2vX7pL1sR8tY4wZ6nB0cF5hD3gA2eU9iO7xVQ=',
  KOJI_BEARER_TOKEN: 'koji-bearer-token-6f2e91',
  GEOFENCE_FEED_TOKEN: 'geofence-feed-token-93ab0c',
  GOLBAT_API_SECRET: 'golbat-api-secret-c3e8d1'
}
/** Credentials sent in hostile requests themselves (query codes, forged tokens): never logged or echoed. */
const SENT_CODE = 'authz-code-4b1d9f0e'
const SENT_TOKEN = 'sent-token-8e2a6c1f'

/**
 * 5xx answers a route documents on purpose, with the reason; anything else at 500 or above fails.
 * Keys are `METHOD /openapi/path`.
 */
const PLACES_UNSUPPORTED = { status: [501], reason: 'saved places: neither engine generation has an API for them (routes/location)' }
const DOCUMENTED_5XX: Record<string, { status: number[], reason: string }> = {
  'GET /api/location/places': PLACES_UNSUPPORTED,
  'POST /api/location/places': PLACES_UNSUPPORTED,
  'DELETE /api/location/places/{label}': PLACES_UNSUPPORTED
}

type Json = Record<string, unknown>
type Role = 'anonymous' | 'member' | 'admin'
interface Route { method: string, path: string, pathParams: Array<{ name: string, schema: Json }>, query: Array<{ name: string, schema: Json }>, body: Json | null, documented: string[] }
interface Attempt { label: string, url: string, payload?: string | Buffer, contentType?: string, headers?: Record<string, string>, mustRefuse: boolean }

/**
 * Every route the router holds, from its own listing (`printRoutes`, a tree of path pieces), HEAD left
 * out: Fastify answers it with the GET handler. Paths in OpenAPI form (`{param}`, a wildcard `{*}`).
 */
function registeredRoutes (app: FastifyInstance): string[] {
  const pieces: string[] = []
  const routes: string[] = []
  for (const line of app.printRoutes({ commonPrefix: false }).split('\n')) {
    const at = line.search(/[├└]── /)
    if (at === -1) continue
    const [, piece = '', methods = ''] = /^(\S+)(?: \(([^)]*)\))?$/.exec(line.slice(at + 4)) ?? []
    pieces.length = at / 4
    pieces.push(piece)
    const path = pieces.join('').replace(/:(\w+)/g, '{$1}').replace(/\*$/, '{*}')
    for (const method of methods.split(', ')) if (method !== '' && method !== 'HEAD') routes.push(`${method} ${path.startsWith('/') ? path : `/${path}`}`)
  }
  return routes
}

/**
 * The routes to sweep: every operation of the OpenAPI document (it has the schemas of params, query and
 * body), plus what the document hides: itself, the CORS preflight and, when the client is built, the
 * SPA fallback (wildcards, asked with hostile paths).
 */
function routesOf (app: FastifyInstance): Route[] {
  const doc = app.swagger() as unknown as { paths: Record<string, Record<string, Json>> }
  const wildcard = { name: '*', schema: { type: 'string' } }
  const routes: Route[] = [{ method: 'GET', path: '/api/openapi.json', pathParams: [], query: [], body: null, documented: ['200'] }]
  for (const route of registeredRoutes(app).filter((r) => r.endsWith('{*}'))) {
    const [method = '', path = ''] = route.split(' ')
    routes.push({ method, path, pathParams: [wildcard], query: [], body: null, documented: [] })
  }
  for (const [path, operations] of Object.entries(doc.paths)) {
    for (const [method, operation] of Object.entries(operations)) {
      const parameters = (operation.parameters ?? []) as Array<{ in: string, name: string, schema: Json }>
      const content = (operation.requestBody as { content?: Record<string, { schema: Json }> } | undefined)?.content
      routes.push({
        method: method.toUpperCase(),
        path,
        pathParams: parameters.filter((p) => p.in === 'path').map(({ name, schema }) => ({ name, schema })),
        query: parameters.filter((p) => p.in === 'query').map(({ name, schema }) => ({ name, schema })),
        body: content?.['application/json']?.schema ?? null,
        documented: Object.keys((operation.responses ?? {}) as Json)
      })
    }
  }
  return routes
}

type Mode = 'sample' | 'high' | 'low' | 'tricky'
const TRICKY = ['\'; DROP TABLE humans; --', '../../../etc/passwd', 'O\'Brien "quoted" \\ back', '😀 ünï €']
const PATTERN_CANDIDATES = [MEMBER, '1', 'a', 'abc', 'pokemon', 'monster', 'en', '#336699', 'https://example.org/x', '2026-11-26', '12:00']

/**
 * A value the schema accepts, pushed to one edge: `high` takes every maximum (or a large value where the
 * schema sets none), `low` every minimum, `tricky` quotes and path pieces in every free string. Such
 * input passes validation and reaches the handler, where a missing bound would become a database error.
 */
function valueFor (schema: Json, mode: Mode, depth = 0): unknown {
  if ('const' in schema) return schema.const
  if (Array.isArray(schema.enum)) return mode === 'low' ? schema.enum.at(-1) : schema.enum[0]
  const choices = (schema.anyOf ?? schema.oneOf) as Json[] | undefined
  if (choices !== undefined) return valueFor(choices.find((c) => c.type !== 'null') ?? choices[0] ?? {}, mode, depth)
  if (Array.isArray(schema.allOf)) return valueFor(Object.assign({}, ...schema.allOf as Json[]), mode, depth)
  const type = Array.isArray(schema.type) ? (schema.type as string[]).find((x) => x !== 'null') : schema.type as string | undefined
  switch (type) {
    case 'string': {
      const min = (schema.minLength as number | undefined) ?? 0
      const max = (schema.maxLength as number | undefined) ?? 5000
      if (typeof schema.pattern === 'string') {
        const re = new RegExp(schema.pattern as string, 'u')
        return PATTERN_CANDIDATES.find((c) => re.test(c) && c.length >= min && c.length <= max) ?? ''
      }
      if (schema.format === 'uri' || schema.format === 'url') return 'https://example.org/hook'
      if (schema.format === 'date-time') return '2026-11-26T12:00:00Z'
      if (schema.format === 'date') return '2026-11-26'
      if (schema.format === 'email') return 'a@example.org'
      if (mode === 'high') return 'x'.repeat(Math.min(max, 5000))
      if (mode === 'low') return 'a'.repeat(min)
      const text = mode === 'tricky' ? TRICKY[depth % TRICKY.length] ?? '' : 'abc'
      return text.padEnd(min, 'a').slice(0, max)
    }
    case 'integer':
    case 'number': {
      const max = (schema.maximum as number | undefined) ?? (schema.exclusiveMaximum as number | undefined) ?? (type === 'integer' ? Number.MAX_SAFE_INTEGER : 1e308)
      const min = (schema.minimum as number | undefined) ?? (schema.exclusiveMinimum as number | undefined) ?? (type === 'integer' ? -Number.MAX_SAFE_INTEGER : -1e308)
      const exclusive = (bound: number, key: string, step: number) => (schema[key] === undefined ? bound : bound + step)
      if (mode === 'high') return exclusive(max, 'exclusiveMaximum', -1)
      if (mode === 'low') return exclusive(min, 'exclusiveMinimum', 1)
      return Math.min(Math.max(1, exclusive(min, 'exclusiveMinimum', 1)), exclusive(max, 'exclusiveMaximum', -1))
    }
    case 'boolean': return mode !== 'low'
    case 'null': return null
    case 'array': {
      const items = (schema.items ?? {}) as Json
      const unique = schema.uniqueItems === true
      const min = (schema.minItems as number | undefined) ?? 0
      const wanted = mode === 'high' && !unique ? Math.min((schema.maxItems as number | undefined) ?? 50, 50) : mode === 'low' ? min : Math.max(min, 1)
      return Array.from({ length: Math.max(wanted, min) }, () => valueFor(items, mode, depth + 1))
    }
    case 'object': {
      const properties = (schema.properties ?? {}) as Record<string, Json>
      const required = new Set((schema.required ?? []) as string[])
      const out: Json = {}
      for (const [key, property] of Object.entries(properties)) {
        if (mode === 'low' && !required.has(key)) continue
        if (depth > 6 && !required.has(key)) continue
        out[key] = valueFor(property, mode, depth + 1)
      }
      return out
    }
    default: return mode === 'high' ? 'x'.repeat(5000) : 'abc'
  }
}

/** Path segments and query values of every hostile kind the brief names; some deliberately badly encoded. */
const HOSTILE_SEGMENTS = [
  'a'.repeat(590), 'a'.repeat(700), '..%2F..%2Fetc%2Fpasswd', '%00', '%E2%80%AE%E2%81%A6x', '%0D%0Aset-cookie%3Ax%3D1',
  '-1', '99999999999999999999999', '1e400', 'NaN', '%27%20OR%20%271%27%3D%271', '__proto__', 'constructor', '%ZZ',
  '%F0%9F%98%80', '%ED%A0%80', '%C0%AE'
]
const HOSTILE_QUERY_VALUES = ['x'.repeat(5000), '-1', '1e400', '99999999999999999999999', '%27%22%3B--', '%E2%80%AE', '%00', '', '%ZZ']
/** Sign-in flow cookies the callbacks read, forged and with prototype names beside them. */
const HOSTILE_COOKIES = `oidc_state=${SENT_CODE}; oidc_verifier=${SENT_TOKEN}; discord_state=${SENT_CODE}; __proto__=1; constructor=%00; x=${'y'.repeat(3000)}`
const PROTO_QUERY = `__proto__=x&__proto__%5BisAdmin%5D=true&constructor%5Bprototype%5D%5BisAdmin%5D=true&toString=1&hasOwnProperty=1&code=${SENT_CODE}&state=${SENT_CODE}&token=${SENT_TOKEN}&access_token=${SENT_TOKEN}`

function deep (depth: number, kind: 'array' | 'object'): string {
  return kind === 'array' ? '['.repeat(depth) + ']'.repeat(depth) : '{"a":'.repeat(depth) + '1' + '}'.repeat(depth)
}
const OVERSIZE = JSON.stringify({ text: 'x'.repeat(1_100_000) })
const DEEP_ARRAY = deep(1000, 'array')
const DEEP_OBJECT = deep(1000, 'object')
const DEEPER_ARRAY = deep(20_000, 'array')

function pathWith (route: Route, value: (param: { name: string, schema: Json }) => string): string {
  let path = route.path
  for (const param of route.pathParams) path = path.replace(`{${param.name}}`, value(param))
  return path
}

const encodeValue = (v: unknown) => encodeURIComponent(String(v))

/** As plugins/edge/validation.ts: path parameters are coerced from text, bodies are not. */
const coercing = new Ajv({ coerceTypes: true, strict: false })
const strict = new Ajv({ coerceTypes: false, strict: false, strictNumbers: true })
const validators = new Map<string, ValidateFunction>()
function validator (ajv: Ajv, schema: Json): ValidateFunction {
  const key = `${ajv === strict ? 'strict' : 'coercing'}:${JSON.stringify(schema)}`
  let validate = validators.get(key)
  if (validate === undefined) {
    validate = ajv.compile(schema)
    validators.set(key, validate)
  }
  return validate
}
/** Whether a path segment is a value the parameter's schema accepts (then the route may act on it). */
function accepts (schema: Json, segment: string): boolean {
  let value: string
  try { value = decodeURIComponent(segment) } catch { return false }
  return segment.length <= 600 && validator(coercing, { type: 'object', properties: { v: schema } })({ v: value })
}

/** The requests sent to one route; `mustRefuse` ones are bad input by construction and must change nothing. */
function attemptsFor (route: Route, full: boolean): Attempt[] {
  const sampleBody = route.body === null ? undefined : JSON.stringify(valueFor(route.body, 'sample'))
  const samplePath = pathWith(route, (p) => encodeValue(valueFor(p.schema, 'sample')))
  const sampleQuery = route.query.map((q) => `${q.name}=${encodeValue(valueFor(q.schema, 'sample'))}`).join('&')
  const withQuery = (path: string, query: string) => (query === '' ? path : `${path}?${query}`)
  const base = withQuery(samplePath, sampleQuery)
  const json = (label: string, payload: string, mustRefuse = true, url = base): Attempt => ({ label, url, payload, contentType: 'application/json', mustRefuse })
  /** The route's own body (when it takes one) with a hostile URL. */
  const at = (label: string, url: string, mustRefuse: boolean, body = sampleBody): Attempt => (body === undefined ? { label, url, mustRefuse } : json(label, body, mustRefuse, url))
  const attempts: Attempt[] = []

  const segments = full ? HOSTILE_SEGMENTS : HOSTILE_SEGMENTS.slice(0, 2)
  if (route.pathParams.length > 0) {
    // Under a wildcard any path is the route's to answer (a preflight, the client's pages): nothing to refuse.
    const refuses = (segment: string) => !route.pathParams.every((p) => p.name === '*' || accepts(p.schema, segment))
    for (const segment of segments) attempts.push(at(`path ${segment.slice(0, 20)}`, withQuery(pathWith(route, () => segment), sampleQuery), refuses(segment)))
  }
  attempts.push({ ...at('prototype and credential query keys, forged cookies', `${samplePath}?${PROTO_QUERY}${sampleQuery === '' ? '' : `&${sampleQuery}`}`, false), headers: { cookie: HOSTILE_COOKIES } })
  if (route.query.length > 0) {
    const values = full ? HOSTILE_QUERY_VALUES : HOSTILE_QUERY_VALUES.slice(0, 1)
    for (const value of values) attempts.push(at(`query ${value.slice(0, 12)}`, `${samplePath}?${route.query.map((q) => `${q.name}=${value}`).join('&')}`, false))
    if (full) {
      attempts.push(at('repeated query keys', `${samplePath}?${route.query.map((q) => `${q.name}=1&${q.name}=2&${q.name}=`).join('&')}`, false))
      attempts.push(at('bracket query keys', `${samplePath}?${route.query.map((q) => `${q.name}%5B%5D=1&${q.name}%5B__proto__%5D=1`).join('&')}`, false))
    }
  }
  if (route.body !== null && sampleBody !== undefined) {
    const sample = JSON.parse(sampleBody) as unknown
    const asObject = typeof sample === 'object' && sample !== null && !Array.isArray(sample) ? sample as Json : {}
    attempts.push(json('array for object', JSON.stringify([sample])))
    if (full) {
      // A JSON null is refused unless the body schema takes it: a route whose body is optional (POST
      // /api/auth/logout) validates a request without one as null, so null is the empty body there.
      attempts.push(json('string body', '"x"'), json('null body', 'null', !validator(strict, route.body)(null)), json('number body', '1e400'), json('not JSON', '{"a":'))
      attempts.push(json('nested 1000 deep array', DEEP_ARRAY), json('nested 1000 deep object', DEEP_OBJECT), json('nested 20000 deep', DEEPER_ARRAY))
      attempts.push(json('__proto__ key', `{"__proto__":{"isAdmin":true}${sampleBody.length > 2 ? `,${sampleBody.slice(1)}` : '}'}`))
      attempts.push(json('constructor.prototype key', JSON.stringify({ ...asObject, constructor: { prototype: { isAdmin: true } } })))
      attempts.push(json('over the body limit', OVERSIZE))
      for (const [key, value] of Object.entries(asObject)) {
        const wrong = typeof value === 'string' ? 12 : typeof value === 'number' ? '12' : typeof value === 'boolean' ? 'true' : Array.isArray(value) ? { 0: value[0] } : typeof value === 'object' && value !== null ? [value] : 'x'
        // A union may take the other type too: only what the schema refuses must be refused.
        const mutated = { ...asObject, [key]: wrong }
        attempts.push(json(`wrong type for ${key}`, JSON.stringify(mutated), !validator(strict, route.body)(mutated)))
      }
      // 1e400 parses to Infinity, which JSON.stringify cannot write: spliced in as text.
      const numeric = Object.keys(asObject).filter((key) => typeof asObject[key] === 'number')
      for (const huge of ['1e400', '-1e400']) {
        if (numeric.length > 0) attempts.push(json(`${huge} for every number`, JSON.stringify({ ...asObject, ...Object.fromEntries(numeric.map((key) => [key, 'HUGE'])) }).replaceAll('"HUGE"', huge)))
      }
      attempts.push({ label: 'UTF-16 JSON', url: base, payload: Buffer.from(sampleBody, 'utf16le'), contentType: 'application/json; charset=utf-16', mustRefuse: true })
      for (const contentType of ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/xml']) {
        attempts.push({ label: `content type ${contentType}`, url: base, payload: sampleBody, contentType, mustRefuse: true })
      }
      attempts.push({ label: 'empty JSON body', url: base, payload: '', contentType: 'application/json', mustRefuse: true })
    }
  }
  if (full) {
    for (const mode of ['high', 'low', 'tricky'] as const) {
      const body = route.body === null ? undefined : JSON.stringify(valueFor(route.body, mode))
      const query = route.query.map((q) => `${q.name}=${encodeValue(valueFor(q.schema, mode))}`).join('&')
      attempts.push(at(`schema-valid ${mode} values`, withQuery(pathWith(route, (p) => encodeValue(valueFor(p.schema, mode))), query), false, body))
    }
  }
  return attempts
}

t.test('a path the router cannot read is a 4xx in the catalogue\'s shape, not Fastify\'s own', async (t) => {
  const { app } = await build(t)
  const headers = bearer(app, { userId: MEMBER })
  // A parameter over maxParamLength is Fastify's 414 where nothing else matches; where the client is
  // built, the client pages' catch-all route matches the path instead and /api paths there are a 404.
  const overlong = app.hasRoute({ method: 'GET', url: '/*' }) ? [404] : [414]
  const cases: Array<[string, number[], string]> = [
    ['/api/quick-picks/%ED%A0%80', [400], 'percent-encoding of a lone surrogate'],
    ['/api/monsters/%C0%AE', [400], 'an overlong UTF-8 dot'],
    [`/api/quick-picks/${'a'.repeat(601)}`, overlong, 'a parameter over maxParamLength']
  ]
  for (const [url, status, what] of cases) {
    const res = await app.inject({ method: 'GET', url, headers })
    t.ok(status.includes(res.statusCode), `${what}: ${res.statusCode}`)
    t.same(Object.keys(res.json()), ['error'], `${what}: { error } only, no code or statusCode`)
    t.type(res.json().error, 'string')
  }
})

t.test('an OPTIONS request without Origin is a plain 204, and a foreign origin is not allowed', async (t) => {
  const { app } = await build(t)
  const plain = await app.inject({ method: 'OPTIONS', url: '/api/monsters' })
  t.equal(plain.statusCode, 204, 'not the CORS plugin\'s text/plain 400')
  t.equal(plain.body, '')
  const foreign = await app.inject({ method: 'OPTIONS', url: '/api/monsters', headers: { origin: 'https://evil.example', 'access-control-request-method': 'DELETE' } })
  t.equal(foreign.headers['access-control-allow-origin'], undefined, 'no CORS grant for a foreign origin')
  const own = await app.inject({ method: 'OPTIONS', url: '/api/monsters', headers: { origin: 'https://alarms.example.org', 'access-control-request-method': 'DELETE' } })
  t.equal(own.statusCode, 204)
  t.equal(own.headers['access-control-allow-origin'], 'https://alarms.example.org', 'the configured origin still is')
})

t.test('JSON\'s 1e400 parses to Infinity, which is no number the service takes: a 400 before anything is created', async (t) => {
  const s = await build(t)
  await seedHuman(s, { id: MEMBER, name: 'Mo' })
  const profiles = async () => await s.app.engineDb.pool.query('SELECT profile_no FROM profiles') as unknown[]
  const before = await profiles()
  const res = await s.app.inject({
    method: 'POST',
    url: '/api/profile-overview/import',
    headers: { ...bearer(s.app, { userId: MEMBER }), 'content-type': 'application/json' },
    // `version` is an unbounded integer or a string: Infinity passed it and the import went ahead.
    payload: '{"profileName":"Imported","version":1e400,"alarms":{}}'
  })
  t.equal(res.statusCode, 400)
  t.match(res.json(), { error: 'Invalid request', details: [{ field: '/version' }] })
  t.same(await profiles(), before, 'no profile created')
  t.same(s.engine.requests.filter((r) => r.method !== 'GET'), [], 'nothing sent to the engine')
})

/**
 * Edge values in every field at once can trip a rule between fields (an area override beside a location
 * label): asked again, up to three times, without the optional fields the 400 names (as the field or in
 * the message), so the handler behind the rule is reached.
 */
function withoutNamedFields (route: Route, attempt: Attempt, res: LightMyRequestResponse): Attempt | null {
  if (!attempt.label.startsWith('schema-valid') || attempt.label.split(' without ').length > 3 || res.statusCode !== 400 || typeof attempt.payload !== 'string') return null
  const body = JSON.parse(attempt.payload) as unknown
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return null
  const required = new Set((route.body?.required ?? []) as string[])
  const said = ((res.json() as { details?: Array<{ field: string, message: string }> }).details ?? []).map((d) => `${d.field} ${d.message}`).join(' ')
  const named = Object.keys(body).filter((field) => !required.has(field) && new RegExp(`\\b${field}\\b`).test(said))
  if (named.length === 0) return null
  const rest = Object.fromEntries(Object.entries(body).filter(([field]) => !named.includes(field)))
  return { ...attempt, label: `${attempt.label} without ${named.join(', ')}`, payload: JSON.stringify(rest) }
}

t.test('alarm text the engine\'s columns cannot hold is a 400, not the engine\'s database error', async (t) => {
  const s = await build(t)
  await seedHuman(s, { id: MEMBER, name: 'Mo' })
  const headers = bearer(s.app, { userId: MEMBER })
  const create = async (path: string, payload: Record<string, unknown>) => await s.app.inject({ method: 'POST', url: `/api/${path}`, headers, payload })
  // grunt_type is a varchar(255); 256 letters were let through and the engine answered 500.
  t.equal((await create('invasions', { grunt_type: 'x'.repeat(256) })).statusCode, 400, 'invasion: 256 letters')
  t.equal((await create('invasions', { grunt_type: 'x'.repeat(255) })).statusCode, 201, 'invasion: 255 letters fit')
  // change_types is JSON text in a varchar(255); sixteen names of 32 letters were 560 characters.
  const names = (count: number) => Array.from({ length: count }, (_, i) => `${i}`.padEnd(32, 'x'))
  t.equal((await create('fort-changes', { change_types: names(7) })).statusCode, 400, 'fort: seven change types')
  t.equal((await create('fort-changes', { change_types: names(6) })).statusCode, 201, 'fort: six of 32 letters fit')
})

/** A CORS preflight from a site that is not ours, asking for the method it is not allowed. */
const preflight = (route: Route): Record<string, string> =>
  route.method === 'OPTIONS' ? { origin: 'https://evil.example', 'access-control-request-method': 'DELETE', 'access-control-request-headers': 'authorization, x-evil' } : {}

const FRAME = /\bat [^\n]*\(?[^\s()]+:\d+:\d+\)?/

interface Finding { route: string, role: Role, label: string, problem: string }

t.test('hostile input on every route: 4xx in the catalogue shape, nothing changed, nothing leaked', async (t) => {
  const started = Date.now()
  const koji = await startKojiFake({ token: SECRETS.KOJI_BEARER_TOKEN })
  const nominatim = await startNominatimFake()
  const golbat = await startGolbatFake({ secret: SECRETS.GOLBAT_API_SECRET })
  const masterfile = await startMasterfileFake()
  t.teardown(async () => { await Promise.all([koji.close(), nominatim.close(), golbat.close(), masterfile.close()]) })
  const s: TestApp = await build(t, {
    logLevel: 'info',
    env: {
      DISCORD_CLIENT_ID: '900000000000000001',
      DISCORD_CLIENT_SECRET: SECRETS.DISCORD_CLIENT_SECRET,
      DISCORD_BOT_TOKEN: SECRETS.DISCORD_BOT_TOKEN,
      DISCORD_API_URL: 'http://127.0.0.1:9',
      TELEGRAM_BOT_TOKEN: SECRETS.TELEGRAM_BOT_TOKEN,
      TELEGRAM_BOT_USERNAME: 'alarm_bot',
      OIDC_CLIENT_ID: 'alarm-web',
      OIDC_CLIENT_SECRET: SECRETS.OIDC_CLIENT_SECRET,
      OIDC_AUTHORIZATION_URL: 'http://127.0.0.1:9/authorize',
      OIDC_TOKEN_URL: 'http://127.0.0.1:9/token',
      OIDC_USERINFO_URL: 'http://127.0.0.1:9/userinfo',
      OIDC_TOKEN_ENCRYPTION_KEY: SECRETS.OIDC_TOKEN_ENCRYPTION_KEY,
      KOJI_API_ADDRESS: koji.url,
      KOJI_BEARER_TOKEN: SECRETS.KOJI_BEARER_TOKEN,
      KOJI_PROJECT_NAME: 'poracle',
      KOJI_PROJECT_ID: '1',
      GEOFENCE_FEED_TOKEN: SECRETS.GEOFENCE_FEED_TOKEN,
      GOLBAT_API_ADDRESS: golbat.url,
      GOLBAT_API_SECRET: SECRETS.GOLBAT_API_SECRET,
      MASTERFILE_URL: masterfile.url,
      SCANNER_DB_HOST: '127.0.0.1',
      SCANNER_DB_USER: 'root',
      SCANNER_DB_NAME: await scannerDatabase()
    },
    config: { RATE_LIMIT_AUTH_MAX: 100_000, RATE_LIMIT_AUTH_READ_MAX: 100_000 }
  })
  s.engine.set({ providerURL: nominatim.url })
  await seedHuman(s, { id: MEMBER, name: 'Mo' })
  await seedHuman(s, { id: ADMIN, name: 'Ada' })
  await seedHuman(s, { id: WEBHOOK, name: 'Raid channel', type: 'webhook' })

  const tokens: Record<Role, Record<string, string>> = {
    anonymous: {},
    member: bearer(s.app, { userId: MEMBER }),
    admin: bearer(s.app, { userId: ADMIN, isAdmin: true })
  }
  // The signed-in users' own tokens may come back in a success (a profile switch mints the same claims
  // again); never in an error or a log line.
  const forbidden: Array<[string, string]> = [...Object.entries(SECRETS), ['sent code', SENT_CODE], ['sent token', SENT_TOKEN]]
  const ownTokens: Array<[string, string]> = [['member token', tokens.member.authorization?.slice(7) ?? ''], ['admin token', tokens.admin.authorization?.slice(7) ?? '']]

  const tablesOf = async (pool: typeof s.app.db.pool) => (await pool.query('SELECT table_name AS name FROM information_schema.tables WHERE table_schema = DATABASE()') as Array<{ name: string }>).map((r) => `\`${r.name}\``).join(', ')
  const serviceTables = await tablesOf(s.app.db.pool)
  const engineTables = await tablesOf(s.app.engineDb.pool)
  // What "changes nothing" is checked against: a checksum of every table of both databases, one
  // statement per database, taken around each write route's refused batch.
  const snapshot = async () => {
    const [svc, eng] = await Promise.all([
      s.app.db.pool.query(`CHECKSUM TABLE ${serviceTables}`) as Promise<Array<{ Table: string, Checksum: number }>>,
      s.app.engineDb.pool.query(`CHECKSUM TABLE ${engineTables}`) as Promise<Array<{ Table: string, Checksum: number }>>
    ])
    return [...svc, ...eng].map((r) => `${r.Table}=${r.Checksum}`)
  }
  // The engine and Koji hold state of their own (and get messages): any non-GET call or delivery counts.
  const engineWrites = () => s.engine.requests.filter((r) => r.method !== 'GET').length + s.engine.messages.length + s.engine.testAlerts.length + s.engine.reloads.length + koji.saves.length

  const routes = routesOf(s.app)
  const findings: Finding[] = []
  let requests = 0
  const statuses = new Map<number, number>()

  const check = (route: Route, role: Role, attempt: Attempt, res: LightMyRequestResponse) => {
    const key = `${route.method} ${route.path}`
    const fail = (problem: string) => findings.push({ route: key, role, label: attempt.label, problem })
    statuses.set(res.statusCode, (statuses.get(res.statusCode) ?? 0) + 1)
    if (res.statusCode >= 500) {
      const allowed = DOCUMENTED_5XX[key]
      if (allowed === undefined || !allowed.status.includes(res.statusCode) || !route.documented.includes(String(res.statusCode))) fail(`answered ${res.statusCode}: ${res.body.slice(0, 200)}`)
    }
    if (attempt.mustRefuse && res.statusCode < 400 && res.statusCode !== 302) fail(`bad input accepted with ${res.statusCode}`)
    if (res.headers['access-control-allow-origin'] === 'https://evil.example') fail('CORS allows a foreign origin')
    if (String(res.headers['set-cookie'] ?? '').includes('x=1')) fail('a line break in the path became a header')
    const headerText = Object.entries(res.headers).map(([k, v]) => `${k}: ${String(v)}`).join('\n')
    for (const [name, secret] of forbidden) {
      if (secret !== '' && (res.body.includes(secret) || headerText.includes(secret))) fail(`answer contains ${name}`)
    }
    if (res.statusCode >= 400) {
      for (const [name, token] of ownTokens) if (res.body.includes(token)) fail(`error body contains the ${name}`)
      if (res.body.includes(WEBHOOK)) fail('error body contains a webhook address')
      let body: unknown
      try { body = res.json() } catch { return fail(`error body is not JSON: ${res.body.slice(0, 120)}`) }
      const shape = body as Json
      if (typeof shape !== 'object' || shape === null || typeof shape.error !== 'string' || shape.error === '') fail(`error body without a message: ${res.body.slice(0, 120)}`)
      else if ('stack' in shape || 'statusCode' in shape) fail(`error body in Fastify's shape, not the catalogue's: ${res.body.slice(0, 120)}`)
      else if (shape.details !== undefined && !(Array.isArray(shape.details) && shape.details.every((d: Json) => typeof d.field === 'string' && typeof d.message === 'string'))) fail('validation details not {field, message}')
      if (FRAME.test(res.body)) fail('stack frame in the answer')
    }
  }

  for (const route of routes) {
    const key = `${route.method} ${route.path}`
    const foundBefore = findings.length
    let anonymousStatus = 0
    for (const role of ['anonymous', 'member', 'admin'] as const) {
      // A stranger or a member refused before validation is asked briefly; whoever gets past the door, fully.
      const probe = await s.app.inject({ method: route.method as 'GET', url: pathWith(route, (p) => encodeValue(valueFor(p.schema, 'sample'))), headers: { ...tokens[role], ...preflight(route) } })
      if (role === 'anonymous') anonymousStatus = probe.statusCode
      const full = !(probe.statusCode === 401 || probe.statusCode === 403)
      const attempts = attemptsFor(route, full)
      const refusals = attempts.filter((a) => a.mustRefuse)
      const writes = route.method !== 'GET' && refusals.length > 0
      const before = writes ? await snapshot() : []
      const queue = [...refusals, ...attempts.filter((a) => !a.mustRefuse)]
      for (const attempt of queue) {
        const headers: Record<string, string> = { ...tokens[role], ...preflight(route), ...attempt.headers }
        if (attempt.contentType !== undefined) headers['content-type'] = attempt.contentType
        const engineBefore = engineWrites()
        const res = await s.app.inject({ method: route.method as 'GET', url: attempt.url, headers, ...(attempt.payload === undefined ? {} : { payload: attempt.payload }) })
        requests++
        check(route, role, attempt, res)
        const retry = withoutNamedFields(route, attempt, res)
        if (retry !== null) queue.push(retry)
        if (attempt.mustRefuse && engineWrites() !== engineBefore) findings.push({ route: key, role, label: attempt.label, problem: `refused with ${res.statusCode}, yet the alarm engine or Koji was written to` })
        if (writes && attempt === refusals.at(-1)) {
          const after = await snapshot()
          const changed = after.filter((line, i) => line !== before[i])
          if (changed.length > 0) findings.push({ route: key, role, label: 'refused input', problem: `tables changed: ${changed.join(', ')}` })
        }
      }
    }
    // Forged credentials: the door refuses them like no token at all.
    for (const authorization of [`Bearer ${forgedToken()}`, 'Bearer \' OR 1=1 --', `Basic ${Buffer.from(`${SENT_TOKEN}:x`).toString('base64')}`, `Bearer ${'x'.repeat(8000)}`]) {
      const res = await s.app.inject({ method: route.method as 'GET', url: pathWith(route, (p) => encodeValue(valueFor(p.schema, 'sample'))), headers: { authorization } })
      requests++
      check(route, 'anonymous', { label: 'forged credentials', url: '', mustRefuse: false }, res)
      if (anonymousStatus === 401 && res.statusCode !== 401) findings.push({ route: key, role: 'anonymous', label: 'forged credentials', problem: `answered ${res.statusCode}, not 401` })
    }
    t.same(findings.slice(foundBefore), [], key)
  }

  const logs = s.rawLogs()
  t.ok(logs.includes('request completed'), 'the log lines were captured')
  t.same([...forbidden, ...ownTokens].filter(([, secret]) => logs.includes(secret)).map(([name]) => name), [], 'no secret, token or sent code in any log line')
  t.notOk(FRAME.test(logs.split('\n').filter((l) => !l.includes('"level":50')).join('\n')), 'no stack frame in log lines below error level')
  const paths = new Set(routes.map((r) => `${r.method} ${r.path}`))
  t.same(registeredRoutes(s.app).filter((r) => (r.includes(' /api') || r.endsWith('{*}')) && !paths.has(r)), [], 'every API route and wildcard the router holds is swept')
  t.ok(routes.length > 150, `${routes.length} routes swept`)
  t.same(['GET /api/location/geocode', 'GET /api/location/reverse', 'GET /api/admin/webhooks', 'POST /api/admin/webhooks', 'PUT /api/settings/{key}', 'GET /api/admin/my-webhooks', 'POST /api/admin/webhook-delegates', 'DELETE /api/admin/webhook-delegates'].filter((r) => !paths.has(r)), [], 'today\'s routes are among them')
  t.equal(findings.length, 0, `${requests} requests (${[...statuses].sort((a, b) => a[0] - b[0]).map(([k, v]) => `${k}×${v}`).join(' ')}) in ${Date.now() - started} ms`)
})

/** A well-formed JWT signed with another key: its claims say admin. */
function forgedToken (): string {
  const part = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url')
  return `${part({ alg: 'HS256', typ: 'JWT' })}.${part({ userId: ADMIN, isAdmin: true, exp: 4_102_444_800 })}.${Buffer.from('not-the-signature').toString('base64url')}`
}

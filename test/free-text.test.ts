import t from 'tap'
import type { LightMyRequestResponse } from 'fastify'
import { bearer, build, seedHuman } from './helper.js'
import { ALARM_TABLES } from './fakes/engine-db.js'
import { freeTextProblem } from '../plugins/edge/validation.js'

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE'

const USER = '400000000000000001'
const ADMIN = '400000000000000009'

/** Text no free-text field accepts, by what is wrong with it. */
const BAD: Record<string, string> = {
  'an unpaired high surrogate': 'a\ud800b',
  'an unpaired low surrogate': '\udc00',
  NUL: 'a\u0000b',
  'a bell (C0 control)': 'a\u0007',
  'a C1 control': 'a\u0085b',
  DEL: 'a\u007f',
  'a line feed': 'two\nlines',
  'a right-to-left override': 'a\u202eb',
  'a left-to-right embedding': '\u202aab',
  'a first-strong isolate': 'a\u2068b\u2069'
}

const testApp = await build(t, { engineMode: 'ng' })
const { app, engine } = testApp

async function fresh (): Promise<void> {
  engine.reset()
  for (const table of ['humans', 'profiles', ...Object.values(ALARM_TABLES)]) await app.engineDb.pool.query(`DELETE FROM \`${table}\``)
  await app.db.pool.query('DELETE FROM site_settings')
  app.siteSettings.evict()
  for (const id of [USER, ADMIN]) await seedHuman(testApp, { id, latitude: 51.1, longitude: 7.1 })
}

async function call (method: Method, url: string, payload?: unknown, admin = false): Promise<LightMyRequestResponse> {
  const headers: Record<string, string> = bearer(app, { userId: admin ? ADMIN : USER, isAdmin: admin })
  if (payload !== undefined) headers['content-type'] = 'application/json'
  return app.inject({ method, url, headers, ...(payload !== undefined ? { payload: JSON.stringify(payload) } : {}) })
}

interface FieldCase {
  /** What the case sends, to read in a failure. */
  name: string
  /** The `details[].field` the 400 must name. */
  field: string
  request: (text: string) => [Method, string, unknown?]
  admin?: boolean
}

const alarmCase = (path: string, field: string, base: Record<string, unknown>, value: (text: string) => unknown = (text) => text): FieldCase[] => [
  { name: `POST ${path} ${field}`, field: `/${field}${Array.isArray(value('x')) ? '/0' : ''}`, request: (text) => ['POST', path, { ...base, [field]: value(text) }] },
  { name: `PUT ${path}/1 ${field}`, field: `/${field}${Array.isArray(value('x')) ? '/0' : ''}`, request: (text) => ['PUT', `${path}/1`, { [field]: value(text) }] }
]
const list = (text: string) => [text]
const q = encodeURIComponent

/** Every free-text field of every route. */
const CASES: FieldCase[] = [
  { name: 'POST /api/profiles name', field: '/name', request: (text) => ['POST', '/api/profiles', { name: text }] },
  { name: 'PUT /api/profiles/1 name', field: '/name', request: (text) => ['PUT', '/api/profiles/1', { name: text }] },
  { name: 'POST /api/profiles/duplicate name', field: '/name', request: (text) => ['POST', '/api/profiles/duplicate', { fromProfileNo: 1, name: text }] },
  { name: 'POST /api/profile-overview/duplicate/1 name', field: '/name', request: (text) => ['POST', '/api/profile-overview/duplicate/1', { name: text }] },
  { name: 'import profileName', field: '/profileName', request: (text) => ['POST', '/api/profile-overview/import', { profileName: text, alarms: {} }] },
  { name: 'import version', field: '/version', request: (text) => ['POST', '/api/profile-overview/import', { profileName: 'x', version: text, alarms: {} }] },
  { name: 'import grunt_type', field: '/alarms/invasion/0/grunt_type', request: (text) => ['POST', '/api/profile-overview/import', { profileName: 'x', alarms: { invasion: [{ grunt_type: text }] } }] },
  ...alarmCase('/api/invasions', 'grunt_type', {}),
  ...alarmCase('/api/invasions', 'ping', { grunt_type: 'fire' }),
  ...alarmCase('/api/invasions', 'template', { grunt_type: 'fire' }),
  ...alarmCase('/api/invasions', 'override_location_label', { grunt_type: 'fire' }),
  ...alarmCase('/api/invasions', 'override_areas', { grunt_type: 'fire' }, list),
  ...alarmCase('/api/raids', 'gym_id', { level: 5 }),
  ...alarmCase('/api/eggs', 'gym_id', { level: 5 }),
  ...alarmCase('/api/gyms', 'gym_id', { team: 1 }),
  ...alarmCase('/api/maxbattles', 'station_id', { level: 1 }),
  ...alarmCase('/api/fort-changes', 'change_types', { fort_type: 'gym' }, list),
  { name: 'PUT /api/areas areas', field: '/areas/0', request: (text) => ['PUT', '/api/areas', { areas: [text] }] },
  { name: 'POST /api/location/places label', field: '/label', request: (text) => ['POST', '/api/location/places', { label: text, latitude: 1, longitude: 1 }] },
  { name: 'DELETE /api/location/places/:label', field: '/label', request: (text) => ['DELETE', `/api/location/places/${q(text)}`] },
  { name: 'PUT /api/summary-schedules/:alertType', field: '/alertType', request: (text) => ['PUT', `/api/summary-schedules/${q(text)}`, { activeHours: [] }] },
  { name: 'POST /api/admin/impersonate userId', field: '/userId', admin: true, request: (text) => ['POST', '/api/admin/impersonate', { userId: text }] },
  { name: 'POST /api/admin/users/impersonate ?id', field: '/id', admin: true, request: (text) => ['POST', `/api/admin/users/impersonate?id=${q(text)}`] },
  { name: 'DELETE /api/admin/users/sessions ?id', field: '/id', admin: true, request: (text) => ['DELETE', `/api/admin/users/sessions?id=${q(text)}`] },
  { name: 'PUT /api/settings/:key category', field: '/category', admin: true, request: (text) => ['PUT', '/api/settings/welcome_text', { value: 'x', category: text }] },
  { name: 'PUT /api/settings/:key valueType', field: '/valueType', admin: true, request: (text) => ['PUT', '/api/settings/welcome_text', { value: 'x', valueType: text }] }
]

t.test('every free-text field refuses each kind of bad text with a 400 naming the field, and nothing is written', async (t) => {
  await fresh()
  const before = JSON.stringify(await app.engineDb.pool.query('SELECT * FROM profiles ORDER BY id, profile_no'))
  for (const c of CASES) {
    for (const [what, text] of Object.entries(BAD)) {
      // Path and query text cannot carry an unpaired surrogate: percent-encoding needs well-formed text.
      if (/\p{Cs}/u.test(text) && c.request('MARK')[1].includes('MARK')) continue
      const [method, url, body] = c.request(text)
      const response = await call(method, url, body, c.admin)
      t.equal(response.statusCode, 400, `${c.name} with ${what}`)
      const details = (response.json() as { details?: Array<{ field: string }> }).details ?? []
      t.ok(details.some((d) => d.field === c.field), `${c.name} with ${what}: the 400 names ${c.field} (${JSON.stringify(details)})`)
    }
  }
  t.same(engine.requests.filter((r) => r.method !== 'GET'), [], 'the engine was asked to write nothing')
  t.equal(JSON.stringify(await app.engineDb.pool.query('SELECT * FROM profiles ORDER BY id, profile_no')), before, 'no profile changed')
  t.same(await app.db.pool.query('SELECT * FROM site_settings'), [], 'no setting was written')
})

t.test('impersonating an id with an unpaired surrogate is a 400, not a 503 from the engine call', async (t) => {
  await fresh()
  const response = await call('POST', '/api/admin/impersonate', { userId: '\ud800' }, true)
  t.equal(response.statusCode, 400)
  t.same(response.json().details, [{ field: '/userId', message: 'must not contain unpaired surrogates' }])
})

t.test('a site setting value may span lines but refuses other controls and bidi overrides', async (t) => {
  await fresh()
  const ok = await call('PUT', '/api/settings/welcome_text', { value: 'Hello\r\n\tthere' }, true)
  t.equal(ok.statusCode, 200)
  t.equal(ok.json().value, 'Hello\r\n\tthere')
  for (const value of ['a\u0000', 'a\u202e', 'a\ud800']) {
    const refused = await call('PUT', '/api/settings/welcome_text', { value }, true)
    t.equal(refused.statusCode, 400, JSON.stringify(value))
    t.equal(refused.json().details[0].field, '/value')
  }
})

t.test('accepted text is stored in NFC: profile names, grunt types, gym ids', async (t) => {
  await fresh()
  const decomposed = 'Cafe\u0301 \u212b'
  const composed = 'Caf\u00e9 \u00c5'
  const profile = await call('POST', '/api/profiles', { name: decomposed })
  t.equal(profile.statusCode, 201)
  t.equal(profile.json().name, composed)
  const [row] = await app.engineDb.pool.query('SELECT name FROM profiles WHERE id = ? AND profile_no = ?', [USER, profile.json().profileNo]) as Array<{ name: string }>
  t.equal(row?.name, composed)

  const invasion = await call('POST', '/api/invasions', { grunt_type: 'Fe\u0301e' })
  t.equal(invasion.statusCode, 201)
  t.equal(invasion.json().grunt_type, 'f\u00e9e')
  const egg = await call('POST', '/api/eggs', { level: 5, gym_id: 'gym-e\u0301' })
  t.equal(egg.statusCode, 201)
  t.equal(egg.json().gym_id, 'gym-\u00e9')
  const [stored] = await app.engineDb.pool.query('SELECT gym_id FROM egg WHERE id = ?', [USER]) as Array<{ gym_id: string }>
  t.equal(stored?.gym_id, 'gym-\u00e9')
})

t.test('the chat-platform callback refuses a control character like any other invalid request', async (t) => {
  const response = await app.inject({ method: 'GET', url: '/api/auth/discord/callback?code=a%00b&state=s' })
  t.equal(response.statusCode, 302)
  t.match(response.headers.location, /error=discord_invalid_request/)
})

t.test('freeTextProblem: what passes', async (t) => {
  for (const text of ['plain', 'emoji \u{1f600} pair', 'right-to-left mark \u200f is a mark, not an override', 'עברית', '']) {
    t.equal(freeTextProblem(text, false), null, JSON.stringify(text))
  }
  t.equal(freeTextProblem('a\r\n\tb', true), null, 'multiline text keeps line breaks and tabs')
  t.equal(freeTextProblem('a\u0000\n', true), 'must not contain control characters other than line breaks and tabs')
  t.equal(freeTextProblem('a\tb', false), 'must not contain control characters')
})

import t from 'tap'
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import { bearer, build, seedHuman, type BuildOptions, type Test, type TestApp } from './helper.js'
import { startNominatimFake, type NominatimFake } from './fakes/nominatim.js'
import { siteSettings } from '../db/schema/service.js'

const USER = '555555555555555555'
const PLACES = [
  { name: 'Baker Street 221b, Marylebone, London, NW1 6XE, United Kingdom', lat: 51.5237, lon: -0.1585 },
  { name: 'Baker Street, Enfield, London, EN1 3LA, United Kingdom', lat: 51.6612, lon: -0.0781 },
  { name: 'Tower Bridge, Southwark, London, SE1 2UP, United Kingdom', lat: 51.5055, lon: -0.0754 }
]

async function setup (t: Test, options: BuildOptions & { provider?: string | null } = {}): Promise<TestApp & { nominatim: NominatimFake, headers: { authorization: string }, get: (url: string) => Promise<LightMyRequestResponse> }> {
  const nominatim = await startNominatimFake({ places: PLACES })
  t.teardown(() => nominatim.close())
  const testApp = await build(t, { ...options, env: { BUILD_VERSION: '1.2.3', PUBLIC_URL: 'https://alarms.example.org', ...options.env } })
  // A path and a trailing slash, as operators write it: the service appends /search itself.
  testApp.engine.set({ providerURL: options.provider === undefined ? `${nominatim.url}/` : options.provider ?? '' })
  await seedHuman(testApp, { id: USER, latitude: 51.5237, longitude: -0.1585 })
  const headers = bearer(testApp.app, { userId: USER })
  return Object.assign(testApp, { nominatim, headers, get: async (url: string) => await testApp.app.inject({ method: 'GET', url, headers }) })
}

async function setSetting (app: FastifyInstance, key: string, value: string): Promise<void> {
  await app.db.db.insert(siteSettings).values({ key, value }).onDuplicateKeyUpdate({ set: { value } })
  app.siteSettings.evict(key)
}

t.test('search: the engine\'s geocoder is asked as Nominatim wants, and answers a small validated list', async (t) => {
  const s = await setup(t)
  const res = await s.get('/api/location/geocode?q=%20%20baker%20street%20&lang=de')
  t.equal(res.statusCode, 200)
  t.same(res.json(), [
    { label: PLACES[0]?.name, lat: 51.5237, lon: -0.1585 },
    { label: PLACES[1]?.name, lat: 51.6612, lon: -0.0781 }
  ], 'labels and numbers only: no licence, ids, bounding boxes or address parts')
  t.equal(s.nominatim.requests.length, 1)
  const sent = s.nominatim.requests[0]
  t.equal(sent?.path, '/search', 'the base URL\'s trailing slash is not doubled')
  t.same(sent?.query, { addressdetails: '1', q: 'baker street', format: 'json', limit: '5' }, 'the reference\'s parameters, the query trimmed')
  t.equal(sent?.headers['accept-language'], 'de', 'the language the client asked for')
  t.equal(sent?.headers['user-agent'], 'alarm-web/1.2.3 (+https://alarms.example.org)', 'a User-Agent naming the service, as Nominatim\'s policy asks')

  t.same((await s.get('/api/location/geocode?q=nowhere%20at%20all')).json(), [], 'nothing found is an empty list')
  await s.get('/api/location/geocode?q=tower')
  t.equal(s.nominatim.requests.at(-1)?.headers['accept-language'], 'en', 'without lang: the engine\'s locale')
})

t.test('reverse: the address at the pin; the open sea is a null label, not an error', async (t) => {
  const s = await setup(t)
  const res = await s.get('/api/location/reverse?lat=51.5238&lon=-0.1586')
  t.equal(res.statusCode, 200)
  t.same(res.json(), { label: PLACES[0]?.name })
  t.same(s.nominatim.requests[0]?.query, { lat: '51.523800', lon: '-0.158600', format: 'json', addressdetails: '1' })

  const sea = await s.get('/api/location/reverse?lat=50&lon=-30')
  t.equal(sea.statusCode, 200)
  t.same(sea.json(), { label: null })
})

t.test('the location answer says whether address search is offered', async (t) => {
  const s = await setup(t)
  const answer = (await s.get('/api/location')).json()
  t.same(Object.keys(answer), ['latitude', 'longitude', 'geocoder'])
  t.equal(answer.geocoder, true, 'the engine names a geocoder and the site allows it')

  const bare = await setup(t, { provider: null })
  t.equal((await bare.get('/api/location')).json().geocoder, false, 'no providerURL')
  const notHttp = await setup(t, { provider: 'file:///etc/passwd' })
  t.equal((await notHttp.get('/api/location')).json().geocoder, false, 'a providerURL that is not http(s) counts as none')

  await setSetting(s.app, 'disable_nominatim', 'true')
  t.equal((await s.get('/api/location')).json().geocoder, false, 'disable_nominatim')
  t.equal(s.nominatim.requests.length, 0, 'availability never asks the geocoder')
})

t.test('bad input is a 400 and nothing reaches the geocoder', async (t) => {
  const s = await setup(t)
  for (const url of [
    '/api/location/geocode',
    '/api/location/geocode?q=',
    '/api/location/geocode?q=%20%20%20',
    `/api/location/geocode?q=${'a'.repeat(201)}`,
    '/api/location/geocode?q=baker%00street',
    '/api/location/geocode?q=baker&lang=not%20a%20language',
    '/api/location/reverse?lat=91&lon=0',
    '/api/location/reverse?lat=0&lon=-180.5',
    '/api/location/reverse?lat=abc&lon=0',
    '/api/location/reverse?lat=51'
  ]) {
    const res = await s.get(url)
    t.equal(res.statusCode, 400, url.slice(0, 60))
    t.ok(Array.isArray(res.json().details), 'naming the field')
  }
  t.equal((await s.get(`/api/location/geocode?q=${'a'.repeat(200)}`)).statusCode, 200, '200 characters are allowed')
  t.equal(s.nominatim.requests.length, 1, 'only the valid search was sent')
})

t.test('no geocoder configured: 501 that the client can tell apart, and nothing sent', async (t) => {
  const s = await setup(t, { provider: null })
  for (const url of ['/api/location/geocode?q=baker', '/api/location/reverse?lat=51.5&lon=-0.1']) {
    const res = await s.get(url)
    t.equal(res.statusCode, 501, url)
    t.match(res.json().error, /Address search is not offered/)
  }
  t.equal(s.nominatim.requests.length, 0)
})

t.test('disable_nominatim and disable_location gate both routes with 403', async (t) => {
  const s = await setup(t)
  for (const key of ['disable_nominatim', 'disable_location']) {
    await setSetting(s.app, key, 'true')
    for (const url of ['/api/location/geocode?q=baker', '/api/location/reverse?lat=51.5&lon=-0.1']) {
      const res = await s.get(url)
      t.equal(res.statusCode, 403, `${key}: ${url}`)
      t.same(res.json(), { error: 'This feature is disabled by the administrator.', disableKey: key })
    }
    await setSetting(s.app, key, 'false')
  }
  t.equal(s.nominatim.requests.length, 0)
})

t.test('signed out is 401', async (t) => {
  const s = await setup(t)
  for (const url of ['/api/location/geocode?q=baker', '/api/location/reverse?lat=51.5&lon=-0.1']) {
    t.equal((await s.app.inject({ method: 'GET', url })).statusCode, 401, url)
  }
  t.equal(s.nominatim.requests.length, 0)
})

t.test('a repeated search or lookup is answered from the cache for ten minutes', async (t) => {
  const s = await setup(t)
  const first = await s.get('/api/location/geocode?q=Baker%20Street')
  const again = await s.get('/api/location/geocode?q=baker%20street%20')
  t.same(again.json(), first.json())
  await s.get('/api/location/reverse?lat=51.5237&lon=-0.1585')
  await s.get('/api/location/reverse?lat=51.5237&lon=-0.1585')
  t.equal(s.nominatim.requests.length, 2, 'one provider request per query')

  await s.get('/api/location/geocode?q=baker%20street&lang=de')
  t.equal(s.nominatim.requests.length, 3, 'another language is another answer')

  s.clock.advance(10 * 60_000 + 1)
  await s.get('/api/location/geocode?q=baker%20street')
  t.equal(s.nominatim.requests.length, 4, 'asked again after ten minutes')
})

t.test('geocoder failing, slow or talking garbage: 502, 504, then 503 with Retry-After, never a 500, and its URL nowhere', async (t) => {
  const s = await setup(t, { env: { GEOCODER_TIMEOUT_MS: '300' }, logLevel: 'info' })
  for (const mode of ['down', 'garbage', 'shape'] as const) {
    s.nominatim.fail(mode)
    for (const url of ['/api/location/geocode?q=baker', '/api/location/reverse?lat=51.5&lon=-0.1']) {
      const res = await s.get(url)
      t.equal(res.statusCode, 502, `${mode}: ${url}`)
      t.same(res.json(), { error: 'Address search sent an answer this site cannot use. Please try again later.' })
    }
  }
  s.nominatim.fail(null)
  t.equal((await s.get('/api/location/geocode?q=baker')).statusCode, 200, 'failures are not cached')

  s.nominatim.fail('hang')
  const started = Date.now()
  const slow = await s.get('/api/location/geocode?q=tower')
  t.equal(slow.statusCode, 504, 'a geocoder that does not answer in time')
  t.ok(Date.now() - started < 3000, 'within the configured timeout')
  const sentBefore = s.nominatim.requests.length
  const known = await s.get('/api/location/geocode?q=bridge')
  t.equal(known.statusCode, 503, 'while it is known down, at once')
  t.equal(known.headers['retry-after'], '30')
  t.same(known.json(), { error: 'Address search is unavailable right now. Please try again in a moment.' })
  t.equal(s.nominatim.requests.length, sentBefore, 'without asking it')
  s.nominatim.fail(null)
  s.clock.advance(30_000)
  t.equal((await s.get('/api/location/geocode?q=bridge')).statusCode, 200, 'after thirty seconds one call tries again')

  const logs = s.rawLogs()
  t.notOk(logs.includes(s.nominatim.url), 'the geocoder URL is in no log line')
  t.notOk(logs.includes('127.0.0.1:' + new URL(s.nominatim.url).port), 'not even its address')
  t.ok(logs.includes('geocoder call failed'), 'the failures are logged')
})

t.test('the engine cannot be asked for the geocoder: the engine\'s fault status, and the location page hides the search', async (t) => {
  const s = await setup(t)
  s.engine.failWith({ status: 500, path: '/api/config/poracleWeb' })
  const res = await s.get('/api/location/geocode?q=baker')
  t.equal(res.statusCode, 502, 'an engine failing with a 500 is a bad gateway')
  t.equal((await s.get('/api/location')).json().geocoder, false)
  s.engine.reset()
  t.equal((await s.get('/api/location/geocode?q=baker')).statusCode, 200, 'an engine fault is not remembered')
})

t.test('the Nominatim fake answers as Nominatim documents format=json', async (t) => {
  const nominatim = await startNominatimFake({ places: PLACES })
  t.teardown(() => nominatim.close())
  const search = await (await fetch(`${nominatim.url}/search?q=tower&format=json&addressdetails=1&limit=5`)).json() as Array<Record<string, unknown>>
  t.ok(Array.isArray(search) && search.length === 1)
  t.match(search[0], { lat: '51.5055', lon: '-0.0754', display_name: PLACES[2]?.name, address: { country_code: 'gb' }, boundingbox: Array })
  const sea = await fetch(`${nominatim.url}/reverse?lat=50&lon=-30&format=json`)
  t.equal(sea.status, 200, 'nothing there is still a 200')
  t.same(await sea.json(), { error: 'Unable to geocode' })
})

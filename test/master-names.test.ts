import t from 'tap'
import { build, bearer, type Test } from './helper.js'
import { startMasterfileFake } from './fakes/masterfile.js'

async function setup (t: Test, options: Parameters<typeof build>[1] = {}) {
  const masterfile = await startMasterfileFake()
  t.teardown(() => masterfile.close())
  const s = await build(t, { ...options, env: { MASTERFILE_URL: masterfile.url, ...options.env } })
  return { ...s, masterfile }
}

t.test('pokemon names come from the engine in the asked locale; a bad locale is English, not a 400', async (t) => {
  const s = await setup(t)
  const de = await s.app.inject({ method: 'GET', url: '/api/masterdata/pokemon?locale=de' })
  t.equal(de.statusCode, 200)
  t.match(de.json(), { 1: 'Bulbasaur', 25: 'Pikachu', 150: 'Mewtwo' })
  t.equal(s.engine.requests.at(-1)?.query.locale, 'de')
  for (const bad of ['not a locale', '<script>', 'x'.repeat(40)]) {
    const res = await s.app.inject({ method: 'GET', url: `/api/masterdata/pokemon?locale=${encodeURIComponent(bad)}` })
    t.equal(res.statusCode, 200, bad)
    t.equal(s.engine.requests.at(-1)?.query.locale, 'en', 'asked in English')
  }
  t.equal(s.masterfile.downloads, 0, 'the master file is not needed while the engine answers')

  s.engine.failWith({ path: '/api/masterdata/monsters', status: 500 })
  const fallback = await s.app.inject({ method: 'GET', url: '/api/masterdata/pokemon?locale=fr' })
  t.same(fallback.json(), { 1: 'Bulbasaur', 25: 'Pikachu' }, 'the master file\'s English names when the engine fails')
})

t.test('move and item names are English from the master file, downloaded once a day, last good copy kept', async (t) => {
  const s = await setup(t)
  const moves = await s.app.inject({ method: 'GET', url: '/api/masterdata/moves?locale=de' })
  t.same(moves.json(), { 13: 'Wrap', 14: 'Hyper Beam' })
  t.equal((await s.app.inject({ method: 'GET', url: '/api/masterdata/items' })).statusCode, 401)
  const items = await s.app.inject({ method: 'GET', url: '/api/masterdata/items', headers: bearer(s.app, { userId: '1' }) })
  t.same(items.json(), { 1: 'Poke Ball', 1301: 'Rare Candy' })
  t.equal(s.masterfile.downloads, 1, 'one download serves every list')

  s.masterfile.status = 503
  s.clock.advance(24 * 3_600_000 + 1)
  t.same((await s.app.inject({ method: 'GET', url: '/api/masterdata/moves' })).json(), { 13: 'Wrap', 14: 'Hyper Beam' }, 'a failed refresh keeps the last copy')
  t.equal(s.masterfile.downloads, 2)
})

t.test('without any copy of the master file the names answer 503', async (t) => {
  const s = await setup(t)
  s.masterfile.status = 404
  const res = await s.app.inject({ method: 'GET', url: '/api/masterdata/moves' })
  t.equal(res.statusCode, 503)
  t.same(res.json(), { error: 'Game data is unavailable right now.' })
})

t.test('the engine\'s message templates come from PoracleNG; PoracleJS answers 501 naming the engine', async (t) => {
  const ng = await build(t)
  t.equal((await ng.app.inject({ method: 'GET', url: '/api/config/dts' })).statusCode, 401, 'for signed-in members only')
  const res = await ng.app.inject({ method: 'GET', url: '/api/config/dts', headers: bearer(ng.app, { userId: '100000000000000003' }) })
  t.equal(res.statusCode, 200)
  t.match(res.json(), [
    { type: 'monster', platform: 'discord', template: { embed: { title: String } } },
    { type: 'monster', platform: 'telegram', template: { content: String } }
  ], 'each template as the engine stores it, per platform')
  const js = await build(t, { engineMode: 'js' })
  const refused = await js.app.inject({ method: 'GET', url: '/api/config/dts', headers: bearer(js.app, { userId: '100000000000000003' }) })
  t.equal(refused.statusCode, 501)
  t.match(refused.json().error, /PoracleJS/)
})

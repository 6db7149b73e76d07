import t from 'tap'
import { siteSettings } from '../db/schema/service.js'
import { build, type Test } from './helper.js'
import { startMasterfileFake } from './fakes/masterfile.js'
import { startUiconsFake } from './fakes/uicons.js'

async function setup (t: Test) {
  const masterfile = await startMasterfileFake()
  t.teardown(() => masterfile.close())
  const icons = await startUiconsFake()
  t.teardown(() => icons.close())
  const s = await build(t, { env: { MASTERFILE_URL: masterfile.url, UICONS_URL: icons.base } })
  const setSetting = async (key: string, value: string) => {
    await s.app.db.db.insert(siteSettings).values({ key, value }).onDuplicateKeyUpdate({ set: { value } })
  }
  return { ...s, masterfile, icons, setSetting }
}

t.test('species and grunts come from the engine, else its last good copy, else the master file; 503 only without any', async (t) => {
  const s = await setup(t)
  const first = await s.app.inject({ method: 'GET', url: '/api/masterdata/monsters?locale=de' })
  t.match(first.json()['2_0'], { name: 'Ivysaur', evolutions: [{ evoId: 3 }] })
  await s.app.inject({ method: 'GET', url: '/api/masterdata/monsters?locale=de' })
  t.equal(s.engine.requests.filter((r) => r.path === '/api/masterdata/monsters').length, 1, 'cached for an hour')

  s.engine.failWith({ status: 500 })
  s.clock.advance(3_600_000 + 1)
  t.match((await s.app.inject({ method: 'GET', url: '/api/masterdata/monsters?locale=de' })).json(), { '150_135': { form: { name: 'Armored' } } }, 'the last good engine copy')
  t.equal(s.masterfile.downloads, 0)

  const english = await s.app.inject({ method: 'GET', url: '/api/masterdata/monsters?locale=fr' })
  t.equal(english.statusCode, 200, 'a locale never read comes from the master file')
  t.same(english.json()['1_163'], { name: 'Bulbasaur', id: 1, form: { id: 163, name: 'Normal' }, types: [{ id: 12, name: 'Grass' }, { id: 4, name: 'Poison' }] })
  t.same(english.json()['25_0'].form, { id: 0, name: '' }, 'a bare form number becomes the engine shape')
  t.match((await s.app.inject({ method: 'GET', url: '/api/masterdata/grunts' })).json(), { 44: { grunt: 'Giovanni' } }, 'grunts from the master file')
  t.same((await s.app.inject({ method: 'GET', url: '/api/masterdata/pokemon?locale=fr' })).json(), { 1: 'Bulbasaur', 25: 'Pikachu' })

  s.masterfile.status = 404
  s.clock.advance(24 * 3_600_000 + 1)
  t.equal((await s.app.inject({ method: 'GET', url: '/api/masterdata/monsters?locale=fr' })).statusCode, 200, 'the master file\'s last good copy')
})

t.test('with neither the engine nor the master file, game data answers 503 with the catalogue message', async (t) => {
  const s = await setup(t)
  s.masterfile.status = 503
  s.engine.failWith({ status: 502, body: 'Bad gateway', contentType: 'text/plain' })
  for (const url of ['/api/masterdata/monsters', '/api/masterdata/grunts', '/api/masterdata/pokemon', '/api/masterdata/moves']) {
    const res = await s.app.inject({ method: 'GET', url })
    t.equal(res.statusCode, 503, url)
    t.same(res.json(), { error: 'Game data is unavailable right now.' }, url)
  }
  t.equal(s.masterfile.downloads, 1, 'one failed download, retried only after a pause')
  t.equal((await s.app.inject({ method: 'GET', url: '/api/masterdata/raid-levels' })).statusCode, 200, 'levels are built in')
})

t.test('max battle levels are their own list, not raid levels and never 9000', async (t) => {
  const s = await setup(t)
  const levels = (await s.app.inject({ method: 'GET', url: '/api/masterdata/max-levels' })).json() as Array<{ value: number, name: string }>
  t.same(levels.map((l) => l.value), [1, 2, 3, 4, 5, 7, 8])
  t.match(levels[5], { value: 7, name: 'Gigantamax Max Battle' })
})

t.test('icon set indexes: read once per set, per folder when the root has none, last good copy, a setting per category', async (t) => {
  const s = await setup(t)
  const pokemon = (await s.app.inject({ method: 'GET', url: '/api/masterdata/icons/pokemon' })).json()
  t.equal(pokemon.base, s.icons.base)
  t.ok(pokemon.files.includes('150_f135.png'))
  t.same((await s.app.inject({ method: 'GET', url: '/api/masterdata/icons/reward' })).json().files.stardust, ['0.png', '1000.png'])
  t.same((await s.app.inject({ method: 'GET', url: '/api/masterdata/icons/raid' })).json().files, { egg: ['1.png', '3.png', '5.png', '6.png', '5_h.png'] })
  t.same((await s.app.inject({ method: 'GET', url: '/api/masterdata/icons/weather' })).json(), { base: s.icons.base, files: null }, 'a folder the set lacks')
  await s.app.inject({ method: 'GET', url: '/api/masterdata/icons/pokemon' })
  t.equal(s.icons.requests.filter((p) => p === '/set/index.json').length, 4, 'one read per folder and hour')

  s.icons.rootIndex = false
  s.clock.advance(3_600_000 + 1)
  t.same((await s.app.inject({ method: 'GET', url: '/api/masterdata/icons/team' })).json().files, ['0.png', '1.png', '2.png', '3.png'], 'from team/index.json')
  t.ok(s.icons.requests.includes('/set/team/index.json'))

  s.icons.down = true
  s.clock.advance(3_600_000 + 1)
  const kept = await s.app.inject({ method: 'GET', url: '/api/masterdata/icons/pokemon' })
  t.equal(kept.statusCode, 200)
  t.ok(kept.json().files.includes('25_s.png'), 'the last good index while the set is down')
  t.same((await s.app.inject({ method: 'GET', url: '/api/masterdata/icons/type' })).json().files, null, 'never read: no index, placeholders')

  await s.setSetting('uicons_type', `${s.icons.origin}/other/`)
  await s.setSetting('uicons_pkmn', 'javascript:alert(1)')
  s.icons.down = false
  s.clock.advance(5 * 60_000 + 1)
  const other = (await s.app.inject({ method: 'GET', url: '/api/masterdata/icons/type' })).json()
  t.same(other, { base: `${s.icons.origin}/other`, files: null }, 'the category\'s own set, which has no index here')
  t.equal((await s.app.inject({ method: 'GET', url: '/api/masterdata/icons/pokemon' })).json().base, s.icons.base, 'an unusable setting is ignored')
  t.equal((await s.app.inject({ method: 'GET', url: '/api/masterdata/icons/nope' })).statusCode, 400)
})

import t from 'tap'
import type { Page } from 'playwright-core'
import { bearer } from './helper.js'
import { insertAlarm } from './fakes/engine-db.js'
import { browserMissing, choosePokemon, PHONE, setMinIv, startBrowserApp, startPokemonAlarm } from './browser.js'

/**
 * The member's alarm pages in a real browser against the whole service and the engine fake: what is
 * typed ends up as the engine's rows, and what the server says ends up where the member looks.
 */
const missing = browserMissing()
if (missing !== undefined) t.fail(missing)
else await alarmTests()

async function alarmTests (): Promise<void> {
  const env = await startBrowserApp(t)
  const { testApp, rows } = env
  const { app } = testApp
  let nextUser = 1000
  const human = (extra: Record<string, unknown> = {}) => ({ id: String(++nextUser), name: `member${nextUser}`, latitude: 51.5, longitude: -0.12, area: ['centre'], ...extra })

  const cards = (page: Page) => page.locator('.alarm-card .alarm-text')
  const save = (page: Page) => page.getByRole('button', { name: 'Save', exact: true }).click()
  // "Create alarms" while the form has no pick yet (a raid by level without a level: the server says why).
  const create = (page: Page) => page.getByRole('button', { name: /^Create (1 alarm|alarms)$/ }).click()
  const openDelivery = (page: Page) => page.getByText('Delivery options', { exact: true }).click()

  t.test('a pokemon alarm is created, edited and deleted (and restored) as engine rows', async (t) => {
    const user = human()
    const page = await env.signIn(t, user, '/alarms/monsters', PHONE)
    await startPokemonAlarm(page, 'pika', 'Pikachu')
    await setMinIv(page, '90')
    await create(page)
    await page.getByText('Pikachu, IV ≥ 90%, in your areas', { exact: true }).waitFor()
    let stored = await rows('monsters', user.id)
    t.equal(stored.length, 1)
    t.match(stored[0], { pokemon_id: 25, form: 0, min_iv: 90, max_iv: 100, max_cp: 9000, max_level: 55, size: -1, max_size: 5, distance: 0 }, 'the spec\'s defaults went with it')

    await page.getByRole('button', { name: /^Edit: Pikachu/ }).click()
    t.equal(await page.getByRole('textbox', { name: 'IV from' }).inputValue(), '90', 'the form opens with the stored values')
    await setMinIv(page, '95')
    await openDelivery(page)
    await page.getByLabel('Within a distance of my location').check()
    await page.getByLabel('Distance', { exact: true }).fill('2000')
    await save(page)
    await page.getByText('Pikachu, IV ≥ 95%, within 2 km', { exact: true }).waitFor()
    stored = await rows('monsters', user.id)
    t.equal(stored.length, 1, 'edited, not added')
    t.match(stored[0], { pokemon_id: 25, min_iv: 95, distance: 2000 })

    await page.getByRole('button', { name: /^Delete: Pikachu/ }).click()
    await page.getByRole('dialog').getByRole('button', { name: 'Delete', exact: true }).click()
    await page.getByText('Alarm deleted.').waitFor()
    await page.getByText('No alarms of this type yet.').waitFor()
    t.same(await rows('monsters', user.id), [], 'the row is gone')
    await page.getByRole('button', { name: 'Undo' }).click()
    await page.getByText('Pikachu, IV ≥ 95%, within 2 km', { exact: true }).waitFor()
    t.match(await rows('monsters', user.id), [{ pokemon_id: 25, min_iv: 95, distance: 2000 }], 'undo writes it back')
  })

  t.test('a raid by level', async (t) => {
    const user = human()
    const page = await env.signIn(t, user, '/alarms/raids')
    await page.getByRole('button', { name: 'Add alarm' }).click()
    t.ok(await page.getByLabel('Raid level').isChecked(), 'a new raid matches by level')
    await page.getByRole('group', { name: 'Level', exact: true }).getByRole('button', { name: '5-Star Raid', exact: true }).click()
    await page.getByLabel('Team').selectOption({ label: 'Valor (red)' })
    await create(page)
    await page.getByText('Raids: 5-Star Raid, Team: Valor (red), in your areas', { exact: true }).waitFor()
    t.match(await rows('raid', user.id), [{ pokemon_id: 9000, level: 5, team: 2, move: 9000, evolution: 9000 }])
  })

  t.test('a stardust quest reads as one sentence, in English and in German', async (t) => {
    const user = human()
    const page = await env.signIn(t, user, '/', PHONE)
    const res = await app.inject({ method: 'POST', url: '/api/quests', headers: bearer(app, { userId: user.id }), payload: { reward_type: 3, reward: 1000 } })
    t.equal(res.statusCode, 201)
    await page.goto('/alarms/quests')
    await page.getByText('Stardust quests of at least 1,000, in your areas', { exact: true }).waitFor()
    await page.evaluate(() => { localStorage.setItem('aw.language', 'de') })
    await page.reload()
    await page.getByText('Sternenstaub-Quests ab 1.000, in deinen Gebieten', { exact: true }).waitFor()
    t.pass('the amount grouped the German way')
  })

  t.test('raid and egg levels are named in the page\'s language, German included', async (t) => {
    const user = human()
    const page = await env.signIn(t, user, '/', PHONE)
    const auth = bearer(app, { userId: user.id })
    for (const [path, level] of [['/api/eggs', 6], ['/api/raids', 5]] as const) {
      t.equal((await app.inject({ method: 'POST', url: path, headers: auth, payload: { level } })).statusCode, 201, path)
    }
    await page.goto('/alarms/eggs')
    await page.getByText('Eggs: Mega Raid, in your areas', { exact: true }).waitFor()
    await page.evaluate(() => { localStorage.setItem('aw.language', 'de') })
    await page.reload()
    await page.getByText('Eier: Mega-Raid, in deinen Gebieten', { exact: true }).waitFor()
    await page.goto('/alarms/raids')
    await page.locator('.alarm-card .alarm-text', { hasText: '5-Sterne-Raid' }).waitFor()
    await page.getByRole('button', { name: 'Alarm hinzufügen' }).click()
    await t.resolves(page.getByRole('button', { name: 'Legendärer Mega-Raid', exact: true }).waitFor(), 'the level picker names the levels in German too')
    t.equal(await page.getByRole('button', { name: 'Mega Legendary Raid' }).count(), 0, 'and not in English')
  })

  t.test('the server\'s 400 details are shown at their field', async (t) => {
    const user = human()
    const page = await env.signIn(t, user, '/alarms/raids')
    await page.getByRole('button', { name: 'Add alarm' }).click()
    // The level is required only for raids by level: a rule the server checks, not the descriptor.
    await create(page)
    const level = page.getByLabel('Level', { exact: true })
    await page.getByText('is required for raids by level (pokemon_id 9000)').waitFor()
    t.equal(await level.getAttribute('aria-invalid'), 'true', 'the field is marked invalid')
    const describedBy = await level.getAttribute('aria-describedby') ?? ''
    const errorId = describedBy.split(' ').find((id) => id.endsWith('-error'))
    t.ok(errorId !== undefined && (await page.locator(`#${errorId}`).textContent())?.includes('is required for raids by level'), 'and the message is read with it')
    t.same(await rows('raid', user.id), [], 'nothing was stored')
  })

  t.test('values outside the range are refused before anything is sent', async (t) => {
    const user = human()
    const page = await env.signIn(t, user, '/alarms/monsters')
    await page.getByRole('button', { name: 'Add alarm' }).click()
    await choosePokemon(page, '150', 'Mewtwo (Armored)')
    await setMinIv(page, '101')
    t.equal(await page.getByRole('textbox', { name: 'IV from' }).inputValue(), '100', 'a slider\'s number is kept inside its span')
    await openDelivery(page)
    await page.getByLabel('Within a distance of my location').check()
    await page.getByLabel('Distance', { exact: true }).fill('40000001')
    const before = testApp.engine.requests.length
    await create(page)
    await page.getByText('Must be between 0 and 40000000.').waitFor()
    t.equal(testApp.engine.requests.filter((r) => r.method !== 'GET').length, testApp.engine.requests.slice(0, before).filter((r) => r.method !== 'GET').length, 'no write reached the engine')
    t.equal(await page.evaluate(() => document.activeElement?.id), 'scope-pokemon-distance', 'the focus moves to the field to correct')
  })

  t.test('an alarm measured from a place of its own names the place', async (t) => {
    const user = human()
    // The engine keeps places (its own commands save them); the row is written as the engine stores it.
    await insertAlarm(app.engineDb.pool, 'pokemon', { id: user.id, pokemon_id: 7, min_iv: 80, distance: 1500, override_location_label: 'Work' })
    const page = await env.signIn(t, user, '/alarms/monsters')
    await page.getByText('Squirtle, IV ≥ 80%, within 1.5 km of Work', { exact: true }).waitFor()
    t.pass('the card says where the distance is measured from')
  })

  t.test('bulk distance on three alarms', async (t) => {
    const user = human()
    const auth = bearer(app, { userId: user.id })
    const page = await env.signIn(t, user, '/')
    for (const pokemonId of [1, 4, 7]) {
      const res = await app.inject({ method: 'POST', url: '/api/monsters', headers: auth, payload: { pokemon_id: pokemonId, min_iv: 80 } })
      t.equal(res.statusCode, 201)
    }
    await page.goto('/alarms/monsters')
    await t.resolves(cards(page).nth(2).waitFor())
    await page.getByRole('button', { name: 'Select', exact: true }).click()
    await page.getByRole('button', { name: 'Select all 3' }).click()
    await page.getByText('3 selected', { exact: true }).waitFor()
    await page.getByRole('button', { name: 'Edit selected' }).click()
    await page.getByLabel('Change Distance').check()
    await page.getByRole('textbox', { name: 'Distance' }).fill('2500')
    await page.getByRole('button', { name: 'Change 3 alarms' }).click()
    await page.getByText('3 changed, 0 already so.').waitFor()
    t.same((await rows('monsters', user.id)).map((r) => r.distance), [2500, 2500, 2500])
    t.same(await cards(page).allTextContents(), ['Bulbasaur, IV ≥ 80%, within 2.5 km', 'Charmander, IV ≥ 80%, within 2.5 km', 'Squirtle, IV ≥ 80%, within 2.5 km'])

    await page.getByRole('button', { name: 'Select none' }).click()
    await page.getByRole('checkbox', { name: /^Select: Charmander/ }).check()
    await page.getByRole('button', { name: 'Delete 1 selected' }).click()
    await page.getByRole('dialog').getByRole('button', { name: 'Delete', exact: true }).click()
    await page.getByText('Alarm deleted.').waitFor()
    t.same((await rows('monsters', user.id)).map((r) => r.pokemon_id), [1, 7], 'bulk delete removes the selection only')
  })

  t.test('the form keeps its values while the engine is down, and saves once it is back', async (t) => {
    const user = human()
    const page = await env.signIn(t, user, '/alarms/monsters')
    await page.getByRole('button', { name: 'Add alarm' }).click()
    await choosePokemon(page, 'magi', 'Magikarp')
    await setMinIv(page, '100')
    testApp.engine.failWith({ drop: true, path: /\/api\/tracking/ })
    t.teardown(() => { testApp.engine.reset() })
    await create(page)
    await page.getByText(/^Not saved: .*Your entries are kept/).waitFor()
    t.equal(await page.getByRole('textbox', { name: 'IV from' }).inputValue(), '100')
    await page.getByRole('button', { name: 'Remove Magikarp' }).waitFor()
    testApp.engine.reset()
    await create(page)
    await page.getByText('Magikarp, IV ≥ 100%, in your areas', { exact: true }).waitFor()
    t.match(await rows('monsters', user.id), [{ pokemon_id: 129, min_iv: 100 }])
  })

  t.test('a double tap on Create sends one create', async (t) => {
    const user = human()
    const page = await env.signIn(t, user, '/alarms/monsters')
    await page.getByRole('button', { name: 'Add alarm' }).click()
    await choosePokemon(page, 'bulb', 'Bulbasaur')
    testApp.engine.delay(300)
    t.teardown(() => { testApp.engine.reset() })
    await page.getByRole('button', { name: 'Create 1 alarm' }).dblclick()
    await page.getByText('Bulbasaur, in your areas', { exact: true }).waitFor()
    testApp.engine.reset()
    t.equal((await rows('monsters', user.id)).length, 1)
  })

  t.test('a type the site switches off leaves the navigation and its page says why', async (t) => {
    const admin = bearer(app, { userId: 'site-admin', isAdmin: true })
    const put = async (value: string) => await app.inject({ method: 'PUT', url: '/api/settings/disable_mons', headers: admin, payload: { value } })
    t.equal((await put('true')).statusCode, 200)
    t.teardown(async () => { await put('false') })
    const user = human()
    const page = await env.signIn(t, user, '/')
    const nav = page.getByRole('navigation', { name: 'Main navigation' })
    await nav.getByRole('link', { name: 'Raids' }).waitFor()
    t.equal(await nav.getByRole('link', { name: 'Pokémon' }).count(), 0, 'no pokemon link')
    await page.goto('/alarms/monsters')
    await page.getByText('This alarm type is turned off by the site\'s administrators').waitFor()
    t.equal(await page.getByRole('button', { name: 'Add alarm' }).count(), 0)
  })
}

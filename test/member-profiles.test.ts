import { mkdirSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import t from 'tap'
import type { Page } from 'playwright-core'
import { insertAlarm, insertProfile } from './fakes/engine-db.js'
import { seedHuman, type Test } from './helper.js'
import { browserMissing, DESKTOP, PHONE, startBrowserApp } from './browser.js'

/** Profiles in a real browser against the whole service and the engine fake. */
const missing = browserMissing()
if (missing !== undefined) t.fail(missing)
else await profileTests()

async function profileTests (): Promise<void> {
  const env = await startBrowserApp(t)
  const { rows } = env
  const pool = env.testApp.app.engineDb.pool
  let nextUser = 3000

  /** A member with two profiles, Home (Pikachu, a location) and Work (Mewtwo, no location yet). */
  async function twoProfiles (): Promise<{ id: string, name: string, latitude: number, longitude: number, area: string[], profileName: string }> {
    const user = { id: String(++nextUser), name: `member${nextUser}`, latitude: 51.5, longitude: -0.12, area: ['centre'], profileName: 'Home' }
    await seedHuman(env.testApp, user)
    await insertProfile(pool, { id: user.id, profileNo: 2, name: 'Work' })
    await insertAlarm(pool, 'pokemon', { id: user.id, profile_no: 1, pokemon_id: 25, min_iv: 90 })
    await insertAlarm(pool, 'pokemon', { id: user.id, profile_no: 2, pokemon_id: 150, min_iv: 100 })
    return user
  }

  /** The member's pages in a new browser profile (the engine already has the member). */
  async function open (test: Test, user: { id: string, name: string }, path: string, viewport = DESKTOP): Promise<Page> {
    return await env.signIn(test, { ...user, seeded: true }, path, viewport)
  }

  t.test('switching profile shows the other profile\'s alarms', async (t) => {
    const user = await twoProfiles()
    const page = await open(t, user, '/alarms/monsters')
    await page.getByText('Pikachu, IV ≥ 90%, in your areas', { exact: true }).waitFor()
    await page.getByLabel('Active profile').selectOption({ label: 'Work' })
    await page.getByText('Mewtwo, IV ≥ 100%, in your areas', { exact: true }).waitFor()
    t.equal(await page.getByText('Pikachu, IV ≥ 90%, in your areas', { exact: true }).count(), 0, 'Home\'s alarm is not shown')
    const [human] = await pool.query('SELECT current_profile_no FROM humans WHERE id = ?', [user.id]) as Array<{ current_profile_no: number }>
    t.equal(human?.current_profile_no, 2, 'the engine switched')
  })

  t.test('duplicating a profile, both kinds, and the overview counts them', async (t) => {
    const user = await twoProfiles()
    const page = await open(t, user, '/profiles')
    const home = page.locator('.profile-card', { has: page.getByRole('heading', { name: 'Home', exact: true }) })
    await home.getByRole('button', { name: 'Duplicate' }).click()
    await home.getByLabel('Name of the copy').fill('Weekend')
    await home.getByRole('button', { name: 'Duplicate' }).last().click()
    await page.getByText('Profile Weekend created as a copy.').waitFor()
    await page.getByRole('heading', { name: 'Weekend', exact: true }).waitFor()
    const [weekend] = await pool.query('SELECT profile_no FROM profiles WHERE id = ? AND name = ?', [user.id, 'Weekend']) as Array<{ profile_no: number }>
    t.ok(weekend !== undefined, 'the engine has the new profile')
    t.match((await rows('monsters', user.id)).filter((r) => r.profile_no === weekend?.profile_no), [{ pokemon_id: 25, min_iv: 90 }], 'with Home\'s alarm')

    await home.getByRole('button', { name: 'Copy alarm by alarm' }).click()
    await home.getByLabel('Name of the copy').fill('Holiday')
    await home.getByRole('button', { name: 'Copy alarm by alarm' }).last().click()
    await page.getByText('Profile Holiday created with 1 alarm.').waitFor()

    const overview = page.getByRole('region', { name: 'All profiles at a glance' })
    for (const name of ['Home', 'Work', 'Weekend', 'Holiday']) {
      await overview.getByRole('rowheader', { name, exact: true }).waitFor()
    }
    const pokemonCounts = await overview.locator('tbody tr').evaluateAll((trs) => trs.map((tr) => `${tr.querySelector('th')?.textContent ?? ''}=${tr.querySelector('td')?.textContent ?? ''}`))
    t.same(pokemonCounts.sort(), ['Holiday=1', 'Home=1', 'Weekend=1', 'Work=1'])
  })

  t.test('rename, active hours, a 0,0 warning, and the last profile cannot be deleted', async (t) => {
    const user = await twoProfiles()
    const page = await open(t, user, '/profiles', PHONE)
    const work = page.locator('.profile-card', { has: page.getByRole('heading', { name: 'Work', exact: true }) })
    await work.getByText(/location is 0, 0/).waitFor()
    await work.getByRole('button', { name: 'Rename' }).click()
    await work.getByLabel('New name').fill('Office')
    await work.getByRole('button', { name: 'Rename' }).last().click()
    await page.getByText('Renamed to Office.').waitFor()
    const office = page.locator('.profile-card', { has: page.getByRole('heading', { name: 'Office', exact: true }) })
    await office.getByRole('button', { name: 'Active hours' }).click()
    await office.getByRole('button', { name: 'Add a time' }).click()
    await office.getByLabel('Day of rule 1').selectOption({ label: 'Friday' })
    await office.getByLabel('Time of rule 1').fill('17:30')
    await office.getByRole('button', { name: 'Save times' }).click()
    await page.getByText('Active hours saved.').waitFor()
    const [stored] = await pool.query('SELECT name, active_hours FROM profiles WHERE id = ? AND profile_no = 2', [user.id]) as Array<{ name: string, active_hours: string }>
    t.equal(stored?.name, 'Office')
    t.same(JSON.parse(stored?.active_hours ?? '[]'), [{ day: 5, hours: 17, mins: 30 }])

    await office.getByRole('button', { name: 'Delete' }).click()
    await office.getByRole('button', { name: 'Yes, delete it' }).click()
    await page.getByText('Office deleted.').waitFor()
    const home = page.locator('.profile-card', { has: page.getByRole('heading', { name: 'Home', exact: true }) })
    t.ok(await home.getByRole('button', { name: 'Delete' }).isDisabled(), 'the last profile cannot be deleted')
    await home.getByText('Your last profile cannot be deleted.').waitFor()
  })

  t.test('a profile exported to a file comes back as a new profile', async (t) => {
    const user = await twoProfiles()
    const page = await open(t, user, '/profiles')
    const home = page.locator('.profile-card', { has: page.getByRole('heading', { name: 'Home', exact: true }) })
    const [download] = await Promise.all([page.waitForEvent('download'), home.getByRole('button', { name: 'Export to a file' }).click()])
    const file = await download.path()
    const exported = JSON.parse(readFileSync(file, 'utf8')) as { profileName: string, alarms: Record<string, unknown[]> }
    t.equal(exported.profileName, 'Home')
    t.match(exported.alarms.pokemon, [{ pokemon_id: 25, min_iv: 90 }])
    await page.getByLabel('Profile file').setInputFiles(file)
    // The name field appears once the file is read, proposing the exported name.
    const importing = page.getByRole('region', { name: 'Import a profile' })
    await t.resolves(importing.getByRole('button', { name: 'Import a profile' }).waitFor())
    t.equal(await importing.getByLabel('Profile name').inputValue(), 'Home')
    await importing.getByLabel('Profile name').fill('Home again')
    await importing.getByRole('button', { name: 'Import a profile' }).click()
    await page.getByText('Profile Home again imported with 1 alarm.').waitFor()
    const [imported] = await pool.query('SELECT profile_no FROM profiles WHERE id = ? AND name = ?', [user.id, 'Home again']) as Array<{ profile_no: number }>
    t.match((await rows('monsters', user.id)).filter((r) => r.profile_no === imported?.profile_no), [{ pokemon_id: 25, min_iv: 90 }])
  })

  // `SCREENSHOTS=1 npx tap test/member-profiles.test.ts` refreshes the pictures in docs/screenshots/.
  if (process.env.SCREENSHOTS === '1') {
    t.test('screenshots', async (t) => {
      const dir = fileURLToPath(new URL('../docs/screenshots/', import.meta.url))
      mkdirSync(dir, { recursive: true })
      const user = await twoProfiles()
      await insertAlarm(pool, 'pokemon', { id: user.id, profile_no: 1, pokemon_id: 150, form: 135, min_iv: 95, distance: 2000 })
      await insertAlarm(pool, 'pokemon', { id: user.id, profile_no: 1, pokemon_id: 129, min_iv: 100, max_cp: 500 })
      for (const [name, viewport] of [['phone', PHONE], ['desktop', DESKTOP]] as const) {
        const page = await open(t, user, '/', viewport)
        await page.getByText('Where your alerts go').waitFor()
        await page.waitForFunction(() => document.querySelector('.spinner') === null)
        await page.screenshot({ path: `${dir}dashboard-${name}.png`, fullPage: true })
        await page.goto('/alarms/monsters')
        await page.locator('.alarm-card').nth(2).waitFor()
        await page.screenshot({ path: `${dir}pokemon-list-${name}.png`, fullPage: true })
        await page.getByRole('button', { name: 'Add alarm' }).click()
        await page.getByRole('searchbox', { name: /^Pokémon/ }).fill('mew')
        await page.getByRole('button', { name: /^Mewtwo #/ }).waitFor()
        await page.screenshot({ path: `${dir}pokemon-form-${name}.png`, fullPage: true })
        await page.goto('/profiles')
        await page.getByRole('region', { name: 'All profiles at a glance' }).getByRole('rowheader', { name: 'Work' }).waitFor()
        await page.evaluate(() => { window.scrollTo(0, 0) })
        await page.screenshot({ path: `${dir}profile-overview-${name}.png`, fullPage: true })
      }
      t.pass('written to docs/screenshots/')
    })
  }
}

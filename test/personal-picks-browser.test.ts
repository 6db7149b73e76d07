import t, { type Test } from 'tap'
import { fileURLToPath } from 'node:url'
import type { Page } from 'playwright-core'
import { readStrings, translations } from '../scripts/i18n-missing.js'
import { axeViolations, browserMissing, choosePokemon, DESKTOP, PHONE, setMinIv, translationSlips } from './browser.js'
import { bearer, seedHuman } from './helper.js'
import { ADMIN, startQuickPicksApp } from './quick-picks-browser-app.js'

/**
 * A member's own quick picks in Chromium on a 360-px phone and a desktop, against the whole service and
 * the engine fake: made in the alarm editor, applied (the alarms appear at the engine), re-applied,
 * removed, edited and deleted after a question in the client's dialog. Refusals stay in the form with the
 * server's words; another member never sees the pick; an admin's refused save says why. axe-core checks
 * each step, and the section reads right in every language. `SCREENSHOTS=1` saves the phone page to docs/screenshots/personal-picks-phone.png.
 */
const OTHER = '333333333333333333'
const CROWDED = '444444444444444444'

const missing = browserMissing()
if (missing !== undefined) t.fail(missing)
else await personalPickTests()

async function personalPickTests (): Promise<void> {
  const { testApp, rows, open: openPage } = await startQuickPicksApp(t)
  const { app } = testApp
  /** The page for a member with a home and an area, so applies have somewhere to deliver. */
  const open = async (test: Test, id: string, viewport = PHONE): Promise<Page> => {
    await seedHuman(testApp, { id, name: `Member ${id.slice(0, 2)}`, latitude: 51.5, longitude: -0.12, area: ['centre'] })
    return await openPage(test, id, { viewport })
  }
  const ownPicks = async (userId: string) =>
    (await app.db.pool.query('SELECT id, name, description, scope, alarm_type AS alarmType, filters_json AS filters FROM quick_pick_definitions WHERE owner_user_id = ? ORDER BY id', [userId]) as Array<Record<string, unknown>>)
      .map((row) => ({ ...row, filters: typeof row.filters === 'string' ? JSON.parse(row.filters) as unknown : row.filters }))

  for (const [label, viewport, member] of [['360 px', PHONE, '111111111111111111'], ['desktop', DESKTOP, '555555555555555555']] as const) {
    t.test(`${label}: a member makes a pick of their own, applies, re-applies and removes it, edits and deletes it`, async (t) => {
      const page = await open(t, member, viewport)
      const mine = page.getByRole('region', { name: 'My picks' })
      await mine.getByText('You have no picks of your own yet.').waitFor()
      t.same(await axeViolations(page), [], `axe: the empty list at ${label}`)

      await mine.getByRole('button', { name: 'Add a pick of my own' }).click()
      const sheet = page.getByRole('dialog', { name: 'Add a pick of your own' })
      await sheet.getByRole('textbox', { name: 'Name' }).fill('Pikachu hunt')
      await sheet.getByRole('textbox', { name: 'Description' }).fill('Good Pikachu nearby')
      t.equal(await sheet.getByRole('textbox', { name: 'Category' }).count(), 0, 'a member\'s pick has no category')
      t.equal(await sheet.getByRole('checkbox', { name: 'Offered to members' }).count(), 0, 'nor is it offered to anyone')
      await choosePokemon(page, 'pika', 'Pikachu')
      await setMinIv(page, '90')
      await sheet.getByText(/IV ≥ 90%/).waitFor()
      t.same(await axeViolations(page), [], `axe: the editor at ${label}`)
      await sheet.getByRole('button', { name: 'Save', exact: true }).click()
      await page.getByRole('status').getByText('Pikachu hunt is saved.').waitFor()
      const [created] = await ownPicks(member)
      t.match(created, { name: 'Pikachu hunt', description: 'Good Pikachu nearby', scope: 'user', alarmType: 'monster', filters: { pokemon_id: 25, min_iv: 90 } }, 'stored as the member\'s own')
      t.equal(await page.getByRole('region', { name: 'Available quick picks' }).getByText('Pikachu hunt').count(), 0, 'not among the site\'s picks')

      await mine.getByRole('button', { name: 'Apply Pikachu hunt' }).click()
      const apply = page.getByRole('dialog', { name: 'Apply Pikachu hunt' })
      await apply.getByRole('button', { name: 'Apply Pikachu hunt' }).click()
      await page.getByRole('status').getByText('Pikachu hunt applied: 1 alarm added.').waitFor()
      const first = await rows('monsters', member)
      t.match(first, [{ pokemon_id: 25, min_iv: 90, clean: 0 }], 'the alarm is at the engine')
      await mine.getByText('Applied · 1 alarm').waitFor()
      if (process.env.SCREENSHOTS === '1' && viewport === PHONE) {
        await mine.scrollIntoViewIfNeeded()
        await page.screenshot({ path: fileURLToPath(new URL('../docs/screenshots/personal-picks-phone.png', import.meta.url)) })
      }

      await mine.getByRole('button', { name: 'Re-apply Pikachu hunt' }).click()
      const reapply = page.getByRole('dialog', { name: 'Apply Pikachu hunt' })
      await reapply.getByRole('checkbox', { name: 'Delete the alerts once they expire' }).check()
      await reapply.getByRole('button', { name: 'Re-apply Pikachu hunt' }).click()
      // The outcome reads as the first apply's did: the sheet closing says this one is done.
      await reapply.waitFor({ state: 'hidden' })
      await page.getByRole('status').getByText('Pikachu hunt applied: 1 alarm added.').waitFor()
      const second = await rows('monsters', member)
      t.match(second, [{ pokemon_id: 25, min_iv: 90, clean: 1 }], 'the re-apply replaced the alarm with its new options')
      t.not(second[0]?.uid, first[0]?.uid, 'a new alarm, not the old one kept')

      await mine.getByRole('button', { name: 'Remove Pikachu hunt' }).click()
      await page.getByRole('status').getByText('Pikachu hunt removed: its alarms are deleted.').waitFor()
      t.same(await rows('monsters', member), [], 'the applied alarm is gone')

      await mine.getByRole('button', { name: 'Edit Pikachu hunt' }).click()
      const edit = page.getByRole('dialog', { name: 'Edit Pikachu hunt' })
      t.equal(await edit.getByRole('textbox', { name: 'Name' }).inputValue(), 'Pikachu hunt', 'the editor opens on the pick')
      t.equal(await edit.getByRole('textbox', { name: 'IV from' }).inputValue(), '90', 'with its alarm')
      await edit.getByRole('textbox', { name: 'Name' }).fill('Perfect Pikachu')
      await setMinIv(page, '100')
      await edit.getByRole('button', { name: 'Save', exact: true }).click()
      await page.getByRole('status').getByText('Perfect Pikachu is saved.').waitFor()
      const edited = await ownPicks(member)
      t.equal(edited.length, 1, 'edited in place, not copied')
      t.match(edited[0], { id: (created as { id: string } | undefined)?.id, name: 'Perfect Pikachu', filters: { pokemon_id: 25, min_iv: 100 } })

      await mine.getByRole('button', { name: 'Delete Perfect Pikachu' }).click()
      const question = page.getByRole('dialog', { name: 'Delete your pick Perfect Pikachu?' })
      await question.getByText('Alarms you already have from it stay.').waitFor()
      t.same(await axeViolations(page), [], `axe: the delete question at ${label}`)
      await question.getByRole('button', { name: 'Cancel' }).click()
      t.equal((await ownPicks(member)).length, 1, 'cancel keeps the pick')
      await mine.getByRole('button', { name: 'Delete Perfect Pikachu' }).click()
      await question.getByRole('button', { name: 'Delete', exact: true }).click()
      await page.getByRole('status').getByText('Perfect Pikachu is deleted.').waitFor()
      await mine.getByText('You have no picks of your own yet.').waitFor()
      t.same(await ownPicks(member), [], 'deleted')
      t.same(await axeViolations(page), [], `axe: the list after the changes at ${label}`)
    })
  }

  t.test('another member never sees a member\'s pick', async (t) => {
    const made = await app.inject({ method: 'POST', url: '/api/quick-picks/user', headers: bearer(app, { userId: ADMIN }), payload: { name: 'Secret spot', alarmType: 'raid', filters: { level: 5 } } })
    t.equal(made.statusCode, 200, 'the admin keeps a pick of their own')
    const page = await open(t, OTHER)
    await page.getByRole('region', { name: 'My picks' }).getByText('You have no picks of your own yet.').waitFor()
    t.equal(await page.getByText('Secret spot').count(), 0, 'nowhere on the page')
  })

  t.test('My picks in each language: no raw key, no unfilled variable, no English fallback', async (t) => {
    const page = await openPage(t, OTHER)
    const mine = page.locator('section[aria-labelledby="my-picks"]')
    for (const language of ['en', ...translations()]) {
      const strings = readStrings(language)
      await page.evaluate((value) => { localStorage.setItem('aw.language', value) }, language)
      await page.goto('/quick-picks')
      await page.waitForFunction((value) => document.documentElement.lang === value, language)
      await mine.getByText(String(strings.get('quickPicks.mine.none')), { exact: true }).waitFor()
      await mine.getByRole('button', { name: String(strings.get('quickPicks.mine.add')) }).click()
      await page.getByRole('dialog', { name: String(strings.get('quickPicks.mine.newTitle')) }).waitFor()
      await page.waitForFunction(() => document.querySelector('.spinner') === null)
      t.same(await translationSlips(page, language), [], `${language}: no raw key, no unfilled variable, no English fallback`)
    }
  })

  t.test('a save the server refuses shows its reason in the editor, which keeps what was entered', async (t) => {
    const values = Array.from({ length: 50 }, (_, i) => [`carla-${i}`, `Carla ${i}`, CROWDED])
    await app.db.pool.query(
      'INSERT INTO quick_pick_definitions (id, name, alarm_type, scope, owner_user_id, filters_json, icon, category, sort_order, enabled, created_at, updated_at) VALUES ' +
      values.map(() => "(?, ?, 'raid', 'user', ?, '{\"level\":5}', 'bolt', 'Common', 0, 1, NOW(), NOW())").join(', '),
      values.flat()
    )
    const page = await open(t, CROWDED)
    const mine = page.getByRole('region', { name: 'My picks' })
    await mine.getByRole('button', { name: 'Add a pick of my own' }).click()
    const sheet = page.getByRole('dialog', { name: 'Add a pick of your own' })
    await sheet.getByRole('textbox', { name: 'Name' }).fill('One too many')
    await choosePokemon(page, 'pika', 'Pikachu')
    await sheet.getByRole('button', { name: 'Save', exact: true }).click()
    await sheet.getByText('You already keep 50 quick picks of your own; delete one first.').waitFor()
    t.equal(await sheet.getByRole('textbox', { name: 'Name' }).inputValue(), 'One too many', 'the name stays')
    t.equal(await sheet.getByRole('button', { name: 'Remove Pikachu' }).count(), 1, 'the chosen pokemon stays')
    t.same(await axeViolations(page), [], 'axe: the refusal at 360 px')
    t.equal((await ownPicks(CROWDED)).length, 50, 'nothing stored')

    // A pick deleted in another tab meanwhile: the edit is refused, not made again.
    await sheet.getByRole('button', { name: 'Close' }).click()
    await mine.getByRole('button', { name: 'Edit Carla 7' }).click()
    const edit = page.getByRole('dialog', { name: 'Edit Carla 7' })
    const removed = await app.inject({ method: 'DELETE', url: '/api/quick-picks/user/carla-7', headers: bearer(app, { userId: CROWDED }) })
    t.equal(removed.statusCode, 204)
    await edit.getByRole('textbox', { name: 'Name' }).fill('Carla seven')
    await edit.getByRole('button', { name: 'Save', exact: true }).click()
    await edit.getByText('Quick pick not found.').waitFor()
    t.equal(await edit.getByRole('textbox', { name: 'Name' }).inputValue(), 'Carla seven', 'the edited name stays')
    t.equal((await ownPicks(CROWDED)).length, 49, 'the deleted pick is not made again')

    // The same for a delete: the question stays open with the server's answer.
    await edit.getByRole('button', { name: 'Close' }).click()
    await mine.getByRole('button', { name: 'Delete Carla 8' }).click()
    const question = page.getByRole('dialog', { name: 'Delete your pick Carla 8?' })
    t.equal((await app.inject({ method: 'DELETE', url: '/api/quick-picks/user/carla-8', headers: bearer(app, { userId: CROWDED }) })).statusCode, 204)
    await question.getByRole('button', { name: 'Delete', exact: true }).click()
    await question.getByRole('alert').getByText('Quick pick not found.').waitFor()
    t.same(await axeViolations(page), [], 'axe: the refused delete at 360 px')
    await question.getByRole('button', { name: 'Cancel' }).click()
    await question.waitFor({ state: 'hidden' })
  })

  t.test('admin quick-pick save failure shows the server\'s error', async (t) => {
    const admin = bearer(app, { userId: ADMIN, isAdmin: true })
    const made = await app.inject({ method: 'POST', url: '/api/quick-picks', headers: admin, payload: { id: 'night-owls', name: 'Night owls', alarmType: 'raid', filters: { level: 5 } } })
    t.equal(made.statusCode, 200, 'a global pick')
    const page = await openPage(t, ADMIN, { isAdmin: true })
    await page.getByRole('region', { name: 'Available quick picks' }).getByRole('button', { name: 'Edit Night owls' }).click()
    const sheet = page.getByRole('dialog', { name: 'Edit Night owls' })
    // Meanwhile another admin deletes it and a member's pick holds the id (made before members' picks had ids of their own).
    t.equal((await app.inject({ method: 'DELETE', url: '/api/quick-picks/night-owls', headers: admin })).statusCode, 204)
    await app.db.pool.query(
      "INSERT INTO quick_pick_definitions (id, name, alarm_type, scope, owner_user_id, filters_json, icon, category, sort_order, enabled, created_at, updated_at) VALUES ('night-owls', 'My owls', 'raid', 'user', ?, '{\"level\":3}', 'bolt', 'Common', 0, 1, NOW(), NOW())",
      [OTHER]
    )
    await sheet.getByRole('textbox', { name: 'Name' }).fill('Night owls, level 5')
    await sheet.getByRole('button', { name: 'Save', exact: true }).click()
    await sheet.getByText('This id belongs to a user\'s own quick pick.').waitFor()
    t.equal(await sheet.getByRole('textbox', { name: 'Name' }).inputValue(), 'Night owls, level 5', 'the form keeps its values')
    t.same(await axeViolations(page), [], 'axe: the admin\'s refusal at 360 px')
    const [row] = await app.db.pool.query('SELECT name, scope, owner_user_id AS owner FROM quick_pick_definitions WHERE id = ?', ['night-owls']) as Array<Record<string, unknown>>
    t.same(row, { name: 'My owls', scope: 'user', owner: OTHER }, 'the member\'s pick is untouched')
  })
}

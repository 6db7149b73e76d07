import t from 'tap'
import { insertAlarm } from './fakes/engine-db.js'
import { DESKTOP, PHONE, axeViolations, browserMissing, choosePokemon, setMinIv, startBrowserApp } from './browser.js'

/**
 * A create refused because the member has that alarm, or one the engine would rewrite with it: the reason
 * is said at the button in words naming the member's alarm, focus moves there (so a screen reader reads
 * it), and where the member's alarm can take the new values, "Update that one instead" does so.
 */
const missing = browserMissing()
if (missing !== undefined) t.fail(missing)
else {
  const env = await startBrowserApp(t)
  const pool = env.testApp.app.engineDb.pool
  let nextUser = 7100
  for (const [label, viewport] of [['360 px', PHONE], ['desktop', DESKTOP]] as const) {
    t.test(`${label}: a create meeting one of the member's alarms says so at the button and can update that one`, async (t) => {
      const user = { id: String(++nextUser), name: `member${nextUser}`, latitude: 51.5, longitude: -0.12, area: ['centre'] }
      const page = await env.signIn(t, user, '/alarms/monsters', viewport)
      const errors: string[] = []
      page.on('console', (message) => { if (message.type() === 'error') errors.push(message.text()) })
      await page.getByText('No alarms of this type yet.').waitFor()
      const uid = await insertAlarm(pool, 'pokemon', { id: user.id, pokemon_id: 25, min_iv: 90 })
      await page.reload()
      await page.getByRole('button', { name: 'Add alarm' }).click()
      await choosePokemon(page, 'pika', 'Pikachu')
      await setMinIv(page, '90')
      await page.getByRole('button', { name: 'Create 1 alarm' }).click()
      const refusal = page.getByRole('alert').locator('.notice')
      await refusal.getByText(/^You already have this alarm: Pikachu.*90/).waitFor()
      const focused = async () => await refusal.evaluate((element) => new Promise<boolean>((resolve) => { requestAnimationFrame(() => { resolve(element === document.activeElement) }) }))
      t.ok(await focused(), 'focus is on the refusal, by the button')
      t.equal(await refusal.getByRole('button', { name: 'Update that one instead' }).count(), 0, 'nothing to update: it is the same alarm')
      t.same(await axeViolations(page), [], 'axe: the refusal in view')

      // The same pokemon and IV within 1 km: the engine would rewrite the member's alarm, so the service refuses.
      const delivery = page.getByRole('dialog').locator('summary', { hasText: 'Delivery options' })
      if (await page.getByRole('radio', { name: 'Within a distance of my location' }).count() === 0) await delivery.click()
      await page.getByRole('radio', { name: 'Within a distance of my location' }).check()
      await page.getByRole('dialog').getByRole('textbox', { name: 'Distance' }).fill('1000')
      await page.getByRole('button', { name: 'Create 1 alarm' }).click()
      await refusal.getByText(/^You already have an alarm like this: Pikachu/).waitFor()
      t.ok(await focused(), 'focus moves to the new refusal')
      const rows = async () => await pool.query('SELECT uid, distance FROM monsters WHERE id = ?', [user.id]) as Array<{ uid: number, distance: number }>
      t.same(await rows(), [{ uid, distance: 0 }], 'the member\'s alarm is untouched by the refused create')
      await refusal.getByRole('button', { name: 'Update that one instead' }).click()
      await page.getByRole('dialog').waitFor({ state: 'detached' })
      const after = await rows()
      t.equal(after.length, 1, 'still one alarm')
      t.equal(after[0]?.distance, 1000, 'the member\'s alarm took the new distance')
      await page.locator('.alarm-card').getByText(/1 km|1,000 m|1000 m/).first().waitFor()
      t.same(errors, [], 'no console error')
    })
  }
}

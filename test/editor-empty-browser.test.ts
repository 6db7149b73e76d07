import t from 'tap'
import { ALARM_KINDS } from '../schemas/alarm-types.js'
import { DESKTOP, PHONE, axeViolations, browserMissing, startBrowserApp } from './browser.js'

/**
 * Every alarm editor opened empty, in Chromium at 360 px and on a desktop: an unfinished alarm (an
 * invasion with no grunt, a raid with no level, a quest with no reward) is not a question for the
 * estimates, so the page sends none the server must refuse, and nothing reaches the console as an error.
 */
const missing = browserMissing()
if (missing !== undefined) t.fail(missing)
else {
  const env = await startBrowserApp(t)
  let nextUser = 7000
  for (const [label, viewport] of [['360 px', PHONE], ['desktop', DESKTOP]] as const) {
    t.test(`${label}: the ten editors opened empty ask no estimate the server refuses and log no error`, async (t) => {
      const user = { id: String(++nextUser), name: `member${nextUser}`, latitude: 51.5, longitude: -0.12, area: ['centre'] }
      const page = await env.signIn(t, user, '/', viewport)
      // The page's clock runs as usual, and moves on at once past the estimate's debounce below.
      await page.clock.install()
      const errors: string[] = []
      const refused: string[] = []
      const answers: Array<Promise<unknown>> = []
      page.on('console', (message) => { if (message.type() === 'error') errors.push(message.text()) })
      page.on('request', (request) => { if (request.method() === 'POST' && new URL(request.url()).pathname === '/api/alarm-estimates') answers.push(request.response()) })
      page.on('response', (response) => { if (response.status() >= 400) refused.push(`${response.status()} ${new URL(response.url()).pathname}`) })
      for (const kind of ALARM_KINDS) {
        await page.goto(`/alarms${kind.path}`)
        await page.getByText('No alarms of this type yet.').waitFor()
        await page.getByRole('button', { name: 'Add alarm' }).click()
        await page.getByRole('dialog').waitFor()
        // Past the estimate's debounce (400 ms): a complete alarm (any lure, every gym) asks now, and its
        // answer is in before the page moves on.
        await page.clock.fastForward(900)
        await Promise.all(answers)
        t.same(await axeViolations(page), [], `axe: the empty ${kind.type} editor`)
      }
      t.same(refused, [], 'no request refused')
      t.same(errors, [], 'no console error')
    })
  }
}

import { readdirSync } from 'node:fs'
import t from 'tap'
import { scriptsLoaded } from '../dev/browser.js'
import { browserMissing, startBrowserApp, testContext } from './browser.js'

/**
 * The sign-in path stays light on a phone: the login page's JavaScript, as a gzip client receives it,
 * is under 120 KB; the words of the pages past sign-in (all of English) come with the signed-in frame,
 * and a signed-in page shows them, not raw keys. The alarm pages' chunks, whose code runs as soon as they
 * load, are marked for eager compilation; the sign-in path's are not.
 */
const BUDGET_BYTES = 120 * 1024
/**
 * What a chunk of the alarm pages may be named: a module of the folders compile-hints.ts marks (Vite names
 * a chunk after its first module), or `alarms`, the chunk of the folder itself.
 */
const ALARM_PAGE_CHUNKS = new Set(['alarms', ...['features/alarms', 'alarm-kit', 'pickers/grid'].flatMap((folder) =>
  readdirSync(new URL(`../client/src/${folder}/`, import.meta.url)).map((file) => file.replace(/\.[^.]+$/, '')))])
const COMPILE_HINT = '//# allFunctionsCalledOnLoad\n'

const missing = browserMissing()
if (missing !== undefined) t.fail(missing)
else await budgetTests()

async function budgetTests (): Promise<void> {
  const env = await startBrowserApp(t)

  t.test('the login page stays under its budget, English past sign-in comes later, only the alarm pages compile eagerly', async (t) => {
    const context = await testContext(env.browser, { baseURL: env.base })
    t.teardown(async () => { await context.close() })
    const page = await context.newPage()
    const seen = new Set<string>()
    const login = await scriptsLoaded(page, async () => {
      await page.goto('/login?loggedout=1')
      await page.getByRole('heading', { name: 'Sign in' }).waitFor()
    }, seen)
    t.ok(login.bytes < BUDGET_BYTES, `login page JavaScript ${(login.bytes / 1024).toFixed(1)} KB gzip in ${login.files.length} files (budget 120 KB)`)
    t.notOk(login.files.some((f) => /\/en-[\w-]+\.js$/.test(f)), 'the whole of English is not on the login page')
    const member = { id: '4001', name: 'member4001', latitude: 51.5, longitude: -0.12, area: ['centre'] }
    const signedIn = await env.signIn(t, member, '/')
    await signedIn.getByRole('link', { name: 'Alarms' }).first().waitFor()
    t.equal(await signedIn.getByText(/^nav\./).count(), 0, 'the signed-in frame shows its words, not keys')

    // Only the alarm pages' own chunks ask V8 to compile every function as they load (client/compile-hints.ts).
    const hinted = async (files: string[]) => {
      const marked: string[] = []
      for (const file of files) if ((await (await signedIn.request.get(file)).text()).startsWith(COMPILE_HINT)) marked.push(file)
      return marked
    }
    t.same(await hinted(login.files), [], 'no script of the sign-in path is compiled eagerly')
    const alarmPage = await scriptsLoaded(signedIn, async () => {
      await signedIn.goto('/alarms/monsters')
      await signedIn.getByRole('heading', { name: 'Pokémon', level: 1 }).waitFor()
    }, seen)
    const marked = await hinted(alarmPage.files)
    t.ok(marked.some((f) => /\/alarms-[\w-]+\.js$/.test(f)), `the alarm list and editor chunk is compiled as it loads (marked: ${marked.join(', ')})`)
    t.same(marked.filter((f) => !ALARM_PAGE_CHUNKS.has(/\/([\w.-]+?)-[\w-]+\.js$/.exec(f)?.[1] ?? '')), [], 'and only the alarm pages\' chunks')
  })
}

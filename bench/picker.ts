/**
 * `npm run bench:picker`: the pokemon grid picker with every species and form of a full game data file
 * (~1,500 tiles) on the throttled phone profile of bench:client (CDP: 4x CPU slowdown, 360 px):
 * - first render: "show the grid" tapped → its first rows of tiles painted (the page has prepared the
 *   catalogue in idle time before, as the alarm page does), the first time on the page and again after
 *   hiding it (as an editor is closed and opened again);
 * - search → result painted ("gen3 & water");
 * - select all visible → every tile's state painted (1,500 keys at once);
 * - scrolling the grid from top to bottom at ~2,400 px/s: frames drawn, frames dropped (over 1.5 frames).
 * Each step is measured inside the page (performance.now from the action until the first frame rendered
 * after the page changed) and printed as the median of RUNS (BENCH_RUNS, default 5) with the fastest and
 * slowest, next to the same steps unthrottled and, throttled, on the same page built without the compile
 * hint (client/compile-hints.ts), in the same run.
 * Also prints the gzip size of the client chunk that holds the pickers. The API is a local stand-in
 * serving generated game data and a generated icon index; the page is the test harness, built with the
 * client's Vite.
 */
import Fastify from 'fastify'
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Browser } from 'playwright-core'
import { launchChromium } from '../dev/browser.js'
import { buildPickerHarness } from '../test/fixtures/picker-harness/build.js'
import { PAGE_TIMING, untilIdle } from './page-timing.js'
import { median, spread } from './stats.js'

const CPU_SLOWDOWN = 4
const RUNS = Number(process.env.BENCH_RUNS ?? 5)
const SPECIES = 1025
const TYPE_NAMES = ['Normal', 'Fighting', 'Flying', 'Poison', 'Ground', 'Rock', 'Bug', 'Ghost', 'Steel', 'Fire', 'Water', 'Grass', 'Electric', 'Psychic', 'Ice', 'Dragon', 'Dark', 'Fairy']
const FORM_NAMES = ['Alola', 'Galarian', 'Hisuian', 'Shadow', 'Costume']

/** A game data file of the engine's shape: every species, and a normal and another form for every other one (~2,000 entries, ~1,500 form tiles). */
function gameData (): Record<string, unknown> {
  const monsters: Record<string, unknown> = {}
  let form = 100
  for (let id = 1; id <= SPECIES; id++) {
    const types = [{ id: (id % 18) + 1, name: TYPE_NAMES[id % 18] }, ...(id % 3 === 0 ? [{ id: ((id + 5) % 18) + 1, name: TYPE_NAMES[(id + 5) % 18] }] : [])]
    const evolutions = id % 3 !== 0 ? [{ evoId: id + 1, id: 0 }] : []
    monsters[`${id}_0`] = { id, name: `Species${id}`, form: { id: 0, name: 'Normal' }, types, evolutions }
    if (id % 2 === 0) {
      monsters[`${id}_${++form}`] = { id, name: `Species${id}`, form: { id: form, name: 'Normal' }, types }
      monsters[`${id}_${++form}`] = { id, name: `Species${id}`, form: { id: form, name: FORM_NAMES[id % FORM_NAMES.length] }, types }
    }
  }
  return monsters
}

const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAgAAAAIAQMAAAD+wSzIAAAABlBMVEX///+/v7+jQ3Y5AAAADklEQVQI12P4AAIU4QMAo/8H/QGVcScAAAAASUVORK5CYII=', 'base64')

async function startStandIn (): Promise<{ base: string, close: () => Promise<void> }> {
  const app = Fastify()
  const monsters = gameData()
  app.get('/api/masterdata/monsters', async () => monsters)
  app.get('/api/pokemon-availability', async () => ({ enabled: true, available: Array.from({ length: 200 }, (_, i) => i * 5 + 1) }))
  app.get('/api/masterdata/icons/:category', async (request) => {
    const { category } = request.params as { category: string }
    const base = `http://${request.headers.host ?? ''}/set`
    if (category !== 'pokemon') return { base, files: null }
    return { base, files: ['0.png', ...Object.keys(monsters).map((key) => key.endsWith('_0') ? `${key.slice(0, -2)}.png` : `${key.replace('_', '_f')}.png`)] }
  })
  app.get('/set/*', async (_request, reply) => await reply.type('image/png').header('cache-control', 'max-age=3600').send(PNG))
  ;(await buildPickerHarness())(app)
  ;(await buildPickerHarness({ compileHints: false }))(app)
  const address = await app.listen({ host: '127.0.0.1', port: 0 })
  return { base: address, close: async () => { await app.close() } }
}

interface Run { firstRender: number, againRender: number, search: number, selectVisible: number, frames: number, dropped: number, tiles: number }

async function measure (browser: Browser, base: string, throttled: boolean, harnessPath = '/harness/'): Promise<Run> {
  const context = await browser.newContext({ viewport: { width: 360, height: 740 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true })
  try {
    const page = await context.newPage()
    if (throttled) await (await context.newCDPSession(page)).send('Emulation.setCPUThrottlingRate', { rate: CPU_SLOWDOWN })
    await page.goto(`${base}${harnessPath}index.html?defer`)
    // Offered once the page has read the game data; the page then prepares the grid's catalogue in idle
    // time, as the alarm list does before its editor opens. The tap waits for that idle time (an idle
    // callback queued now runs after the page's), so the timing below is the grid alone, every run: with
    // the tap racing the idle build, about one run in two also timed the catalogue.
    await page.getByRole('button', { name: 'Show the grid' }).waitFor()
    await untilIdle(page)
    const openGrid = async (): Promise<number> => await page.evaluate(`(async () => {${PAGE_TIMING}
      const start = performance.now()
      const shown = changed(() => document.querySelector('[data-testid=pokemon-grid] .tile') !== null)
      ;[...document.querySelectorAll('button')].find((b) => b.textContent === 'Show the grid').click()
      await shown
      await rendered()
      return performance.now() - start
    })()`) as number
    const firstRender = await openGrid()
    // Closed and opened again, as a member closes the editor and adds another alarm: the page has drawn
    // the grid once (its fonts, its text and the code that draws it are ready), the picker has not.
    await page.getByRole('button', { name: 'Hide the grid' }).click()
    await page.getByRole('button', { name: 'Show the grid' }).waitFor()
    await untilIdle(page)
    const againRender = await openGrid()
    await page.getByRole('switch', { name: 'All forms' }).uncheck()
    await page.getByText(/^Showing \d+ \/ \d+$/).waitFor()
    const tiles = Number((await page.getByText(/^Showing \d+ \/ \d+$/).textContent())?.split('/')[1])
    const search = await page.evaluate(`(async () => {${PAGE_TIMING}
      const box = document.querySelector('input[type=search]')
      const status = [...document.querySelectorAll('[role=status]')].find((e) => e.textContent.startsWith('Showing'))
      const before = status.textContent
      const start = performance.now()
      const shown = changed(() => status.textContent !== before)
      Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value').set.call(box, 'gen3 & water')
      box.dispatchEvent(new Event('input', { bubbles: true }))
      await shown
      await rendered()
      return performance.now() - start
    })()`) as number
    await page.getByRole('searchbox').fill('')
    await page.getByText(`Showing ${tiles} / ${tiles}`).waitFor()
    const selectVisible = await page.evaluate(`(async () => {${PAGE_TIMING}
      const output = document.querySelector('[data-testid=chosen-pokemon]')
      const button = [...document.querySelectorAll('button')].find((b) => b.textContent.startsWith('Select all'))
      const start = performance.now()
      const shown = changed(() => output.textContent !== '')
      button.click()
      await shown
      await rendered()
      return performance.now() - start
    })()`) as number
    const scroll = await page.evaluate(`(async () => {
      const grid = document.querySelector('[data-testid=pokemon-grid]')
      let frames = 0, dropped = 0, last = performance.now()
      const end = last + 3000
      await new Promise((resolve) => {
        const step = (now) => {
          const gap = now - last
          last = now
          frames++
          if (gap > 1000 / 60 * 1.5) dropped++
          grid.scrollTop += 40
          if (now < end && grid.scrollTop + grid.clientHeight < grid.scrollHeight) requestAnimationFrame(step)
          else resolve()
        }
        requestAnimationFrame(step)
      })
      return { frames, dropped }
    })()`) as { frames: number, dropped: number }
    return { firstRender, againRender, search, selectVisible, frames: scroll.frames, dropped: scroll.dropped, tiles }
  } finally {
    await context.close()
  }
}

/** The client chunk holding the pickers (the alarm pages' chunk), as sent gzip-compressed. */
function pickerChunk (): string {
  const assets = fileURLToPath(new URL('../client/dist/assets/', import.meta.url))
  if (!existsSync(assets)) return 'client not built (npm run build:client)'
  const found = readdirSync(assets).filter((name) => name.endsWith('.js') && readFileSync(join(assets, name), 'utf8').includes('grid-picker-scroll'))
  return found.map((name) => {
    const file = join(assets, name)
    const gz = existsSync(`${file}.gz`) ? statSync(`${file}.gz`).size : Number.NaN
    return `${name} ${(gz / 1024).toFixed(1)} KB gzip (${(statSync(file).size / 1024).toFixed(1)} KB raw)`
  }).join('; ')
}

const standIn = await startStandIn()
const browser = await launchChromium()
try {
  const plain: Run[] = []
  const phone: Run[] = []
  const phoneLazy: Run[] = []
  for (let i = 0; i < RUNS; i++) {
    plain.push(await measure(browser, standIn.base, false))
    phone.push(await measure(browser, standIn.base, true))
    phoneLazy.push(await measure(browser, standIn.base, true, '/harness-lazy/'))
  }
  const at = (runs: Run[], key: 'firstRender' | 'againRender' | 'search' | 'selectVisible'): number => median(runs.map((r) => r[key]))
  const show = (runs: Run[]): string => {
    const step = (key: 'firstRender' | 'againRender' | 'search' | 'selectVisible'): string => `${at(runs, key).toFixed(0)} ms [${spread(runs.map((r) => r[key]))}]`
    return `first render ${step('firstRender')} (opened again ${step('againRender')}), search ${step('search')}, ` +
      `select all visible ${step('selectVisible')}, scrolling ${median(runs.map((r) => r.frames))} frames with ${median(runs.map((r) => r.dropped))} dropped [${spread(runs.map((r) => r.dropped))}]`
  }
  console.log(`pokemon grid, ${phone[0]?.tiles ?? 0} tiles, median of ${RUNS} [fastest–slowest]:`)
  console.log(`  unthrottled:    ${show(plain)}`)
  console.log(`  throttled phone (${CPU_SLOWDOWN}x CPU): ${show(phone)}`)
  console.log(`  the same page without the compile hint (client/compile-hints.ts), throttled: ${show(phoneLazy)}`)
  console.log(`  ratio with/without the hint, throttled: first render ${(at(phone, 'firstRender') / at(phoneLazy, 'firstRender')).toFixed(2)}x, ` +
    `search ${(at(phone, 'search') / at(phoneLazy, 'search')).toFixed(2)}x, select all visible ${(at(phone, 'selectVisible') / at(phoneLazy, 'selectVisible')).toFixed(2)}x`)
  console.log(`  ratio throttled/unthrottled (first render): ${(at(phone, 'firstRender') / at(plain, 'firstRender')).toFixed(1)}x`)
  console.log(`picker chunk: ${pickerChunk()}`)
} finally {
  await browser.close()
  await standIn.close()
}

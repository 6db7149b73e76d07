import { mkdirSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import { deflateSync } from 'node:zlib'
import t from 'tap'
import type { Browser, Page } from 'playwright-core'
import { axeViolations, browserMissing, choosePokemon, launchChromium, setMinIv, testContext } from './browser.js'
import { build, bearer, seedHuman, type Test, type TestApp } from './helper.js'
import { startKojiFake } from './fakes/koji.js'

/**
 * The map and administration pages of the built client in Debian's Chromium, against the whole app
 * (real databases, the engine and Koji fakes) and a tile server stand-in on a local port.
 * With SCREENSHOT_DIR set, the areas map, the geofence editor and the users page are saved there.
 */

const MEMBER = '111111111111111111'
const ADMIN = '222222222222222222'
/** Two squares side by side (their centres are inside them, so a click on a path's middle hits it). */
const TOWN: Array<[number, number]> = [[51.50, -0.12], [51.50, -0.10], [51.51, -0.10], [51.51, -0.12]]
const HARBOUR: Array<[number, number]> = [[51.50, -0.09], [51.50, -0.07], [51.51, -0.07], [51.51, -0.09]]

// Seven whole-site runs in a browser: more than the suite's per-file 120 s when the machine is busy.
t.setTimeout(360_000)

const missing = browserMissing()
if (missing !== undefined) t.fail(missing)
else await browserTests()

/** A 256×256 PNG tile: a light ground with a darker grid line, enough to see that tiles are drawn. */
function tilePng (): Buffer {
  const size = 256
  const rows: Buffer[] = []
  for (let y = 0; y < size; y++) {
    const row = Buffer.alloc(1 + size * 3)
    for (let x = 0; x < size; x++) {
      const line = x % 64 === 0 || y % 64 === 0
      row.fill(line ? 0xc8 : 0xec, 1 + x * 3, 4 + x * 3)
    }
    rows.push(row)
  }
  const chunk = (type: string, data: Buffer): Buffer => {
    const length = Buffer.alloc(4)
    length.writeUInt32BE(data.length)
    const body = Buffer.concat([Buffer.from(type), data])
    const crc = Buffer.alloc(4)
    crc.writeUInt32BE(crc32(body))
    return Buffer.concat([length, body, crc])
  }
  const header = Buffer.alloc(13)
  header.writeUInt32BE(size, 0)
  header.writeUInt32BE(size, 4)
  header.set([8, 2, 0, 0, 0], 8)
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', header), chunk('IDAT', deflateSync(Buffer.concat(rows))), chunk('IEND', Buffer.alloc(0))])
}

function crc32 (data: Buffer): number {
  let crc = 0xffffffff
  for (const byte of data) {
    crc ^= byte
    for (let k = 0; k < 8; k++) crc = (crc >>> 1) ^ (0xedb88320 & -(crc & 1))
  }
  return (crc ^ 0xffffffff) >>> 0
}

/** The tile server stand-in: `/{z}/{x}/{y}.png` answers a tile, and counts what it served. */
async function startTileServer (): Promise<{ server: Server, url: string, served: () => number }> {
  const png = tilePng()
  let served = 0
  const server = createServer((request, response) => {
    if (/^\/\d+\/\d+\/\d+\.png$/.test(request.url ?? '')) {
      served += 1
      response.writeHead(200, { 'content-type': 'image/png' }).end(png)
    } else {
      response.writeHead(404).end()
    }
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const address = server.address()
  const port = typeof address === 'object' && address !== null ? address.port : 0
  return { server, url: `http://127.0.0.1:${port}/{z}/{x}/{y}.png`, served: () => served }
}

async function browserTests (): Promise<void> {
  const tiles = await startTileServer()
  const browser: Browser = await launchChromium()
  t.teardown(async () => {
    await browser.close()
    tiles.server.close()
  })
  const screenshots = process.env.SCREENSHOT_DIR
  if (screenshots !== undefined) mkdirSync(screenshots, { recursive: true })
  /** A full-page picture from the top, so the sticky top bar is where a visitor sees it. */
  async function snap (page: Page, name: string): Promise<void> {
    if (screenshots === undefined) return
    await page.evaluate(() => { window.scrollTo(0, 0) })
    await page.screenshot({ path: `${screenshots}/${name}.png`, fullPage: true })
  }

  interface Site extends TestApp { base: string }

  async function site (test: Test, env: Record<string, string> = {}): Promise<Site> {
    const koji = await startKojiFake({ fences: [] })
    test.teardown(() => koji.close())
    const s = await build(test, {
      env: { KOJI_API_ADDRESS: koji.url, KOJI_BEARER_TOKEN: koji.token, KOJI_PROJECT_NAME: 'poracle', KOJI_PROJECT_ID: '1', PORACLE_ADMIN_IDS: ADMIN, MAP_TILE_URL: tiles.url, ...env }
    })
    s.engine.set({ fences: [{ name: 'Town', group: 'North', path: TOWN }, { name: 'Harbour', group: 'South', path: HARBOUR }] })
    await seedHuman(s, { id: MEMBER, name: 'Bob', latitude: 51.505, longitude: -0.1 })
    await seedHuman(s, { id: ADMIN, name: 'Alice' })
    await s.app.listen({ host: '127.0.0.1', port: 0 })
    const address = s.app.server.address()
    return Object.assign(s, { base: `http://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}` })
  }

  /** A fresh browser profile signed in as `userId` (tokens in storage, as a sign-in leaves them). */
  async function signedIn (test: Test, s: Site, userId: string, isAdmin = false): Promise<{ page: Page, scripts: string[] }> {
    const context = await testContext(browser, { baseURL: s.base, viewport: { width: 390, height: 844 } })
    test.teardown(async () => { await context.close() })
    const page = await context.newPage()
    const scripts: string[] = []
    page.on('request', (request) => { if (request.resourceType() === 'script') scripts.push(request.url()) })
    page.on('dialog', (dialog) => { dialog.accept().catch(() => undefined) })
    const token = bearer(s.app, { userId, isAdmin }).authorization.replace('Bearer ', '')
    await page.goto('/login?loggedout=1')
    await page.evaluate((jwt) => { localStorage.setItem('aw.token', jwt); localStorage.setItem('aw.signIn', 'discord') }, token)
    return { page, scripts }
  }

  async function engineAreas (s: Site, userId: string): Promise<string[]> {
    const [row] = await s.app.engineDb.pool.query('SELECT area FROM humans WHERE id = ?', [userId]) as Array<{ area: string }>
    return JSON.parse(row?.area ?? '[]') as string[]
  }

  const isMapCode = (url: string): boolean => /\/assets\/(MapView|leaflet)[^/]*\.js$/i.test(url)

  t.test('areas: tapping a polygon selects it in the engine, the answer is shown, the list agrees; map code only here', async (t) => {
    const s = await site(t)
    const { page, scripts } = await signedIn(t, s, MEMBER)
    await page.goto('/')
    await page.getByRole('heading', { level: 1 }).waitFor()
    t.notOk(scripts.some(isMapCode), 'the home page loads no map code')

    await page.goto('/areas')
    await page.locator('path[data-area="town"]').waitFor()
    t.ok(scripts.some(isMapCode), 'the areas page loads the map chunk')
    await page.locator('path[data-area="town"]').click()
    await page.getByText('Saved. The alarm engine now has: town.').waitFor()
    t.same(await engineAreas(s, MEMBER), ['town'], 'the tap reached the engine database')
    t.ok(await page.getByRole('checkbox', { name: 'Town' }).isChecked(), 'the list shows it selected')
    await page.locator('path.area-selected[data-area="town"]').waitFor()
    t.ok(tiles.served() > 0, 'tiles came from the configured tile server')

    await page.getByLabel('Search areas').fill('harb')
    t.equal(await page.getByRole('checkbox').count(), 1, 'the search narrows the list')
    await page.getByRole('checkbox', { name: 'Harbour' }).click()
    await page.getByText('Saved. The alarm engine now has: town, harbour.').waitFor()
    t.same(await engineAreas(s, MEMBER), ['town', 'harbour'])
    await page.getByLabel('Search areas').fill('')

    t.same(await axeViolations(page), [], 'axe-core finds nothing on the areas page')
    await snap(page, 'areas-map')
  })

  t.test('dashboard: the pin and the chosen areas on a map, loaded only when asked', async (t) => {
    const s = await site(t)
    await s.app.inject({ method: 'PUT', url: '/api/areas', headers: bearer(s.app, { userId: MEMBER }), payload: { areas: ['Town'] } })
    const { page, scripts } = await signedIn(t, s, MEMBER)
    await page.goto('/')
    const show = page.getByRole('button', { name: 'Show on a map' })
    await show.waitFor()
    t.notOk(scripts.some(isMapCode), 'no map code until the member asks for the map')
    await show.click()
    const map = page.getByRole('region', { name: 'Map of your location and areas' })
    await map.locator('path[data-area="town"]').waitFor()
    await map.locator('path.coverage-pin').waitFor()
    t.equal(await map.locator('path[data-area="harbour"]').count(), 0, 'only the profile\'s areas are drawn')
    t.ok(scripts.some(isMapCode), 'the map chunk came on demand')
    t.same(await axeViolations(page), [], 'axe-core finds nothing with the map open')
    await snap(page, 'dashboard-map')
    await page.getByRole('button', { name: 'Hide the map' }).click()
    t.equal(await map.count(), 0, 'hidden again')
  })

  t.test('areas: unreachable tiles leave the list working and say so', async (t) => {
    const s = await site(t, { MAP_TILE_URL: 'http://127.0.0.1:9/{z}/{x}/{y}.png' })
    const { page } = await signedIn(t, s, MEMBER)
    await page.goto('/areas')
    await page.getByText(/map pictures cannot be loaded/).waitFor()
    await page.getByRole('checkbox', { name: 'Town' }).click()
    await page.getByText('Saved. The alarm engine now has: town.').waitFor()
    t.same(await engineAreas(s, MEMBER), ['town'])
  })

  t.test('geofences: draw a triangle, turn its alerts off and on, and it is in the geofence feed', async (t) => {
    const s = await site(t)
    const { page } = await signedIn(t, s, MEMBER)
    await page.goto('/geofences')
    await page.getByText('0 of 10 geofences used.').waitFor()
    await page.getByRole('button', { name: 'Draw a new geofence' }).click()
    const box = await page.locator('.map').boundingBox()
    if (box === null) throw new Error('no map on the page')
    for (const [dx, dy] of [[0.3, 0.3], [0.7, 0.3], [0.5, 0.7]] as const) {
      await page.mouse.click(box.x + box.width * dx, box.y + box.height * dy)
    }
    await page.getByText('3 corners so far', { exact: false }).waitFor()
    await page.getByLabel('Name').fill('Triangle')
    await page.getByRole('button', { name: 'Save geofence' }).click()
    await page.getByText('1 of 10 geofences used.').waitFor()
    await page.getByRole('button', { name: 'Stop alerts for Triangle' }).click()
    await page.getByRole('button', { name: 'Get alerts for Triangle' }).click()
    await page.getByRole('button', { name: 'Stop alerts for Triangle' }).waitFor()
    const fences = await s.app.userGeofences.list(MEMBER)
    t.equal(fences.length, 1, 'one fence was saved')
    const name = `triangle ~u${fences[0]?.id ?? 0}`
    t.equal(fences[0]?.kojiName, name, 'its engine name is the display name in lower case in the member namespace')
    t.same(await engineAreas(s, MEMBER), [name], 'active: in the engine\'s areas')

    const feed = (await s.app.inject({ method: 'GET', url: '/api/geofence-feed' })).json() as { data: Array<{ name: string, path: number[][] }> }
    const fence = feed.data.find((f) => f.name === name)
    t.equal(fence?.path.length, 3, 'the feed serves the drawn triangle')

    t.same(await axeViolations(page), [], 'axe-core finds nothing on the geofence page')
    await snap(page, 'geofence-editor')
  })

  t.test('geofences: a GeoJSON file with one bad feature is refused, naming the feature and why', async (t) => {
    const s = await site(t)
    const { page } = await signedIn(t, s, MEMBER)
    await page.goto('/geofences')
    await page.getByText('0 of 10 geofences used.').waitFor()
    const file = {
      type: 'FeatureCollection',
      features: [
        { type: 'Feature', properties: { name: 'Good Park' }, geometry: { type: 'Polygon', coordinates: [[[-0.1, 51.5], [-0.09, 51.5], [-0.09, 51.51], [-0.1, 51.5]]] } },
        { type: 'Feature', properties: { name: 'Bent Line' }, geometry: { type: 'LineString', coordinates: [[-0.1, 51.5], [-0.09, 51.5]] } }
      ]
    }
    await page.getByLabel('Import a GeoJSON file').setInputFiles({ name: 'fences.geojson', mimeType: 'application/geo+json', buffer: Buffer.from(JSON.stringify(file)) })
    const alert = page.getByRole('alert').filter({ hasText: 'Bent Line' })
    await alert.waitFor()
    t.match(await alert.textContent(), /Bent Line: geometry must be a Polygon \(got LineString\)/)
    t.equal(Number(((await s.app.db.pool.query('SELECT COUNT(*) AS n FROM user_geofences')) as Array<{ n: number }>)[0]?.n), 0, 'nothing was created')
  })

  t.test('admin: blocking a user says their sessions end; their next action lands on the login page', async (t) => {
    const s = await site(t)
    const member = await signedIn(t, s, MEMBER)
    await member.page.goto('/')
    await member.page.getByRole('heading', { level: 1 }).waitFor()

    const admin = await signedIn(t, s, ADMIN, true)
    await admin.page.goto('/admin/users')
    await admin.page.getByRole('button', { name: 'Block Bob' }).click()
    await admin.page.getByText('Bob is blocked. Their sessions are revoked').waitFor()
    await admin.page.getByRole('button', { name: 'Unblock Bob' }).waitFor()
    t.notOk(admin.scripts.some(isMapCode), 'the users page loads no map code')
    t.same(await axeViolations(admin.page), [], 'axe-core finds nothing on the users page')
    await snap(admin.page, 'admin-users')
    const pager = admin.page.getByRole('navigation', { name: 'Pages' })
    t.equal(await pager.getByText('Page 1 of 1').count(), 1, 'the pager reads its position out in words')
    for (const width of [360, 320]) {
      await admin.page.setViewportSize({ width, height: 844 })
      const middles = await pager.evaluate((nav) => [...nav.children].map((el) => el.getBoundingClientRect().top + el.getBoundingClientRect().height / 2))
      t.ok(middles.length === 3 && Math.max(...middles) - Math.min(...middles) < 2, `at ${width} px previous, position and next share one row`)
      t.ok(await admin.page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), `at ${width} px nothing scrolls sideways`)
    }
    t.ok(await pager.getByRole('button', { name: 'Previous' }).isDisabled(), 'previous is named and off on the first page')
    t.ok(await pager.getByRole('button', { name: 'Next' }).isDisabled(), 'next is named and off on the last page')

    // The areas page sends several requests at once; each is refused, and the page leaves for the login page once.
    const loginLoads: string[] = []
    member.page.on('request', (request) => { if (request.isNavigationRequest() && new URL(request.url()).pathname === '/login') loginLoads.push(request.url()) })
    await member.page.getByRole('button', { name: 'Menu', exact: true }).click()
    await member.page.getByRole('link', { name: 'Areas' }).click()
    await member.page.waitForURL(/\/login/)
    await member.page.getByText('This account has been blocked by an administrator.').waitFor()
    t.equal(loginLoads.length, 1, 'one navigation to the login page')
    t.equal(await member.page.evaluate(() => localStorage.getItem('aw.token')), null, 'the session is gone from the browser')
  })

  t.test('admin: a submitted geofence is approved on the review map and becomes an area', async (t) => {
    const s = await site(t)
    const member = bearer(s.app, { userId: MEMBER })
    const created = await s.app.inject({ method: 'POST', url: '/api/geofences/custom', headers: member, payload: { displayName: 'Dog Park', polygon: [[51.5, -0.1], [51.5, -0.09], [51.51, -0.09]] } })
    t.equal(created.statusCode, 201)
    const id = (created.json() as { id: number }).id
    t.equal((await s.app.inject({ method: 'POST', url: `/api/geofences/custom/${id}/submit`, headers: member })).statusCode, 200)

    const admin = await signedIn(t, s, ADMIN, true)
    await admin.page.goto('/admin/geofences')
    await admin.page.getByRole('button', { name: 'Approve Dog Park' }).click()
    await admin.page.getByText('Dog Park is approved').waitFor()
    await admin.page.getByText('No geofences are waiting for review.').waitFor()
    const [row] = await s.app.db.pool.query('SELECT status, reviewed_by FROM user_geofences WHERE id = ?', [id]) as Array<{ status: string, reviewed_by: string }>
    t.same(row, { status: 'approved', reviewed_by: ADMIN })

    const mine = await signedIn(t, s, MEMBER)
    await mine.page.goto('/geofences')
    await mine.page.getByText('Approved as the public area dog park.').waitFor()
  })

  t.test('quick picks: an admin defines a global pick; a member applies it (alarms in the engine) and removes it', async (t) => {
    const s = await site(t)
    const admin = await signedIn(t, s, ADMIN, true)
    await admin.page.goto('/quick-picks')
    // The pick's alarm is made in the alarm editor members use.
    await admin.page.getByRole('button', { name: 'Add a quick pick' }).click()
    const editor = admin.page.getByRole('dialog')
    await editor.getByRole('textbox', { name: 'Name' }).fill('Perfect Pikachu')
    await choosePokemon(admin.page, 'pika', 'Pikachu')
    await setMinIv(admin.page, '100')
    await editor.getByRole('button', { name: 'Save', exact: true }).click()
    await admin.page.getByRole('button', { name: 'Apply Perfect Pikachu' }).waitFor()

    const monsters = async (): Promise<Array<{ pokemon_id: number, min_iv: number }>> =>
      await s.app.engineDb.pool.query('SELECT pokemon_id, min_iv FROM monsters WHERE id = ?', [MEMBER]) as Array<{ pokemon_id: number, min_iv: number }>
    const member = await signedIn(t, s, MEMBER)
    await member.page.goto('/quick-picks')
    await member.page.getByRole('button', { name: 'Apply Perfect Pikachu' }).click()
    await member.page.getByRole('dialog').getByRole('button', { name: 'Apply Perfect Pikachu' }).click()
    await member.page.getByText('Perfect Pikachu applied: 1 alarm added.').waitFor()
    t.same(await monsters(), [{ pokemon_id: 25, min_iv: 100 }], 'the alarm is in the engine database')
    t.same(await axeViolations(member.page), [], 'axe-core finds nothing on the quick picks page')
    await member.page.getByRole('button', { name: 'Remove Perfect Pikachu' }).click()
    await member.page.getByText('Perfect Pikachu removed').waitFor()
    t.same(await monsters(), [], 'removing deletes exactly that alarm')
  })
}

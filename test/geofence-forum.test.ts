import t from 'tap'
import { build, bearer, seedHuman, ENGINE_SECRET, type Test, type TestApp } from './helper.js'
import { startKojiFake, type KojiFake } from './fakes/koji.js'
import { startChatPlatformFake, type ChatChannel, type ChatPlatformFake } from './fakes/chat-platform.js'
import { MAP_PNG } from './fakes/alarm-engine.js'
import { FORUM_TAGS } from '../plugins/domain/geofence-forum.js'
import { downloadMapImage } from '../plugins/data/engine/map-image.js'

// The map download's limit in the test that waits it out (15 s by default, as the shutdown test keeps).
const MAP_LIMIT_MS = 1500
const OWNER = '666666666666666666'
const OTHER = '777777777777777777'
const ADMIN = '888888888888888888'
const FORUM_ID = '1200000000000000001'
const TRIANGLE = [[52, 1], [52, 1.1], [52.1, 1.1]]
const REVIEW_PAGE = 'https://alarms.example.org/admin/geofences'

interface Setup extends TestApp {
  koji: KojiFake
  chat: ChatPlatformFake
  forum: ChatChannel
}

async function setup (t: Test, env: Record<string, string> = {}, engineMode: 'ng' | 'js' = 'ng'): Promise<Setup> {
  const koji = await startKojiFake({ fences: [] })
  t.teardown(() => koji.close())
  const chat = await startChatPlatformFake()
  t.teardown(() => chat.close())
  // A tag the forum already has stays, with its id.
  const forum = chat.addForum(FORUM_ID, [{ name: 'Announcements' }])
  const s = await build(t, {
    logLevel: 'warn',
    engineMode,
    env: {
      KOJI_API_ADDRESS: koji.url,
      KOJI_BEARER_TOKEN: koji.token,
      KOJI_PROJECT_NAME: 'poracle',
      KOJI_PROJECT_ID: '1',
      DISCORD_API_URL: chat.url,
      DISCORD_BOT_TOKEN: chat.botToken,
      DISCORD_GEOFENCE_FORUM_CHANNEL_ID: FORUM_ID,
      PUBLIC_URL: 'https://alarms.example.org',
      ...env
    }
  })
  await seedHuman(s, { id: OWNER, name: 'Olive @everyone', type: 'discord:user' })
  await seedHuman(s, { id: OTHER, type: 'telegram:user', name: 'Tom' })
  await seedHuman(s, { id: ADMIN })
  return Object.assign(s, { koji, chat, forum })
}

const as = (s: Setup, userId: string) => bearer(s.app, { userId, isAdmin: userId === ADMIN })

async function createFence (s: Setup, displayName: string, owner = OWNER): Promise<number> {
  const res = await s.app.inject({ method: 'POST', url: '/api/geofences/custom', headers: as(s, owner), payload: { displayName, polygon: TRIANGLE } })
  if (res.statusCode !== 201) throw new Error(`create answered ${res.statusCode}: ${res.body}`)
  return (res.json() as { id: number }).id
}

const submit = (s: Setup, id: number, owner = OWNER) =>
  s.app.inject({ method: 'POST', url: `/api/geofences/custom/${id}/submit`, headers: as(s, owner) })

const review = (s: Setup, id: number, verdict: 'approve' | 'reject', payload: object = {}, userId = ADMIN) =>
  s.app.inject({ method: 'POST', url: `/api/admin/geofences/submissions/${id}/${verdict}`, headers: as(s, userId), payload })

async function threadIdOf (s: Setup, id: number): Promise<string | null> {
  const [row] = await s.app.db.pool.query('SELECT discord_thread_id AS thread FROM user_geofences WHERE id = ?', [id]) as Array<{ thread: string | null }>
  return row?.thread ?? null
}

const tagId = (s: Setup, name: string) => s.forum.availableTags.find((tag) => tag.name === name)?.id
const forumCalls = (s: Setup) => s.chat.requests.filter((r) => r.path.includes('/channels/'))

t.test('a submission opens a review thread: the fence\'s name, a link to the review page, the pending tag, the owner mentioned', async (t) => {
  const s = await setup(t)
  const id = await createFence(s, 'Park')
  const res = await submit(s, id)
  t.equal(res.statusCode, 200)
  t.equal(res.json().status, 'pending_review')
  await s.app.geofenceForum.idle()

  t.same(s.forum.availableTags.map((tag) => [tag.name, tag.emoji_name]),
    [['Announcements', null], ...Object.values(FORUM_TAGS).map((tag) => [tag.name, tag.emoji])], 'the three review tags were added, the forum\'s own kept')
  const [thread, ...others] = s.chat.threadsOf(FORUM_ID)
  t.equal(others.length, 0, 'one thread')
  t.equal(thread?.name, 'Geofence Request: Park')
  t.equal(thread?.autoArchiveMinutes, 10080)
  t.same(thread?.appliedTags, [tagId(s, FORUM_TAGS.pending.name)], 'tagged pending')
  const opening = thread?.messages[0]
  t.equal(opening?.id, thread?.id, 'the opening message has the thread\'s id')
  t.match(opening?.content, new RegExp(`^<@${OWNER}> submitted an area`))
  t.same(opening?.allowed_mentions, { parse: [], users: [OWNER] }, 'only the owner may be pinged, whatever the name says')
  t.match(opening?.embeds[0], { title: 'Park', url: REVIEW_PAGE, author: { name: 'Olive @everyone' }, color: 0xf59e0b })
  t.match(JSON.stringify(opening?.embeds[0]), /km²/, 'its size')
  t.match(JSON.stringify(opening?.embeds[0]), /google\.com\/maps\?q=52\.0\d+,1\.0\d+/, 'and where it is')
  t.equal(await threadIdOf(s, id), thread?.id, 'the thread is remembered for the verdict')
  t.ok(s.chat.requests.every((r) => r.headers.authorization === `Bot ${s.chat.botToken}`), 'as the bot')
  t.notMatch(s.rawLogs(), new RegExp(s.chat.botToken), 'the bot token is never logged')

  const second = await createFence(s, 'Lake', OTHER)
  const channelReads = () => s.chat.requests.filter((r) => r.method === 'GET' && r.path.endsWith(`/channels/${FORUM_ID}`)).length
  t.equal(channelReads(), 1)
  t.equal((await submit(s, second, OTHER)).statusCode, 200)
  await s.app.geofenceForum.idle()
  t.equal(channelReads(), 1, 'the tags are looked up once per process')
  const lake = s.chat.threadsOf(FORUM_ID)[1]
  t.equal(lake?.messages[0]?.content, 'submitted an area for review.', 'a member who is no chat-platform account is not mentioned')
  t.same(lake?.messages[0]?.allowed_mentions, { parse: [] })
})

t.test('approval and rejection change the thread: verdict message, rewritten post, tag; approval locks and archives it', async (t) => {
  const s = await setup(t)
  const park = await createFence(s, 'Park')
  const lake = await createFence(s, 'Lake')
  for (const id of [park, lake]) t.equal((await submit(s, id)).statusCode, 200)
  await s.app.geofenceForum.idle()
  const [parkThread, lakeThread] = s.chat.threadsOf(FORUM_ID)

  t.equal((await review(s, lake, 'reject', { reviewNotes: 'Overlaps the lake fence' })).statusCode, 200)
  await s.app.geofenceForum.idle()
  t.same(lakeThread?.appliedTags, [tagId(s, FORUM_TAGS.rejected.name)], 'tagged rejected')
  t.notOk(lakeThread?.archived, 'a rejected fence\'s thread stays open: it may still be approved')
  t.match(lakeThread?.messages[1], { content: new RegExp(`^<@${OWNER}> your area was not approved`), embeds: [{ title: 'Rejected', description: 'Overlaps the lake fence' }] })
  t.match(lakeThread?.messages[0], { edited: true, embeds: [{ color: 0xef4444 }] })
  t.match(JSON.stringify(lakeThread?.messages[0]?.embeds), /Overlaps the lake fence/, 'the reason is on the post too')

  t.equal((await review(s, park, 'approve', { promotedName: 'City Park' })).statusCode, 200)
  await s.app.geofenceForum.idle()
  t.same(parkThread?.appliedTags, [tagId(s, FORUM_TAGS.approved.name)], 'tagged approved')
  t.ok(parkThread?.locked && parkThread.archived, 'locked and archived')
  t.match(parkThread?.messages[1], { content: /approved and published as "city park"/, embeds: [{ title: 'Approved' }] })
  t.match(parkThread?.messages[0], { edited: true, embeds: [{ title: 'Park', color: 0x22c55e, fields: [{ name: 'Status', value: 'Approved' }] }] })

  // The platform archives a quiet thread by itself; the approval of a rejected fence still reaches it.
  if (lakeThread !== undefined) lakeThread.archived = true
  t.equal((await review(s, lake, 'approve')).statusCode, 200)
  await s.app.geofenceForum.idle()
  t.same(lakeThread?.appliedTags, [tagId(s, FORUM_TAGS.approved.name)], 'rejected, then approved')
  t.ok(lakeThread?.locked && lakeThread.archived)
  t.notOk(s.logs.some((l) => /geofence forum/.test(String(l.msg))), 'no forum call failed')
})

t.test('refused review actions change nothing in the forum', async (t) => {
  const s = await setup(t)
  const id = await createFence(s, 'Park')
  t.equal((await submit(s, id, OTHER)).statusCode, 404, 'another member\'s fence')
  t.equal((await submit(s, 999)).statusCode, 404)
  t.equal((await s.app.inject({ method: 'POST', url: '/api/geofences/custom/abc/submit', headers: as(s, OWNER) })).statusCode, 400)
  await s.app.geofenceForum.idle()
  t.same(forumCalls(s), [], 'no post for a refused submission')

  t.equal((await submit(s, id)).statusCode, 200)
  t.equal((await submit(s, id)).statusCode, 400, 'submitted twice')
  await s.app.geofenceForum.idle()
  t.equal(s.chat.threadsOf(FORUM_ID).length, 1, 'one thread')
  const before = forumCalls(s).length
  const [thread] = s.chat.threadsOf(FORUM_ID)

  t.equal((await review(s, id, 'approve', {}, OWNER)).statusCode, 403, 'members do not review')
  t.equal((await review(s, id, 'reject', {}, ADMIN)).statusCode, 400, 'a rejection needs a reason')
  t.equal((await review(s, id, 'approve', { promotedName: 'Bad/Name' })).statusCode, 400, 'a bad name')
  t.equal((await review(s, id, 'approve', { extra: 1 })).statusCode, 400, 'an unknown field')
  await s.app.geofenceForum.idle()
  t.equal(forumCalls(s).length, before, 'no forum call')
  t.same(thread?.appliedTags, [tagId(s, FORUM_TAGS.pending.name)], 'still pending')
})

t.test('the chat platform failing never fails the member\'s submission or the review', async (t) => {
  const s = await setup(t)
  s.chat.failures.forumThread = 'server_error'
  const id = await createFence(s, 'Park')
  const res = await submit(s, id)
  t.equal(res.statusCode, 200, 'submitted')
  t.equal(res.json().status, 'pending_review')
  await s.app.geofenceForum.idle()
  t.equal(s.chat.threadsOf(FORUM_ID).length, 0)
  t.equal(await threadIdOf(s, id), null)
  t.ok(s.logs.some((l) => l.level === 40 && /geofence forum: the review post failed/.test(String(l.msg)) && l.geofenceId === id), 'logged as a warning')
  t.equal((await review(s, id, 'approve')).statusCode, 200, 'approved without a thread to tell')

  // Unreachable altogether.
  await s.chat.close()
  const lake = await createFence(s, 'Lake')
  const started = Date.now()
  t.equal((await submit(s, lake)).statusCode, 200, 'submitted while the platform is down')
  t.ok(Date.now() - started < 2000, 'without waiting for the platform')
  await s.app.geofenceForum.idle()
  t.equal((await s.app.inject({ method: 'GET', url: '/api/admin/geofences/submissions', headers: as(s, ADMIN) })).json().length, 1, 'the submission is kept for review')
  t.ok(s.logs.some((l) => /review post failed/.test(String(l.msg)) && l.geofenceId === lake && /unreachable/.test(String(l.reason))), 'logged with the reason')
  t.notMatch(s.rawLogs(), new RegExp(s.chat.botToken), 'the bot token is never logged')
})

t.test('tags the bot may not create: the post goes out untagged, and the tags are tried again next time', async (t) => {
  const s = await setup(t)
  s.chat.failures.channelEdit = 'server_error'
  const id = await createFence(s, 'Park')
  t.equal((await submit(s, id)).statusCode, 200)
  await s.app.geofenceForum.idle()
  const [thread] = s.chat.threadsOf(FORUM_ID)
  t.same(thread?.appliedTags, [], 'posted without tags')

  delete s.chat.failures.channelEdit
  t.equal((await review(s, id, 'reject', { reviewNotes: 'Too big' })).statusCode, 200)
  await s.app.geofenceForum.idle()
  t.same(thread?.appliedTags, [tagId(s, FORUM_TAGS.rejected.name)], 'the tags were made on the next try')
})

t.test('without a forum channel or a bot token nothing is posted', async (t) => {
  for (const env of [{ DISCORD_GEOFENCE_FORUM_CHANNEL_ID: '' }, { DISCORD_BOT_TOKEN: '' }]) {
    const s = await setup(t, env)
    t.notOk(s.app.geofenceForum.enabled)
    const id = await createFence(s, 'Park')
    t.equal((await submit(s, id)).statusCode, 200)
    t.equal((await review(s, id, 'approve')).statusCode, 200)
    await s.app.geofenceForum.idle()
    t.same(forumCalls(s), [], `no call with ${Object.keys(env)[0]} unset`)
  }
})

/** Makes the engine fake know the fence under its engine name, as after the feed's reload, with a tileserver. */
async function mapped (s: Setup, id: number): Promise<string> {
  const [row] = await s.app.db.pool.query('SELECT koji_name AS name FROM user_geofences WHERE id = ?', [id]) as Array<{ name: string }>
  const name = row?.name ?? ''
  s.engine.set({ staticMaps: true, fences: [...s.engine.settings.fences, { name, path: TRIANGLE as Array<[number, number]> }] })
  return name
}

const mapRequests = (s: Setup) => s.engine.requests.filter((r) => r.path.startsWith('/staticmap/'))

t.test('the opening post carries the engine\'s map of the fence, uploaded as a file; the verdict keeps it', async (t) => {
  const s = await setup(t)
  const id = await createFence(s, 'Park')
  const name = await mapped(s, id)
  t.equal((await submit(s, id)).statusCode, 200)
  await s.app.geofenceForum.idle()

  t.ok(s.engine.requests.some((r) => r.path === `/api/geofence/${encodeURIComponent(name)}/map`), 'the engine was asked for the area by its engine name')
  const [download, ...again] = mapRequests(s)
  t.equal(again.length, 0, 'downloaded once')
  t.equal(download?.headers['x-poracle-secret'], undefined, 'the map server is not sent the engine\'s secret')
  t.equal(download?.headers.authorization, undefined, 'nor any other credential')

  const post = s.chat.requests.find((r) => r.method === 'POST' && r.path.endsWith(`/channels/${FORUM_ID}/threads`))
  t.match(post?.headers['content-type'], /^multipart\/form-data; boundary=/, 'an upload')
  t.match(post?.body, /name="payload_json"/, 'the JSON body in payload_json')
  t.match(post?.body, /name="files\[0\]"; filename="geofence-map\.png"/, 'the image in files[0]')
  const [thread] = s.chat.threadsOf(FORUM_ID)
  const opening = thread?.messages[0]
  t.equal(opening?.attachments.length, 1)
  t.equal(opening?.attachments[0]?.filename, 'geofence-map.png')
  t.equal(opening?.attachments[0]?.contentType, 'image/png')
  t.ok(opening?.attachments[0]?.bytes.equals(MAP_PNG), 'the platform received the PNG\'s bytes')
  t.match(opening?.embeds[0], { title: 'Park', image: { url: 'attachment://geofence-map.png' } }, 'the embed shows the file')
  t.same(thread?.appliedTags, [tagId(s, FORUM_TAGS.pending.name)], 'tagged as before')

  t.equal((await review(s, id, 'approve')).statusCode, 200)
  await s.app.geofenceForum.idle()
  t.match(opening, { edited: true, embeds: [{ color: 0x22c55e, image: { url: 'attachment://geofence-map.png' } }] }, 'the rewritten post still shows the map')
  t.equal(opening?.attachments.length, 1, 'and keeps its file')
  t.notOk(s.logs.some((l) => /geofence forum/.test(String(l.msg))), 'nothing failed')
  for (const secret of [s.chat.botToken, ENGINE_SECRET]) t.notMatch(s.rawLogs(), secret, 'no secret in the logs')
})

t.test('a map image that cannot be downloaded is linked instead: too large, streamed past the limit, failing, not an image', async (t) => {
  const s = await setup(t)
  const nine = Buffer.alloc(9 * 1024 * 1024, 1)
  const cases: Array<[string, () => void]> = [
    ['declared too large', () => { s.engine.set({ mapImage: { bytes: nine, contentType: 'image/png', declareLength: true, delayMs: 0 } }) }],
    ['streamed past 8 MB', () => { s.engine.set({ mapImage: { bytes: nine, contentType: 'image/png', declareLength: false, delayMs: 0 } }) }],
    ['a server error', () => { s.engine.failWith({ path: /^\/staticmap\//, status: 500 }) }],
    ['not an image', () => { s.engine.set({ mapImage: { bytes: Buffer.from('<html>'), contentType: 'text/html', declareLength: true, delayMs: 0 } }) }]
  ]
  const reasons = [/over 8 MB/, /over 8 MB/, /HTTP 500/, /not an image/]
  for (const [index, [what, arrange]] of cases.entries()) {
    s.engine.reset()
    arrange()
    const id = await createFence(s, `Park ${index}`)
    const name = await mapped(s, id)
    t.equal((await submit(s, id)).statusCode, 200, `${what}: submitted`)
    await s.app.geofenceForum.idle()
    const thread = s.chat.threadsOf(FORUM_ID)[index]
    const opening = thread?.messages[0]
    t.ok(opening !== undefined, `${what}: posted`)
    t.same(opening?.attachments, [], `${what}: no file`)
    t.match(opening?.embeds[0], { image: { url: `${s.engine.url}/staticmap/area-${encodeURIComponent(name)}.png` } }, `${what}: the map linked`)
    t.ok(s.logs.some((l) => l.level === 40 && /map image could not be downloaded; linking it/.test(String(l.msg)) && l.geofenceId === id && reasons[index]?.test(String(l.reason))), `${what}: logged with the reason`)
  }
  t.notMatch(s.rawLogs(), /staticmap/, 'the map\'s address is not logged')
  for (const secret of [s.chat.botToken, ENGINE_SECRET]) t.notMatch(s.rawLogs(), secret, 'no secret in the logs')
})

t.test('shutdown does not wait for a slow map server: the download stops and the post links the map', async (t) => {
  const s = await setup(t)
  s.engine.set({ mapImage: { bytes: MAP_PNG, contentType: 'image/png', declareLength: true, delayMs: 20_000 } })
  const id = await createFence(s, 'Harbour')
  await mapped(s, id)
  t.equal((await submit(s, id)).statusCode, 200)
  const started = Date.now()
  await s.app.close()
  t.ok(Date.now() - started < 3000, `closed in ${Date.now() - started} ms, not after the 15 s download limit (the default)`)
  const opening = s.chat.threadsOf(FORUM_ID)[0]?.messages[0]
  t.match(opening?.embeds[0], { image: { url: /\/staticmap\/area-.+\.png$/ } }, 'the post went out with the map linked')
  t.ok(s.logs.some((l) => /linking it instead/.test(String(l.msg)) && /shut down/.test(String(l.reason))))
})

t.test('a map server slower than MAP_IMAGE_TIMEOUT_MS is given up: the map is linked and the post made', async (t) => {
  const s = await setup(t, { MAP_IMAGE_TIMEOUT_MS: String(MAP_LIMIT_MS) })
  s.engine.set({ mapImage: { bytes: MAP_PNG, contentType: 'image/png', declareLength: true, delayMs: 20_000 } })
  const id = await createFence(s, 'Park')
  await mapped(s, id)
  const started = Date.now()
  t.equal((await submit(s, id)).statusCode, 200, 'the member is answered at once')
  t.ok(Date.now() - started < 2000)
  await s.app.geofenceForum.idle()
  const waited = Date.now() - started
  t.ok(waited >= MAP_LIMIT_MS && waited < MAP_LIMIT_MS + 4000, `given up after ${MAP_LIMIT_MS} ms (${waited} ms)`)
  const opening = s.chat.threadsOf(FORUM_ID)[0]?.messages[0]
  t.same(opening?.attachments, [])
  t.match(opening?.embeds[0], { image: { url: /\/staticmap\/area-.+\.png$/ } }, 'linked')
  t.ok(s.logs.some((l) => /linking it instead/.test(String(l.msg)) && /longer than MAP_IMAGE_TIMEOUT_MS \(1\.5 s\)/.test(String(l.reason))))

  t.equal((await review(s, id, 'reject', { reviewNotes: 'Overlaps' })).statusCode, 200)
  await s.app.geofenceForum.idle()
  t.match(opening, { edited: true, embeds: [{ color: 0xef4444, image: { url: /\/staticmap\// } }] }, 'the rewritten post keeps the link')
})

t.test('an engine without a tileserver gives no map: the post goes out without an image', async (t) => {
  // PoracleJS answers 200 {"status":"error","message":"Unsupported configuration for staticProvider"}, NG 503.
  for (const engineMode of ['js', 'ng'] as const) {
    await t.test(engineMode, async (t) => {
      const s = await setup(t, {}, engineMode)
      const id = await createFence(s, 'Park')
      t.equal((await submit(s, id)).statusCode, 200)
      await s.app.geofenceForum.idle()
      t.ok(s.engine.requests.some((r) => /^\/api\/geofence\/[^/]+\/map$/.test(r.path)), `${engineMode}: the engine was asked`)
      t.same(mapRequests(s), [], `${engineMode}: nothing downloaded`)
      const [thread] = s.chat.threadsOf(FORUM_ID)
      t.match(thread?.messages[0]?.embeds[0], { title: 'Park' }, `${engineMode}: posted`)
      t.notOk('image' in (thread?.messages[0]?.embeds[0] ?? {}), `${engineMode}: without an image`)
      t.notOk(s.chat.requests.some((r) => /multipart/.test(String(r.headers['content-type']))), `${engineMode}: no upload`)
      t.notOk(s.logs.some((l) => /geofence forum/.test(String(l.msg))), `${engineMode}: no warning: a site without maps is no fault`)

      t.equal((await review(s, id, 'approve')).statusCode, 200)
      await s.app.geofenceForum.idle()
      t.match(thread, { locked: true, messages: [{ edited: true }] }, `${engineMode}: the verdict still lands`)
      t.notOk('image' in (thread?.messages[0]?.embeds[0] ?? {}))
    })
  }
})

t.test('an area the engine has not loaded yet (PoracleNG 404) gives no map: the post goes out without an image', async (t) => {
  const s = await setup(t, {}, 'ng')
  const id = await createFence(s, 'Park')
  // A tileserver, but the fence is not among the engine's areas (its feed has not been reloaded).
  s.engine.set({ staticMaps: true })
  t.equal((await submit(s, id)).statusCode, 200)
  await s.app.geofenceForum.idle()
  const asked = s.engine.requests.filter((r) => /^\/api\/geofence\/[^/]+\/map$/.test(r.path))
  t.equal(asked.length, 1, 'the engine was asked once')
  t.same(mapRequests(s), [], 'nothing downloaded')
  const [thread] = s.chat.threadsOf(FORUM_ID)
  t.match(thread?.messages[0]?.embeds[0], { title: 'Park' }, 'posted')
  t.notOk('image' in (thread?.messages[0]?.embeds[0] ?? {}), 'without an image')
  t.notOk(s.chat.requests.some((r) => /multipart/.test(String(r.headers['content-type']))), 'no upload')
})

t.test('a map address that is no http(s) URL is not fetched', async (t) => {
  for (const address of ['file:///etc/passwd', 'gopher://127.0.0.1:6379/_INFO', 'not a url']) {
    await t.rejects(downloadMapImage(address, 15_000), { name: 'MapImageError', fault: 'address' }, address)
  }
})

import t from 'tap'
import { build, bearer, seedHuman, type Test, type TestApp } from './helper.js'
import { startKojiFake, type KojiFake } from './fakes/koji.js'
import { startChatPlatformFake, type ChatChannel, type ChatPlatformFake } from './fakes/chat-platform.js'
import { FORUM_TAGS } from '../plugins/domain/geofence-forum.js'

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

async function setup (t: Test, env: Record<string, string> = {}): Promise<Setup> {
  const koji = await startKojiFake({ fences: [] })
  t.teardown(() => koji.close())
  const chat = await startChatPlatformFake()
  t.teardown(() => chat.close())
  // A tag the forum already has stays, with its id.
  const forum = chat.addForum(FORUM_ID, [{ name: 'Announcements' }])
  const s = await build(t, {
    logLevel: 'warn',
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

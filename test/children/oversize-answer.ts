import { buildApp } from '../../app.js'
import { loadConfig } from '../../plugins/base/config.js'
import { ManualClock } from '../../plugins/base/clock.js'
import { bearer } from '../helper.js'

/**
 * Run by test/upstream-limits.test.ts in its own process, so its resident memory is this app's alone:
 * builds the app from the environment it is given, asks as a signed-in member for the dashboard, whose
 * engine answer is far over ENGINE_MAX_BYTES, and prints the resident set size before, at its highest during, and after.
 */
const MB = 1024 * 1024
const gc = (globalThis as { gc?: () => void }).gc ?? (() => {})
const rss = () => process.memoryUsage().rss

const app = await buildApp({ config: loadConfig(process.env), clock: new ManualClock(Date.now()), logger: false })
await app.ready()
for (let i = 0; i < 3; i++) await app.inject({ url: '/api/masterdata/raid-levels' })
gc()
const before = rss()
let peak = before
const sampler = setInterval(() => { peak = Math.max(peak, rss()) }, 5)
const started = performance.now()
const res = await app.inject({ url: '/api/dashboard', headers: bearer(app, { userId: '100' }) })
const ms = performance.now() - started
clearInterval(sampler)
await new Promise((resolve) => setTimeout(resolve, 200))
gc()
const after = rss()
await app.close()
process.stdout.write(JSON.stringify({ status: res.statusCode, body: res.json() as unknown, ms: Math.round(ms), beforeMb: Math.round(before / MB), peakMb: Math.round(peak / MB), afterMb: Math.round(after / MB) }) + '\n')

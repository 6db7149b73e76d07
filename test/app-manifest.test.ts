import t from 'tap'
import { Value } from '@sinclair/typebox/value'
import { WebAppManifestSchema } from '../schemas/app-manifest.js'
import { bearer, build } from './helper.js'

/** The installable app's manifest (GET /api/app-manifest) from the site's branding, and the service worker's own headers. */

t.test('without branding: the built-in name and colour, icons a phone installs from', async (t) => {
  const { app } = await build(t)
  const response = await app.inject({ url: '/api/app-manifest' })
  t.equal(response.statusCode, 200)
  t.match(response.headers['content-type'], /^application\/manifest\+json/)
  t.equal(response.headers['cache-control'], 'no-cache')
  const manifest = response.json()
  t.ok(Value.Check(WebAppManifestSchema, manifest), 'matches its schema')
  t.match(manifest, { name: 'Alarms', short_name: 'Alarms', start_url: '/', scope: '/', display: 'standalone', theme_color: '#1d4ed8' })
  t.same(manifest.icons.map((icon: { sizes: string, purpose: string }) => `${icon.sizes} ${icon.purpose}`), ['192x192 any', '512x512 any', '512x512 maskable'])
})

t.test('the admin\'s site name and accent colour name and colour the app; a long name is cut at a word', async (t) => {
  const { app } = await build(t)
  const admin = bearer(app, { userId: 'admin-1', isAdmin: true })
  for (const [key, value] of [['site_name', 'Springfield Raid Alarms'], ['accent_color', '#aa3300']]) {
    const set = await app.inject({ method: 'PUT', url: `/api/settings/${key}`, headers: admin, payload: { value } })
    t.equal(set.statusCode, 200, `${key}: ${set.body}`)
  }
  const manifest = (await app.inject({ url: '/api/app-manifest' })).json()
  t.match(manifest, { name: 'Springfield Raid Alarms', short_name: 'Springfield', theme_color: '#aa3300' })
})

t.test('the service worker may fetch the app shell from this origin; other scripts keep the closed policy', async (t) => {
  const { app } = await build(t)
  // Not built here: the not-found answer still carries the headers the path gets.
  const worker = await app.inject({ url: '/sw.js' })
  t.equal(worker.headers['content-security-policy'], "default-src 'none'; connect-src 'self'; frame-ancestors 'none'")
  const other = await app.inject({ url: '/api/app-manifest' })
  t.equal(other.headers['content-security-policy'], "default-src 'none'; frame-ancestors 'none'")
})

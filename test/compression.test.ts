import { brotliDecompressSync, gunzipSync } from 'node:zlib'
import t, { type Test } from 'tap'
import Fastify from 'fastify'
import compression, { COMPRESS_MIN_BYTES } from '../plugins/edge/compression.js'

async function build (t: Test) {
  const app = Fastify()
  await app.register(compression)
  app.get('/big', async () => ({ items: Array.from({ length: 200 }, (_, i) => ({ id: i, name: `item ${i}` })) }))
  app.get('/small', async () => ({ ok: true }))
  t.teardown(() => app.close())
  return app
}

t.test('JSON above 1 KB is compressed with what the client accepts', async (t) => {
  const app = await build(t)
  const plain = await app.inject({ url: '/big' })
  t.ok(plain.body.length > COMPRESS_MIN_BYTES, 'the answer is above the threshold')
  t.equal(plain.headers['content-encoding'], undefined, 'no Accept-Encoding, no compression')

  const br = await app.inject({ url: '/big', headers: { 'accept-encoding': 'gzip, br' } })
  t.equal(br.headers['content-encoding'], 'br')
  t.match(br.headers.vary, /accept-encoding/i)
  t.same(JSON.parse(brotliDecompressSync(br.rawPayload).toString()), plain.json())
  t.ok(br.rawPayload.length < plain.body.length / 2, 'much smaller')

  const gz = await app.inject({ url: '/big', headers: { 'accept-encoding': 'gzip' } })
  t.equal(gz.headers['content-encoding'], 'gzip')
  t.same(JSON.parse(gunzipSync(gz.rawPayload).toString()), plain.json())
})

t.test('answers under 1 KB are sent as they are', async (t) => {
  const app = await build(t)
  const small = await app.inject({ url: '/small', headers: { 'accept-encoding': 'br, gzip' } })
  t.equal(small.headers['content-encoding'], undefined)
  t.same(small.json(), { ok: true })
})

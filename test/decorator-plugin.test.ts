import t from 'tap'
import Fastify, { type FastifyInstance } from 'fastify'
import { decoratorPlugin } from '../lib/decorator-plugin.js'

declare module 'fastify' {
  interface FastifyInstance {
    probeThing: { made: FastifyInstance }
  }
}

const createProbeThing = (fastify: FastifyInstance) => ({ made: fastify })

t.test('a decorator plugin decorates the camel-case name of its plugin name with what its factory makes', async (t) => {
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(decoratorPlugin('probe-thing', createProbeThing, []))
  await app.ready()
  t.equal(app.probeThing.made, app, 'made from the app it was registered on')
  t.ok(app.hasPlugin('probe-thing'), 'registered under its name')
})

t.test('a missing dependency stops the start with the plugin names', async (t) => {
  const app = Fastify()
  t.teardown(() => app.close())
  app.register(decoratorPlugin('probe-thing', createProbeThing, ['clock']))
  await t.rejects(async () => { await app.ready() }, /probe-thing.*clock|clock.*probe-thing/)
})

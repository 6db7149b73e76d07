import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { AlarmDefaultsSchema } from '../../schemas/alarm-defaults.js'
import { errors } from '../../schemas/common.js'

/**
 * GET/PUT /api/alarm-defaults: the distance, clean bits and template that prefill every new alarm of the
 * signed-in member, on every device. The user id comes only from the token.
 */
const alarmDefaultRoutes: FastifyPluginAsyncTypebox = async (fastify) => {
  const { auth, alarmDefaults } = fastify
  fastify.addHook('onRequest', auth.authenticate)

  fastify.get('/', {
    schema: { tags: ['alarm-defaults'], description: 'The member\'s defaults for new alarms; null fields have none.', response: { 200: AlarmDefaultsSchema, ...errors(401) } }
  }, async (request) => alarmDefaults.get(request.user.userId))

  fastify.put('/', {
    schema: {
      tags: ['alarm-defaults'],
      description: 'Replaces the member\'s defaults for new alarms; null clears one.',
      body: AlarmDefaultsSchema,
      response: { 200: AlarmDefaultsSchema, ...errors(400, 401) }
    }
  }, async (request) => alarmDefaults.set(request.user.userId, request.body))
}

export default alarmDefaultRoutes

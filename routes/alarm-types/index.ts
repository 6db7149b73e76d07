import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { AlarmTypeDescriptorSchema } from '../../schemas/alarm-types.js'
import { errors } from '../../schemas/common.js'

/**
 * The alarm types (`/api/alarm-types`), described so the web client can render their forms from data:
 * the prebuilt answer of `fastify.alarmTypes`, sent with its ETag.
 */
const alarmTypeRoutes: FastifyPluginAsyncTypebox = async (fastify) => {
  const { auth, alarmTypes } = fastify

  fastify.get('/', {
    onRequest: auth.authenticate,
    schema: {
      tags: ['alarm-types'],
      description: 'All ten alarm types, in display order, each with whether members can use it now and, if not, why ' +
        '(the site\'s switch, the engine\'s configuration, or an engine generation without it). Each lists its fields ' +
        'with kind, range, unit, default and translation keys. Sent with an ETag; 304 for a matching If-None-Match.',
      response: { 200: Type.Array(AlarmTypeDescriptorSchema), 304: Type.Null({ description: 'Unchanged since the ETag in If-None-Match.' }), ...errors(401) }
    }
  }, async (request, reply) => (await alarmTypes.answer()).send(request, reply))
}

export default alarmTypeRoutes

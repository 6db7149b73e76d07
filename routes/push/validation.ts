import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { notFound } from '../../plugins/edge/errors.js'
import { errors } from '../../schemas/common.js'
import { HookTokenParamsSchema, ValidationAnswerSchema, ValidationCallSchema } from '../../schemas/push.js'

/**
 * PoracleNG's validation hook (`POST /api/push/validation/<PUSH_VALIDATION_TOKEN>`, docs/push.md): one
 * call per matched member before the engine renders; answered from memory, `success: false` when the
 * member's alerts go to push only. The push itself follows the answer. A wrong token is 404.
 */
const pushValidationRoutes: FastifyPluginAsyncTypebox = async (fastify) => {
  const { pushAlerts } = fastify

  fastify.post('/:token', {
    // Before the body is parsed: a caller without the token learns nothing, not even about its body.
    onRequest: async (request) => {
      const { token } = request.params as { token?: unknown }
      if (typeof token !== 'string' || !pushAlerts.hookTokenMatches(token)) throw notFound('Not found.')
    },
    schema: {
      tags: ['push'],
      summary: 'PoracleNG\'s validation hook: whether the engine sends its chat message for this member',
      params: HookTokenParamsSchema,
      body: ValidationCallSchema,
      response: { 200: ValidationAnswerSchema, ...errors(400, 404) }
    }
  }, async (request) => {
    const { target, type, message } = request.body
    return { success: pushAlerts.validate(target.id, type, message) }
  })
}

export default pushValidationRoutes

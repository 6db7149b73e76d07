import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { KIND_OF } from '../../schemas/alarm-types.js'
import { TEMPLATE_PREVIEW_TYPES, TemplatePreviewSchema, templatePreviewSchema } from '../../schemas/alarms.js'
import { errors } from '../../schemas/common.js'

/**
 * POST /api/template-previews/{type}: how an alert of the alarm being edited would look with a template,
 * rendered by the engine itself for a sample that matches the alarm (PoracleNG's template API; PoracleJS
 * has none, which is a 501). Nothing is delivered. One route per type, so each body is checked against
 * that type's fields.
 */
const templatePreviewRoutes: FastifyPluginAsyncTypebox = async (fastify) => {
  const { auth, templatePreviews, rateLimits } = fastify

  for (const type of TEMPLATE_PREVIEW_TYPES) {
    fastify.post(`/${type}`, {
      onRequest: auth.authenticate,
      config: { rateLimit: rateLimits.preview },
      schema: {
        tags: ['template-previews'],
        description: `Renders a ${type} alert for the alarm being edited with one of the engine's templates, on the caller's platform and in their language.`,
        body: templatePreviewSchema(type),
        response: { 200: TemplatePreviewSchema, ...errors(400, 401, 403, 404, 429, 500, 501, 502, 503, 504) }
      }
    }, async (request) => {
      const template = request.body.template === undefined ? undefined : String(request.body.template)
      return await templatePreviews.render(request.user.userId, KIND_OF[type].type, request.body.alarm ?? {}, template)
    })
  }
}

export default templatePreviewRoutes

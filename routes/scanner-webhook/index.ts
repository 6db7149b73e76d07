import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { notFound } from '../../plugins/edge/errors.js'
import { errors } from '../../schemas/common.js'
import { HookTokenParamsSchema, ScannerFeedSchema } from '../../schemas/push.js'

/** Golbat sends batches; a busy area's batch can be far over the API's usual body limit. */
const FEED_BODY_LIMIT = 16 * 1024 * 1024

/**
 * The scanner's webhook feed for push alerts (`POST /api/scanner-webhook/<SCANNER_WEBHOOK_TOKEN>`,
 * docs/push.md): one more webhook target in the scanner's config. Answered at once; the events are matched
 * after (plugins/domain/push-alerts.ts). A wrong token, or none configured, is 404 before the body is read.
 */
const scannerWebhookRoutes: FastifyPluginAsyncTypebox = async (fastify) => {
  const { pushAlerts } = fastify

  fastify.post('/:token', {
    bodyLimit: FEED_BODY_LIMIT,
    // Before the body is parsed: a caller without the token learns nothing, not even about its body.
    onRequest: async (request) => {
      const { token } = request.params as { token?: unknown }
      if (typeof token !== 'string' || !pushAlerts.feedTokenMatches(token)) throw notFound('Not found.')
    },
    schema: {
      tags: ['push'],
      summary: 'The scanner\'s webhook feed (Golbat: an array of { type, message }), matched for members with a push device',
      params: HookTokenParamsSchema,
      body: ScannerFeedSchema,
      response: { 200: Type.Object({ accepted: Type.Integer({ description: 'Events taken for matching (types the matcher reads)' }) }), ...errors(400, 404) }
    }
  }, async (request) => ({ accepted: pushAlerts.acceptFeed(request.body) }))
}

export default scannerWebhookRoutes

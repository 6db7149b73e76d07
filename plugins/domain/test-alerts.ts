import type { FastifyInstance } from 'fastify'
import { EngineError, type EngineClient } from '../data/engine.js'
import { notFound } from '../edge/errors.js'
import { present } from './alarm-writer.js'
import { decoratorPlugin } from '../../lib/decorator-plugin.js'
import { isSampled, sampleWebhook, type Row } from '../../lib/sample-webhooks.js'
import { KIND_OF, type AlarmType } from '../../schemas/alarm-types.js'

/**
 * Test alerts (reference 1.18, alarm-engine.md 1.10): a synthetic scanner webhook whose values fall inside
 * the alarm's filters, at the member's location, posted to the engine's /api/test, which renders it with
 * the alarm's template and delivers it to the member. Nothing is matched or stored by the engine.
 */
function createTestAlerts (fastify: FastifyInstance) {
  const { engine, featureGates, clock, log } = fastify
  /** The engine's grunt list; without it the sample still renders with a generic grunt. */
  const grunts = () => engine.orFallback(() => engine.masterdata.grunts(), {
    log, message: 'could not read the engine\'s grunt list for a test alert', fallback: {}, anyError: true
  })

  return {
    /** Has the engine render and deliver a sample alert matching the user's alarm `uid` of `type` (gated like the type). */
    async send (userId: string, type: AlarmType, uid: number): Promise<void> {
      await featureGates.ensure(KIND_OF[type].disableKey)
      const { human, alarms } = await engine.tracking.all(userId)
      const row = alarms[type].find((r) => r.uid === uid)
      if (row === undefined) throw notFound('Alarm not found.')
      if (!isSampled(type)) {
        throw new EngineError('unsupported', `Test alerts are not available for ${type} alarms.`, { method: 'POST', path: '/api/test' })
      }
      const alarm: Row = present(row)
      const { webhook, place } = await sampleWebhook(type, alarm, human, Math.floor(clock.now() / 1000), grunts)
      const target: Parameters<EngineClient['test']>[0]['target'] = { id: human.id, name: human.name, type: human.type, ...place }
      if (typeof human.language === 'string' && human.language !== '') target.language = human.language
      if (alarm.template !== null && alarm.template !== undefined && alarm.template !== '') target.template = String(alarm.template)
      await engine.test({ type, webhook, target })
    }
  }
}

export type TestAlerts = ReturnType<typeof createTestAlerts>

declare module 'fastify' {
  interface FastifyInstance {
    testAlerts: TestAlerts
  }
}

export default decoratorPlugin('test-alerts', createTestAlerts, ['engine', 'feature-gates', 'clock'])

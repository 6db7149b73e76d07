import type { FastifyInstance } from 'fastify'
import { EngineError } from '../data/engine.js'
import { notFound, notSupported } from '../edge/errors.js'
import { TtlCache } from '../../lib/ttl-cache.js'
import { decoratorPlugin } from '../../lib/decorator-plugin.js'
import { isSampled, sampleWebhook, type Row, type SampledType } from '../../lib/sample-webhooks.js'
import { KIND_OF, type AlarmType } from '../../schemas/alarm-types.js'

/** The DTS template type each alarm type renders with (alarm-engine.md 1.2). */
const TEMPLATE_TYPE: Record<SampledType, string> = {
  pokemon: 'monster', raid: 'raid', egg: 'egg', quest: 'quest', invasion: 'invasion', lure: 'lure', gym: 'gym'
}

export interface TemplatePreview {
  template: string
  platform: 'discord' | 'telegram'
  language: string
  /** The engine's rendered message: Discord `content`/`embed`, Telegram `content`. */
  message: Row
}

/** How long one rendering is reused: the engine's templates change only when an admin edits them. */
const PREVIEW_MS = 60_000

/**
 * Template previews: how an alert of an alarm would look to the member. The engine's template editor API
 * renders a sample inside the alarm's filters (lib/sample-webhooks.ts, the same sample a test alert
 * sends) without delivering anything.
 */
function createTemplatePreviews (fastify: FastifyInstance) {
  const { engine, featureGates, clock, log } = fastify
  const previews = new TtlCache<string, TemplatePreview>(clock, 500)
  /** The engine's grunt list; without it the sample still renders with a generic grunt. */
  const grunts = () => engine.orFallback(() => engine.masterdata.grunts(), {
    log, message: 'could not read the engine\'s grunt list for a template preview', fallback: {}, anyError: true
  })

  return {
    /**
     * How an alert of this alarm body would look to the member: the engine renders `template` (else the
     * body's, else the engine's default) for a sample matching the body, on the member's platform and in
     * their language. Nothing is delivered. Gated like the type.
     */
    async render (userId: string, type: AlarmType, alarm: Row, template: string | undefined): Promise<TemplatePreview> {
      await featureGates.ensure(KIND_OF[type].disableKey)
      if (!isSampled(type)) throw notSupported(`The alarm engine renders no preview of ${type} alarms.`)
      const human = await engine.humans.one(userId)
      const chosen = template ?? (alarm.template === undefined || alarm.template === null || alarm.template === '' ? undefined : String(alarm.template))
      const name = chosen ?? (await engine.config.poracleWeb()).defaultTemplateName
      const platform = human.type.startsWith('telegram') ? 'telegram' : 'discord'
      const language = typeof human.language === 'string' && human.language !== '' ? human.language : 'en'
      const key = JSON.stringify([type, name, platform, language, alarm, human.latitude, human.longitude])
      return await previews.getOrLoad(key, async () => {
        const { webhook } = await sampleWebhook(type, alarm, human, Math.floor(clock.now() / 1000), grunts)
        try {
          const message = await engine.dts.render({ webhookType: type, webhook, templateType: TEMPLATE_TYPE[type], template: name, platform, language })
          return { value: { template: name, platform, language, message }, ttlMs: PREVIEW_MS }
        } catch (err) {
          if (err instanceof EngineError && err.kind === 'not_found') throw notFound(`The alarm engine has no template "${name}" for ${type} alerts on ${platform}.`)
          throw err
        }
      })
    }
  }
}

export type TemplatePreviews = ReturnType<typeof createTemplatePreviews>

declare module 'fastify' {
  interface FastifyInstance {
    templatePreviews: TemplatePreviews
  }
}

export default decoratorPlugin('template-previews', createTemplatePreviews, ['engine', 'feature-gates', 'clock'])

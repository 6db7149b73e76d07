import type { FastifyBaseLogger, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { EngineError } from '../data/engine.js'
import { featureDisabled } from '../edge/errors.js'
import { ALARM_DISABLE_KEYS, type AlarmType } from '../../schemas/alarm-types.js'
import { TtlCache } from '../../lib/ttl-cache.js'
import { decoratorPlugin } from '../../lib/decorator-plugin.js'

/** The spec's "engine disabled-type re-read within 5 minutes". */
const UPSTREAM_TTL_MS = 5 * 60_000

/** The spec's quest-summary capability cache. */
const QUEST_SUMMARY_TTL_MS = 5 * 60_000

/** Fort updates are not in `disabledHooks`; PoracleNG reports them as this config value instead. */
const FORT_KEY = ALARM_DISABLE_KEYS.fort

/**
 * The switch an engine `disabledHooks` name (lower-cased, the engine's alarm type) turns on. `pokestop`
 * and `weather` have none on purpose: the service has no alarm type for them.
 */
const hookKey = (hook: string): string | undefined =>
  hook !== 'fort' && Object.hasOwn(ALARM_DISABLE_KEYS, hook) ? ALARM_DISABLE_KEYS[hook as AlarmType] : undefined

function createFeatureGates (fastify: FastifyInstance) {
  const { engine, siteSettings, clock, log } = fastify
  /** One entry: the engine's disabled keys; concurrent requests after expiry share one engine read. */
  const upstream = new TtlCache<'disabled', string[]>(clock, 1)
  const questSummary = new TtlCache<'quest_summary', boolean>(clock, 1)

  /** `general.disable_fort_update`, or null when this engine cannot say (PoracleJS has no config values). */
  async function fortUpdatesDisabled (): Promise<boolean | null> {
    try {
      const values = await engine.config.values('general')
      return values.general?.disable_fort_update === true
    } catch (err) {
      if (err instanceof EngineError && err.kind === 'unsupported') return null
      throw err
    }
  }

  async function read (): Promise<{ value: string[], ttlMs: number }> {
    const [config, fort] = await Promise.all([engine.config.poracleWeb(), fortUpdatesDisabled()])
    const keys = new Set<string>()
    for (const hook of config.disabledHooks ?? []) {
      const key = hookKey(hook)
      if (key !== undefined) keys.add(key)
    }
    if (fort === true) keys.add(FORT_KEY)
    return { value: [...keys].sort(), ttlMs: UPSTREAM_TTL_MS }
  }

  // An engine outage must not switch every alarm type off: answer "nothing disabled" and ask again next time.
  const readOrNone = () => engine.orFallback(read, {
    log, message: 'could not read the alarm engine\'s disabled alarm types; treating none as disabled', fallback: { value: [], ttlMs: 0 }, anyError: true
  })

  async function upstreamDisabled (): Promise<string[]> {
    return upstream.getOrLoad('disabled', readOrNone)
  }

  /** An engine without the config route has no summaries; absent from one that has them means its default, on. */
  async function readQuestSummary (): Promise<boolean> {
    try {
      return (await engine.config.values('tracking')).tracking?.quest_summary_enabled !== false
    } catch (err) {
      if (err instanceof EngineError && err.kind === 'unsupported') return false
      throw err
    }
  }

  /**
   * Who switched each feature off: the site's own setting first, then the engine's configuration. Many at
   * once in one wait: every page load asks for all ten alarm types, and ten separate waits on the same
   * cached engine answer cost more than the answer itself.
   */
  async function disabledByEach (disableKeys: readonly string[]): Promise<Array<'site' | 'engine' | null>> {
    const [bySite, byEngine] = await Promise.all([Promise.all(disableKeys.map((key) => siteSettings.isTrue(key))), upstreamDisabled()])
    return disableKeys.map((key, i) => bySite[i] === true ? 'site' : byEngine.includes(key) ? 'engine' : null)
  }

  async function isDisabled (disableKey: string): Promise<boolean> {
    const [by = null] = await disabledByEach([disableKey])
    return by !== null
  }

  /** Throws 403 `{ error, disableKey }` when the feature is off; admins are not exempt. */
  async function ensure (disableKey: string): Promise<void> {
    if (await isDisabled(disableKey)) throw featureDisabled(disableKey)
  }

  return {
    ensure,
    disabledByEach,
    isDisabled,
    upstreamDisabled,

    /** Whether the engine sends quest summaries (re-read every 5 minutes); a fault is logged on `log`. */
    questSummaryEnabled (log: FastifyBaseLogger): Promise<boolean> {
      // A fault is no answer: report "off" now and ask again on the next request.
      return questSummary.getOrLoad('quest_summary', () => engine.orFallback(
        async () => ({ value: await readQuestSummary(), ttlMs: QUEST_SUMMARY_TTL_MS }),
        { log, message: 'could not read the quest summary capability', fallback: { value: false, ttlMs: 0 } }
      ))
    },

    /** A route hook (`preHandler: fastify.featureGates.gate('disable_mons')`) that runs `ensure`. */
    gate (disableKey: string) {
      return async (_request: FastifyRequest, _reply: FastifyReply): Promise<void> => ensure(disableKey)
    }
  }
}

export type FeatureGates = ReturnType<typeof createFeatureGates>

declare module 'fastify' {
  interface FastifyInstance {
    featureGates: FeatureGates
  }
}

/**
 * Alarm-type kill switches: a type is off when its site setting `disable_*` is exactly "true" or when the
 * alarm engine's own configuration disables it (read at most every 5 minutes, failing open). The engine's
 * quest-summary switch is read and kept the same way.
 */
export default decoratorPlugin('feature-gates', createFeatureGates, ['engine', 'site-settings', 'clock'])

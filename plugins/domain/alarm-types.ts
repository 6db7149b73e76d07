import type { FastifyInstance } from 'fastify'
import { ALARM_KINDS, describeKind, type AlarmKind, type EngineGeneration, type UnavailableReason } from '../../schemas/alarm-types.js'
import { PrebuiltAnswer } from '../../lib/prebuilt-answer.js'
import { decoratorPlugin } from '../../lib/decorator-plugin.js'

function reasonFor (kind: AlarmKind, switchedOffBy: 'site' | 'engine' | null, engineGeneration: EngineGeneration | null): UnavailableReason | null {
  if (switchedOffBy !== null) return switchedOffBy
  return engineGeneration === null || kind.generations.includes(engineGeneration) ? null : 'generation'
}

function createAlarmTypes (fastify: FastifyInstance) {
  const { engine, featureGates, log } = fastify
  let built: { version: string, answer: PrebuiltAnswer } | undefined

  /** Null when the engine cannot say: every type is then offered, as the feature gates fail open too. */
  async function generation (): Promise<EngineGeneration | null> {
    return engine.orFallback<EngineGeneration | null>(() => engine.generation(), {
      log, message: 'could not learn the alarm engine\'s generation; offering every alarm type', fallback: null
    })
  }

  return {
    /** The descriptors of all ten types as they stand now, rebuilt only when a type's availability changed. */
    async answer (): Promise<PrebuiltAnswer> {
      const [engineGeneration, switchedOff] = await Promise.all([
        generation(),
        featureGates.disabledByEach(ALARM_KINDS.map((kind) => kind.disableKey))
      ])
      const reasons = ALARM_KINDS.map((kind, i) => reasonFor(kind, switchedOff[i] ?? null, engineGeneration))
      const version = reasons.join()
      if (built?.version !== version) {
        built = { version, answer: new PrebuiltAnswer(ALARM_KINDS.map((kind, i) => describeKind(kind, reasons[i]))) }
      }
      return built.answer
    }
  }
}

export type AlarmTypes = ReturnType<typeof createAlarmTypes>

declare module 'fastify' {
  interface FastifyInstance {
    alarmTypes: AlarmTypes
  }
}

/**
 * The alarm types, described so the web client can render their forms from data. Every member's client
 * asks for them on every page load, and they change only with the site's switches and the engine's
 * configuration: the answer is built once per combination of those and kept as prebuilt bytes.
 * Descriptors carry translation keys, never text, so the reader's language is not part of it.
 */
export default decoratorPlugin('alarm-types', createAlarmTypes, ['engine', 'feature-gates'])

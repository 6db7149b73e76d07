import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { ALARM_KINDS, AlarmTypeDescriptorSchema, describeKind, type AlarmKind, type EngineGeneration, type UnavailableReason } from '../../schemas/alarm-types.js'
import { errors } from '../../schemas/common.js'
import { PrebuiltAnswer } from '../../lib/prebuilt-answer.js'

/**
 * The alarm types, described so the web client can render their forms from data. Every member's client
 * asks for them on every page load, and they change only with the site's switches and the engine's
 * configuration: the answer is built once per combination of those and sent as prebuilt bytes.
 * Descriptors carry translation keys, never text, so the reader's language is not part of it.
 */
const alarmTypeRoutes: FastifyPluginAsyncTypebox = async (fastify) => {
  const { auth, engine, featureGates, log } = fastify
  let built: { version: string, answer: PrebuiltAnswer } | undefined

  /** Null when the engine cannot say: every type is then offered, as the feature gates fail open too. */
  async function generation (): Promise<EngineGeneration | null> {
    return engine.orFallback<EngineGeneration | null>(() => engine.generation(), {
      log, message: 'could not learn the alarm engine\'s generation; offering every alarm type', fallback: null
    })
  }

  function reasonFor (kind: AlarmKind, switchedOffBy: 'site' | 'engine' | null, engineGeneration: EngineGeneration | null): UnavailableReason | null {
    if (switchedOffBy !== null) return switchedOffBy
    return engineGeneration === null || kind.generations.includes(engineGeneration) ? null : 'generation'
  }

  fastify.get('/', {
    onRequest: auth.authenticate,
    schema: {
      tags: ['alarm-types'],
      description: 'All ten alarm types, in display order, each with whether members can use it now and, if not, why ' +
        '(the site\'s switch, the engine\'s configuration, or an engine generation without it). Each lists its fields ' +
        'with kind, range, unit, default and translation keys. Sent with an ETag; 304 for a matching If-None-Match.',
      response: { 200: Type.Array(AlarmTypeDescriptorSchema), 304: Type.Null({ description: 'Unchanged since the ETag in If-None-Match.' }), ...errors(401) }
    }
  }, async (request, reply) => {
    const [engineGeneration, switchedOff] = await Promise.all([
      generation(),
      Promise.all(ALARM_KINDS.map((kind) => featureGates.disabledBy(kind.disableKey)))
    ])
    const reasons = ALARM_KINDS.map((kind, i) => reasonFor(kind, switchedOff[i] ?? null, engineGeneration))
    const version = reasons.join()
    if (built?.version !== version) {
      built = { version, answer: new PrebuiltAnswer(ALARM_KINDS.map((kind, i) => describeKind(kind, reasons[i]))) }
    }
    return built.answer.send(request, reply)
  })
}

export default alarmTypeRoutes

import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { EngineError } from '../../plugins/engine.js'
import { ALARM_KINDS, AlarmTypeDescriptorSchema, describeKind, type EngineGeneration } from '../../schemas/alarm-types.js'
import { errors } from '../../schemas/common.js'

/** The alarm types this site offers, described so the web client can render their forms from data. */
const alarmTypeRoutes: FastifyPluginAsyncTypebox = async (fastify) => {
  const { auth, engine, featureGates, log } = fastify

  /** Null when the engine cannot say: every type is then offered, as the feature gates fail open too. */
  async function generation (): Promise<EngineGeneration | null> {
    try {
      return await engine.generation()
    } catch (err) {
      if (!(err instanceof EngineError)) throw err
      log.warn({ err: { kind: err.kind, path: err.details.path } }, 'could not learn the alarm engine\'s generation; offering every alarm type')
      return null
    }
  }

  fastify.get('/', {
    onRequest: auth.authenticate,
    schema: {
      tags: ['alarm-types'],
      description: 'The alarm types, in display order, without those the site or the alarm engine switches off or the engine does not have. ' +
        'Each lists its fields with kind, range, unit, default and translation keys.',
      response: { 200: Type.Array(AlarmTypeDescriptorSchema), ...errors(401) }
    }
  }, async () => {
    const [engineGeneration, disabled] = await Promise.all([
      generation(),
      Promise.all(ALARM_KINDS.map((kind) => featureGates.isDisabled(kind.disableKey)))
    ])
    return ALARM_KINDS
      .filter((kind, i) => disabled[i] !== true && (engineGeneration === null || kind.generations.includes(engineGeneration)))
      .map((kind) => describeKind(kind))
  })
}

export default alarmTypeRoutes

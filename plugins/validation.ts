import fp from 'fastify-plugin'
import { Ajv, type Options } from 'ajv'
import addFormats from 'ajv-formats'

const common: Options = { allErrors: true, useDefaults: true, removeAdditional: false, strict: false }

/**
 * Two validators: query strings, path parameters and headers are text by nature and are coerced
 * ("5" → 5); JSON bodies are not, so `{"min_iv": "5"}` or `{"value": 5}` is a 400, not a silent guess.
 * Unknown body fields are errors too (schemas say `additionalProperties: false`), never dropped.
 */
export default fp(async (fastify) => {
  const strict = new Ajv({ ...common, coerceTypes: false })
  const coercing = new Ajv({ ...common, coerceTypes: 'array' })
  for (const ajv of [strict, coercing]) addFormats.default(ajv)
  fastify.setValidatorCompiler(({ schema, httpPart }) => (httpPart === 'body' ? strict : coercing).compile(schema))
}, { name: 'validation', fastify: '5.x' })

import fp from 'fastify-plugin'
import { Ajv, type ErrorObject, type Options, type SchemaValidateFunction, type ValidateFunction } from 'ajv'
import addFormats from 'ajv-formats'
import { FREE_TEXT_KEYWORD } from '../../schemas/common.js'
import { alarmCreateSchema } from '../../schemas/alarms.js'
import type { AlarmType } from '../../schemas/alarm-types.js'
import { compiledOnce } from '../../lib/compiled-once.js'

const common: Options = { allErrors: true, useDefaults: true, removeAdditional: false, strict: false }

/** C0 and C1 controls (U+0000–U+001F, NUL included, and U+007F–U+009F); tab, line feed and carriage return are told apart below. */
const CONTROL = /\p{Cc}/u
const LINE_BREAK_OR_TAB = /[\t\n\r]/gu
/** Embeddings and overrides (U+202A–U+202E) and isolates (U+2066–U+2069): they make text display as something else. */
const BIDI_CONTROL = /[\u202a-\u202e\u2066-\u2069]/u
/** With the u flag a surrogate pair is one code point: what still matches is unpaired. */
const UNPAIRED_SURROGATE = /\p{Cs}/u

/** Why `text` is not acceptable free text, or null when it is. */
export function freeTextProblem (text: string, multiline: boolean): string | null {
  // An unpaired surrogate cannot be stored as UTF-8: the engine would keep U+FFFD instead.
  if (UNPAIRED_SURROGATE.test(text)) return 'must not contain unpaired surrogates'
  if (CONTROL.test(multiline ? text.replace(LINE_BREAK_OR_TAB, '') : text)) {
    return multiline ? 'must not contain control characters other than line breaks and tabs' : 'must not contain control characters'
  }
  if (BIDI_CONTROL.test(text)) return 'must not contain bidirectional override or isolate characters'
  return null
}

/**
 * `x-free-text`: refuses what `freeTextProblem` names and replaces accepted text by its NFC form in the
 * request, so "é" typed as e + combining accent and "é" typed as one character are the same name.
 */
function checkFreeText (mode: unknown, data: unknown, _schema: unknown, context?: Parameters<SchemaValidateFunction>[3]): boolean {
  if (typeof data !== 'string') return true
  const problem = freeTextProblem(data, mode === 'multiline')
  if (problem !== null) {
    checkFreeText.errors = [{ keyword: FREE_TEXT_KEYWORD, message: problem, params: {} }]
    return false
  }
  if (context !== undefined && data !== data.normalize('NFC')) {
    (context.parentData as Record<string | number, unknown>)[context.parentDataProperty] = data.normalize('NFC')
  }
  return true
}
checkFreeText.errors = [] as Array<Partial<ErrorObject>>

// JSON's 1e400 parses to Infinity, which passes `type: integer` and every unbounded number unless
// strictNumbers is on (`strict: false` switches it off). Not on the coercing one: there Ajv checks the
// text "1e400" before turning it into Infinity, and strictNumbers then drops the bounds check, so
// `?enabled=1e400` would pass `maximum: 1`.
const strict = new Ajv({ ...common, coerceTypes: false, strictNumbers: true })
const coercing = new Ajv({ ...common, coerceTypes: 'array' })
for (const ajv of [strict, coercing]) {
  addFormats.default(ajv)
  ajv.addKeyword({ keyword: FREE_TEXT_KEYWORD, type: 'string', modifying: true, errors: true, validate: checkFreeText })
}
// Shared by every app the process builds: each distinct schema is compiled once.
const validatorFor = compiledOnce((schema, variant) => (variant === 'body' ? strict : coercing).compile(schema))

const createValidators = new Map<AlarmType, ValidateFunction>()
/**
 * The validator a create of `type` checks its body with, for domain code that checks an alarm as that
 * route would (a quick pick's alarms, an estimate's alarm): the schema is built and looked up once per type.
 */
export function alarmCreateValidator (type: AlarmType): ValidateFunction {
  let validate = createValidators.get(type)
  if (validate === undefined) {
    validate = validatorFor(alarmCreateSchema(type), 'body')
    createValidators.set(type, validate)
  }
  return validate
}

/**
 * Two validators: query strings, path parameters and headers are text by nature and are coerced
 * ("5" → 5); JSON bodies are not, so `{"min_iv": "5"}` or `{"value": 5}` is a 400, not a silent guess.
 * Unknown body fields are errors too (schemas say `additionalProperties: false`), never dropped.
 * Both know the free-text keyword (schemas/common.ts `FreeText`).
 */
export default fp(async (fastify) => {
  fastify.setValidatorCompiler(({ schema, httpPart }) => validatorFor(schema, httpPart === 'body' ? 'body' : 'text'))
}, { name: 'validation', fastify: '5.x' })

import { Type, type Static, type TSchema } from '@sinclair/typebox'
import { ALARM_KINDS, INT_MAX, INT_MIN, KIND_OF, TEST_ALERT_TYPES, UINT_MAX, type AlarmType, type FieldSpec } from './alarm-types.js'
import { FieldProblemSchema, FREE_TEXT } from './common.js'

/**
 * Alarm records on the wire: the engine's own snake_case column names, in requests and responses
 * (reference poracleweb-backend.md 1.4 for the ranges, alarm-engine.md 1.4 for what the engine accepts).
 * Request fields are nullable: on an update, null or absent keeps the stored value.
 */

/** Each type's fields by name, from the alarm-type table. */
export const ALARM_FIELDS = Object.fromEntries(ALARM_KINDS.map((k) => [k.type, k.fields])) as Record<AlarmType, Record<string, FieldSpec>>

/**
 * Read-only fields of a stored alarm that a client may echo back (it PUTs what it GETs). They are
 * accepted and ignored: the owner comes from the token, the uid from the path, the profile from the engine.
 */
const ECHOED: Record<string, TSchema> = {
  uid: Type.Unsafe({ type: ['integer', 'null'], minimum: 0, maximum: UINT_MAX }),
  id: Type.Unsafe({ type: ['string', 'null'] }),
  profile_no: Type.Unsafe({ type: ['integer', 'null'], minimum: INT_MIN, maximum: INT_MAX }),
  description: Type.Unsafe({ type: ['string', 'null'] })
}
export const ECHOED_FIELDS = new Set(Object.keys(ECHOED))

/** A request field; `nullable` except where a create requires it. Numbers are bounded, so Infinity (1e400) is refused too. */
function requestSchema (spec: FieldSpec, nullable = true): TSchema {
  const types = (...names: string[]) => (nullable ? [...names, 'null'] : names)
  const values = <T>(list: readonly T[]) => (nullable ? [...list, null] : [...list])
  const description = spec.description !== undefined ? { description: spec.description } : {}
  switch (spec.kind) {
    case 'integer':
      return Type.Unsafe({ type: types('integer'), minimum: spec.min, maximum: spec.max, ...description })
    case 'enum':
      return Type.Unsafe({ type: types(typeof spec.values[0] === 'string' ? 'string' : 'integer'), enum: values(spec.values), ...description })
    case 'boolean':
      return Type.Unsafe({ type: types('integer'), enum: values([0, 1]), ...description })
    case 'string':
      return Type.Unsafe({ type: types('string'), ...FREE_TEXT, maxLength: spec.maxLength, ...(spec.minLength !== undefined ? { minLength: spec.minLength } : {}), ...description })
    case 'template':
      return Type.Unsafe({ type: types('string', 'integer'), ...FREE_TEXT, maxLength: spec.maxLength, minimum: spec.min, maximum: spec.max, ...description })
    case 'list':
      return Type.Unsafe({ type: types('array'), maxItems: spec.maxItems, items: { type: 'string', ...FREE_TEXT, minLength: 1, maxLength: spec.maxLength }, ...description })
  }
}

/** Stored values are shown as the engine keeps them, so the response schema checks types, not ranges. */
function responseSchema (spec: FieldSpec): TSchema {
  switch (spec.kind) {
    case 'integer': return Type.Unsafe({ type: ['integer', 'null'] })
    case 'enum': return Type.Unsafe({ type: [typeof spec.values[0] === 'string' ? 'string' : 'integer', 'null'] })
    case 'boolean': return Type.Unsafe({ type: ['integer', 'boolean', 'null'] })
    case 'string': return Type.Unsafe({ type: ['string', 'null'] })
    case 'template': return Type.Unsafe({ type: ['string', 'integer', 'null'] })
    case 'list': return Type.Unsafe({ type: ['array', 'null'], items: { type: 'string' } })
  }
}

const mapFields = (type: AlarmType, build: (spec: FieldSpec) => TSchema) =>
  Object.fromEntries(Object.entries(ALARM_FIELDS[type]).map(([name, spec]) => [name, build(spec)]))

/** Request properties: all optional and nullable except `required` ones. */
const requestFields = (type: AlarmType, required: readonly string[]) => ({
  ...Object.fromEntries(Object.entries(ALARM_FIELDS[type]).map(([name, spec]) =>
    [name, required.includes(name) ? requestSchema(spec, false) : Type.Optional(requestSchema(spec))])),
  ...Object.fromEntries(Object.entries(ECHOED).map(([name, schema]) => [name, Type.Optional(schema)]))
})

/** POST body: the type's fields, its required ones, and the echoed read-only fields. */
export const alarmCreateSchema = (type: AlarmType) => Type.Object(requestFields(type, KIND_OF[type].requiredOnCreate), { additionalProperties: false })

/** PUT body: every field optional; null or absent keeps the stored value. */
export const alarmUpdateSchema = (type: AlarmType) => Type.Object(requestFields(type, []), { additionalProperties: false })

/** A stored alarm; columns this schema does not name are passed through as the engine sent them. */
export const alarmSchema = (type: AlarmType) => Type.Object({
  uid: Type.Integer(),
  id: Type.String({ description: 'The owner\'s user id.' }),
  profile_no: Type.Integer(),
  description: Type.Optional(Type.String({ description: 'The engine\'s one-line summary.' })),
  ...Object.fromEntries(Object.entries(mapFields(type, responseSchema)).map(([name, schema]) => [name, Type.Optional(schema)]))
}, { additionalProperties: true })

export const DistanceSchema = Type.Integer({ minimum: 0, maximum: 40_000_000, description: 'Metres; 0 = the user\'s areas.' })

export const BulkDistanceSchema = Type.Object({
  uids: Type.Array(Type.Integer({ minimum: 1, maximum: UINT_MAX }), { minItems: 1, maxItems: 1000, uniqueItems: true }),
  distance: DistanceSchema
}, { additionalProperties: false })

export const UidParamsSchema = Type.Object({ uid: Type.Integer({ minimum: 1, maximum: UINT_MAX }) })

export const UpdatedSchema = Type.Object({ updated: Type.Integer() })
export const DeletedSchema = Type.Object({ deleted: Type.Integer() })

export const TestAlertParamsSchema = Type.Object({
  type: Type.Union(TEST_ALERT_TYPES.map((t) => Type.Literal(t))),
  uid: Type.Integer({ minimum: 1, maximum: UINT_MAX })
})

export const TestAlertResultSchema = Type.Object({ status: Type.Literal('ok'), message: Type.String() })

/** Alarms one batch may create; the picker's selection of every species and form stays below it. */
export const BATCH_MAX = 2000

export const batchCreateSchema = (type: AlarmType) => Type.Object({
  alarms: Type.Array(alarmCreateSchema(type), { minItems: 1, maxItems: BATCH_MAX })
}, { additionalProperties: false })

export const batchCreateResultSchema = (type: AlarmType) => Type.Object({
  created: Type.Integer(),
  duplicates: Type.Integer(),
  refused: Type.Integer(),
  results: Type.Array(Type.Object({
    index: Type.Integer({ description: 'The item\'s place in `alarms`.' }),
    status: Type.Union([Type.Literal('created'), Type.Literal('duplicate'), Type.Literal('refused')]),
    alarm: Type.Optional(alarmSchema(type)),
    reason: Type.Optional(Type.String({ description: 'Why it was refused: a rule of the service or the alarm engine\'s own message.' })),
    details: Type.Optional(Type.Array(FieldProblemSchema)),
    collision: Type.Optional(Type.Object({
      code: Type.Union([Type.Literal('present'), Type.Literal('takeover'), Type.Literal('same-key'), Type.Literal('repeated')]),
      uid: Type.Union([Type.Integer(), Type.Null()])
    }, { description: 'For a duplicate, or an item refused because it meets one of the caller\'s alarms: which alarm (`uid`, null for an earlier item of the batch) and how: `present` it is stored already, `takeover` the engine would rewrite it, `same-key` the table keeps one per key, `repeated` an earlier item.' }))
  }))
})

export const bulkUpdateSchema = (type: AlarmType) => Type.Object({
  uids: Type.Array(Type.Integer({ minimum: 1, maximum: UINT_MAX }), { minItems: 1, maxItems: BATCH_MAX, uniqueItems: true }),
  patch: alarmUpdateSchema(type)
}, { additionalProperties: false })

export const bulkUpdateResultSchema = (type: AlarmType) => Type.Object({
  updated: Type.Integer(),
  unchanged: Type.Integer(),
  refused: Type.Integer(),
  results: Type.Array(Type.Object({
    uid: Type.Integer({ description: 'The alarm\'s uid before the change; `alarm.uid` is its uid now.' }),
    status: Type.Union([Type.Literal('updated'), Type.Literal('unchanged'), Type.Literal('refused')]),
    alarm: Type.Optional(alarmSchema(type)),
    reason: Type.Optional(Type.String()),
    details: Type.Optional(Type.Array(FieldProblemSchema))
  }))
})

/** The types whose alerts the engine can render for a preview: the ones a test alert has a sample for. */
export const TEMPLATE_PREVIEW_TYPES: readonly AlarmType[] = ALARM_KINDS.filter((k) => k.testAlert === 'available').map((k) => k.type)

/** POST /api/template-previews/{type}: the alarm as the editor holds it (every field optional) and the template to show. */
export const templatePreviewSchema = (type: AlarmType) => Type.Object({
  alarm: Type.Optional(alarmUpdateSchema(type)),
  template: Type.Optional(Type.Union([Type.String({ ...FREE_TEXT, minLength: 1, maxLength: 64 }), Type.Integer({ minimum: 0, maximum: INT_MAX })], {
    description: 'A template name or number of the engine\'s list; else the alarm\'s, else the engine\'s default.'
  }))
}, { additionalProperties: false })

export const TemplatePreviewSchema = Type.Object({
  template: Type.String(),
  platform: Type.Union([Type.Literal('discord'), Type.Literal('telegram')], { description: 'The member\'s platform: the one the alert would go to.' }),
  language: Type.String(),
  message: Type.Record(Type.String(), Type.Unknown(), { description: 'The engine\'s rendered message: Discord `content` and `embed` (title, description, color, fields, thumbnail, image), Telegram `content`.' })
})
export type TemplatePreviewAnswer = Static<typeof TemplatePreviewSchema>

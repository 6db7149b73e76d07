import { Type, type Static } from '@sinclair/typebox'
import { BoundedInteger, FreeText, INT32_MAX, LOG_REDACTED } from './common.js'
import { AlarmTypeSchema } from './alarm-types.js'

/** The VAPID public key the browser subscribes with (`applicationServerKey`). */
export const PushKeySchema = Type.Object({ publicKey: Type.String({ description: 'The site\'s VAPID public key, base64url' }) })

const clock = Type.String({ pattern: '^([01][0-9]|2[0-3]):[0-5][0-9]$', description: 'HH:MM, 24-hour' })

/** Hours in which a device shows nothing: alerts then are held back, not sent later. `start` after `end` spans midnight. */
export const QuietHoursSchema = Type.Object({
  start: clock,
  end: clock,
  timeZone: Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_+/-]+$', description: 'The device\'s IANA time zone, e.g. Europe/Berlin' })
}, { additionalProperties: false })
export type QuietHours = Static<typeof QuietHoursSchema>

const TypesSchema = Type.Array(AlarmTypeSchema, { maxItems: 20, uniqueItems: true, description: 'The alarm types this device shows; absent or null: every type' })

/**
 * The browser's `PushSubscription.toJSON()` plus this device's choices. The endpoint and keys are the
 * device's address and secrets at its push service: never logged, never answered back.
 */
export const PushSubscribeSchema = Type.Object({
  endpoint: Type.String({ minLength: 12, maxLength: 2000, pattern: '^https://', description: 'The push service address of this device (https only)' }),
  expirationTime: Type.Optional(Type.Union([Type.Null(), Type.Number()])),
  keys: Type.Object({
    p256dh: Type.String({ minLength: 80, maxLength: 100, pattern: '^[A-Za-z0-9_-]+={0,2}$', description: 'The device\'s P-256 public key, base64url' }),
    auth: Type.String({ minLength: 16, maxLength: 32, pattern: '^[A-Za-z0-9_-]+={0,2}$', description: 'The device\'s 16-byte auth secret, base64url' })
  }, { additionalProperties: false }),
  types: Type.Optional(Type.Union([Type.Null(), TypesSchema])),
  quietHours: Type.Optional(Type.Union([Type.Null(), QuietHoursSchema]))
}, { additionalProperties: false })
export type PushSubscribe = Static<typeof PushSubscribeSchema>

export const PushSubscriptionChangeSchema = Type.Object({
  types: Type.Optional(Type.Union([Type.Null(), TypesSchema])),
  quietHours: Type.Optional(Type.Union([Type.Null(), QuietHoursSchema]))
}, { additionalProperties: false, minProperties: 1 })
export type PushSubscriptionChange = Static<typeof PushSubscriptionChangeSchema>

export const PushSubscriptionIdParamsSchema = Type.Object({ id: BoundedInteger({ minimum: 1, maximum: INT32_MAX }) })

export const PushSubscriptionCreatedSchema = Type.Object({ id: Type.Integer() })

/** A device as its owner sees it: never its endpoint or keys. */
export const PushDeviceSchema = Type.Object({
  id: Type.Integer(),
  device: Type.String({ description: 'Browser and system, from the user agent when it subscribed' }),
  pushService: Type.String({ description: 'The push service\'s host name (which browser vendor delivers)' }),
  types: Type.Union([Type.Null(), Type.Array(AlarmTypeSchema)]),
  quietHours: Type.Union([Type.Null(), QuietHoursSchema]),
  createdAt: Type.String({ format: 'date-time' }),
  lastSentAt: Type.Union([Type.Null(), Type.String({ format: 'date-time' })]),
  current: Type.Boolean({ description: 'Subscribed from the session of this request' })
})
export type PushDevice = Static<typeof PushDeviceSchema>

export const PushDevicesSchema = Type.Object({ devices: Type.Array(PushDeviceSchema) })

export const PushTestSchema = Type.Object({
  title: Type.Optional(FreeText({ minLength: 1, maxLength: 100, description: 'The test notification\'s title, in the member\'s language' })),
  body: Type.Optional(FreeText({ minLength: 1, maxLength: 200, description: 'Its text' }))
}, { additionalProperties: false })

export const PushTestResultSchema = Type.Object({ sent: Type.Boolean() })

export const DeliveryModeSchema = Type.Union([Type.Literal('chat'), Type.Literal('push'), Type.Literal('both')], {
  description: 'chat: only the engine\'s chat message; push: only this site\'s push (needs the engine\'s validation hook, docs/push.md); both'
})
export type DeliveryMode = Static<typeof DeliveryModeSchema>

export const DeliveryChangeSchema = Type.Object({
  profileNo: BoundedInteger({ minimum: 1, maximum: INT32_MAX }),
  mode: DeliveryModeSchema
}, { additionalProperties: false })

export const DeliveryModesSchema = Type.Object({
  modes: Type.Array(Type.Object({ profileNo: Type.Integer(), mode: DeliveryModeSchema })),
  defaultMode: DeliveryModeSchema
})

/** The path token of the machine-to-machine hooks: never logged as sent. */
export const HookTokenParamsSchema = Type.Object({ token: Type.String({ minLength: 1, maxLength: 200, ...LOG_REDACTED }) })

/** Golbat's webhook body: every scanner event of a batch, each `{ type, message }`. */
export const ScannerFeedSchema = Type.Array(Type.Object({
  type: Type.String({ minLength: 1, maxLength: 40 }),
  message: Type.Record(Type.String(), Type.Unknown())
}), { maxItems: 20000 })

/** One PoracleNG validation call: the scanner event and the member it matched. */
export const ValidationCallSchema = Type.Object({
  type: Type.String({ minLength: 1, maxLength: 40 }),
  message: Type.Record(Type.String(), Type.Unknown()),
  target: Type.Object({ id: Type.String({ minLength: 1, maxLength: 255 }) }, { additionalProperties: true })
}, { additionalProperties: true })

export const ValidationAnswerSchema = Type.Object({ success: Type.Boolean({ description: 'false: the engine sends no chat message for this member' }) })

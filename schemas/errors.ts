import createError, { type FastifyErrorConstructor } from '@fastify/error'
import type { FastifyError } from 'fastify'

/**
 * The error catalogue: every error the service answers with is one named entry here, made with
 * `@fastify/error`, so it has a code (`AW_*`, in logs), an HTTP status and a message. Plugins and routes
 * throw entries (or the helpers below); the engine, refresh and chat-platform errors extend entries with
 * their own details. The error handler below maps all of them in one place: the status, `{ error:
 * message, ...extra }`, and for 5xx a generic text unless the entry's message is meant for the user.
 */
const CATALOGUED = Symbol('alarm-web error')

export const FEATURE_DISABLED_MESSAGE = 'This feature is disabled by the administrator.'

/** Fields the handler reads besides code, status and message. */
export interface ErrorAnswer {
  /** Merged into the JSON body, e.g. `{ disableKey }`, `{ details }`. */
  extra?: Record<string, unknown>
  /** A 5xx whose message helps the user and reveals nothing. */
  expose?: boolean
  /** Response headers that belong to the answer, e.g. `retry-after` on a 503. */
  headers?: Record<string, string>
  /** The text a 5xx answers with when the message itself is for logs only (it may carry a peer's words). */
  publicMessage?: string
}

type Catalogued = FastifyError & ErrorAnswer & { [CATALOGUED]: true }

type EntryConstructor<C extends string> = FastifyErrorConstructor<{ code: C, statusCode?: number } & ErrorAnswer, [string?]>

function entry<C extends string> (code: C, message: string, statusCode: number, expose = statusCode < 500): EntryConstructor<C> {
  const constructor = createError<C, [string?]>(code, message, statusCode)
  Object.defineProperty(constructor.prototype, CATALOGUED, { value: true })
  Object.defineProperty(constructor.prototype, 'expose', { value: expose, writable: true })
  return constructor as EntryConstructor<C>
}

export const ERRORS = {
  BadRequest: entry('AW_BAD_REQUEST', '%s', 400),
  Unauthorized: entry('AW_UNAUTHORIZED', '%s', 401),
  RefreshRefused: entry('AW_REFRESH_REFUSED', 'invalid_grant', 401),
  Forbidden: entry('AW_FORBIDDEN', '%s', 403),
  /** Base of SignInError: its reason decides the status and the redirect code (plugins/domain/identity.ts). */
  SignInRefused: entry('AW_SIGN_IN_REFUSED', '%s', 403),
  FeatureDisabled: entry('AW_FEATURE_DISABLED', FEATURE_DISABLED_MESSAGE, 403),
  NotFound: entry('AW_NOT_FOUND', '%s', 404),
  Conflict: entry('AW_CONFLICT', '%s', 409),
  TestAlertFailed: entry('AW_TEST_ALERT_FAILED', 'Failed to send test alert.', 500, true),
  /** Base of ChatPlatformError; its message names the failed call and is for logs only. */
  ChatPlatformFailed: entry('AW_CHAT_PLATFORM_FAILED', '%s', 500, false),
  NotSupported: entry('AW_NOT_SUPPORTED', '%s', 501, true),
  ProfileNotCreated: entry('AW_PROFILE_NOT_CREATED', 'The profile was not created.', 502, true),
  WebhookRejected: entry('AW_WEBHOOK_REJECTED', 'The alarm engine rejected the webhook. Nothing was created.', 502, true),
  GeofenceServerRejected: entry('AW_GEOFENCE_SERVER_REJECTED', 'The geofence server rejected the request; nothing was changed.', 502, true),
  GeofenceServerMissing: entry('AW_GEOFENCE_SERVER_MISSING', 'No geofence server is configured (KOJI_API_ADDRESS and KOJI_PROJECT_NAME).', 503, true),
  GeocoderMissing: entry('AW_GEOCODER_MISSING', 'Address search is not offered: the alarm engine names no geocoder (providerURL).', 501, true),
  GeocoderUnavailable: entry('AW_GEOCODER_UNAVAILABLE', 'Address search is unavailable right now. Please try again in a moment.', 503, true),
  GameDataUnavailable: entry('AW_GAME_DATA_UNAVAILABLE', 'Game data is unavailable right now.', 503, true),
  /** A passing condition on our side; the client is told when to try again. */
  Unavailable: entry('AW_UNAVAILABLE', '%s', 503, true),
  EngineUnavailable: entry('AW_ENGINE_UNAVAILABLE', 'The alarm engine is unreachable right now. Please try again in a moment.', 503, true),
  /** Base of EngineError, whose kind decides the status (plugins/data/engine/types.ts). */
  Engine: entry('AW_ENGINE', '%s', 500, false),
  /**
   * A peer's fault, one status each (docs/decisions.md, "Every peer fault its own status"): no connection
   * or known down 503, no complete answer in time 504, an answer that cannot be used 502. The engine's
   * entries are the codes EngineError takes by kind; the peer entries name the peer in the message.
   */
  EngineTimeout: entry('AW_ENGINE_TIMEOUT', 'The alarm engine did not answer in time. Please try again in a moment.', 504, true),
  EngineBadAnswer: entry('AW_ENGINE_BAD_ANSWER', 'The alarm engine sent an answer this service cannot use. Please try again later.', 502, true),
  EngineRefused: entry('AW_ENGINE_REFUSED', 'The alarm engine refused this service. An administrator needs to check the connection settings.', 502, true),
  EngineAnswerTooLarge: entry('AW_ENGINE_ANSWER_TOO_LARGE', 'The alarm engine sent an answer larger than this service accepts.', 502, true),
  PeerUnavailable: entry('AW_PEER_UNAVAILABLE', '%s', 503, true),
  PeerTimeout: entry('AW_PEER_TIMEOUT', '%s', 504, true),
  PeerBadAnswer: entry('AW_PEER_BAD_ANSWER', '%s', 502, true),
  PeerAnswerTooLarge: entry('AW_PEER_ANSWER_TOO_LARGE', '%s', 502, true)
} as const

const withExtra = <E extends Error>(error: E, extra?: Record<string, unknown>): E => (extra === undefined ? error : Object.assign(error, { extra }))

export const badRequest = (message: string, extra?: Record<string, unknown>) => withExtra(new ERRORS.BadRequest(message), extra)
export const unauthorized = (message = 'Authentication required.') => new ERRORS.Unauthorized(message)
export const forbidden = (message = 'You do not have access to this resource.', extra?: Record<string, unknown>) => withExtra(new ERRORS.Forbidden(message), extra)
export const notFound = (message = 'Not found.') => new ERRORS.NotFound(message)
export const conflict = (message: string, extra?: Record<string, unknown>) => withExtra(new ERRORS.Conflict(message), extra)
export const notSupported = (message: string) => new ERRORS.NotSupported(message)
export const featureDisabled = (disableKey: string) => withExtra(new ERRORS.FeatureDisabled(), { disableKey })
/** A passing condition on our side: the message is shown and the client is told when to try again. */
export const unavailable = (message: string, retryAfterSeconds: number) =>
  Object.assign(new ERRORS.Unavailable(message), { headers: { 'retry-after': String(retryAfterSeconds) } })
/** Sign-in and "who am I" cannot work without the engine; say so plainly instead of a generic 500. */
export const engineUnavailable = () => new ERRORS.EngineUnavailable()

/** How a peer is named to users in its fault messages. */
const PEER_NAMES: Record<string, string> = {
  Koji: 'The geofence server',
  Geocoder: 'Address search',
  Golbat: 'The pokemon availability service',
  'Game master file': 'The game data download',
  'Chat platform': 'The chat platform',
  'Push service': 'The push service'
}

/**
 * The catalogue entry for a failed call to a peer other than the engine (lib/fetch-json.ts reasons):
 * unreachable 503, timeout 504, a status, body or size it cannot use 502. The message names the peer,
 * never its address.
 */
export function peerFault (service: string, reason: 'unreachable' | 'timeout' | 'status' | 'invalid' | 'too_large'): CataloguedError {
  const peer = PEER_NAMES[service] ?? 'A service this site depends on'
  switch (reason) {
    case 'unreachable': return new ERRORS.PeerUnavailable(`${peer} is unreachable right now. Please try again in a moment.`)
    case 'timeout': return new ERRORS.PeerTimeout(`${peer} did not answer in time. Please try again in a moment.`)
    case 'too_large': return new ERRORS.PeerAnswerTooLarge(`${peer} sent an answer larger than this site accepts.`)
    default: return new ERRORS.PeerBadAnswer(`${peer} sent an answer this site cannot use. Please try again later.`)
  }
}

/** Any error of the catalogue, subclasses included. */
export type CataloguedError = FastifyError & ErrorAnswer
export const isCatalogued = (error: unknown): error is Catalogued => typeof error === 'object' && error !== null && CATALOGUED in error

import type { FastifyBaseLogger } from 'fastify'
import { ERRORS } from './errors.js'

/*
 * The two refusals of signing in and staying signed in, catalogue entries with a reason. They live
 * beside the catalogue rather than in the plugins that throw them because a layer below those plugins
 * reads them too: the sign-in flow (`lib/sign-in-flow.ts`) turns a SignInError into its redirect, and
 * the metrics (`plugins/edge/metrics.ts`) count a RefreshRefused by its reason.
 */

export const BLOCKED_MESSAGE = 'This account has been blocked by an administrator.'

export type SignInErrorCode =
  | 'user_not_registered' | 'engine_unavailable' | 'account_blocked'
  | 'oidc_disabled' | 'discord_disabled' | 'telegram_disabled'
  | 'not_in_guild' | 'missing_required_role' | 'role_check_failed'
  | 'oidc_invalid_state' | 'missing_code' | 'oidc_provider_error'
  | 'oidc_token_exchange_failed' | 'oidc_userinfo_failed' | 'oidc_no_identity'

/** How a refusal answers as JSON (the Telegram widget posts with fetch); redirects carry only the reason. */
const REFUSAL_ANSWERS: Partial<Record<SignInErrorCode, { status: number, message: string, withReason?: true }>> = {
  user_not_registered: { status: 403, message: 'User not registered in Poracle.' },
  account_blocked: { status: 403, message: BLOCKED_MESSAGE },
  engine_unavailable: { status: 503, message: new ERRORS.EngineUnavailable().message },
  telegram_disabled: { status: 400, message: 'Telegram login is disabled by the administrator.', withReason: true }
}
const OTHER_REFUSAL = { status: 403, message: 'Telegram sign-in was refused.', withReason: true } as const

/**
 * A refused sign-in, a catalogue entry. `reason` is what the login page shows (`/login#error=<reason>`);
 * `detail` is for logs only.
 */
export class SignInError extends ERRORS.SignInRefused {
  constructor (readonly reason: SignInErrorCode, readonly detail: string = reason) {
    const answer = REFUSAL_ANSWERS[reason] ?? OTHER_REFUSAL
    super(answer.message)
    this.name = 'SignInError'
    this.statusCode = answer.status
    this.expose = true
    if (answer.withReason === true) this.extra = { code: reason }
  }

  /** Logs the refusal: what happened, never a token or code. */
  logTo (log: FastifyBaseLogger, method: string): void {
    log.info({ code: this.reason, detail: this.detail }, `${method} sign-in refused`)
  }
}

/**
 * A refresh refused. The client only ever sees 401 `invalid_grant`, one answer for every refusal, so a
 * caller cannot tell unknown, replayed and revoked tokens apart; the reason (a `REASON` of
 * `plugins/domain/refresh-sessions.ts`) goes to the log.
 */
export class RefreshRefused extends ERRORS.RefreshRefused {
  constructor (readonly reason: string) {
    super()
    this.name = 'RefreshRefused'
  }
}

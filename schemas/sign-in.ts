import { Type, type Static } from '@sinclair/typebox'
import { LOG_REDACTED, flags } from './common.js'

/** What the login page needs to know to offer (or skip to) each sign-in method. */
export const ProvidersSchema = Type.Object({
  oidc: Type.Object({
    configured: Type.Boolean({ description: 'OIDC_ENABLED, the client id and the three endpoint URLs are set' }),
    enabledByAdmin: Type.Boolean({ description: 'SSO mode: enable_oidc is "true" and AUTH_FORCE_LOCAL is off' }),
    providerName: Type.String({ description: 'Label of the login button' }),
    endSession: Type.Boolean({ description: 'Single logout available' }),
    refresh: Type.Boolean({ description: 'Configured and OIDC_USE_REFRESH_TOKENS on' })
  }),
  discord: Type.Object(flags({
    configured: 'Client id and secret are set',
    enabledByAdmin: 'enable_discord is not "false"'
  })),
  telegram: Type.Object({
    ...flags({
      configured: 'TELEGRAM_ENABLED and a bot token',
      enabledByAdmin: 'enable_telegram is not "false"'
    }),
    botUsername: Type.String({ description: 'TELEGRAM_BOT_USERNAME, else the telegram_bot setting, without @' })
  })
})
export type Providers = Static<typeof ProvidersSchema>

/** The server's OIDC configuration as the admin sees it: read-only, client id and secret masked. */
export const OidcConfigSchema = Type.Object({
  configured: Type.Boolean(),
  enabled: Type.Boolean({ description: 'OIDC_ENABLED' }),
  forceLocal: Type.Boolean({ description: 'AUTH_FORCE_LOCAL (break-glass)' }),
  providerName: Type.String(),
  issuer: Type.String({ description: 'OIDC_ISSUER; empty: taken from the provider\'s answers' }),
  authorizationUrl: Type.String(),
  tokenUrl: Type.String(),
  userInfoUrl: Type.String(),
  endSessionUrl: Type.String(),
  revocationUrl: Type.String(),
  clientId: Type.String({ description: 'Masked' }),
  clientSecret: Type.String({ description: 'Masked' }),
  scopes: Type.String({ description: 'OIDC_SCOPES as configured' }),
  requestedScopes: Type.String({ description: 'What the authorize request asks for (offline-access rule applied)' }),
  identityClaim: Type.String(),
  usernameClaim: Type.String(),
  avatarClaim: Type.String(),
  identityType: Type.String(),
  usePkce: Type.Boolean(),
  tokenEndpointAuthMethod: Type.String(),
  useRefreshTokens: Type.Boolean(),
  accessTokenMinutes: Type.Integer(),
  refreshTokenLifetimeDays: Type.Integer(),
  revokedRetentionDays: Type.Integer(),
  offlineAccessScope: Type.String()
})
export type OidcConfig = Static<typeof OidcConfigSchema>

/** What a browser's binding value looks like: 16 to 64 base64url characters. */
const BINDING_PATTERN = '^[A-Za-z0-9_-]{16,64}$'

/**
 * The query of a sign-in's start: the value the browser keeps in its sessionStorage for this sign-in
 * (lib/sign-in-flow.ts `LoginTransaction.binding`), never logged.
 */
export const BindingQuerySchema = Type.Object({
  binding: Type.Optional(Type.String({ pattern: BINDING_PATTERN, description: 'The browser\'s own value for this sign-in, echoed in the success fragment', ...LOG_REDACTED }))
}, { additionalProperties: false })

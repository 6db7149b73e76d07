import { Type, type Static } from '@sinclair/typebox'

export const ServerProfileSchema = Type.Object({
  engine: Type.Union([Type.String(), Type.Null()], { description: 'PoracleNG or PoracleJS; null when unreachable' }),
  generation: Type.Union([Type.Literal('ng'), Type.Literal('js'), Type.Null()]),
  reachable: Type.Boolean(),
  version: Type.Union([Type.String(), Type.Null()]),
  schemaVersion: Type.Union([Type.String(), Type.Null()], { description: 'schema_migrations version (NG) or last knex migration (JS)' }),
  capabilities: Type.Record(Type.String(), Type.Boolean()),
  minimumSupported: Type.String(),
  belowMinimum: Type.Boolean(),
  checkedAt: Type.String({ format: 'date-time' }),
  web: Type.Object({
    version: Type.Union([Type.String(), Type.Null()], { description: 'BUILD_VERSION; null when the build did not set it (a development build)' }),
    revision: Type.Union([Type.String(), Type.Null()], { description: 'BUILD_REVISION; null when not set' }),
    buildDate: Type.Union([Type.String(), Type.Null()], { description: 'BUILD_DATE; null when not set' })
  }, { description: 'This service\'s build' })
})
export type ServerProfile = Static<typeof ServerProfileSchema>

export const DiscordConfigSchema = Type.Object({
  clientId: Type.String(),
  clientSecret: Type.String(),
  botToken: Type.String(),
  guildId: Type.String(),
  geofenceForumChannelId: Type.String(),
  apiUrl: Type.String(),
  adminIds: Type.Array(Type.String())
})

export const TelegramConfigSchema = Type.Object({
  botToken: Type.String(),
  botUsername: Type.String(),
  enabled: Type.Boolean()
})
export type DiscordConfig = Static<typeof DiscordConfigSchema>
export type TelegramConfig = Static<typeof TelegramConfigSchema>

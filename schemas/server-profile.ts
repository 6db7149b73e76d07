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
  web: Type.Object({ version: Type.String(), revision: Type.String(), buildDate: Type.String() })
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

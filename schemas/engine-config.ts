import { Type, type Static } from '@sinclair/typebox'
import { flags } from './common.js'

/** What the connected engine generation can do; the client hides what it cannot. */
export const EngineCapabilitiesSchema = Type.Object(flags({
  fortChanges: 'Fort change alarms',
  maxBattles: 'Max battle alarms',
  summaries: 'Quest summary schedules',
  testAlerts: 'Test alerts',
  reload: 'A full tracking-state reload route',
  userCreation: 'Creating users (webhooks) through the engine',
  savedPlaces: 'Saved places (no supported engine offers them to this service)'
}))
export type EngineCapabilities = Static<typeof EngineCapabilitiesSchema>

/**
 * The engine configuration a signed-in user may see (the reference's `PublicPoracleConfig`): no admin
 * ids, no delegation map, no geocoder URL or static-map key.
 */
export const PublicConfigSchema = Type.Object({
  locale: Type.String(),
  poracleVersion: Type.String(),
  pvpFilterMaxRank: Type.Number(),
  pvpFilterLittleMinCp: Type.Number(),
  pvpFilterGreatMinCp: Type.Number(),
  pvpFilterUltraMinCp: Type.Number(),
  pvpLittleLeagueAllowed: Type.Boolean(),
  pvpCaps: Type.Array(Type.Number()),
  defaultPvpCap: Type.Number(),
  defaultTemplateName: Type.String({ description: 'PoracleJS configures a number, PoracleNG a string: always text here' }),
  everythingFlagPermissions: Type.Union([Type.String(), Type.Null()]),
  maxDistance: Type.Number({ description: 'Metres; 0 = the engine sets no limit' }),
  engine: Type.Object({
    generation: Type.Union([Type.Literal('ng'), Type.Literal('js'), Type.Null()], { description: 'null when the engine could not be reached' }),
    name: Type.Union([Type.String(), Type.Null()]),
    reachable: Type.Boolean(),
    capabilities: EngineCapabilitiesSchema
  }),
  gymPicker: Type.Boolean({ description: 'A scanner database is configured: gym search (and the gym picker) is available' })
})
export type PublicConfig = Static<typeof PublicConfigSchema>

export const TemplatesSchema = Type.Object({
  discord: Type.Record(Type.String(), Type.Unknown()),
  telegram: Type.Record(Type.String(), Type.Unknown())
}, { additionalProperties: true })

/**
 * The server's API as the client calls it: one named function per endpoint, typed by the server's own
 * TypeBox schemas (imported as types only, so no schema reaches the bundle). Pages call these and never
 * write a URL (the transport's `api` is not exported here). Each concern is a namespace of plain functions,
 * so a chunk keeps only the ones it calls.
 */
export { ApiError, signOut, type FieldProblem } from './transport'
export * as admin from './admin'
export * as alarms from './alarms'
export * as areas from './areas'
export * as auth from './auth'
export * as estimates from './estimates'
export * as explanations from './explanations'
export * as geofences from './geofences'
export * as userLocation from './location'
export * as masterdata from './masterdata'
export * as preferences from './preferences'
export * as profiles from './profiles'
export * as push from './push'
export * as quickPicks from './quick-picks'
export * as settings from './settings'
export * as sharedSets from './shared-sets'

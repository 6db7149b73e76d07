import { sql } from 'drizzle-orm'
import { bigint, boolean, datetime, index, int, json, longtext, mysqlTable, text, uniqueIndex, varbinary, varchar } from 'drizzle-orm/mysql-core'

/**
 * The service's own tables (database `WEB_DB_NAME`). Every change here is followed by
 * `npm run db:generate -- --name <what>` on top of the current main, and the generated SQL is committed.
 * Times are UTC `datetime(6)` strings ("YYYY-MM-DD hh:mm:ss.ffffff"); callers pass "now" explicitly.
 */
const utc = (name: string) => datetime(name, { fsp: 6, mode: 'string' })
const createdAt = () => utc('created_at').notNull().default(sql`CURRENT_TIMESTAMP(6)`)

export const siteSettings = mysqlTable('site_settings', {
  id: int('id').autoincrement().primaryKey(),
  category: varchar('category', { length: 50 }).notNull().default('general'),
  key: varchar('key', { length: 100 }).notNull(),
  value: text('value'),
  valueType: varchar('value_type', { length: 20 }).notNull().default('string')
}, (t) => [uniqueIndex('site_settings_key_unique').on(t.key)])

export const webhookDelegates = mysqlTable('webhook_delegates', {
  id: int('id').autoincrement().primaryKey(),
  webhookId: varchar('webhook_id', { length: 500 }).notNull(),
  userId: varchar('user_id', { length: 100 }).notNull(),
  createdAt: createdAt()
}, (t) => [
  uniqueIndex('webhook_delegates_webhook_user_unique').on(t.webhookId, t.userId),
  index('webhook_delegates_user_idx').on(t.userId)
])

export const quickPickDefinitions = mysqlTable('quick_pick_definitions', {
  id: varchar('id', { length: 50 }).primaryKey(),
  name: varchar('name', { length: 200 }).notNull(),
  description: text('description'),
  icon: varchar('icon', { length: 50 }).notNull().default('bolt'),
  category: varchar('category', { length: 50 }).notNull().default('Common'),
  alarmType: varchar('alarm_type', { length: 20 }).notNull().default('monster'),
  sortOrder: int('sort_order').notNull().default(0),
  enabled: boolean('enabled').notNull().default(true),
  scope: varchar('scope', { length: 10 }).notNull().default('global'),
  ownerUserId: varchar('owner_user_id', { length: 100 }),
  filtersJson: json('filters_json').notNull(),
  createdAt: createdAt(),
  updatedAt: utc('updated_at').notNull().default(sql`CURRENT_TIMESTAMP(6)`)
}, (t) => [index('quick_pick_definitions_scope_owner_idx').on(t.scope, t.ownerUserId)])

export const quickPickAppliedStates = mysqlTable('quick_pick_applied_states', {
  id: int('id').autoincrement().primaryKey(),
  userId: varchar('user_id', { length: 100 }).notNull(),
  profileNo: int('profile_no').notNull(),
  quickPickId: varchar('quick_pick_id', { length: 50 }).notNull(),
  alarmType: varchar('alarm_type', { length: 20 }).notNull().default('monster'),
  appliedAt: utc('applied_at').notNull().default(sql`CURRENT_TIMESTAMP(6)`),
  excludePokemonIdsJson: json('exclude_pokemon_ids_json'),
  trackedUidsJson: json('tracked_uids_json').notNull()
}, (t) => [uniqueIndex('quick_pick_applied_user_profile_pick_unique').on(t.userId, t.profileNo, t.quickPickId)])

export const userGeofences = mysqlTable('user_geofences', {
  id: int('id').autoincrement().primaryKey(),
  humanId: varchar('human_id', { length: 255 }).notNull(),
  kojiName: varchar('koji_name', { length: 100 }).notNull(),
  displayName: varchar('display_name', { length: 100 }).notNull(),
  groupName: varchar('group_name', { length: 100 }).notNull().default(''),
  status: varchar('status', { length: 20 }).notNull().default('active'),
  parentId: int('parent_id'),
  polygonJson: longtext('polygon_json'),
  submittedAt: utc('submitted_at'),
  reviewedAt: utc('reviewed_at'),
  reviewedBy: varchar('reviewed_by', { length: 100 }),
  reviewNotes: text('review_notes'),
  promotedName: varchar('promoted_name', { length: 100 }),
  discordThreadId: varchar('discord_thread_id', { length: 100 }),
  createdAt: createdAt(),
  updatedAt: utc('updated_at').notNull().default(sql`CURRENT_TIMESTAMP(6)`)
}, (t) => [
  index('user_geofences_human_idx').on(t.humanId),
  // Names are the engine's area keys: two fences with one name would be one area to the engine.
  uniqueIndex('user_geofences_koji_name_unique').on(t.kojiName),
  index('user_geofences_status_idx').on(t.status)
])

/**
 * Refresh-backed SSO sessions. One row per opaque browser token; a login starts a family and every
 * refresh inserts a successor in the same family. Only the SHA-256 of the opaque token is stored.
 */
export const oidcSessions = mysqlTable('oidc_sessions', {
  id: bigint('id', { mode: 'number', unsigned: true }).autoincrement().primaryKey(),
  tokenHash: varchar('token_hash', { length: 64 }).notNull(),
  familyId: varchar('family_id', { length: 36 }).notNull(),
  familyIssuedAt: utc('family_issued_at').notNull(),
  userId: varchar('user_id', { length: 255 }).notNull(),
  issuer: varchar('issuer', { length: 500 }).notNull().default(''),
  subject: varchar('subject', { length: 255 }).notNull(),
  encryptedRefreshToken: text('encrypted_refresh_token').notNull(),
  encryptionKeyId: varchar('encryption_key_id', { length: 32 }).notNull(),
  expiresAt: utc('expires_at').notNull(),
  revokedAt: utc('revoked_at'),
  revokedReason: varchar('revoked_reason', { length: 32 }),
  replacedByHash: varchar('replaced_by_hash', { length: 64 }),
  createdAt: createdAt(),
  ipAddress: varchar('ip_address', { length: 45 }),
  userAgent: varchar('user_agent', { length: 256 }),
  /** The provider's session id (`sid` of the id_token), for back-channel logout. */
  providerSid: varchar('provider_sid', { length: 255 })
}, (t) => [
  uniqueIndex('oidc_sessions_token_hash_unique').on(t.tokenHash),
  index('oidc_sessions_family_idx').on(t.familyId),
  index('oidc_sessions_user_revoked_idx').on(t.userId, t.revokedAt),
  index('oidc_sessions_revoked_expires_idx').on(t.revokedAt, t.expiresAt),
  index('oidc_sessions_expires_idx').on(t.expiresAt),
  index('oidc_sessions_provider_sid_idx').on(t.providerSid)
])

/**
 * Ended sign-ins without a refresh family: a token issued before `not_before` for its key is refused.
 * Keys are `user:<id>` (every such sign-in of the user) or `sid:<session id>` (one sign-in, or one
 * impersonation). Rows outlive the longest token by a day, then the cleanup job deletes them.
 */
export const sessionCutoffs = mysqlTable('session_cutoffs', {
  key: varchar('cutoff_key', { length: 300 }).primaryKey(),
  notBefore: utc('not_before').notNull(),
  /** For a `user:` key: the one sign-in that stays ("end all my other sign-ins"). */
  keepSid: varchar('keep_sid', { length: 64 })
}, (t) => [index('session_cutoffs_not_before_idx').on(t.notBefore)])

/** Back-channel logout tokens already used (`jti`), kept until they would have expired anyway. */
export const logoutTokenUses = mysqlTable('logout_token_uses', {
  jti: varchar('jti', { length: 255 }).primaryKey(),
  expiresAt: utc('expires_at').notNull()
}, (t) => [index('logout_token_uses_expires_idx').on(t.expiresAt)])

/** What administrators did: who, to whom, what changed (never a secret), when, in which request. */
export const auditLog = mysqlTable('audit_log', {
  id: bigint('id', { mode: 'number', unsigned: true }).autoincrement().primaryKey(),
  at: utc('at').notNull(),
  actorId: varchar('actor_id', { length: 255 }).notNull(),
  action: varchar('action', { length: 64 }).notNull(),
  target: varchar('target', { length: 500 }),
  details: json('details'),
  requestId: varchar('request_id', { length: 64 }).notNull(),
  status: int('status').notNull()
}, (t) => [
  index('audit_log_at_idx').on(t.at),
  index('audit_log_actor_at_idx').on(t.actorId, t.at),
  index('audit_log_action_at_idx').on(t.action, t.at),
  index('audit_log_target_idx').on(t.target)
])

/**
 * A member's personal defaults for new alarms, the same on every device: the distance, clean bits and
 * template every new alarm form starts with. One row per user (not per profile); null = no default.
 */
export const alarmDefaults = mysqlTable('alarm_defaults', {
  userId: varchar('user_id', { length: 255 }).primaryKey(),
  distance: int('distance'),
  clean: int('clean'),
  template: varchar('template', { length: 256 }),
  updatedAt: utc('updated_at').notNull().default(sql`CURRENT_TIMESTAMP(6)`)
})

/**
 * Alarm sets a member shared as a link (`/s/<token>`): a snapshot of the alarms' filters only (no uid,
 * owner, profile, location or private fence), made when shared and never updated. `token` is the
 * link's secret (128 random bits, base64url). A revoked set is deleted; an expired one answers "not
 * found" from `expires_at` on. The token is bytes, so it compares case-sensitively (a varchar's collation
 * would let `aB…` open `Ab…`, losing bits of the secret). `hidden` is an administrator's moderation: the link and the catalogue no
 * longer show it.
 */
export const sharedSets = mysqlTable('shared_sets', {
  token: varbinary('token', { length: 32 }).primaryKey(),
  ownerUserId: varchar('owner_user_id', { length: 255 }).notNull(),
  title: varchar('title', { length: 100 }).notNull(),
  /** The name the sharer chose to show; null shows "a member". */
  displayName: varchar('display_name', { length: 40 }),
  snapshotJson: json('snapshot_json').notNull(),
  alarmCount: int('alarm_count').notNull(),
  /** The set's alarm types and pokemon ids as words, for the catalogue's search. */
  searchText: varchar('search_text', { length: 2000 }).notNull().default(''),
  expiresAt: utc('expires_at'),
  copies: int('copies').notNull().default(0),
  hidden: boolean('hidden').notNull().default(false),
  inCatalogue: boolean('in_catalogue').notNull().default(false),
  createdAt: createdAt()
}, (t) => [
  index('shared_sets_owner_idx').on(t.ownerUserId),
  index('shared_sets_catalogue_idx').on(t.inCatalogue, t.hidden, t.copies)
])

/**
 * One browser's Web Push subscription (docs/push.md): where the push service takes messages for this
 * device and the keys to encrypt them with. The endpoint is the device's address at its push service and
 * is unique; its SHA-256 is the unique key (an endpoint can be longer than an index allows). `session_sid`
 * is the sign-in that subscribed, so ending that session ends the subscription.
 */
export const pushSubscriptions = mysqlTable('push_subscriptions', {
  id: int('id').autoincrement().primaryKey(),
  userId: varchar('user_id', { length: 255 }).notNull(),
  sessionSid: varchar('session_sid', { length: 100 }),
  endpoint: text('endpoint').notNull(),
  endpointHash: varchar('endpoint_hash', { length: 64 }).notNull(),
  p256dh: varchar('p256dh', { length: 200 }).notNull(),
  auth: varchar('auth', { length: 100 }).notNull(),
  device: varchar('device', { length: 100 }).notNull().default(''),
  /** The alarm types this device shows; null: every type. */
  typesJson: json('types_json'),
  /** `{ start: "22:00", end: "07:00", timeZone }` or null. */
  quietHoursJson: json('quiet_hours_json'),
  createdAt: createdAt(),
  lastSentAt: utc('last_sent_at')
}, (t) => [
  uniqueIndex('push_subscriptions_endpoint_unique').on(t.endpointHash),
  index('push_subscriptions_user_idx').on(t.userId)
])

/** Where a member's alerts of one profile go: `chat`, `push` or `both` (no row: both once a device is subscribed). */
export const pushDelivery = mysqlTable('push_delivery', {
  userId: varchar('user_id', { length: 255 }).notNull(),
  profileNo: int('profile_no').notNull(),
  mode: varchar('mode', { length: 10 }).notNull()
}, (t) => [uniqueIndex('push_delivery_user_profile_unique').on(t.userId, t.profileNo)])

/**
 * One row per completed sign-in (not per token renewal): who, by which method, when. The admin insights
 * count members signed in lately and sign-ins per day from it; nothing else about the request is kept.
 */
export const signIns = mysqlTable('sign_ins', {
  id: bigint('id', { mode: 'number', unsigned: true }).autoincrement().primaryKey(),
  userId: varchar('user_id', { length: 255 }).notNull(),
  /** oidc, discord or telegram (identity's `SignInMethod`). */
  method: varchar('method', { length: 20 }).notNull(),
  at: utc('at').notNull()
}, (t) => [
  index('sign_ins_at_idx').on(t.at),
  index('sign_ins_user_at_idx').on(t.userId, t.at)
])

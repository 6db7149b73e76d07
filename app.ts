import { randomUUID } from 'node:crypto'
import Fastify, { LogController, type FastifyInstance, type FastifyReply, type FastifyRequest, type FastifyServerOptions } from 'fastify'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import config, { type Config } from './plugins/config.js'
import clock, { type Clock } from './plugins/clock.js'
import errors, { answerError } from './plugins/errors.js'
import metrics from './plugins/metrics.js'
import validation from './plugins/validation.js'
import proxyTrust, { trustedProxies } from './plugins/proxy-trust.js'
import securityHeaders from './plugins/security-headers.js'
import compression from './plugins/compression.js'
import rateLimits from './plugins/rate-limits.js'
import openapi from './plugins/openapi.js'
import db from './plugins/db.js'
import engineDb from './plugins/engine-db.js'
import userWriteLock from './plugins/user-write-lock.js'
import engine from './plugins/engine.js'
import auth from './plugins/auth.js'
import cookies from './plugins/cookies.js'
import siteSettings from './plugins/site-settings.js'
import chatPlatform from './plugins/chat-platform.js'
import cacheEviction from './plugins/cache-eviction.js'
import identity from './plugins/identity.js'
import oidcClient from './plugins/oidc-client.js'
import refreshSessions from './plugins/refresh-sessions.js'
import sessionEnds from './plugins/session-ends.js'
import auditLog from './plugins/audit-log.js'
import sessionCleanup from './plugins/session-cleanup.js'
import blockedAccounts from './plugins/blocked-accounts.js'
import featureGates from './plugins/feature-gates.js'
import alarmTypes from './plugins/alarm-types.js'
import alarmEvents from './plugins/alarm-events.js'
import koji from './plugins/koji.js'
import geocoder from './plugins/geocoder.js'
import areaWriter from './plugins/area-writer.js'
import geofenceForum from './plugins/geofence-forum.js'
import userGeofences from './plugins/user-geofences.js'
import geofenceFeed from './plugins/geofence-feed.js'
import areaSelection from './plugins/area-selection.js'
import alarmWriter from './plugins/alarm-writer.js'
import testAlerts from './plugins/test-alerts.js'
import profiles from './plugins/profiles.js'
import avatars from './plugins/avatars.js'
import adminUsers from './plugins/admin-users.js'
import delegates from './plugins/delegates.js'
import serverProfile from './plugins/server-profile.js'
import quickPicks from './plugins/quick-picks.js'
import alarmDefaults from './plugins/alarm-defaults.js'
import gameData from './plugins/game-data.js'
import masterNames from './plugins/master-names.js'
import scannerDb from './plugins/scanner-db.js'
import scanner from './plugins/scanner.js'
import pokemonAvailability from './plugins/pokemon-availability.js'
import iconSets from './plugins/icon-sets.js'
import alarmEstimates from './plugins/alarm-estimates.js'
import healthRoutes from './routes/health/index.js'
import metricsRoutes from './routes/metrics/index.js'
import settingsRoutes from './routes/settings/index.js'
import oidcRoutes from './routes/auth/oidc/index.js'
import oidcConfigRoutes from './routes/settings/oidc-config.js'
import refreshRoutes from './routes/auth/refresh/index.js'
import backchannelLogoutRoutes from './routes/auth/oidc/backchannel-logout.js'
import deviceSessionRoutes from './routes/auth/sessions/index.js'
import auditRoutes from './routes/admin/audit/index.js'
import adminSessionRoutes from './routes/admin/users/sessions.js'
import providersRoutes from './routes/auth/providers/index.js'
import discordRoutes from './routes/auth/discord/index.js'
import telegramRoutes from './routes/auth/telegram/index.js'
import sessionUserRoutes from './routes/auth/user/index.js'
import impersonationRoutes from './routes/admin/impersonation.js'
import adminUserRoutes from './routes/admin/users/index.js'
import delegateRoutes from './routes/admin/delegates/index.js'
import serverProfileRoutes from './routes/admin/server-profile/index.js'
import iconSetRoutes from './routes/admin/icon-sets/index.js'
import settingsCardRoutes from './routes/settings/cards.js'
import quickPickRoutes from './routes/quick-picks/index.js'
import upstreamDisabledRoutes from './routes/settings/upstream-disabled.js'
import alarmRoutes from './routes/alarms/index.js'
import alarmTypeRoutes from './routes/alarm-types/index.js'
import alarmDefaultRoutes from './routes/alarm-defaults/index.js'
import profileRoutes from './routes/profiles/index.js'
import profileOverviewRoutes from './routes/profile-overview/index.js'
import locationRoutes from './routes/location/index.js'
import mapRoutes from './routes/map/index.js'
import areaRoutes from './routes/areas/index.js'
import engineConfigRoutes from './routes/config/index.js'
import dtsRoutes from './routes/config/dts.js'
import summaryScheduleRoutes from './routes/summary-schedules/index.js'
import cleaningRoutes from './routes/cleaning/index.js'
import masterdataRoutes from './routes/masterdata/index.js'
import masterNameRoutes from './routes/masterdata/names.js'
import geofenceFeedRoutes from './routes/geofence-feed/index.js'
import geofenceRoutes from './routes/geofences/index.js'
import adminGeofenceRoutes from './routes/admin/geofences/index.js'
import scannerRoutes from './routes/scanner/index.js'
import weatherRoutes from './routes/weather/index.js'
import pokemonAvailabilityRoutes from './routes/pokemon-availability/index.js'
import alarmEstimateRoutes from './routes/alarm-estimates/index.js'
import templatePreviewRoutes from './routes/template-previews/index.js'
import spawningNowRoutes from './routes/spawning-now/index.js'
import spa from './plugins/spa.js'

export interface AppOptions {
  config: Config
  clock?: Clock
  /** Fastify's logger option; defaults to pino at LOG_LEVEL. Tests pass a stream to capture lines. */
  logger?: LoggerOption
}

/** Query parameters that carry credentials: their values never reach a log line. */
const SECRET_PARAMS = /^(code|state|token|refresh_token|access_token|id_token|id_token_hint|hash|session_state)$/i

export function redactUrl (url: string): string {
  const at = url.indexOf('?')
  if (at === -1) return url
  const params = new URLSearchParams(url.slice(at + 1))
  for (const key of [...params.keys()]) if (SECRET_PARAMS.test(key)) params.set(key, '[redacted]')
  return `${url.slice(0, at)}?${params.toString()}`
}

/** Request lines carry the method, the path with credentials redacted, and the client address. */
const serializers = {
  req: (request: FastifyRequest) => ({ method: request.method, url: redactUrl(request.url), host: request.host, remoteAddress: request.ip })
}

/**
 * One line per request, when it is answered, instead of Fastify's two (received, completed): half the
 * serialisation and writes per call, and the line still has everything either of the two had.
 */
class OneLinePerRequest extends LogController {
  override incomingRequest (): void {}

  override requestCompleted (error: Error | null, request: FastifyRequest, reply: FastifyReply): void {
    if (error) reply.log.error({ req: request, res: reply, err: error, responseTime: reply.elapsedTime }, 'request errored')
    else reply.log.info({ req: request, res: reply, responseTime: reply.elapsedTime }, 'request completed')
  }
}

type LoggerOption = NonNullable<FastifyServerOptions['logger']>

function loggerOptions (options: AppOptions): LoggerOption {
  const base = options.logger ?? { level: options.config.LOG_LEVEL }
  if (typeof base !== 'object' || base === null) return base
  return { ...base, serializers }
}

/**
 * The table of contents: shared capabilities first, then each concern under its prefix.
 * Everything the service does is registered here, in this order.
 */
export async function buildApp (options: AppOptions): Promise<FastifyInstance> {
  const fastify = Fastify({
    logger: loggerOptions(options),
    trustProxy: trustedProxies(options.config),
    genReqId: () => randomUUID(),
    requestIdHeader: false,
    logController: new OneLinePerRequest(),
    bodyLimit: 1_048_576,
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 600 },
    frameworkErrors: answerError
  }).withTypeProvider<TypeBoxTypeProvider>()

  await fastify.register(config, { config: options.config })
  await fastify.register(clock, options.clock ? { clock: options.clock } : {})
  await fastify.register(errors)
  await fastify.register(metrics)
  await fastify.register(validation)
  await fastify.register(proxyTrust)
  await fastify.register(securityHeaders)
  await fastify.register(compression)
  await fastify.register(rateLimits)
  await fastify.register(openapi)
  await fastify.register(db)
  await fastify.register(engineDb)
  await fastify.register(userWriteLock)
  await fastify.register(engine)
  await fastify.register(auth)
  await fastify.register(cookies)
  await fastify.register(siteSettings)
  await fastify.register(chatPlatform)
  await fastify.register(cacheEviction)
  await fastify.register(identity)
  await fastify.register(oidcClient)
  await fastify.register(refreshSessions)
  // After the block check: a blocked account is told so rather than that its session ended.
  await fastify.register(blockedAccounts)
  await fastify.register(sessionEnds)
  await fastify.register(auditLog)
  await fastify.register(sessionCleanup)
  await fastify.register(featureGates)
  await fastify.register(alarmTypes)
  await fastify.register(alarmEvents)
  await fastify.register(koji)
  await fastify.register(geocoder)
  await fastify.register(areaWriter)
  await fastify.register(geofenceForum)
  await fastify.register(userGeofences)
  await fastify.register(geofenceFeed)
  await fastify.register(areaSelection)
  await fastify.register(alarmWriter)
  await fastify.register(testAlerts)
  await fastify.register(profiles)
  await fastify.register(avatars)
  await fastify.register(adminUsers)
  await fastify.register(delegates)
  await fastify.register(serverProfile)
  await fastify.register(quickPicks)
  await fastify.register(alarmDefaults)
  await fastify.register(gameData)
  await fastify.register(masterNames)
  await fastify.register(scannerDb)
  await fastify.register(scanner)
  await fastify.register(pokemonAvailability)
  await fastify.register(iconSets)
  await fastify.register(alarmEstimates)

  await fastify.register(healthRoutes, { prefix: '/api' })
  await fastify.register(metricsRoutes)
  await fastify.register(settingsRoutes, { prefix: '/api/settings' })
  await fastify.register(oidcRoutes, { prefix: '/api/auth/oidc' })
  await fastify.register(oidcConfigRoutes, { prefix: '/api/settings' })
  await fastify.register(refreshRoutes, { prefix: '/api/auth/oidc/refresh' })
  await fastify.register(backchannelLogoutRoutes, { prefix: '/api/auth/oidc' })
  await fastify.register(deviceSessionRoutes, { prefix: '/api/auth/sessions' })
  await fastify.register(adminSessionRoutes, { prefix: '/api/admin/users/sessions' })
  await fastify.register(auditRoutes, { prefix: '/api/admin/audit' })
  await fastify.register(providersRoutes, { prefix: '/api/auth' })
  await fastify.register(discordRoutes, { prefix: '/api/auth/discord' })
  await fastify.register(telegramRoutes, { prefix: '/api/auth/telegram' })
  await fastify.register(sessionUserRoutes, { prefix: '/api/auth' })
  await fastify.register(impersonationRoutes, { prefix: '/api/admin' })
  await fastify.register(adminUserRoutes, { prefix: '/api/admin' })
  await fastify.register(delegateRoutes, { prefix: '/api/admin' })
  await fastify.register(serverProfileRoutes, { prefix: '/api/admin' })
  await fastify.register(iconSetRoutes, { prefix: '/api/admin/icon-sets' })
  await fastify.register(settingsCardRoutes, { prefix: '/api/settings' })
  await fastify.register(quickPickRoutes, { prefix: '/api/quick-picks' })
  await fastify.register(upstreamDisabledRoutes, { prefix: '/api/settings' })
  await fastify.register(alarmRoutes, { prefix: '/api' })
  await fastify.register(alarmTypeRoutes, { prefix: '/api/alarm-types' })
  await fastify.register(alarmDefaultRoutes, { prefix: '/api/alarm-defaults' })
  await fastify.register(profileRoutes, { prefix: '/api/profiles' })
  await fastify.register(profileOverviewRoutes, { prefix: '/api/profile-overview' })
  await fastify.register(locationRoutes, { prefix: '/api/location' })
  await fastify.register(areaRoutes, { prefix: '/api/areas' })
  await fastify.register(mapRoutes, { prefix: '/api/map' })
  await fastify.register(engineConfigRoutes, { prefix: '/api/config' })
  await fastify.register(dtsRoutes, { prefix: '/api/config' })
  await fastify.register(summaryScheduleRoutes, { prefix: '/api/summary-schedules' })
  await fastify.register(cleaningRoutes, { prefix: '/api/cleaning' })
  await fastify.register(masterdataRoutes, { prefix: '/api/masterdata' })
  await fastify.register(masterNameRoutes, { prefix: '/api/masterdata' })
  await fastify.register(geofenceFeedRoutes, { prefix: '/api/geofence-feed' })
  await fastify.register(geofenceRoutes, { prefix: '/api/geofences' })
  await fastify.register(adminGeofenceRoutes, { prefix: '/api/admin/geofences' })
  await fastify.register(scannerRoutes, { prefix: '/api/scanner' })
  await fastify.register(weatherRoutes, { prefix: '/api/location/weather' })
  await fastify.register(pokemonAvailabilityRoutes, { prefix: '/api/pokemon-availability' })
  await fastify.register(alarmEstimateRoutes, { prefix: '/api/alarm-estimates' })
  await fastify.register(spawningNowRoutes, { prefix: '/api/spawning-now' })
  await fastify.register(templatePreviewRoutes, { prefix: '/api/template-previews' })

  // Last: the client's pages for every non-API path a browser asks for.
  await fastify.register(spa)

  return fastify
}

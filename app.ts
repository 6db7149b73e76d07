import { randomUUID } from 'node:crypto'
import Fastify, { type FastifyInstance } from 'fastify'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
// Configuration and time: read by every plugin, so registered before all of them.
import config, { type Config } from './plugins/base/config.js'
import clock, { type Clock } from './plugins/base/clock.js'
// Edge: how every request is received and answered; needs only configuration and time.
import errors, { answerError } from './plugins/edge/errors.js'
import metrics from './plugins/edge/metrics.js'
import validation from './plugins/edge/validation.js'
import proxyTrust, { trustedProxies } from './plugins/edge/proxy-trust.js'
import { OneLinePerRequest, requestLogOptions, type LoggerOption } from './plugins/edge/request-log.js'
import securityHeaders from './plugins/edge/security-headers.js'
import compression from './plugins/edge/compression.js'
import serialization from './plugins/edge/serialization.js'
import rateLimits from './plugins/edge/rate-limits.js'
import openapi from './plugins/edge/openapi.js'
import auth from './plugins/edge/auth.js'
import cookies from './plugins/edge/cookies.js'
// Data: the databases, the alarm engine, the chat platform and shared caches.
import pools from './plugins/data/pools.js'
import db from './plugins/data/db.js'
import engineDb from './plugins/data/engine-db.js'
import userWriteLock from './plugins/data/user-write-lock.js'
import engine from './plugins/data/engine.js'
import siteSettings from './plugins/data/site-settings.js'
import chatPlatform from './plugins/data/chat-platform.js'
import cacheEviction from './plugins/data/cache-eviction.js'
import scannerDb from './plugins/data/scanner-db.js'
// Domain: the concerns, each over the data plugins and the concerns it depends on.
import identity from './plugins/domain/identity.js'
import oidcClient from './plugins/domain/oidc-client.js'
import signInFlows from './plugins/domain/sign-in-flows.js'
import refreshSessions from './plugins/domain/refresh-sessions.js'
import delegateView from './plugins/domain/delegate-view.js'
import summarySchedules from './plugins/domain/summary-schedules.js'
import profileOverview from './plugins/domain/profile-overview.js'
import location from './plugins/domain/location.js'
import cleaning from './plugins/domain/cleaning.js'
import engineConfig from './plugins/domain/engine-config.js'
import health from './plugins/domain/health.js'
import dashboard from './plugins/domain/dashboard.js'
import blockedAccounts from './plugins/domain/blocked-accounts.js'
import sessionEnds from './plugins/domain/session-ends.js'
import auditLog from './plugins/domain/audit-log.js'
import sessionCleanup from './plugins/domain/session-cleanup.js'
import featureGates from './plugins/domain/feature-gates.js'
import alarmTypes from './plugins/domain/alarm-types.js'
import alarmEvents from './plugins/domain/alarm-events.js'
import koji from './plugins/domain/koji.js'
import engineFences from './plugins/domain/engine-fences.js'
import geocoder from './plugins/domain/geocoder.js'
import areaWriter from './plugins/domain/area-writer.js'
import geofenceForum from './plugins/domain/geofence-forum.js'
import userGeofences from './plugins/domain/user-geofences.js'
import geofenceFeed from './plugins/domain/geofence-feed.js'
import areaSelection from './plugins/domain/area-selection.js'
import alarmWriter from './plugins/domain/alarm-writer.js'
import testAlerts from './plugins/domain/test-alerts.js'
import templatePreviews from './plugins/domain/template-previews.js'
import profiles from './plugins/domain/profiles.js'
import avatars from './plugins/domain/avatars.js'
import adminUsers from './plugins/domain/admin-users.js'
import delegates from './plugins/domain/delegates.js'
import serverProfile from './plugins/domain/server-profile.js'
import quickPicks from './plugins/domain/quick-picks.js'
import alarmDefaults from './plugins/domain/alarm-defaults.js'
import gameData from './plugins/domain/game-data.js'
import masterNames from './plugins/domain/master-names.js'
import scanner from './plugins/domain/scanner.js'
import pokemonAvailability from './plugins/domain/pokemon-availability.js'
import iconSets from './plugins/domain/icon-sets.js'
import liveSpawns from './plugins/domain/live-spawns.js'
import recentEvents from './plugins/domain/recent-events.js'
import alarmEstimates from './plugins/domain/alarm-estimates.js'
import insights from './plugins/domain/insights.js'
import alarmExplanations from './plugins/domain/alarm-explanations.js'
import sharedSets from './plugins/domain/shared-sets.js'
import pushSender from './plugins/domain/push-sender.js'
import pushSubscriptions from './plugins/domain/push-subscriptions.js'
import pushAlerts from './plugins/domain/push-alerts.js'
// Routes: one file per URL folder, translating HTTP to plugin calls.
import healthRoutes from './routes/health/index.js'
import versionRoutes from './routes/version/index.js'
import metricsRoutes from './routes/metrics/index.js'
import settingsRoutes from './routes/settings/index.js'
import oidcRoutes from './routes/auth/oidc/index.js'
import oidcConfigRoutes from './routes/settings/oidc-config.js'
import refreshRoutes from './routes/auth/oidc/refresh/index.js'
import backchannelLogoutRoutes from './routes/auth/oidc/backchannel-logout.js'
import deviceSessionRoutes from './routes/auth/sessions/index.js'
import adminSessionRoutes from './routes/admin/users/sessions.js'
import auditRoutes from './routes/admin/audit/index.js'
import insightRoutes from './routes/admin/insights/index.js'
import providersRoutes from './routes/auth/providers/index.js'
import discordRoutes from './routes/auth/discord/index.js'
import telegramRoutes from './routes/auth/telegram/index.js'
import sessionUserRoutes from './routes/auth/index.js'
import impersonationRoutes from './routes/admin/index.js'
import adminUserRoutes from './routes/admin/users/index.js'
import poracleAdminRoutes from './routes/admin/poracle-admins/index.js'
import webhookRoutes from './routes/admin/webhooks/index.js'
import webhookDelegateRoutes from './routes/admin/webhook-delegates/index.js'
import poracleDelegateRoutes from './routes/admin/poracle-delegates/index.js'
import myWebhookRoutes from './routes/admin/my-webhooks/index.js'
import serverProfileRoutes from './routes/admin/server-profile/index.js'
import iconSetRoutes from './routes/admin/icon-sets/index.js'
import quickPickRoutes from './routes/quick-picks/index.js'
import upstreamDisabledRoutes from './routes/settings/upstream-disabled.js'
import alarmRoutes from './routes/index.js'
import dashboardRoutes from './routes/dashboard/index.js'
import dashboardPlaceRoutes from './routes/dashboard/place.js'
import testAlertRoutes from './routes/test-alert/index.js'
import alarmTypeRoutes from './routes/alarm-types/index.js'
import alarmDefaultRoutes from './routes/alarm-defaults/index.js'
import profileRoutes from './routes/profiles/index.js'
import profileOverviewRoutes from './routes/profile-overview/index.js'
import locationRoutes from './routes/location/index.js'
import areaRoutes from './routes/areas/index.js'
import mapRoutes from './routes/map/index.js'
import engineConfigRoutes from './routes/config/index.js'
import dtsRoutes from './routes/config/dts.js'
import summaryScheduleRoutes from './routes/summary-schedules/index.js'
import cleaningRoutes from './routes/cleaning/index.js'
import masterdataRoutes from './routes/masterdata/index.js'
import geofenceFeedRoutes from './routes/geofence-feed/index.js'
import geofenceRoutes from './routes/geofences/index.js'
import adminGeofenceRoutes from './routes/admin/geofences/index.js'
import scannerRoutes from './routes/scanner/index.js'
import weatherRoutes from './routes/location/weather/index.js'
import pokemonAvailabilityRoutes from './routes/pokemon-availability/index.js'
import alarmEstimateRoutes from './routes/alarm-estimates/index.js'
import alarmExplanationRoutes from './routes/alarm-explanations/index.js'
import templatePreviewRoutes from './routes/template-previews/index.js'
import estimatesNowRoutes from './routes/alarm-estimates/now/index.js'
import sharedSetRoutes from './routes/shared-sets/index.js'
import sharedLinkRoutes from './routes/s/index.js'
import adminSharedSetRoutes from './routes/admin/shared-sets/index.js'
import pushRoutes from './routes/push/index.js'
import pushValidationRoutes from './routes/push/validation.js'
import scannerWebhookRoutes from './routes/scanner-webhook/index.js'
import appManifestRoutes from './routes/app-manifest/index.js'
// The client's pages, for every path the routes do not serve.
import spa from './plugins/edge/spa.js'

export interface AppOptions {
  config: Config
  clock?: Clock
  /** Fastify's logger option; defaults to pino at LOG_LEVEL. Tests pass a stream to capture lines. */
  logger?: LoggerOption
}

/**
 * The table of contents: configuration, then the edge, data and domain plugins, then each route file at
 * the URL of its folder, then the client's pages. Everything the service does is registered here, in this order.
 */
export async function buildApp (options: AppOptions): Promise<FastifyInstance> {
  const fastify = Fastify({
    logger: requestLogOptions(options.config, options.logger),
    trustProxy: trustedProxies(options.config),
    genReqId: () => randomUUID(),
    requestIdHeader: false,
    logController: new OneLinePerRequest(),
    bodyLimit: 1_048_576,
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 600 },
    frameworkErrors: answerError
  }).withTypeProvider<TypeBoxTypeProvider>()

  // Configuration and time first: every plugin below reads them (both live in plugins/base/).
  await fastify.register(config, { config: options.config })
  await fastify.register(clock, options.clock ? { clock: options.clock } : {})

  // Edge: before anything that answers, so every reply (errors and refusals too) passes through their hooks.
  await fastify.register(errors)
  await fastify.register(metrics)
  await fastify.register(validation)
  await fastify.register(serialization)
  await fastify.register(proxyTrust)
  await fastify.register(securityHeaders)
  await fastify.register(compression)
  await fastify.register(rateLimits)
  await fastify.register(openapi)
  await fastify.register(auth)
  await fastify.register(cookies)

  // Data: before the domain, which reads and writes through them.
  await fastify.register(pools)
  await fastify.register(db)
  await fastify.register(engineDb)
  await fastify.register(userWriteLock)
  await fastify.register(engine)
  await fastify.register(siteSettings)
  await fastify.register(chatPlatform)
  await fastify.register(cacheEviction)
  await fastify.register(scannerDb)

  // Domain: each concern after those it depends on (fastify-plugin checks the declared dependencies).
  await fastify.register(identity)
  await fastify.register(oidcClient)
  await fastify.register(signInFlows)
  await fastify.register(refreshSessions)
  // After the block check: a blocked account is told so rather than that its session ended.
  await fastify.register(delegateView)
  await fastify.register(blockedAccounts)
  await fastify.register(sessionEnds)
  await fastify.register(auditLog)
  await fastify.register(sessionCleanup)
  await fastify.register(featureGates)
  await fastify.register(alarmTypes)
  await fastify.register(alarmEvents)
  await fastify.register(koji)
  await fastify.register(engineFences)
  await fastify.register(geocoder)
  await fastify.register(areaWriter)
  await fastify.register(geofenceForum)
  await fastify.register(userGeofences)
  await fastify.register(geofenceFeed)
  await fastify.register(areaSelection)
  await fastify.register(alarmWriter)
  await fastify.register(testAlerts)
  await fastify.register(templatePreviews)
  await fastify.register(profiles)
  await fastify.register(profileOverview)
  await fastify.register(avatars)
  await fastify.register(adminUsers)
  await fastify.register(delegates)
  await fastify.register(serverProfile)
  await fastify.register(quickPicks)
  await fastify.register(alarmDefaults)
  await fastify.register(gameData)
  await fastify.register(masterNames)
  await fastify.register(scanner)
  await fastify.register(pokemonAvailability)
  await fastify.register(iconSets)
  await fastify.register(liveSpawns)
  await fastify.register(recentEvents)
  await fastify.register(alarmEstimates)
  await fastify.register(alarmExplanations)
  await fastify.register(summarySchedules)
  await fastify.register(location)
  await fastify.register(cleaning)
  await fastify.register(engineConfig)
  await fastify.register(health)
  await fastify.register(dashboard)
  await fastify.register(sharedSets)
  await fastify.register(pushSender)
  await fastify.register(pushSubscriptions)
  await fastify.register(pushAlerts)
  await fastify.register(insights)

  // Routes: after every hook and decorator they use; each file at the URL of its folder (test/route-folders.test.ts), in URL order.
  await fastify.register(healthRoutes, { prefix: '/api' })
  await fastify.register(versionRoutes, { prefix: '/api' })
  await fastify.register(alarmRoutes, { prefix: '/api' })
  await fastify.register(dashboardRoutes, { prefix: '/api' })
  await fastify.register(testAlertRoutes, { prefix: '/api' })
  await fastify.register(impersonationRoutes, { prefix: '/api/admin' })
  await fastify.register(adminUserRoutes, { prefix: '/api/admin' })
  await fastify.register(poracleAdminRoutes, { prefix: '/api/admin' })
  await fastify.register(webhookRoutes, { prefix: '/api/admin' })
  await fastify.register(webhookDelegateRoutes, { prefix: '/api/admin' })
  await fastify.register(poracleDelegateRoutes, { prefix: '/api/admin' })
  await fastify.register(myWebhookRoutes, { prefix: '/api/admin' })
  await fastify.register(serverProfileRoutes, { prefix: '/api/admin' })
  await fastify.register(auditRoutes, { prefix: '/api/admin/audit' })
  await fastify.register(adminGeofenceRoutes, { prefix: '/api/admin/geofences' })
  await fastify.register(iconSetRoutes, { prefix: '/api/admin/icon-sets' })
  await fastify.register(insightRoutes, { prefix: '/api/admin/insights' })
  await fastify.register(adminSharedSetRoutes, { prefix: '/api/admin/shared-sets' })
  await fastify.register(adminSessionRoutes, { prefix: '/api/admin/users/sessions' })
  await fastify.register(alarmDefaultRoutes, { prefix: '/api/alarm-defaults' })
  await fastify.register(alarmEstimateRoutes, { prefix: '/api/alarm-estimates' })
  await fastify.register(estimatesNowRoutes, { prefix: '/api/alarm-estimates/now' })
  await fastify.register(alarmExplanationRoutes, { prefix: '/api/alarm-explanations' })
  await fastify.register(alarmTypeRoutes, { prefix: '/api/alarm-types' })
  await fastify.register(appManifestRoutes, { prefix: '/api/app-manifest' })
  await fastify.register(areaRoutes, { prefix: '/api/areas' })
  await fastify.register(providersRoutes, { prefix: '/api/auth' })
  await fastify.register(sessionUserRoutes, { prefix: '/api/auth' })
  await fastify.register(discordRoutes, { prefix: '/api/auth/discord' })
  await fastify.register(oidcRoutes, { prefix: '/api/auth/oidc' })
  await fastify.register(backchannelLogoutRoutes, { prefix: '/api/auth/oidc' })
  await fastify.register(refreshRoutes, { prefix: '/api/auth/oidc/refresh' })
  await fastify.register(deviceSessionRoutes, { prefix: '/api/auth/sessions' })
  await fastify.register(telegramRoutes, { prefix: '/api/auth/telegram' })
  await fastify.register(cleaningRoutes, { prefix: '/api/cleaning' })
  await fastify.register(engineConfigRoutes, { prefix: '/api/config' })
  await fastify.register(dtsRoutes, { prefix: '/api/config' })
  await fastify.register(dashboardPlaceRoutes, { prefix: '/api/dashboard/place' })
  await fastify.register(geofenceFeedRoutes, { prefix: '/api/geofence-feed' })
  await fastify.register(geofenceRoutes, { prefix: '/api/geofences' })
  await fastify.register(locationRoutes, { prefix: '/api/location' })
  await fastify.register(weatherRoutes, { prefix: '/api/location/weather' })
  await fastify.register(mapRoutes, { prefix: '/api/map' })
  await fastify.register(masterdataRoutes, { prefix: '/api/masterdata' })
  await fastify.register(pokemonAvailabilityRoutes, { prefix: '/api/pokemon-availability' })
  await fastify.register(profileOverviewRoutes, { prefix: '/api/profile-overview' })
  await fastify.register(profileRoutes, { prefix: '/api/profiles' })
  await fastify.register(pushRoutes, { prefix: '/api/push' })
  await fastify.register(pushValidationRoutes, { prefix: '/api/push/validation' })
  await fastify.register(quickPickRoutes, { prefix: '/api/quick-picks' })
  await fastify.register(scannerRoutes, { prefix: '/api/scanner' })
  await fastify.register(scannerWebhookRoutes, { prefix: '/api/scanner-webhook' })
  await fastify.register(settingsRoutes, { prefix: '/api/settings' })
  await fastify.register(oidcConfigRoutes, { prefix: '/api/settings' })
  await fastify.register(upstreamDisabledRoutes, { prefix: '/api/settings' })
  await fastify.register(sharedSetRoutes, { prefix: '/api/shared-sets' })
  await fastify.register(summaryScheduleRoutes, { prefix: '/api/summary-schedules' })
  await fastify.register(templatePreviewRoutes, { prefix: '/api/template-previews' })
  // Outside /api.
  await fastify.register(metricsRoutes)
  // A shared set's link, outside /api: its page head for link previews (the client's page otherwise).
  await fastify.register(sharedLinkRoutes)

  // Last: the client's pages for every non-API path a browser asks for.
  await fastify.register(spa)

  return fastify
}

import { ERRORS } from '../../edge/errors.js'
import { downloadMapImage } from './map-image.js'
import { isObject, num, strings, text, type createTransport, type Json, type Segment } from './transport.js'
import { EngineError, type PoracleWebConfig, type TemplateRenderInput, type TestAlertInput } from './types.js'

/**
 * The engine's routes about the whole site rather than one member's alarms: its configuration, the fences
 * it has loaded and their maps, its game data, its message templates, test alerts and reloads
 * (alarm-engine.md section 1). Part of the engine client (routes.ts).
 */
export function siteRoutes ({ call, object, invalid, generation, requireNg }: ReturnType<typeof createTransport>) {
  const config = {
    async poracleWeb (): Promise<PoracleWebConfig> {
      const raw = await object(['api', 'config', 'poracleWeb'])
      const admins = isObject(raw.admins) ? raw.admins : {}
      const staticKey = Array.isArray(raw.staticKey) ? raw.staticKey[0] : raw.staticKey
      const template = raw.defaultTemplateName
      return {
        version: text(raw.version),
        locale: text(raw.locale),
        providerUrl: text(raw.providerURL),
        staticKey: text(staticKey),
        defaultTemplateName: typeof template === 'number' || (typeof template === 'string' && template !== '') ? String(template) : '1',
        admins: { discord: strings(admins.discord), telegram: strings(admins.telegram) },
        maxDistance: num(raw.maxDistance),
        defaultDistance: num(raw.defaultDistance),
        disabledHooks: Array.isArray(raw.disabledHooks) ? raw.disabledHooks.map((h) => String(h).toLowerCase()) : null,
        everythingFlagPermissions: text(raw.everythingFlagPermissions),
        pvpCaps: Array.isArray(raw.pvpCaps) ? raw.pvpCaps.map(num).filter((n): n is number => n !== null) : [],
        raw
      }
    },

    /** The engine's configuration values by section, secrets masked (PoracleNG only). */
    async values (section?: string): Promise<Record<string, Json>> {
      const segments = ['api', 'config', 'values']
      await requireNg('GET', segments)
      const answer = await object(segments, { query: { section } })
      return isObject(answer.values) ? answer.values as Record<string, Json> : {}
    },

    /** Template ids per platform, alarm type and language. */
    async templates (): Promise<Json> {
      const { status: _status, ...templates } = await object(['api', 'config', 'templates'])
      return templates
    }
  }

  const mapUrl = async (segments: Segment[]): Promise<string> => {
    const url = text((await object(segments)).url)
    if (url === null) throw invalid('GET', segments, 'no url')
    return url
  }

  const geofence = {
    /** The fences the engine has loaded, in Poracle format. */
    async all (): Promise<Json[]> {
      const answer = await object(['api', 'geofence', 'all'])
      return Array.isArray(answer.geofence) ? answer.geofence.filter(isObject) : []
    },

    /** A fingerprint per fence (`{ name: md5 of its path }`): changes exactly when the loaded fences change. */
    async hash (): Promise<Record<string, string>> {
      const answer = await object(['api', 'geofence', 'all', 'hash'])
      return isObject(answer.areas) ? Object.fromEntries(Object.entries(answer.areas).map(([k, v]) => [k, String(v)])) : {}
    },

    /** Makes the engine download its URL geofences (such as this service's feed) again. */
    async reload (): Promise<void> {
      await call(['api', 'geofence', 'reload'])
    },

    areaMap: (area: string) => mapUrl(['api', 'geofence', area, 'map']),
    distanceMap: (latitude: number, longitude: number, distance: number) => mapUrl(['api', 'geofence', 'distanceMap', latitude, longitude, distance]),
    locationMap: (latitude: number, longitude: number) => mapUrl(['api', 'geofence', 'locationMap', latitude, longitude]),
    /** The image at an address one of the map routes answered, downloaded within bounds (map-image.ts). */
    mapImage: downloadMapImage
  }

  const masterdata = {
    /** Raw GameData objects (no status wrapper). */
    monsters: async (locale?: string): Promise<Json> => object(['api', 'masterdata', 'monsters'], { query: { locale } }),
    grunts: async (): Promise<Json> => object(['api', 'masterdata', 'grunts'])
  }

  const dts = {
    /** The engine's message templates (DTS), for previews (PoracleNG's template editor API). */
    async templates (): Promise<Json[]> {
      const segments = ['api', 'dts', 'templates']
      await requireNg('GET', segments)
      const answer = await object(segments)
      return Array.isArray(answer.templates) ? answer.templates.filter(isObject) : []
    },

    /**
     * The engine's own rendering of one template for a sample scanner webhook (PoracleNG's template editor
     * API): `/api/dts/enrich` turns the webhook into the variables a real alert sees, `/api/dts/render` fills
     * the template with them. Answers the rendered message object (Discord: content/embed; Telegram: content).
     */
    async render (input: TemplateRenderInput): Promise<Json> {
      const enrich = ['api', 'dts', 'enrich']
      await requireNg('POST', enrich)
      const { variables } = await object(enrich, {
        method: 'POST', body: { type: input.webhookType, webhook: input.webhook, language: input.language, platform: input.platform }
      })
      const rendered = await object(['api', 'dts', 'render'], {
        method: 'POST', body: { type: input.templateType, id: input.template, platform: input.platform, language: input.language, view: isObject(variables) ? variables : {} }
      })
      if (!isObject(rendered.message)) throw invalid('POST', ['api', 'dts', 'render'], 'no message')
      return rendered.message
    }
  }

  /** Renders and delivers a test alert to a target (PoracleNG only); the engine's render or delivery failure is not the user's to debug (reference 1.18). */
  async function test (input: TestAlertInput): Promise<void> {
    const segments = ['api', 'test']
    await requireNg('POST', segments)
    try {
      await call(segments, { method: 'POST', body: input })
    } catch (err) {
      if (err instanceof EngineError && (err.kind === 'failed' || err.kind === 'bad_request')) throw new ERRORS.TestAlertFailed()
      throw err
    }
  }

  /** Makes the engine re-read tracking state after direct database writes. */
  async function reload (): Promise<void> {
    if (await generation() === 'ng') await call(['api', 'reload'])
    else await call(['api', 'tracking', 'pokemon', 'refresh'])
  }

  return { config, geofence, masterdata, dts, test, reload }
}

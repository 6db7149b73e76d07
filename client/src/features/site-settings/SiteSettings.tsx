import { useEffect, useId, useRef, useState } from 'react'
import { useTranslation } from 'react-i18next'
import { Card } from '../../components/Card'
import { Page } from '../../components/Page'
import { admin, ApiError, settings as settingsApi } from '../../api'
import { brandingFrom, setBranding } from '../../branding'
import { Facts } from '../../components/Facts'
import { SettingSwitch } from '../../components/SettingSwitch'
import { AA_TEXT, HEX_COLOUR, accentPalette } from '../../contrast'
import { useSubmit } from '../../forms/useSubmit'
import { useFormat } from '../../i18n/format'
import { Status } from '../../shell/Status'
import { useLoad } from '../../shell/useLoad'
import { useSession } from '../../shell/session-context'
import { FeaturesCard, IconSetsCard, LanguagesCard, LimitsCard, LinksCard } from './SettingsGroups'
import { usePageTitle } from '../../shell/usePageTitle'
import { accentContrastOnPage } from '../../theme'
import type { SiteSetting } from '../../types'
import { isTrue, loadSettings, saveSetting, type SettingValues } from '../../setting-values'
import '../../forms/forms.css'

interface PageData {
  settings: SettingValues
  upstreamDisabled: string[]
}

async function loadPage (signal: AbortSignal): Promise<PageData> {
  const [settings, upstreamDisabled] = await Promise.all([
    loadSettings(signal),
    settingsApi.upstreamDisabled(signal)
  ])
  return { settings, upstreamDisabled }
}

type Save = (key: string, value: string | null, category?: string) => Promise<void>

/** The groups of the page, in order, by the id of their card. */
const GROUPS = ['features', 'alerts', 'branding', 'languages', 'links', 'icons', 'limits', 'engine'] as const

/**
 * Admin: every site setting, grouped (member features, alarm types, branding, languages, links, icon
 * sets) and the alarm engine behind the site. A saved switch reaches the admin's own navigation at once.
 */
export default function SiteSettings () {
  const { t } = useTranslation()
  usePageTitle(t('nav.siteSettings'))
  const [state, retry, replace] = useLoad(loadPage)
  const { setSetting } = useSession()

  return (
    <Page title={t('nav.siteSettings')}>
      <nav aria-label={t('siteSettings.groups')} className='card'>
        <ul className='row settings-groups'>
          {GROUPS.map((group) => <li key={group}><a href={`#${group}`}>{t(`siteSettings.group.${group}`)}</a></li>)}
        </ul>
      </nav>
      <Status state={state} retry={retry}>
        {(data) => {
          const merge = (rows: SiteSetting[]): void => {
            const settings = new Map(data.settings)
            for (const row of rows) {
              settings.set(row.key, row.value)
              setSetting(row.key, row.value)
            }
            replace({ ...data, settings })
            setBranding(brandingFrom(settings))
          }
          const set: Save = async (key, value, category) => { merge([await saveSetting(key, value, false, category)]) }
          return (
            <>
              <FeaturesCard settings={data.settings} set={set} />
              <AlarmTypeSwitches settings={data.settings} upstreamDisabled={data.upstreamDisabled} set={set} />
              <BrandingCard settings={data.settings} onSaved={merge} />
              <LanguagesCard settings={data.settings} set={set} />
              <LinksCard settings={data.settings} onSaved={merge} />
              <IconSetsCard settings={data.settings} onSaved={merge} />
              <LimitsCard settings={data.settings} onSaved={merge} />
            </>
          )
        }}
      </Status>
      <EngineCard />
    </Page>
  )
}

/** The branding keys, in the order the form shows and saves them. */
const BRANDING_FIELDS = ['site_name', 'custom_title', 'header_logo_url', 'hide_header_logo', 'favicon_url', 'accent_color'] as const
type BrandingKey = typeof BRANDING_FIELDS[number]
type Draft = Record<BrandingKey, string>

const draftFrom = (settings: SettingValues): Draft =>
  Object.fromEntries(BRANDING_FIELDS.map((key) => [key, settings.get(key) ?? ''])) as Draft

/** What the server will accept as an image address (it checks again): https, or a path on this site. */
const looksLikeImageUrl = (value: string): boolean =>
  (value.startsWith('/') && !value.startsWith('//')) || /^https:\/\/[^\s\\]+$/i.test(value)

function BrandingCard ({ settings, onSaved }: { settings: SettingValues, onSaved: (rows: SiteSetting[]) => void }) {
  const { t } = useTranslation()
  const id = useId()
  const [draft, setDraft] = useState<Draft>(() => draftFrom(settings))
  const [problems, setProblems] = useState<Partial<Record<BrandingKey, string>>>({})
  const [saved, setSaved] = useState(false)
  const { busy, error, run } = useSubmit()
  const change = (key: BrandingKey, value: string): void => {
    setDraft((d) => ({ ...d, [key]: value }))
    setSaved(false)
  }

  // Each changed key is written on its own; a refused one keeps its draft and says why at the field.
  const save = () => run(async () => {
    setSaved(false)
    const found: Partial<Record<BrandingKey, string>> = {}
    const rows: SiteSetting[] = []
    try {
      for (const key of BRANDING_FIELDS) {
        const value = key === 'hide_header_logo' ? draft[key] : draft[key].trim()
        if (value === (settings.get(key) ?? '')) continue
        try {
          rows.push(await saveSetting(key, value === '' ? null : value, false, 'branding'))
        } catch (err) {
          if (!(err instanceof ApiError) || err.status !== 400) throw err
          // The server's refusal, said at the field in the interface language.
          found[key] = key === 'hide_header_logo' ? err.message : t(`siteSettings.branding.errors.${key}`)
        }
      }
    } finally {
      // What was written is shown as written, also when a later key failed.
      if (rows.length > 0) onSaved(rows)
    }
    setProblems(found)
    if (Object.keys(found).length > 0) throw new ApiError(400, t('siteSettings.branding.notAllSaved'))
    setSaved(true)
  })

  const field = (key: BrandingKey, label: string, help: string, extra: { inputMode?: 'url', maxLength?: number } = {}) => {
    const fieldId = `${id}-${key}`
    const problem = problems[key]
    return (
      <div className='field'>
        <label htmlFor={fieldId}>{label}</label>
        <input
          id={fieldId}
          className='input'
          value={draft[key]}
          spellCheck={extra.inputMode === 'url' ? false : undefined}
          {...extra}
          aria-invalid={problem !== undefined}
          aria-describedby={problem !== undefined ? `${fieldId}-error ${fieldId}-help` : `${fieldId}-help`}
          onChange={(e) => { change(key, e.target.value) }}
        />
        <span id={`${fieldId}-help`} className='help'>{help}</span>
        {problem !== undefined && <p id={`${fieldId}-error`} className='field-error'>{problem}</p>}
      </div>
    )
  }

  const logo = draft.header_logo_url.trim()
  const favicon = draft.favicon_url.trim()
  return (
    <Card title={t('siteSettings.branding.title')} help={t('siteSettings.branding.help')} id='branding'>
      <form className='stack' noValidate onSubmit={(e) => { e.preventDefault(); void save() }}>
        {field('site_name', t('siteSettings.branding.siteName'), t('siteSettings.branding.siteNameHelp'), { maxLength: 80 })}
        {field('custom_title', t('siteSettings.branding.pageTitle'), t('siteSettings.branding.pageTitleHelp'), { maxLength: 80 })}
        {field('header_logo_url', t('siteSettings.branding.logo'), t('siteSettings.branding.urlHelp'), { inputMode: 'url' })}
        {looksLikeImageUrl(logo) && <img className='image-preview' src={logo} alt={t('siteSettings.branding.logoPreview')} />}
        <label className='switch'>
          <input type='checkbox' checked={draft.hide_header_logo === 'true'} onChange={(e) => { change('hide_header_logo', e.target.checked ? 'true' : 'false') }} />
          <span>{t('siteSettings.branding.hideLogo')}</span>
        </label>
        {field('favicon_url', t('siteSettings.branding.favicon'), t('siteSettings.branding.urlHelp'), { inputMode: 'url' })}
        {looksLikeImageUrl(favicon) && <img className='image-preview' src={favicon} alt={t('siteSettings.branding.faviconPreview')} width={32} height={32} />}
        <AccentField
          id={`${id}-accent_color`}
          value={draft.accent_color}
          problem={problems.accent_color}
          onChange={(value) => { change('accent_color', value) }}
        />
        <BrandPreview draft={draft} />
        <button type='submit' className='button button-primary' disabled={busy}>{busy ? t('status.saving') : t('siteSettings.branding.save')}</button>
        <div aria-live='polite'>
          {error !== null && <p className='notice notice-error'>{error}</p>}
          {saved && <p className='notice'>{t('status.saved')}</p>}
        </div>
      </form>
    </Card>
  )
}

/** A colour picker and the same value as text, kept in step; empty text means the theme's colour. */
function AccentField ({ id, value, problem, onChange }: { id: string, value: string, problem: string | undefined, onChange: (value: string) => void }) {
  const { t } = useTranslation()
  const valid = HEX_COLOUR.test(value.trim())
  // The picker cannot be empty: with no accent it shows the theme's, read from the page.
  const [themeAccent] = useState(() => getComputedStyle(document.documentElement).getPropertyValue('--theme-accent').trim())
  const pickerValue = valid ? value.trim().toLowerCase() : HEX_COLOUR.test(themeAccent) ? themeAccent : '#000000'
  return (
    <fieldset className='field'>
      <legend>{t('siteSettings.branding.accent')}</legend>
      <div className='colour-field'>
        <input type='color' aria-label={t('siteSettings.branding.accentPicker')} value={pickerValue} onChange={(e) => { onChange(e.target.value) }} />
        <input
          id={id}
          className='input'
          aria-label={t('siteSettings.branding.accentCode')}
          value={value}
          maxLength={7}
          spellCheck={false}
          placeholder='#1d4ed8'
          aria-invalid={problem !== undefined}
          aria-describedby={problem !== undefined ? `${id}-error ${id}-help` : `${id}-help`}
          onChange={(e) => { onChange(e.target.value) }}
        />
        <button type='button' className='button' disabled={value === ''} onClick={() => { onChange('') }}>{t('siteSettings.branding.accentReset')}</button>
      </div>
      <span id={`${id}-help`} className='help'>{t('siteSettings.branding.accentHelp')}</span>
      {problem !== undefined && <p id={`${id}-error`} className='field-error'>{problem}</p>}
    </fieldset>
  )
}

/**
 * The draft as the site would show it, in the theme in use. The colours reach the preview as custom
 * properties set through the DOM API on its own element (styles.css resets them to the theme's first),
 * by the same rule the site applies (theme.ts): links keep the theme's colour below 4.5:1.
 */
function BrandPreview ({ draft }: { draft: Draft }) {
  const { t } = useTranslation()
  const format = useFormat()
  const box = useRef<HTMLElement>(null)
  const accent = draft.accent_color.trim()
  const palette = HEX_COLOUR.test(accent) ? accentPalette(accent) : null
  const onPage = palette === null ? null : accentContrastOnPage(palette.accent)
  const linksUseAccent = onPage !== null && onPage >= AA_TEXT

  const shownAccent = palette?.accent ?? null
  useEffect(() => {
    const style = box.current?.style
    if (style === undefined) return
    for (const name of ['--accent', '--accent-hover', '--accent-text', '--link', '--focus']) style.removeProperty(name)
    if (shownAccent === null) return
    const colours = accentPalette(shownAccent)
    style.setProperty('--accent', colours.accent)
    style.setProperty('--accent-hover', colours.hover)
    style.setProperty('--accent-text', colours.text)
    if (linksUseAccent) {
      style.setProperty('--link', colours.accent)
      style.setProperty('--focus', colours.accent)
    }
  }, [shownAccent, linksUseAccent])

  const logo = draft.header_logo_url.trim()
  const name = draft.site_name.trim() || draft.custom_title.trim() || t('app.name')
  const ratio = (value: number): string => format.number(value, { maximumFractionDigits: 1 })
  return (
    <figure ref={box} className='brand-preview' aria-labelledby='brand-preview-title'>
      <figcaption id='brand-preview-title' className='label'>{t('siteSettings.branding.preview')}</figcaption>
      <div className='brand-preview-bar'>
        <span className='brand'>
          {draft.hide_header_logo !== 'true' && looksLikeImageUrl(logo) && <img className='brand-logo' src={logo} alt='' />}
          <span className='brand-name'>{name}</span>
        </span>
      </div>
      <div className='row'>
        <span className='button button-primary'>{t('siteSettings.branding.sampleButton')}</span>
        <span className='brand-preview-link'>{t('siteSettings.branding.sampleLink')}</span>
      </div>
      {palette !== null && onPage !== null && (
        <ul className='help'>
          <li>{t(palette.text === '#ffffff' ? 'siteSettings.branding.textWhite' : 'siteSettings.branding.textBlack')}</li>
          <li>{linksUseAccent
            ? t('siteSettings.branding.linksAccent', { ratio: ratio(onPage) })
            : t('siteSettings.branding.linksTheme', { ratio: ratio(onPage), needed: ratio(AA_TEXT) })}
          </li>
        </ul>
      )}
    </figure>
  )
}

function AlarmTypeSwitches ({ settings, upstreamDisabled, set }: { settings: SettingValues, upstreamDisabled: string[], set: Save }) {
  const { t } = useTranslation()
  const { allAlarmTypes } = useSession()
  // Eggs share the raid switch: each switch is listed once.
  const switches = allAlarmTypes.filter((type, index) => allAlarmTypes.findIndex((other) => other.disableKey === type.disableKey) === index)
  return (
    <Card title={t('siteSettings.types.title')} help={t('siteSettings.types.help')} id='alerts'>
      {switches.map((type) => {
        const byEngine = upstreamDisabled.includes(type.disableKey)
        const label = type.disableKey === 'disable_raids' ? `${t('alarms.types.raid')} / ${t('alarms.types.egg')}` : t(`alarms.types.${type.type}`)
        return (
          <SettingSwitch
            key={type.disableKey}
            label={label}
            {...(byEngine && { help: t('siteSettings.types.byEngine') })}
            checked={!byEngine && !isTrue(settings, type.disableKey)}
            disabled={byEngine}
            onChange={(on) => set(type.disableKey, on ? 'false' : 'true', 'features')}
          />
        )
      })}
    </Card>
  )
}

type ServerProfile = Awaited<ReturnType<typeof admin.serverProfile>>

/** Capabilities the interface has words for; others are shown by their name. */
const KNOWN_CAPABILITIES = new Set(['fortChanges', 'maxBattles', 'summaries', 'testAlerts', 'reload', 'userCreation', 'savedPlaces'])

const loadProfile = (signal: AbortSignal): Promise<ServerProfile> => admin.serverProfile(false, signal)

function EngineCard () {
  const { t } = useTranslation()
  const format = useFormat()
  const [state, retry, replace] = useLoad(loadProfile)
  const { busy, error, run } = useSubmit()
  const checkAgain = () => run(async () => {
    replace(await admin.serverProfile(true))
  })
  const yes = (value: boolean): string => value ? t('siteSettings.engine.yes') : t('siteSettings.engine.no')
  const shown = (value: string | null): string => value === null || value === '' ? t('siteSettings.engine.unknown') : value
  // A build without BUILD_VERSION is one run from the source tree; the revision is added when it says more.
  const serviceVersion = ({ version, revision }: ServerProfile['web']): string => {
    const named = version ?? t('siteSettings.engine.developmentBuild')
    return revision === null || revision === version ? named : `${named} (${revision})`
  }

  return (
    <Card title={t('siteSettings.engine.title')} id='engine' busy={busy}>
      <Status state={state} retry={retry}>
        {(profile) => (
          <>
            {!profile.reachable && <p className='notice notice-error'>{t('siteSettings.engine.unreachable')}</p>}
            {profile.belowMinimum && (
              <p className='notice notice-warning'>{t('siteSettings.engine.belowMinimum', { version: shown(profile.version), minimum: profile.minimumSupported })}</p>
            )}
            <Facts rows={[
              [t('siteSettings.engine.engine'), shown(profile.engine)],
              [t('siteSettings.engine.version'), shown(profile.version)],
              [t('siteSettings.engine.schemaVersion'), shown(profile.schemaVersion)],
              [t('siteSettings.engine.reachable'), yes(profile.reachable)],
              [t('siteSettings.engine.checkedAt'), format.dateTime(new Date(profile.checkedAt), { dateStyle: 'medium', timeStyle: 'medium' })],
              [t('siteSettings.engine.service'), serviceVersion(profile.web)]
            ]}
            />
            <h3 className='label' id='capabilities-title'>{t('siteSettings.engine.capabilities')}</h3>
            <ul className='capabilities' aria-labelledby='capabilities-title'>
              {Object.entries(profile.capabilities).sort(([a], [b]) => a.localeCompare(b)).map(([key, on]) => (
                <li key={key}>
                  <span aria-hidden='true'>{on ? '✓ ' : '✗ '}</span>
                  {t(on ? 'siteSettings.engine.capabilityOn' : 'siteSettings.engine.capabilityOff', {
                    name: KNOWN_CAPABILITIES.has(key) ? t(`siteSettings.engine.capability.${key}`) : key
                  })}
                </li>
              ))}
            </ul>
          </>
        )}
      </Status>
      {state.status === 'ready' && (
        <div className='stack'>
          <button type='button' className='button' disabled={busy} onClick={() => { void checkAgain() }}>
            {busy ? t('siteSettings.engine.checking') : t('siteSettings.engine.checkAgain')}
          </button>
          <div aria-live='polite'>{error !== null && <p className='notice notice-error'>{error}</p>}</div>
        </div>
      )}
    </Card>
  )
}

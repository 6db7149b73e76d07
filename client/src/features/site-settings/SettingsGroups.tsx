import { useState } from 'react'
import { useTranslation } from 'react-i18next'
import { Card } from '../../components/Card'
import { admin } from '../../api'
import { SettingSwitch } from '../../components/SettingSwitch'
import { useSubmit } from '../../forms/useSubmit'
import { LANGUAGES } from '../../i18n'
import { isTrue, type SettingValues } from '../../setting-values'
import type { SiteSetting } from '../../types'
import { TextSettingsCard } from './TextSettingsForm'

type Save = (key: string, value: string | null, category: string) => Promise<void>

/** The member features an admin can switch off, with the page each one takes away, and the texts that say so. */
const FEATURES = [
  ...['disable_profiles', 'disable_location', 'disable_areas', 'disable_user_geofences', 'disable_nominatim', 'disable_push'].map((key) => ({ key, texts: `siteSettings.features.${key}` })),
  { key: 'disable_sharing', texts: 'sharedSets.switches.sharing' },
  { key: 'disable_shared_catalogue', texts: 'sharedSets.switches.catalogue' }
]

export function FeaturesCard ({ settings, set }: { settings: SettingValues, set: Save }) {
  const { t } = useTranslation()
  return (
    <Card title={t('siteSettings.features.title')} help={t('siteSettings.features.help')} id='features'>
      {FEATURES.map(({ key, texts }) => (
        <SettingSwitch
          key={key}
          label={t(`${texts}.label`)}
          help={t(`${texts}.help`)}
          checked={!isTrue(settings, key)}
          onChange={(on) => set(key, on ? 'false' : 'true', 'features')}
        />
      ))}
    </Card>
  )
}

/** Each language named in itself, as people look for their own language's name. */
const nativeName = (language: string): string => new Intl.DisplayNames([language], { type: 'language' }).of(language) ?? language

export function LanguagesCard ({ settings, set }: { settings: SettingValues, set: Save }) {
  const { t } = useTranslation()
  const stored = (settings.get('allowed_languages') ?? '').split(',').map((l) => l.trim()).filter((l) => l !== '')
  const [chosen, setChosen] = useState<string[]>(stored)
  const [saved, setSaved] = useState(false)
  const { busy, error, run } = useSubmit()
  const toggle = (language: string, on: boolean): void => {
    setChosen((list) => on ? [...list, language] : list.filter((l) => l !== language))
    setSaved(false)
  }
  const save = () => run(async () => {
    const ordered = LANGUAGES.filter((l) => chosen.includes(l))
    await set('allowed_languages', ordered.length === 0 ? null : ordered.join(','), 'features')
    setSaved(true)
  })
  return (
    <Card title={t('siteSettings.languages.title')} id='languages'>
      <form className='stack' onSubmit={(e) => { e.preventDefault(); void save() }}>
        <fieldset className='field'>
          <legend>{t('siteSettings.languages.legend')}</legend>
          <span className='help'>{t('siteSettings.languages.help')}</span>
          <div className='check-columns'>
            {LANGUAGES.map((language) => (
              <label key={language} className='check'>
                <input type='checkbox' checked={chosen.includes(language)} onChange={(e) => { toggle(language, e.target.checked) }} />
                <span lang={language}>{nativeName(language)}</span>
              </label>
            ))}
          </div>
        </fieldset>
        <button type='submit' className='button button-primary' disabled={busy}>{busy ? t('status.saving') : t('siteSettings.languages.save')}</button>
        <div aria-live='polite'>
          {error !== null && <p className='notice notice-error'>{error}</p>}
          {saved && <p className='notice'>{chosen.length === 0 ? t('siteSettings.languages.savedAll') : t('status.saved')}</p>}
        </div>
      </form>
    </Card>
  )
}

export function LinksCard ({ settings, onSaved }: { settings: SettingValues, onSaved: (rows: SiteSetting[]) => void }) {
  const { t } = useTranslation()
  const refusedAddress = t('siteSettings.links.refusedAddress')
  return (
    <TextSettingsCard
      group='links'
      category='branding'
      settings={settings}
      onSaved={onSaved}
      fields={[
        { key: 'signup_url', label: t('siteSettings.links.signup'), help: t('siteSettings.links.signupHelp'), refused: refusedAddress, url: true },
        { key: 'custom_page_name', label: t('siteSettings.links.pageName'), help: t('siteSettings.links.pageNameHelp'), refused: t('siteSettings.links.refusedName'), maxLength: 80 },
        { key: 'custom_page_url', label: t('siteSettings.links.pageUrl'), help: t('siteSettings.links.pageUrlHelp'), refused: refusedAddress, url: true },
        { key: 'custom_page_icon', label: t('siteSettings.links.pageIcon'), help: t('siteSettings.links.pageIconHelp'), refused: t('siteSettings.links.refusedIcon'), maxLength: 8 }
      ]}
    />
  )
}

/** What each member may keep at most; the server applies the same bounds (plugins/data/site-settings.ts). */
export function LimitsCard ({ settings, onSaved }: { settings: SettingValues, onSaved: (rows: SiteSetting[]) => void }) {
  const { t } = useTranslation()
  return (
    <TextSettingsCard
      group='limits'
      settings={settings}
      onSaved={onSaved}
      fields={[
        { key: 'max_profiles_per_user', label: t('siteSettings.limits.maxProfiles'), help: t('siteSettings.limits.maxProfilesHelp'), refused: t('siteSettings.limits.refused'), whole: { min: 1, max: 100 }, maxLength: 3 }
      ]}
    />
  )
}

/** Each icon setting and the folder of the set it needs (`reward/item`: a sub-folder of `reward`). */
const ICON_CATEGORIES = [
  ['uicons_pkmn', 'pokemon'], ['uicons_raid', 'raid/egg'], ['uicons_gym', 'gym'], ['uicons_reward', 'reward'], ['uicons_item', 'reward/item'], ['uicons_type', 'type']
] as const

/** The set a category uses when its setting is empty: the server's default (`UICONS_URL`) as shipped. */
const DEFAULT_UICONS = 'https://raw.githubusercontent.com/WatWowMap/wwm-uicons-webp/main'

/** Icon sets sites commonly use (UICONS layout); a preset fills every category, Save writes them. */
const PRESETS = [
  { id: 'pogoAssets', url: 'https://raw.githubusercontent.com/whitewillem/PogoAssets/main/uicons' },
  { id: 'homeIcons', url: 'https://raw.githubusercontent.com/nileplumb/PkmnHomeIcons/master/UICONS' },
  { id: 'shuffleIcons', url: 'https://raw.githubusercontent.com/nileplumb/PkmnShuffleMap/master/UICONS' },
  { id: 'wwmWebp', url: 'https://raw.githubusercontent.com/WatWowMap/wwm-uicons-webp/main' }
] as const

type Check = Awaited<ReturnType<typeof admin.checkIconSet>>

function IconSetCheck ({ address, folder }: { address: string, folder: string }) {
  const { t } = useTranslation()
  const [result, setResult] = useState<{ address: string, check: Check } | null>(null)
  const { busy, error, run } = useSubmit()
  const base = address.trim() === '' ? DEFAULT_UICONS : address.trim()
  // A path on this site is checked at this site's address.
  const absolute = base.startsWith('/') ? `${window.location.origin}${base}` : base
  const check = () => run(async () => {
    setResult({ address: base, check: await admin.checkIconSet(absolute) })
  })
  const current = result !== null && result.address === base ? result.check : null
  return (
    <div className='stack-tight'>
      <div><button type='button' className='button' disabled={busy} onClick={() => { void check() }}>{busy ? t('siteSettings.icons.checking') : t('siteSettings.icons.check')}</button></div>
      <div aria-live='polite'>
        {error !== null && <p className='notice notice-error'>{error}</p>}
        {current !== null && (current.ok
          ? current.categories.includes(folder)
            ? <p className='notice'>{t('siteSettings.icons.found', { folder, count: current.categories.filter((c) => !c.includes('/')).length })}</p>
            : <p className='notice notice-warning'>{t('siteSettings.icons.lacks', { folder, found: current.categories.filter((c) => !c.includes('/')).join(', ') })}</p>
          : <p className='notice notice-error'>{t(`siteSettings.icons.problem.${current.problem}`, { status: current.status ?? 0 })}</p>)}
      </div>
    </div>
  )
}

export function IconSetsCard ({ settings, onSaved }: { settings: SettingValues, onSaved: (rows: SiteSetting[]) => void }) {
  const { t } = useTranslation()
  return (
    <TextSettingsCard
      group='icons'
      settings={settings}
      onSaved={onSaved}
      before={(fill) => (
        <fieldset className='field'>
          <legend>{t('siteSettings.icons.presets')}</legend>
          <span className='help'>{t('siteSettings.icons.presetsHelp')}</span>
          <div className='row'>
            {PRESETS.map((preset) => (
              <button key={preset.id} type='button' className='button' onClick={() => { fill(Object.fromEntries(ICON_CATEGORIES.map(([key]) => [key, preset.url]))) }}>
                {t(`siteSettings.icons.preset.${preset.id}`)}
              </button>
            ))}
          </div>
        </fieldset>
      )}
      fields={ICON_CATEGORIES.map(([key, folder]) => ({
        key,
        label: t(`siteSettings.icons.category.${key}`),
        help: t('siteSettings.icons.fieldHelp', { folder }),
        refused: t('siteSettings.links.refusedAddress'),
        url: true,
        extra: (draft: string) => <IconSetCheck address={draft} folder={folder} />
      }))}
    />
  )
}

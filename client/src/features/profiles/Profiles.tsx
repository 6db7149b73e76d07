import { useRef, useState } from 'react'
import { useTranslation } from 'react-i18next'
import { Card } from '../../components/Card'
import { Page } from '../../components/Page'
import { ApiError, auth, profiles as profilesApi } from '../../api'
import { NameForm } from '../../forms/NameForm'
import { useSubmit } from '../../forms/useSubmit'
import { useFormat } from '../../i18n/format'
import { getRefreshToken, storeTokens } from '../../session'
import { featureOff, useSession } from '../../shell/session-context'
import { ShareForm } from '../../share-links/ShareForm'
import { Status } from '../../shell/Status'
import { useLoad } from '../../shell/useLoad'
import { usePageTitle } from '../../shell/usePageTitle'
import type { Profile } from '../../types'
import { ActiveHoursEditor, parseHours } from '../../forms/ActiveHoursEditor'
import { Overview } from './Overview'
import '../../forms/forms.css'

type Action = 'rename' | 'hours' | 'duplicate' | 'copy' | 'share' | 'delete'

/** `name`, or `name 2`, `name 3`, ... the first no profile has (the server refuses a name in use). */
function freeName (profiles: Profile[], name: string): string {
  const taken = new Set(profiles.map((p) => p.name.trim().toLowerCase()))
  let candidate = name
  for (let n = 2; taken.has(candidate.toLowerCase()); n++) candidate = `${name} ${n}`
  return candidate
}

/**
 * Profiles: list, create, rename, switch, active hours, both kinds of copy, export and import as a file,
 * delete (never the last one), and an overview of every profile's alarms.
 */
export default function Profiles () {
  const { t } = useTranslation()
  const { user, update, settings } = useSession()
  usePageTitle(t('nav.profiles'))
  const [profiles, retry] = useLoad((signal) => profilesApi.list(signal), [user.profileNo])
  const [open, setOpen] = useState<{ profileNo: number, action: Action } | null>(null)
  const [message, setMessage] = useState<string | null>(null)
  const [overviewRound, setOverviewRound] = useState(0)
  const { busy, error, setError, run } = useSubmit()
  /** The server's "that name is taken", shown at the name field of the form that sent it. */
  const [nameTaken, setNameTaken] = useState<{ form: string, text: string } | null>(null)
  const refusedAt = (form: string): string | null => nameTaken?.form === form ? nameTaken.text : null
  const fileInput = useRef<HTMLInputElement>(null)
  const [importing, setImporting] = useState<{ profileName: string, version?: unknown, alarms: unknown } | null>(null)

  /**
   * Done: read the user again (the active profile or its name may have changed; copies and switches
   * renew the token), then say so, close the form and read the lists again. The user is replaced in
   * place rather than reloaded, so this page and its message stay.
   */
  const finish = async (text: string, token?: string): Promise<void> => {
    if (token !== undefined) storeTokens(token, getRefreshToken())
    const me = await auth.me()
    if (me.token !== undefined) storeTokens(me.token, getRefreshToken())
    update(me)
    setOpen(null)
    setMessage(text)
    setOverviewRound((r) => r + 1)
    retry()
  }

  const act = (work: () => Promise<void>): void => { setMessage(null); setNameTaken(null); void run(work) }

  /** As `act`, for a form that sends a profile name: a refused name is said at its field. */
  const actOnName = (form: string, work: () => Promise<void>): void => {
    setMessage(null)
    setNameTaken(null)
    void run(work, (err) => {
      const reason = err instanceof ApiError ? (err.body as { reason?: unknown } | undefined)?.reason : undefined
      if (reason === 'profile_name_taken') setNameTaken({ form, text: t('profiles.nameTaken') })
      else setError(err instanceof ApiError ? err.message : t('status.failed'))
    })
  }
  const toggleForm = (next: { profileNo: number, action: Action } | null): void => { setNameTaken(null); setOpen(next) }

  const download = (profile: Profile) => act(async () => {
    const data = await profilesApi.exportProfile(profile.profileNo)
    const url = URL.createObjectURL(new Blob([JSON.stringify(data, null, 2)], { type: 'application/json' }))
    const link = document.createElement('a')
    link.href = url
    link.download = `${profile.name.replace(/[^\w.-]+/g, '_') || 'profile'}.json`
    link.click()
    URL.revokeObjectURL(url)
    setMessage(t('profiles.exported', { name: profile.name }))
  })

  const readFile = async (file: File): Promise<void> => {
    setMessage(null)
    try {
      const parsed = JSON.parse(await file.text()) as { profileName?: unknown, version?: unknown, alarms?: unknown }
      if (parsed === null || typeof parsed !== 'object' || typeof parsed.alarms !== 'object') throw new Error('shape')
      setImporting({ profileName: typeof parsed.profileName === 'string' ? parsed.profileName : file.name.replace(/\.json$/, ''), version: parsed.version, alarms: parsed.alarms })
    } catch {
      setMessage(t('profiles.importUnreadable'))
    }
  }

  return (
    <Page title={t('nav.profiles')} status={message} error={error}>
      <Status state={profiles} retry={retry}>
        {(list) => (
          <>
            {list.length === 0 && <p className='muted'>{t('profiles.empty')}</p>}
            <ul className='list profile-list'>
              {list.map((profile) => {
                const hours = parseHours(profile.activeHours)
                const areas = parseList(profile.area)
                const isOpen = (action: Action) => open?.profileNo === profile.profileNo && open.action === action
                const toggle = (action: Action) => { toggleForm(isOpen(action) ? null : { profileNo: profile.profileNo, action }) }
                return (
                  <li key={profile.profileNo} className='card profile-card'>
                    <div className='card-header'>
                      <h2>{profile.name}</h2>
                      {profile.active && <span className='badge'>{t('profiles.active')}</span>}
                    </div>
                    <ProfileFacts profile={profile} areas={areas} hours={hours.length} />
                    <div className='row'>
                      {!profile.active && (
                        <button
                          type='button' className='button button-primary' disabled={busy} onClick={() => act(async () => {
                            const { token } = await profilesApi.switchTo(profile.profileNo)
                            await finish(t('profiles.switched', { name: profile.name }), token)
                          })}
                        >{t('profiles.switch')}
                        </button>
                      )}
                      <button type='button' className='button' aria-expanded={isOpen('rename')} onClick={() => { toggle('rename') }}>{t('profiles.rename')}</button>
                      <button type='button' className='button' aria-expanded={isOpen('hours')} onClick={() => { toggle('hours') }}>{t('profiles.hours.edit')}</button>
                      <button type='button' className='button' aria-expanded={isOpen('duplicate')} onClick={() => { toggle('duplicate') }}>{t('profiles.duplicate')}</button>
                      <button type='button' className='button' aria-expanded={isOpen('copy')} onClick={() => { toggle('copy') }}>{t('profiles.copyAlarms')}</button>
                      <button type='button' className='button' disabled={busy} onClick={() => { download(profile) }}>{t('profiles.export')}</button>
                      {!featureOff(settings, 'disable_sharing') && <button type='button' className='button' aria-expanded={isOpen('share')} onClick={() => { toggle('share') }}>{t('sharedSets.shareProfileButton')}</button>}
                      <button type='button' className='button button-danger' disabled={list.length < 2} aria-expanded={isOpen('delete')} onClick={() => { toggle('delete') }}>{t('profiles.delete')}</button>
                    </div>
                    {list.length < 2 && <p className='help'>{t('profiles.lastOne')}</p>}
                    {isOpen('rename') && (
                      <NameForm
                        label={t('profiles.newName')} submit={t('profiles.rename')} initial={profile.name} busy={busy} refused={refusedAt(`${profile.profileNo}-rename`)} onCancel={() => { toggleForm(null) }}
                        onSubmit={(name) => actOnName(`${profile.profileNo}-rename`, async () => {
                          await profilesApi.update(profile.profileNo, { name })
                          await finish(t('profiles.renamed', { name }))
                        })}
                      />
                    )}
                    {isOpen('hours') && (
                      <section aria-label={t('profiles.hours.title', { name: profile.name })}>
                        <p className='help'>{t('profiles.hours.help')}</p>
                        <ActiveHoursEditor
                          initial={hours} busy={busy} onCancel={() => { setOpen(null) }}
                          onSave={(rules) => act(async () => {
                            await profilesApi.update(profile.profileNo, { activeHours: rules })
                            await finish(t('profiles.hours.saved'))
                          })}
                        />
                      </section>
                    )}
                    {isOpen('duplicate') && (
                      <>
                        <p className='help'>{t('profiles.duplicateHelp')}</p>
                        <NameForm
                          label={t('profiles.copyName')} submit={t('profiles.duplicate')} initial={freeName(list, t('profiles.copyOf', { name: profile.name }))} busy={busy} refused={refusedAt(`${profile.profileNo}-duplicate`)} onCancel={() => { toggleForm(null) }}
                          onSubmit={(name) => actOnName(`${profile.profileNo}-duplicate`, async () => {
                            await profilesApi.duplicate(profile.profileNo, name)
                            await finish(t('profiles.duplicated', { name }))
                          })}
                        />
                      </>
                    )}
                    {isOpen('copy') && (
                      <>
                        <p className='help'>{t('profiles.copyHelp')}</p>
                        <NameForm
                          label={t('profiles.copyName')} submit={t('profiles.copyAlarms')} initial={freeName(list, t('profiles.copyOf', { name: profile.name }))} busy={busy} refused={refusedAt(`${profile.profileNo}-copy`)} onCancel={() => { toggleForm(null) }}
                          onSubmit={(name) => actOnName(`${profile.profileNo}-copy`, async () => {
                            const result = await profilesApi.copyWithAlarms(profile.profileNo, name)
                            await finish(t('profiles.copied', { name, count: result.alarmsCopied }), result.token)
                          })}
                        />
                      </>
                    )}
                    {isOpen('share') && <ShareForm what={{ profileNo: profile.profileNo }} close={() => { toggleForm(null) }} />}
                    {isOpen('delete') && (
                      <div className='notice notice-warning'>
                        <p>{t('profiles.deleteConfirm', { name: profile.name })}</p>
                        <div className='row'>
                          <button
                            type='button' className='button button-danger' disabled={busy} onClick={() => act(async () => {
                              await profilesApi.remove(profile.profileNo)
                              await finish(t('profiles.deleted', { name: profile.name }))
                            })}
                          >{t('profiles.deleteYes')}
                          </button>
                          <button type='button' className='button' onClick={() => { setOpen(null) }}>{t('alarms.cancel')}</button>
                        </div>
                      </div>
                    )}
                  </li>
                )
              })}
            </ul>
          </>
        )}
      </Status>
      <Card title={t('profiles.create')}>
        <NameForm
          key={overviewRound} label={t('profiles.name')} submit={t('profiles.create')} busy={busy} refused={refusedAt('create')}
          onSubmit={(name) => actOnName('create', async () => {
            await profilesApi.create(name)
            await finish(t('profiles.created', { name }))
          })}
        />
      </Card>
      <Card title={t('profiles.import')} help={t('profiles.importHelp')}>
        <label className='label' htmlFor='profile-file'>{t('profiles.importFile')}</label>
        <input id='profile-file' ref={fileInput} type='file' accept='application/json,.json' onChange={(e) => { const file = e.target.files?.[0]; if (file !== undefined) void readFile(file) }} />
        {importing !== null && (
          <NameForm
            key={importing.profileName} label={t('profiles.name')} submit={t('profiles.import')} initial={importing.profileName} busy={busy} onCancel={() => { setImporting(null) }}
            onSubmit={(name) => act(async () => {
              try {
                const result = await profilesApi.importProfile({ ...importing, profileName: name })
                setImporting(null)
                if (fileInput.current !== null) fileInput.current.value = ''
                await finish(t('profiles.imported', { name, count: result.alarmsCopied }), result.token)
              } catch (err) {
                if (err instanceof ApiError && err.details.length > 0) throw new ApiError(err.status, `${err.message} ${err.details.slice(0, 3).map((d) => `${d.field}: ${d.message}`).join('; ')}`)
                throw err
              }
            })}
          />
        )}
      </Card>
      <Overview key={overviewRound} />
    </Page>
  )
}

function parseList (text: string): string[] {
  try {
    const list: unknown = JSON.parse(text)
    return Array.isArray(list) ? list.map(String) : []
  } catch {
    return []
  }
}

/** Location, areas and schedule; a 0,0 location is called out, since the engine's scheduler then uses UTC. */
function ProfileFacts ({ profile, areas, hours }: { profile: Profile, areas: string[], hours: number }) {
  const { t } = useTranslation()
  const format = useFormat()
  const unset = profile.latitude === 0 && profile.longitude === 0
  return (
    <>
      <dl className='facts'>
        <dt>{t('profiles.location')}</dt>
        <dd>{unset ? t('profiles.noLocation') : `${format.number(profile.latitude, { maximumFractionDigits: 5 })}, ${format.number(profile.longitude, { maximumFractionDigits: 5 })}`}</dd>
        <dt>{t('profiles.areas')}</dt>
        <dd>{areas.length === 0 ? t('profiles.noAreas') : areas.join(', ')}</dd>
        <dt>{t('profiles.hours.label')}</dt>
        <dd>{hours === 0 ? t('profiles.hours.none') : t('profiles.hours.count', { count: hours })}</dd>
      </dl>
      {unset && <p className='notice notice-warning'>{t('profiles.zeroWarning')}</p>}
    </>
  )
}

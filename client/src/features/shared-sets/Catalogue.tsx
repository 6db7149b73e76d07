import { useId, useState } from 'react'
import { useTranslation } from 'react-i18next'
import { Link } from 'react-router'
import { Page } from '../../components/Page'
import { sharedSets } from '../../api'
import type { CatalogueEntry } from '../../api/shared-sets'
import { useSubmit } from '../../forms/useSubmit'
import { useMonsters } from '../../pickers/useGameData'
import { useSession } from '../../shell/session-context'
import { Status } from '../../shell/Status'
import { useLoad } from '../../shell/useLoad'
import { usePageTitle } from '../../shell/usePageTitle'
import '../../forms/forms.css'
import './shared-sets.css'

/**
 * The community catalogue: alarm sets members offered to everyone, searched by alarm type and species,
 * most copied first. Administrators take a set down or publish it as site quick picks from here.
 */
export default function Catalogue () {
  const { t } = useTranslation()
  usePageTitle(t('sharedSets.catalogue'))
  const { alarmTypes } = useSession()
  const { monsters } = useMonsters()
  const [type, setType] = useState('')
  const [speciesText, setSpeciesText] = useState('')
  const id = useId()
  const wanted = speciesText.trim().toLowerCase()
  const species = wanted === '' ? undefined : (monsters?.find((m) => m.name.toLowerCase() === wanted)?.id ?? (/^\d+$/.test(wanted) ? Number(wanted) : -1))
  const [state, retry] = useLoad((signal) => species === -1
    ? Promise.resolve([])
    : sharedSets.catalogue({ ...(type !== '' && { type: type as CatalogueEntry['types'][number] }), ...(species !== undefined && { species }) }, signal), [type, species])
  const [message, setMessage] = useState<string | null>(null)
  return (
    <Page title={t('sharedSets.catalogue')} intro={t('sharedSets.catalogueIntro')}>
      <p><Link to='/shared/mine'>{t('sharedSets.nav')}</Link></p>
      <div className='row'>
        <div className='field'>
          <label className='label' htmlFor={`${id}-type`}>{t('sharedSets.filterType')}</label>
          <select id={`${id}-type`} className='select' value={type} onChange={(e) => { setType(e.target.value) }}>
            <option value=''>{t('sharedSets.anyType')}</option>
            {alarmTypes.map((d) => <option key={d.type} value={d.type}>{t(`alarms.types.${d.type}`)}</option>)}
          </select>
        </div>
        <div className='field'>
          <label className='label' htmlFor={`${id}-species`}>{t('sharedSets.filterSpecies')}</label>
          <input id={`${id}-species`} className='input' list={`${id}-names`} value={speciesText} onChange={(e) => { setSpeciesText(e.target.value) }} />
          <datalist id={`${id}-names`}>{(monsters ?? []).filter((m) => m.form.id === 0).map((m) => <option key={m.id} value={m.name} />)}</datalist>
        </div>
      </div>
      <div role='status' aria-live='polite'>{message !== null && <p className='notice'>{message}</p>}</div>
      <Status state={state} retry={retry}>
        {(entries) => entries.length === 0
          ? <p className='muted'>{t('sharedSets.catalogueEmpty')}</p>
          : <ul className='shared-list'>{entries.map((entry) => <Entry key={entry.token} entry={entry} changed={(said) => { setMessage(said); retry() }} />)}</ul>}
      </Status>
    </Page>
  )
}

function Entry ({ entry, changed }: { entry: CatalogueEntry, changed: (message: string) => void }) {
  const { t } = useTranslation()
  const { user } = useSession()
  const { busy, error, run } = useSubmit()
  const path = new URL(entry.url).pathname
  return (
    <li>
      <h2 className='h3'><Link to={path}>{entry.title}</Link></h2>
      <p className='small muted'>
        {entry.types.map((type) => t(`alarms.types.${type}`)).join(', ')} · {t('sharedSets.alarmCount', { count: entry.alarms })} · {t('sharedSets.copiedTimes', { count: entry.copies })} · {t('sharedSets.sharedBy', { name: entry.sharer === 'a member' ? t('sharedSets.aMember') : entry.sharer })}
      </p>
      {user.isAdmin && (
        <div className='row'>
          <button type='button' className='button' disabled={busy} onClick={() => { void run(async () => { await sharedSets.promote(entry.token); changed(t('sharedSets.promoted', { title: entry.title })) }) }}>
            {t('sharedSets.promote', { title: entry.title })}
          </button>
          <button type='button' className='button button-danger' disabled={busy} onClick={() => { void run(async () => { await sharedSets.setHidden(entry.token, true); changed(t('sharedSets.takenDown', { title: entry.title })) }) }}>
            {t('sharedSets.takeDown', { title: entry.title })}
          </button>
        </div>
      )}
      {error !== null && <p className='notice notice-error' role='alert'>{error}</p>}
    </li>
  )
}

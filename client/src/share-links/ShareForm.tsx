import { useId, useState } from 'react'
import { useTranslation } from 'react-i18next'
import { sharedSets } from '../api'
import { useSubmit } from '../forms/useSubmit'
import { Link } from 'react-router'
import { LinkActions } from './LinkActions'

/** What is shared: a selection of alarms (any types), or one whole profile. */
export type ShareWhat = { alarms: Array<{ type: string, uid: number }> } | { profileNo: number }

type Expiry = 'never' | '1' | '7'

/**
 * Shares alarms as a link: an optional title and the name to show (or "a member"), how long the link
 * lives, and whether the community catalogue may list it; then the link, to copy or hand to the phone's
 * share sheet.
 */
export function ShareForm ({ what, close }: { what: ShareWhat, close: () => void }) {
  const { t } = useTranslation()
  const [title, setTitle] = useState('')
  const [displayName, setDisplayName] = useState('')
  const [expiry, setExpiry] = useState<Expiry>('7')
  const [inCatalogue, setInCatalogue] = useState(false)
  const [link, setLink] = useState<{ url: string, title: string } | null>(null)
  const { busy, error, run } = useSubmit()
  const id = useId()

  if (link !== null) {
    return (
      <div className='stack'>
        <p role='status'>{t('sharedSets.made')}</p>
        <LinkActions url={link.url} title={link.title} />
        <p className='help'>{t('sharedSets.madeHelp')} <Link to='/shared/mine'>{t('sharedSets.nav')}</Link></p>
        <div className='form-actions'>
          <button type='button' className='button' onClick={close}>{t('sharedSets.close')}</button>
        </div>
      </div>
    )
  }

  const submit = (event: React.FormEvent): void => {
    event.preventDefault()
    void run(async () => {
      const made = await sharedSets.share({
        ...what as { profileNo: number },
        ...(title.trim() !== '' && { title: title.trim() }),
        ...(displayName.trim() !== '' && { displayName: displayName.trim() }),
        expiresInDays: expiry === 'never' ? null : Number(expiry) as 1 | 7,
        inCatalogue
      })
      setLink({ url: made.url, title: title.trim() !== '' ? title.trim() : t('sharedSets.defaultTitle', { count: made.alarms }) })
    })
  }

  return (
    <form className='stack' noValidate onSubmit={submit} aria-busy={busy}>
      <p className='muted'>{'alarms' in what ? t('sharedSets.shareSelection', { count: what.alarms.length }) : t('sharedSets.shareProfile')}</p>
      <div className='field'>
        <label className='label' htmlFor={`${id}-title`}>{t('sharedSets.title')}</label>
        <input id={`${id}-title`} className='input' maxLength={100} value={title} onChange={(e) => { setTitle(e.target.value) }} />
      </div>
      <div className='field'>
        <label className='label' htmlFor={`${id}-name`}>{t('sharedSets.displayName')}</label>
        <input id={`${id}-name`} className='input' maxLength={40} value={displayName} aria-describedby={`${id}-name-help`} onChange={(e) => { setDisplayName(e.target.value) }} />
        <p id={`${id}-name-help`} className='help'>{t('sharedSets.displayNameHelp')}</p>
      </div>
      <div className='field'>
        <label className='label' htmlFor={`${id}-expiry`}>{t('sharedSets.expiry')}</label>
        <select id={`${id}-expiry`} className='select' value={expiry} onChange={(e) => { setExpiry(e.target.value as Expiry) }}>
          <option value='1'>{t('sharedSets.expiryDay')}</option>
          <option value='7'>{t('sharedSets.expiryWeek')}</option>
          <option value='never'>{t('sharedSets.expiryNever')}</option>
        </select>
      </div>
      <label className='check'>
        <input type='checkbox' checked={inCatalogue} onChange={(e) => { setInCatalogue(e.target.checked) }} />
        <span>{t('sharedSets.inCatalogue')}</span>
      </label>
      <p className='help'>{t('sharedSets.privacy')}</p>
      <div role='alert'>{error !== null && <p className='notice notice-error'>{error}</p>}</div>
      <div className='form-actions'>
        <button type='submit' className='button button-primary' disabled={busy}>{busy ? t('status.saving') : t('sharedSets.makeLink')}</button>
        <button type='button' className='button' onClick={close}>{t('alarms.cancel')}</button>
      </div>
    </form>
  )
}

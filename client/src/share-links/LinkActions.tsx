import { useId, useState } from 'react'
import { useTranslation } from 'react-i18next'

/** A link to hand on: shown, copied to the clipboard, or given to the phone's share sheet where there is one. */
export function LinkActions ({ url, title }: { url: string, title: string }) {
  const { t } = useTranslation()
  const [said, setSaid] = useState<string | null>(null)
  const id = useId()
  const canShare = typeof navigator.share === 'function'
  const copy = (): void => {
    void navigator.clipboard.writeText(url).then(() => { setSaid(t('sharedSets.copied')) }, () => { setSaid(t('sharedSets.copyFailed')) })
  }
  const share = (): void => {
    // A dismissed share sheet is no failure: nothing to say.
    void navigator.share({ title, url }).catch(() => undefined)
  }
  return (
    <div className='stack'>
      <label className='label' htmlFor={`${id}-url`}>{t('sharedSets.link')}</label>
      <input id={`${id}-url`} className='input' readOnly value={url} onFocus={(e) => { e.target.select() }} />
      <div className='form-actions'>
        <button type='button' className='button button-primary' onClick={copy}>{t('sharedSets.copyLink')}</button>
        {canShare && <button type='button' className='button' onClick={share}>{t('sharedSets.shareLink')}</button>}
      </div>
      <p role='status' aria-live='polite' className='small'>{said}</p>
    </div>
  )
}

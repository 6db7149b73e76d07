import { useTranslation } from 'react-i18next'

/** Shown while a page's code arrives. */
export function PageLoading () {
  const { t } = useTranslation()
  return (
    <div className='page'>
      <p className='muted' role='status' aria-live='polite'><span className='spinner' aria-hidden='true' />{t('status.loading')}</p>
    </div>
  )
}

import { useTranslation } from 'react-i18next'
import type { Loaded } from './useLoad'

/** Loading and error states of a page or panel, the same everywhere; renders `children` when ready. */
export function Status<T> ({ state, retry, children }: { state: Loaded<T>, retry?: () => void, children: (data: T) => React.ReactNode }) {
  const { t } = useTranslation()
  if (state.status === 'loading') {
    return <p className='muted' role='status' aria-live='polite'><span className='spinner' aria-hidden='true' />{t('status.loading')}</p>
  }
  if (state.status === 'failed') {
    return (
      <div className='notice notice-error' role='alert'>
        <p>{state.message}</p>
        {retry !== undefined && <button type='button' className='button' onClick={retry}>{t('status.retry')}</button>}
      </div>
    )
  }
  return <>{children(state.data)}</>
}

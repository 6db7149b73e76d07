import { useTranslation } from 'react-i18next'
import { Link } from 'react-router'
import { usePageTitle } from './usePageTitle'

export function NotFound () {
  const { t } = useTranslation()
  usePageTitle(t('notFound.title'))
  return (
    <div className='page page-narrow'>
      <section className='card'>
        <h1>{t('notFound.title')}</h1>
        <Link className='button' to='/'>{t('notFound.home')}</Link>
      </section>
    </div>
  )
}

import { Fragment } from 'react'
import { useTranslation } from 'react-i18next'

/** Label and value pairs of read-only facts (configuration, versions); an empty value reads "not set". */
export function Facts ({ rows }: { rows: Array<[string, string]> }) {
  const { t } = useTranslation()
  return (
    <dl className='facts'>
      {rows.map(([label, value]) => <Fragment key={label}><dt>{label}</dt><dd>{value === '' ? t('signIn.notSet') : value}</dd></Fragment>)}
    </dl>
  )
}

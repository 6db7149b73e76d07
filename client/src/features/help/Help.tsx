import { useTranslation } from 'react-i18next'
import { Link } from 'react-router'
import { Card } from '../../components/Card'
import { Page } from '../../components/Page'
import { usePageTitle } from '../../shell/usePageTitle'
import { featureOff, useSession } from '../../shell/session-context'

/** Every alarm type the engine knows, in the navigation's order; each has a sentence of its own. */
const TYPES = ['pokemon', 'raid', 'egg', 'quest', 'invasion', 'lure', 'nest', 'gym', 'fort', 'maxbattle'] as const

/**
 * Help for members: what each alarm type does, how distance and areas decide where an alarm applies,
 * what templates are and where alerts are delivered. Parts about a feature the site has switched off
 * are left out, so the page never points at a page the member cannot open.
 */
export default function Help () {
  const { t } = useTranslation()
  usePageTitle(t('nav.help'))
  const { settings, alarmTypes } = useSession()
  const offered = new Set(alarmTypes.map((type) => type.type))
  const areas = !featureOff(settings, 'disable_areas')
  const location = !featureOff(settings, 'disable_location')
  const profiles = !featureOff(settings, 'disable_profiles')

  return (
    <Page title={t('help.title')}>
      <p>{t('help.intro')}</p>
      <nav aria-label={t('help.contents')} className='card'>
        <ul className='row settings-groups'>
          <li><a href='#help-types'>{t('help.types.title')}</a></li>
          <li><a href='#help-where'>{t('help.where.title')}</a></li>
          <li><a href='#help-templates'>{t('help.templates.title')}</a></li>
          <li><a href='#help-delivery'>{t('help.delivery.title')}</a></li>
        </ul>
      </nav>

      <Card title={t('help.types.title')} headingId='help-types'>
        <dl className='help-list'>
          {TYPES.filter((type) => offered.size === 0 || offered.has(type)).map((type) => (
            <div key={type}>
              <dt>{t(`alarms.types.${type}`)}</dt>
              <dd>{t(`help.types.${type}`)}</dd>
            </div>
          ))}
        </dl>
      </Card>

      <Card title={t('help.where.title')} headingId='help-where'>
        <p>{t('help.where.intro')}</p>
        <h3>{t('help.where.distanceTitle')}</h3>
        <p>{t('help.where.distance')}</p>
        {location && <p><Link to='/location'>{t('help.where.setLocation')}</Link></p>}
        <h3>{t('help.where.areasTitle')}</h3>
        <p>{t('help.where.areas')}</p>
        {areas && <p><Link to='/areas'>{t('help.where.chooseAreas')}</Link></p>}
        <h3>{t('help.where.bothTitle')}</h3>
        <p>{t('help.where.both')}</p>
        {profiles && <p>{t('help.where.profiles')}</p>}
      </Card>

      <Card title={t('help.templates.title')} headingId='help-templates'>
        <p>{t('help.templates.text')}</p>
      </Card>

      <Card title={t('help.delivery.title')} headingId='help-delivery'>
        <p>{t('help.delivery.text')}</p>
        <p>{t('help.delivery.pause')}</p>
        <p><Link to='/preferences'>{t('help.delivery.settings')}</Link></p>
      </Card>
    </Page>
  )
}

import { useTranslation } from 'react-i18next'
import { Page } from '../../components/Page'
import { usePageTitle } from '../../shell/usePageTitle'
import { RecentEvents } from '../../explain/RecentEvents'

/**
 * "Why didn't I get…?": what the scanner saw lately in the member's areas and around their location,
 * and for the one tapped, whether the alarm engine would have alerted them and what stopped each alarm
 * (docs/explanations.md).
 */
export default function Explanations () {
  const { t } = useTranslation()
  usePageTitle(t('explanations.nav'))
  return (
    <Page title={t('explanations.title')} intro={t('explanations.intro')}>
      <RecentEvents />
    </Page>
  )
}

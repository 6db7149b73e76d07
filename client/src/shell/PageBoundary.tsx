import { Component, type ReactNode } from 'react'
import { useTranslation } from 'react-i18next'

/** What stands in for a page that could not be drawn: what happened, and a way out. */
function PageFailed () {
  const { t } = useTranslation()
  return (
    <div className='page'>
      <div role='alert'>
        <p>{t('status.pageFailed')}</p>
        <button type='button' className='button' onClick={() => { location.reload() }}>{t('status.reload')}</button>
      </div>
    </div>
  )
}

interface Props { children: ReactNode }

/**
 * Catches a page that fails to draw, most often because its code could not be downloaded (the connection
 * dropped, or the site was updated and the old files are gone), and offers to reload: without it the
 * whole screen goes blank. Its parent keys it by the route, so going to another page tries again.
 */
export class PageBoundary extends Component<Props, { failed: boolean }> {
  override state = { failed: false }

  static getDerivedStateFromError (): { failed: boolean } {
    return { failed: true }
  }

  override render (): ReactNode {
    return this.state.failed ? <PageFailed /> : this.props.children
  }
}

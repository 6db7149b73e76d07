import { useEffect, useId, useState } from 'react'
import { useTranslation } from 'react-i18next'
import { alarms, ApiError } from '../api'
import type { TemplatePreview as Preview } from './api'
import { messageParts } from './message'
import './template-preview.css'

/** How long the filters or the template may rest before the engine is asked again. */
const DEBOUNCE_MS = 400

type State = { status: 'closed' } | { status: 'loading', last: Preview | null } | { status: 'ready', preview: Preview } | { status: 'failed', message: string }

/**
 * "Preview this alert": the alarm engine renders the chosen template (else the alarm's, else its default)
 * for a sample alert inside the filters being edited, and it is shown the way the chat app shows it.
 * Asked only when opened, again when the filters or the template change while open; the last answer wins.
 */
export function TemplatePreview ({ type, alarm, template }: { type: string, alarm: Record<string, unknown>, template: string }) {
  const { t } = useTranslation()
  const panelId = useId()
  const [open, setOpen] = useState(false)
  const [attempt, setAttempt] = useState(0)
  const [state, setState] = useState<State>({ status: 'closed' })
  const key = JSON.stringify(alarm)

  useEffect(() => {
    if (!open) { setState({ status: 'closed' }); return }
    const controller = new AbortController()
    setState((s) => ({ status: 'loading', last: s.status === 'ready' ? s.preview : s.status === 'loading' ? s.last : null }))
    const timer = setTimeout(() => {
      alarms.templatePreview(type, JSON.parse(key) as Record<string, unknown>, template, controller.signal)
        .then((preview) => { if (!controller.signal.aborted) setState({ status: 'ready', preview }) })
        .catch((err: unknown) => {
          if (controller.signal.aborted) return
          const message = err instanceof ApiError && err.status === 501
            ? t('templatePreview.unsupported')
            : err instanceof ApiError && err.status === 404 ? err.message : t('templatePreview.failed')
          setState({ status: 'failed', message })
        })
    }, DEBOUNCE_MS)
    return () => { clearTimeout(timer); controller.abort() }
  }, [open, type, key, template, attempt, t])

  const shown = state.status === 'ready' ? state.preview : state.status === 'loading' ? state.last : null
  return (
    <div className='template-preview'>
      <button type='button' className='button' aria-expanded={open} aria-controls={panelId} onClick={() => { setOpen((o) => !o) }}>
        {open ? t('templatePreview.hide') : t('templatePreview.show')}
      </button>
      <div id={panelId} hidden={!open}>
        {open && (
          <>
            <p className='small muted' aria-live='polite'>
              {state.status === 'loading' && t('templatePreview.loading')}
              {state.status === 'ready' && t('templatePreview.note', { template: state.preview.template, platform: t(`templatePreview.platforms.${state.preview.platform}`) })}
            </p>
            {state.status === 'failed' && (
              <div className='notice notice-warning' role='status'>
                <p>{state.message}</p>
                <button type='button' className='button' onClick={() => { setAttempt((a) => a + 1) }}>{t('templatePreview.retry')}</button>
              </div>
            )}
            {shown !== null && <RenderedMessage preview={shown} stale={state.status === 'loading'} />}
          </>
        )}
      </div>
    </div>
  )
}

function RenderedMessage ({ preview, stale }: { preview: Preview, stale: boolean }) {
  const { t } = useTranslation()
  const { content, embed } = messageParts(preview.message)
  return (
    <figure className={`rendered-message rendered-${preview.platform}`} aria-busy={stale} aria-label={t('templatePreview.label')}>
      {content !== null && <p className='rendered-content'>{content}</p>}
      {embed !== null && (
        <div className='rendered-embed' style={embed.color !== null ? { borderInlineStartColor: embed.color } : undefined}>
          <div className='rendered-embed-body'>
            {embed.title !== null && <p className='rendered-title'>{embed.url !== null ? <a href={embed.url} target='_blank' rel='noreferrer noopener'>{embed.title}</a> : embed.title}</p>}
            {embed.description !== null && <p className='rendered-description'>{embed.description}</p>}
            {embed.fields.length > 0 && (
              <dl className='rendered-fields'>
                {embed.fields.map((f, i) => (
                  <div key={i} className={f.inline ? 'rendered-field inline' : 'rendered-field'}>
                    <dt>{f.name}</dt>
                    <dd>{f.value}</dd>
                  </div>
                ))}
              </dl>
            )}
            {embed.image !== null && <img className='rendered-image' src={embed.image} alt='' loading='lazy' />}
            {embed.footer !== null && <p className='rendered-footer small muted'>{embed.footer}</p>}
          </div>
          {embed.thumbnail !== null && <img className='rendered-thumbnail' src={embed.thumbnail} alt='' width={64} height={64} loading='lazy' />}
        </div>
      )}
      {content === null && embed === null && <p className='small muted'>{t('templatePreview.empty')}</p>}
    </figure>
  )
}

import { useEffect, useRef, type ReactNode } from 'react'
import { useTranslation } from 'react-i18next'

interface ConfirmDialogProps {
  open: boolean
  title: string
  children: ReactNode
  confirmLabel: string
  busy: boolean
  /** The server's answer when it refused; shown inside the dialog. */
  error: string | null
  onConfirm: () => void
  onCancel: () => void
}

/**
 * A modal confirmation on the native <dialog>: the browser traps focus in it, Escape cancels, and
 * focus returns to the control that opened it when it closes.
 */
export function ConfirmDialog ({ open, title, children, confirmLabel, busy, error, onConfirm, onCancel }: ConfirmDialogProps) {
  const { t } = useTranslation()
  const dialog = useRef<HTMLDialogElement>(null)

  useEffect(() => {
    const element = dialog.current
    if (element === null) return
    if (open && !element.open) element.showModal()
    if (!open && element.open) element.close()
  }, [open])

  return (
    <dialog
      ref={dialog}
      className='dialog'
      aria-labelledby='confirm-dialog-title'
      onCancel={(event) => {
        event.preventDefault()
        onCancel()
      }}
    >
      <div className='dialog-body'>
        <h2 id='confirm-dialog-title'>{title}</h2>
        {children}
        {error !== null && <p className='notice notice-error' role='alert'>{error}</p>}
        <div className='dialog-actions'>
          <button type='button' className='button' onClick={onCancel}>{t('dialog.cancel')}</button>
          <button type='button' className='button button-primary' disabled={busy} onClick={onConfirm}>
            {busy ? t('status.saving') : confirmLabel}
          </button>
        </div>
      </div>
    </dialog>
  )
}

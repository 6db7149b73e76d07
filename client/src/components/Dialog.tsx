import { useCallback, useEffect, useId, useRef, useState, type ReactNode } from 'react'
import { useTranslation } from 'react-i18next'
import './dialog.css'

interface DialogProps {
  open: boolean
  title: string
  children: ReactNode
  /** Escape, the close button or the backdrop asked to close. */
  onClose: () => void
  /** `sheet`: full screen on phones (the alarm editor), a wide dialog on desktops. */
  variant?: 'modal' | 'sheet'
  /** Buttons at the foot; a sheet keeps them visible while its body scrolls. */
  footer?: ReactNode
  /** Element to focus when the dialog opens; the first focusable one otherwise. */
  initialFocus?: string
}

/**
 * The one dialog of the client, on the native <dialog>: the browser traps focus and makes the page
 * behind it inert, Escape closes it, and focus returns to the control that opened it.
 */
export function Dialog ({ open, title, children, onClose, variant = 'modal', footer, initialFocus }: DialogProps) {
  const { t } = useTranslation()
  const dialog = useRef<HTMLDialogElement>(null)
  const titleId = useId()
  const opener = useRef<Element | null>(null)

  useEffect(() => {
    const element = dialog.current
    if (element === null) return
    if (open && !element.open) {
      opener.current = document.activeElement
      element.showModal()
      const target = initialFocus !== undefined ? element.querySelector<HTMLElement>(initialFocus) : null
      target?.focus()
    }
    if (!open && element.open) {
      element.close()
      if (opener.current instanceof HTMLElement && opener.current.isConnected) opener.current.focus()
    }
  }, [open, initialFocus])

  return (
    <dialog
      ref={dialog}
      className={`dialog dialog-${variant}`}
      aria-labelledby={titleId}
      onCancel={(event) => { event.preventDefault(); onClose() }}
      onClick={(event) => { if (event.target === dialog.current) onClose() }}
    >
      {open && (
        <div className='dialog-body'>
          <header className='dialog-head'>
            <h2 id={titleId}>{title}</h2>
            <button type='button' className='button dialog-close' aria-label={t('dialog.close')} onClick={onClose}>✕</button>
          </header>
          <div className='dialog-content'>{children}</div>
          {footer !== undefined && <div className='dialog-actions'>{footer}</div>}
        </div>
      )}
    </dialog>
  )
}

interface ConfirmDialogProps {
  open: boolean
  title: string
  children: ReactNode
  confirmLabel: string
  busy: boolean
  /** What the action button says while it runs; "Saving…" unless the action is no save. */
  busyLabel?: string
  /** The server's answer when it refused; shown inside the dialog. */
  error: string | null
  /** A destructive action gets the danger colour. */
  danger?: boolean
  onConfirm: () => void
  onCancel: () => void
}

/** A question with Cancel and one action, on the one dialog. */
export function ConfirmDialog ({ open, title, children, confirmLabel, busy, busyLabel, error, danger = false, onConfirm, onCancel }: ConfirmDialogProps) {
  const { t } = useTranslation()
  return (
    <Dialog
      open={open}
      title={title}
      onClose={onCancel}
      footer={(
        <>
          <button type='button' className='button' onClick={onCancel}>{t('dialog.cancel')}</button>
          <button type='button' className={danger ? 'button button-danger' : 'button button-primary'} disabled={busy} onClick={onConfirm}>
            {busy ? busyLabel ?? t('status.saving') : confirmLabel}
          </button>
        </>
      )}
    >
      {children}
      {error !== null && <p className='notice notice-error' role='alert'>{error}</p>}
    </Dialog>
  )
}

interface Question {
  title: string
  message?: string
  confirmLabel: string
  danger?: boolean
  /** Asks for text: the field's label and its starting value. */
  input?: { label: string, value: string }
}

/**
 * `await ask.confirm(...)` and `await ask.prompt(...)` in place of the browser's blocking confirm and
 * prompt, answered in the one dialog; render `ask.dialog` once in the page.
 */
export function useDialogs () {
  const [question, setQuestion] = useState<(Question & { resolve: (answer: string | null) => void }) | null>(null)
  const [text, setText] = useState('')
  const inputId = useId()
  const { t } = useTranslation()

  const ask = useCallback((q: Question) => new Promise<string | null>((resolve) => {
    setText(q.input?.value ?? '')
    setQuestion({ ...q, resolve })
  }), [])
  const answer = (value: string | null): void => {
    question?.resolve(value)
    setQuestion(null)
  }

  const dialog = (
    <Dialog
      open={question !== null}
      title={question?.title ?? ''}
      onClose={() => { answer(null) }}
      {...(question?.input !== undefined ? { initialFocus: `#${CSS.escape(inputId)}` } : {})}
      footer={(
        <>
          <button type='button' className='button' onClick={() => { answer(null) }}>{t('dialog.cancel')}</button>
          <button
            type='button'
            className={question?.danger === true ? 'button button-danger' : 'button button-primary'}
            disabled={question?.input !== undefined && text.trim() === ''}
            onClick={() => { answer(question?.input !== undefined ? text : '') }}
          >
            {question?.confirmLabel}
          </button>
        </>
      )}
    >
      {question?.message !== undefined && <p>{question.message}</p>}
      {question?.input !== undefined && (
        <div className='field'>
          <label className='label' htmlFor={inputId}>{question.input.label}</label>
          <input id={inputId} className='input' value={text} onChange={(e) => { setText(e.target.value) }} onKeyDown={(e) => { if (e.key === 'Enter' && text.trim() !== '') answer(text) }} />
        </div>
      )}
    </Dialog>
  )

  return {
    dialog,
    confirm: async (q: Omit<Question, 'input'>): Promise<boolean> => (await ask(q)) !== null,
    prompt: async (q: Question & { input: NonNullable<Question['input']> }): Promise<string | null> => await ask(q)
  }
}

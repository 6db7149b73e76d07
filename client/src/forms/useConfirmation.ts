import { useEffect, useRef, useState } from 'react'
import { useSubmit } from './useSubmit'

/**
 * The one confirmation dialog of a list page: what it asks about (`pending`), the confirmed action's
 * progress and error (`dialog`), and the page's announcement of the outcome, kept here because the
 * action may remove the entry that would have shown it. When the action removed the button that opened
 * the dialog, `close(true)` sends keyboard focus to the page heading once the dialog has closed and the
 * page is no longer inert.
 */
export function useConfirmation<Pending> () {
  const [message, setMessage] = useState<string | null>(null)
  const [pending, setPending] = useState<Pending | null>(null)
  const dialog = useSubmit()
  const heading = useRef<HTMLHeadingElement>(null)
  const [refocus, setRefocus] = useState(false)
  useEffect(() => {
    if (!refocus || pending !== null) return
    heading.current?.focus()
    setRefocus(false)
  }, [refocus, pending])

  return {
    message,
    announce: setMessage,
    pending,
    dialog,
    heading,
    /** Opens the dialog about `question`, without the error of an earlier one. */
    ask (question: Pending): void {
      dialog.setError(null)
      setPending(question)
    },
    /** Closes the dialog; `removedOpener` when the confirmed action took away the button that opened it. */
    close (removedOpener = false): void {
      setPending(null)
      if (removedOpener) setRefocus(true)
    }
  }
}

import type { ReactNode, Ref } from 'react'

interface PageProps {
  title: ReactNode
  /** The muted line under the title that says what the page is for. */
  intro?: ReactNode
  /**
   * What the page's last action did. Given (even null), the page keeps a polite live region under its
   * head, present while empty, so a screen reader hears each new message.
   */
  status?: string | null
  /** What went wrong; given (even null), the page keeps an alert region under its head, as for `status`. */
  error?: string | null
  /** Set where focus returns to the title after a dialog (the title then takes focus from script). */
  headingRef?: Ref<HTMLHeadingElement>
  /** Added to `page`, for a page's own layout. */
  className?: string
  children?: ReactNode
}

/**
 * A signed-in page and its head: the title (the page's one h1), its intro, and the live regions that
 * report the page's actions, in that order.
 */
export function Page ({ title, intro, status, error, headingRef, className, children }: PageProps) {
  return (
    <div className={className === undefined ? 'page' : `page ${className}`}>
      <h1 ref={headingRef} tabIndex={headingRef === undefined ? undefined : -1}>{title}</h1>
      {intro !== undefined && <p className='muted'>{intro}</p>}
      {status !== undefined && <div role='status' aria-live='polite'>{status !== null && <p className='notice'>{status}</p>}</div>}
      {error !== undefined && <div role='alert'>{error !== null && <p className='notice notice-error'>{error}</p>}</div>}
      {children}
    </div>
  )
}

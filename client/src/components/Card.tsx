import { useId, type ReactNode, type Ref } from 'react'

interface CardProps {
  title: ReactNode
  /** The help line under the title. */
  help?: ReactNode
  /** Beside the title, in the card's header row: a badge or a short state such as "configured". */
  aside?: ReactNode
  /** The heading's id, for a card whose heading something else names (a link, a test, a labelled list); generated otherwise. */
  headingId?: string
  /** Set where focus moves to the heading from script (it then takes focus with tabIndex -1). */
  headingRef?: Ref<HTMLHeadingElement>
  /** The section's own id, an anchor a link jumps to. */
  id?: string
  /** Added to `card` (`stack`, or a card's own class). */
  className?: string
  /** Marks the section busy while its content is being replaced. */
  busy?: boolean
  children?: ReactNode
}

/** A card section of a page, named by its h2 heading (so it is a landmark a screen reader lists by that name). */
export function Card ({ title, help, aside, headingId, headingRef, id, className, busy, children }: CardProps) {
  const generatedId = useId()
  const titleId = headingId ?? generatedId
  const heading = <h2 id={titleId} ref={headingRef} tabIndex={headingRef === undefined ? undefined : -1}>{title}</h2>
  return (
    <section className={className === undefined ? 'card' : `card ${className}`} aria-labelledby={titleId} aria-busy={busy} id={id}>
      {aside === undefined ? heading : <div className='card-header'>{heading}{aside}</div>}
      {help !== undefined && <p className='help'>{help}</p>}
      {children}
    </section>
  )
}

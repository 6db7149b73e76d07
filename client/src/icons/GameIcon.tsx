import { useState } from 'react'
import { iconUrl, useIconSets } from './icon-sets'
import { categoryOf, type IconRequest } from './uicons'
import './icons.css'

interface Props {
  /** What to draw; null draws the placeholder (a thing no icon set has, such as a max battle level). */
  icon: IconRequest | null
  /** The text alternative: what the icon shows ("Pikachu", "Valor"). */
  label: string
  /** Short text for the placeholder ("5★"); the label's first letters when left out. */
  short?: string | undefined
  size?: number
}

const initials = (label: string): string => label.split(/\s+/).filter((w) => w !== '').slice(0, 2).map((w) => [...w][0]).join('').toUpperCase()

/**
 * One game icon resolved through its set's index.json, or a named placeholder (the label's letters in
 * a circle) while the index loads, when the set lacks the icon, or if the file fails after all: never a
 * broken image, always a text alternative.
 */
export function GameIcon ({ icon, label, short, size = 40 }: Props) {
  const sets = useIconSets(icon === null ? [] : [categoryOf(icon)])
  const src = icon === null ? null : iconUrl(sets, icon)
  return <IconImage src={src} label={label} short={short} size={size} />
}

/** An icon whose address is known (or null): for lists that resolve many icons from sets loaded once. */
export function IconImage ({ src, label, short, size = 40 }: { src: string | null, label: string, short?: string | undefined, size?: number }) {
  const [failed, setFailed] = useState<string | null>(null)
  if (src === null || failed === src) {
    return (
      <span className='game-icon game-icon-placeholder' role='img' aria-label={label} style={{ width: size, height: size, fontSize: Math.round(size / 3) }}>
        <span aria-hidden='true'>{short ?? initials(label)}</span>
      </span>
    )
  }
  return <img className='game-icon' src={src} alt={label} width={size} height={size} loading='lazy' decoding='async' onError={() => { setFailed(src) }} />
}

/**
 * WCAG 2.x colour arithmetic for the admin's accent colour: relative luminance, contrast ratio, the
 * readable text colour on the accent and a hover shade that keeps it readable. Colours are `#rrggbb`.
 */
export const HEX_COLOUR = /^#[0-9a-fA-F]{6}$/

/** WCAG AA for normal text. */
export const AA_TEXT = 4.5

const BLACK = '#000000'
const WHITE = '#ffffff'

function channels (hex: string): [number, number, number] {
  const value = Number.parseInt(hex.slice(1), 16)
  return [(value >> 16) & 0xff, (value >> 8) & 0xff, value & 0xff]
}

/** https://www.w3.org/TR/WCAG21/#dfn-relative-luminance */
export function luminance (hex: string): number {
  const [r, g, b] = channels(hex).map((c) => {
    const s = c / 255
    return s <= 0.04045 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4
  }) as [number, number, number]
  return 0.2126 * r + 0.7152 * g + 0.0722 * b
}

/** https://www.w3.org/TR/WCAG21/#dfn-contrast-ratio, from 1 to 21. */
export function contrast (a: string, b: string): number {
  const [light, dark] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number]
  return (light + 0.05) / (dark + 0.05)
}

/** `amount` (0..1) of the way from `from` to `to`. */
function mix (from: string, to: string, amount: number): string {
  const a = channels(from)
  const b = channels(to)
  return `#${a.map((c, i) => Math.round(c + ((b[i] as number) - c) * amount).toString(16).padStart(2, '0')).join('')}`
}

export interface AccentPalette {
  accent: string
  /** Black or white, whichever contrasts more; on any colour that is at least 4.58:1. */
  text: string
  /** The accent moved away from the text colour, so hovering only ever raises the contrast. */
  hover: string
}

export function accentPalette (accent: string): AccentPalette {
  const text = contrast(accent, BLACK) >= contrast(accent, WHITE) ? BLACK : WHITE
  return { accent: accent.toLowerCase(), text, hover: mix(accent, text === WHITE ? BLACK : WHITE, 0.15) }
}

/** `rgb(r, g, b)` as a browser computes a colour, as `#rrggbb`; null for anything else (also rgba). */
export function hexFromComputed (value: string): string | null {
  const match = /^rgb\((\d+), (\d+), (\d+)\)$/.exec(value.trim())
  return match === null ? null : `#${match.slice(1).map((c) => Number(c).toString(16).padStart(2, '0')).join('')}`
}

/** The lowest contrast of `colour` against each background; unreadable backgrounds count as 1. */
export function lowestContrast (colour: string, backgrounds: string[]): number {
  return Math.min(...backgrounds.map((bg) => HEX_COLOUR.test(bg) ? contrast(colour, bg) : 1))
}

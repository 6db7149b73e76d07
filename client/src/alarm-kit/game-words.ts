import type { TFunction } from 'i18next'

/** The engine's sizes 1–5 as the game prints them: the same letters in every language. */
export const SIZE_NAMES: Readonly<Record<number, string>> = { 1: 'XXS', 2: 'XS', 3: 'M', 4: 'XL', 5: 'XXL' }

/** The engine's largest stored integer: an upper bound there, or at its field's top, is no bound at all. */
export const OPEN_TOP = 2_147_483_647
/** A raid or max battle alarm's "any move" (the engine's default). */
export const ANY_MOVE = 9000

export type NumberFormat = (value: number, options?: Intl.NumberFormatOptions) => string

// Constant options: the formatters are found by them (i18n/format.ts), one per language.
export const MINUTES: Intl.NumberFormatOptions = { style: 'unit', unit: 'minute', maximumFractionDigits: 1 }

/** Seconds (the engine's unit of time left) as the minutes a member thinks in: 300 → "5 min". */
export const minutes = (seconds: number, number: NumberFormat): string => number(seconds / 60, MINUTES)

/** The min/max pairs (by the name without `min_`/`max_`) whose ends are words, not numbers. */
export const WORDED_PAIRS: ReadonlySet<string> = new Set(['size', 'rarity', 'time'])

/**
 * One end of a min/max pair in the game's words (a size's letters, a rarity's name, time left in
 * minutes), or null where the pair is a plain number (IV, CP, level). A size or rarity below the first
 * (the engine's -1, "any") reads as the first: from there on, the ranges are the same.
 */
export function rangeWord (pair: string, value: number, t: TFunction, number: NumberFormat): string | null {
  switch (pair) {
    case 'size': return SIZE_NAMES[Math.max(1, value)] ?? null
    case 'rarity': return t(`pickers.values.rarity.${Math.max(1, value)}`, { defaultValue: '' }) || null
    case 'time': return minutes(value, number)
    default: return null
  }
}

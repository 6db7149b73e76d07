import i18next from 'i18next'
import { initReactI18next } from 'react-i18next'
import signInText from './locales/en.json?keys=app,callback,login,status,theme,userMenu&pick'

/**
 * Translations: one JSON file per language in `locales/`, named by its BCP 47 tag. English is the
 * source: the words of the sign-in path ship with the first script (cut from the file as it is
 * built, client/json-pick.ts), the whole of it is its own chunk that comes with the signed-in frame
 * (`loadAppText`); every other language is its own chunk, loaded when chosen. Adding a language is
 * adding its file: it is found here and offered in the user menu.
 */
const LANGUAGE_KEY = 'aw.language'
const FALLBACK = 'en'

const loaders = import.meta.glob<{ default: Record<string, unknown> }>(['./locales/*.json', '!./locales/en.json'])
const languageOf = (path: string): string => path.replace(/^.*\/(.+)\.json$/, '$1')
const lazyLanguages = new Map(Object.entries(loaders).map(([path, load]) => [languageOf(path), load]))

/** Every language with a translation file, in a stable order (English first). */
export const LANGUAGES: string[] = [FALLBACK, ...[...lazyLanguages.keys()].sort()]

/** The best match for `wanted` among the shipped languages (`de-AT` → `de`), else English. */
export function supportedLanguage (wanted: string | null | undefined): string {
  if (wanted === null || wanted === undefined || wanted === '') return FALLBACK
  const exact = LANGUAGES.find((l) => l.toLowerCase() === wanted.toLowerCase())
  if (exact !== undefined) return exact
  const base = wanted.split('-')[0]?.toLowerCase()
  return LANGUAGES.find((l) => l.toLowerCase() === base) ?? FALLBACK
}

/**
 * The shipped languages an `allowed_languages` site setting lets members choose: a comma-separated list
 * of tags (`en,de,pt-br`; a base tag such as `pt` also allows its regional variants). English, the
 * fallback, is always kept; an empty setting allows every language.
 */
export function allowedLanguages (setting: string | null | undefined): string[] {
  const listed = new Set((setting ?? '').split(',').map((l) => l.trim().toLowerCase().replace('_', '-')).filter((l) => l !== ''))
  if (listed.size === 0) return LANGUAGES
  return LANGUAGES.filter((l) => l === FALLBACK || listed.has(l.toLowerCase()) || listed.has(l.split('-')[0]?.toLowerCase() ?? ''))
}

/** The alarm engine's name for an interface language: the engine's locale files are named in lower case (`pt-br`). */
export const engineLanguage = (language: string): string => language.toLowerCase()

async function ensureLoaded (language: string): Promise<void> {
  const load = lazyLanguages.get(language)
  if (load === undefined || i18next.hasResourceBundle(language, 'translation')) return
  i18next.addResourceBundle(language, 'translation', (await load()).default)
}

/** Switches the interface language, remembers the choice and labels the document with it. */
export async function changeLanguage (language: string): Promise<void> {
  const chosen = supportedLanguage(language)
  await ensureLoaded(chosen)
  localStorage.setItem(LANGUAGE_KEY, chosen)
  await i18next.changeLanguage(chosen)
}

/** The stored choice, else the browser's preference. */
function initialLanguage (): string {
  return supportedLanguage(localStorage.getItem(LANGUAGE_KEY) ?? navigator.languages.find((l) => supportedLanguage(l) !== FALLBACK) ?? navigator.language)
}

/**
 * Keeps the interface in an allowed language: when the site no longer allows the current one, the
 * browser's first preference among the allowed languages takes over, else English.
 */
export async function keepAllowed (allowed: string[]): Promise<void> {
  if (allowed.includes(i18next.language)) return
  const preferred = navigator.languages.map((l) => supportedLanguage(l)).find((l) => allowed.includes(l))
  await changeLanguage(preferred ?? FALLBACK)
}

let appText: Promise<void> | null = null

/** All of English, the fallback of every page past sign-in: awaited before the signed-in frame draws. */
export async function loadAppText (): Promise<void> {
  appText ??= import('./locales/en.json').then(
    ({ default: english }) => { i18next.addResourceBundle(FALLBACK, 'translation', english, true, true) },
    (err: unknown) => { appText = null; throw err })
  await appText
}

export async function setUpI18n (): Promise<void> {
  i18next.on('languageChanged', (language) => { document.documentElement.lang = language })
  const language = initialLanguage()
  await i18next.use(initReactI18next).init({
    resources: { [FALLBACK]: { translation: signInText } },
    lng: FALLBACK,
    fallbackLng: FALLBACK,
    // React escapes what it renders already.
    interpolation: { escapeValue: false },
    returnNull: false
  })
  if (language !== FALLBACK) {
    await ensureLoaded(language)
    await i18next.changeLanguage(language)
  } else {
    document.documentElement.lang = FALLBACK
  }
}

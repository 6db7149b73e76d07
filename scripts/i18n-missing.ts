import { readdirSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

/**
 * Every language file of the client against the English source (client/src/i18n/locales/en.json):
 * which keys a translation still lacks (plural keys in the language's own plural forms, as
 * `Intl.PluralRules` lists them), which it has that English no longer has, which are empty, and which
 * use other `{{variables}}` than their English string. `npm run i18n:missing` prints it per language;
 * test/i18n.test.ts asserts the same comparison, so both always agree.
 */
export const LOCALES = new URL('../client/src/i18n/locales/', import.meta.url)
const PLURAL = /_(zero|one|two|few|many|other)$/

export type Strings = Map<string, unknown>

function flatten (node: unknown, prefix = '', into: Strings = new Map()): Strings {
  if (node !== null && typeof node === 'object' && !Array.isArray(node)) {
    for (const [key, value] of Object.entries(node)) flatten(value, prefix === '' ? key : `${prefix}.${key}`, into)
  } else {
    into.set(prefix, node)
  }
  return into
}

/** One language file as dotted keys (`alarms.types.raid`) and their values. */
export const readStrings = (language: string): Strings =>
  flatten(JSON.parse(readFileSync(new URL(`${language}.json`, LOCALES), 'utf8')))

/** Every shipped language but English, by its file name. */
export const translations = (): string[] =>
  readdirSync(LOCALES).filter((f) => f.endsWith('.json') && f !== 'en.json').map((f) => f.replace(/\.json$/, '')).sort()

/** `{{name}}` and `{{count, number}}` both name the variable `name`/`count`; `$t(key)` nests another string. */
export const variables = (text: string): string[] =>
  [...new Set([...text.matchAll(/\{\{\s*([^},\s]+)[^}]*\}\}|\$t\(([^)]+)\)/g)].map((m) => m[1] ?? `$t(${m[2] ?? ''})`))].sort()

/** The plural forms a language distinguishes, as i18next asks for them (`_one`, `_few`, …). */
export const pluralForms = (language: string): string[] =>
  [...new Intl.PluralRules(language).resolvedOptions().pluralCategories].sort()

/** The keys a language needs for one English key: a plural key in each of the language's plural forms. */
export function needed (key: string, language: string): string[] {
  const base = key.replace(PLURAL, '')
  if (base === key) return [key]
  return pluralForms(language).map((form) => `${base}_${form}`)
}

export interface Comparison {
  /** Keys the language needs and lacks. */
  missing: string[]
  /** Keys the language has and English (in the language's plural forms) does not. */
  extra: string[]
  /** Needed keys whose value is not a non-empty string. */
  empty: string[]
  /** `key: en [...], xx [...]` for translations whose variables differ from the English string's. */
  mismatched: string[]
}

/** The comparison of one language's strings against English's. */
export function compare (english: Strings, strings: Strings, language: string): Comparison {
  const wanted = new Map<string, string>()
  for (const key of english.keys()) for (const need of needed(key, language)) wanted.set(need, key)

  const missing = [...wanted.keys()].filter((key) => !strings.has(key))
  const extra = [...strings.keys()].filter((key) => !wanted.has(key))
  const empty = [...strings].filter(([key, v]) => wanted.has(key) && (typeof v !== 'string' || v.trim() === '')).map(([k]) => k)
  const mismatched = [...wanted].flatMap(([key, source]) => {
    const translated = strings.get(key)
    if (typeof translated !== 'string') return []
    const want = variables(String(english.get(source)))
    const got = variables(translated)
    // The form for exactly one may leave its number out or spell it ("Alarm gelöscht."), as English does.
    const countOptional = /_(zero|one|two)$/.test(key)
    const comparable = (list: string[]): string => (countOptional ? list.filter((v) => v !== 'count') : list).join()
    return comparable(want) === comparable(got) ? [] : [`${key}: en ${JSON.stringify(want)}, ${language} ${JSON.stringify(got)}`]
  })
  return { missing, extra, empty, mismatched }
}

/** The report `npm run i18n:missing` prints; the exit code is 1 when any language has something to fix. */
function main (): number {
  const english = readStrings('en')
  let problems = 0
  for (const language of translations()) {
    const result = compare(english, readStrings(language), language)
    const sections: Array<[string, string[]]> = [
      ['missing (in en.json, not here)', result.missing],
      ['extra (not in en.json)', result.extra],
      ['empty', result.empty],
      ['variables differ', result.mismatched]
    ]
    const count = sections.reduce((sum, [, keys]) => sum + keys.length, 0)
    problems += count
    console.log(`${language}: ${count === 0 ? 'complete' : `${count} to fix`}`)
    for (const [title, keys] of sections) {
      if (keys.length === 0) continue
      console.log(`  ${title}: ${keys.length}`)
      for (const key of keys) console.log(`    ${key}`)
    }
  }
  return problems === 0 ? 0 : 1
}

if (process.argv[1] === fileURLToPath(import.meta.url)) process.exitCode = main()

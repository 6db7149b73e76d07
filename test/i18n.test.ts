import { readdirSync, readFileSync } from 'node:fs'
import t from 'tap'

/**
 * Every language file of the client against the English source (client/src/i18n/locales/en.json): each
 * key is translated (plural keys in the language's own plural forms), no key is left over from a string
 * that is gone, and each translation uses exactly the interpolation variables of its English string, so
 * "{{count}} alarms" cannot lose its number. Failures list every key, so a new English string names the
 * translations it still needs.
 */
const LOCALES = new URL('../client/src/i18n/locales/', import.meta.url)
const PLURAL = /_(zero|one|two|few|many|other)$/

type Strings = Map<string, unknown>

function flatten (node: unknown, prefix = '', into: Strings = new Map()): Strings {
  if (node !== null && typeof node === 'object' && !Array.isArray(node)) {
    for (const [key, value] of Object.entries(node)) flatten(value, prefix === '' ? key : `${prefix}.${key}`, into)
  } else {
    into.set(prefix, node)
  }
  return into
}

const read = (file: string): Strings => flatten(JSON.parse(readFileSync(new URL(file, LOCALES), 'utf8')))

/** `{{name}}` and `{{count, number}}` both name the variable `name`/`count`; `$t(key)` nests another string. */
const variables = (text: string): string[] =>
  [...new Set([...text.matchAll(/\{\{\s*([^},\s]+)[^}]*\}\}|\$t\(([^)]+)\)/g)].map((m) => m[1] ?? `$t(${m[2] ?? ''})`))].sort()

/** The keys a language needs for one English key: a plural key in each of the language's plural forms. */
function needed (key: string, language: string): string[] {
  const base = key.replace(PLURAL, '')
  if (base === key) return [key]
  return new Intl.PluralRules(language).resolvedOptions().pluralCategories.map((form) => `${base}_${form}`).sort()
}

const english = read('en.json')
const languages = readdirSync(LOCALES).filter((f) => f.endsWith('.json') && f !== 'en.json').map((f) => f.replace(/\.json$/, ''))

t.ok(languages.includes('de'), 'German is shipped')

t.test('English itself: every value is a non-empty string', async (t) => {
  const bad = [...english].filter(([, v]) => typeof v !== 'string' || v.trim() === '').map(([k]) => k)
  t.same(bad, [], bad.length === 0 ? 'all strings' : `en.json values that are not text:\n${bad.join('\n')}`)
})

for (const language of languages) {
  t.test(`${language}.json translates every string of en.json`, async (t) => {
    const strings = read(`${language}.json`)
    const wanted = new Map<string, string>()
    for (const key of english.keys()) for (const need of needed(key, language)) wanted.set(need, key)

    const missing = [...wanted.keys()].filter((key) => !strings.has(key))
    t.same(missing, [], missing.length === 0
      ? 'no key is missing'
      : `${language}.json lacks ${missing.length} key(s) of en.json; add them with their translation:\n${missing.join('\n')}`)

    const stale = [...strings.keys()].filter((key) => !wanted.has(key))
    t.same(stale, [], stale.length === 0 ? 'no key is left over' : `${language}.json has key(s) en.json no longer has; remove them:\n${stale.join('\n')}`)

    const empty = [...strings].filter(([key, v]) => wanted.has(key) && (typeof v !== 'string' || v.trim() === '')).map(([k]) => k)
    t.same(empty, [], empty.length === 0 ? 'every translation is text' : `${language}.json values that are empty or not text:\n${empty.join('\n')}`)

    const mismatched = [...wanted].flatMap(([key, source]) => {
      const translated = strings.get(key)
      if (typeof translated !== 'string') return []
      const want = variables(String(english.get(source)))
      const got = variables(translated)
      // The form for exactly one may leave its number out or spell it ("Alarm gelöscht."), as English does.
      const countOptional = /_(zero|one|two)$/.test(key)
      const comparable = (list: string[]) => countOptional ? list.filter((v) => v !== 'count') : list
      const ok = comparable(want).join() === comparable(got).join()
      return ok ? [] : [`${key}: en ${JSON.stringify(want)}, ${language} ${JSON.stringify(got)}`]
    })
    t.same(mismatched, [], mismatched.length === 0
      ? 'every translation uses the variables of its English string'
      : `${language}.json strings whose {{variables}} differ from en.json:\n${mismatched.join('\n')}`)
  })
}

t.test('the check itself: variables, plural forms', async (t) => {
  t.same(variables('{{count}} of {{limit}} · {{ count }} · {{n, number}} · $t(app.name)'), ['$t(app.name)', 'count', 'limit', 'n'])
  t.same(needed('alarms.deleted_one', 'de'), ['alarms.deleted_one', 'alarms.deleted_other'])
  t.same(needed('alarms.deleted_other', 'pl'), ['alarms.deleted_few', 'alarms.deleted_many', 'alarms.deleted_one', 'alarms.deleted_other'])
  t.same(needed('alarms.add', 'de'), ['alarms.add'])
})

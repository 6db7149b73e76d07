import t from 'tap'
import { compare, needed, pluralForms, readStrings, translations, variables } from '../scripts/i18n-missing.js'

/**
 * Every language file of the client against the English source (client/src/i18n/locales/en.json), by
 * the same comparison `npm run i18n:missing` prints: each key is translated (plural keys in exactly the
 * plural forms `Intl.PluralRules` lists for the language), no key is left over from a string that is
 * gone, and each translation uses exactly the interpolation variables of its English string, so
 * "{{count}} alarms" cannot lose its number. Failures list every key, so a new English string names the
 * translations it still needs.
 */
const SHIPPED = ['da', 'de', 'es', 'fr', 'it', 'nl', 'pl', 'pt', 'pt-BR', 'sv']

const english = readStrings('en')
const languages = translations()

t.same(languages, SHIPPED, 'the eleven languages are shipped (English and these ten)')

t.test('English itself: every value is a non-empty string', async (t) => {
  const bad = [...english].filter(([, v]) => typeof v !== 'string' || v.trim() === '').map(([k]) => k)
  t.same(bad, [], bad.length === 0 ? 'all strings' : `en.json values that are not text:\n${bad.join('\n')}`)
})

for (const language of languages) {
  t.test(`${language}.json translates every string of en.json`, async (t) => {
    const { missing, extra, empty, mismatched } = compare(english, readStrings(language), language)
    t.same(missing, [], missing.length === 0
      ? 'no key is missing'
      : `${language}.json lacks ${missing.length} key(s) of en.json; add them with their translation:\n${missing.join('\n')}`)
    t.same(extra, [], extra.length === 0 ? 'no key is left over' : `${language}.json has key(s) en.json no longer has; remove them:\n${extra.join('\n')}`)
    t.same(empty, [], empty.length === 0 ? 'every translation is text' : `${language}.json values that are empty or not text:\n${empty.join('\n')}`)
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
  t.same(pluralForms('pl'), ['few', 'many', 'one', 'other'])
})

t.test('the check itself: a translation with a gap, a stray key, a lost variable and a wrong plural set', async (t) => {
  const en = new Map<string, unknown>([['a', 'A {{name}}'], ['n_one', 'one'], ['n_other', '{{count}} things'], ['b', 'B']])
  const pl = new Map<string, unknown>([['a', 'A'], ['n_one', 'jedna'], ['n_other', '{{count}} rzeczy'], ['gone', 'x'], ['b', ' ']])
  t.same(compare(en, pl, 'pl'), {
    missing: ['n_few', 'n_many'],
    extra: ['gone'],
    empty: ['b'],
    mismatched: ['a: en ["name"], pl []']
  })
  const de = new Map<string, unknown>([['a', '{{name}}'], ['n_one', 'ein Ding'], ['n_other', '{{count}} Dinge'], ['n_many', 'x'], ['b', 'B']])
  t.same(compare(en, de, 'de').extra, ['n_many'], 'a plural form German does not have is flagged')
})

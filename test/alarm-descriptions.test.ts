/**
 * The alarm descriptions of the client (client/src/alarm-kit/describe.ts), as units: the words a
 * member reads on every card, in the overlap notice and on the "why no alert?" page. The alarm types come
 * from the server's own table, as the client receives them.
 */
import t from 'tap'
import { ALARM_KINDS, describeKind } from '../schemas/alarm-types.js'
import { loadClientModules } from './client-modules.js'

type Row = Record<string, unknown> & { uid: number }
type Descriptor = ReturnType<typeof describeKind>
interface Vocabulary { t: unknown, monsters: unknown[] | null, raidLevels: unknown[] | null, number: unknown, numberRange: unknown, gymNames: Map<string, string>, moves?: Record<string, string> | null }
interface Describe {
  describeAlarm: (type: Descriptor, alarm: Row, v: Vocabulary) => string
  describeCard: (type: Descriptor, alarm: Row, v: Vocabulary) => { subject: string, sentence: string, pills: Array<{ key: string, text: string, tone: string }> }
  describeParts: (type: Descriptor, alarm: Row, v: Vocabulary) => { subject: string, filters: string[], scope: string }
  formatNumber: (language: string, value: number, options?: Intl.NumberFormatOptions) => string
  formatNumberRange: (language: string, start: number, end: number, options?: Intl.NumberFormatOptions) => string
}

const client = await loadClientModules<Describe>('alarm-kit/describe.ts', 'i18n/format.ts')
const TYPES = Object.fromEntries(ALARM_KINDS.map((kind) => [kind.type, describeKind(kind)])) as Record<string, Descriptor>
const MONSTERS = [
  { id: 147, name: 'Dratini', form: { id: 0, name: '' } },
  { id: 150, name: 'Mewtwo', form: { id: 0, name: '' } },
  { id: 150, name: 'Mewtwo', form: { id: 133, name: 'Armored' } }
]
const vocabulary = (monsters: unknown[] | null = MONSTERS): Vocabulary => ({
  t: client.t,
  monsters,
  raidLevels: [{ value: 5, category: 'star', name: '5-Star Raid', namePlural: '5-Star Raids' }],
  number: (value: number, options?: Intl.NumberFormatOptions) => client.formatNumber('en', value, options),
  numberRange: (start: number, end: number, options?: Intl.NumberFormatOptions) => client.formatNumberRange('en', start, end, options),
  gymNames: new Map([['gym-1', 'Town Hall']])
})
const describe = (type: string, alarm: Record<string, unknown>, v = vocabulary()) => client.describeAlarm(TYPES[type] as Descriptor, { uid: 1, ...alarm }, v)

t.test('a pokemon alarm names the species, every narrowing filter and where it applies', async (t) => {
  t.equal(describe('pokemon', { pokemon_id: 147, min_iv: 90, max_iv: 100, distance: 0 }), 'Dratini, IV ≥ 90%, in your areas')
  t.equal(describe('pokemon', { pokemon_id: 0, min_iv: 100, max_iv: 100, distance: 3000 }), 'Every pokémon, IV ≥ 100%, within 3 km')
  t.equal(describe('pokemon', { pokemon_id: 147, distance: 350 }), 'Dratini, within 350 m', 'metres below a kilometre')
  t.equal(describe('pokemon', { pokemon_id: 147, min_cp: 500, max_cp: 1500 }), 'Dratini, CP 500–1,500, in your areas', 'a bounded range shows both ends')
  t.equal(describe('pokemon', { pokemon_id: 147, max_level: 20 }), 'Dratini, level ≤ 20, in your areas', 'only an upper bound')
  t.equal(describe('pokemon', { pokemon_id: 150, form: 133 }), 'Mewtwo (Armored), in your areas', 'the form by name')
  t.equal(describe('pokemon', { pokemon_id: 147, override_areas: ['Centre', 'Park ~u42'] }), 'Dratini, in Centre, Park', 'a member\'s own fence without the engine\'s suffix')
  t.equal(describe('pokemon', { pokemon_id: 147 }, vocabulary(null)), '#147, in your areas', 'the id while the game data is not loaded')
})

t.test('defaults are not filters: an alarm at every default says only its subject and scope', async (t) => {
  const defaults = Object.fromEntries((TYPES.pokemon as Descriptor).fields.map((f) => [f.name, f.default]))
  t.equal(describe('pokemon', { ...defaults, pokemon_id: 147 }), 'Dratini, in your areas')
})

t.test('the other types name what the member tracks in game words', async (t) => {
  t.equal(describe('raid', { pokemon_id: 9000, level: 5 }), 'Raids: 5-Star Raid, in your areas', 'a level from the game data\'s names')
  t.equal(describe('raid', { pokemon_id: 150, level: 9000 }), 'Raids: Mewtwo, in your areas', 'a boss by name')
  t.equal(describe('raid', { pokemon_id: 150, level: 9000, move: 14 }, { ...vocabulary(), moves: { 14: 'Hyper Beam' } }), 'Raids: Mewtwo, Move: Hyper Beam, in your areas', 'the boss\'s move by name')
  t.equal(describe('raid', { pokemon_id: 150, level: 9000, move: 14 }), 'Raids: Mewtwo, Move: 14, in your areas', 'its id while the names are not loaded')
  t.equal(describe('raid', { pokemon_id: 150, level: 9000, move: 9000 }), 'Raids: Mewtwo, in your areas', 'any move is no filter')
  t.equal(describe('egg', { level: 5 }), 'Eggs: 5-Star Raid, in your areas')
  t.equal(describe('invasion', { grunt_type: 'fire', gender: 0 }), 'Fire grunts, in your areas')
  t.equal(describe('quest', { reward_type: 3, reward: 1000 }), 'Stardust quests of at least 1,000, in your areas')
  t.equal(describe('quest', { reward_type: 7, reward: 147 }), 'Dratini encounter, in your areas')
  t.equal(describe('nest', { pokemon_id: 147 }), 'Dratini nests, in your areas')
})

t.test('a card splits the sentence into pills with a tone each', async (t) => {
  const card = client.describeCard(TYPES.pokemon as Descriptor, { uid: 1, pokemon_id: 147, min_iv: 90, max_iv: 100, min_level: 30, gender: 2 }, vocabulary())
  t.equal(card.subject, 'Dratini')
  t.equal(card.sentence, 'Dratini, IV ≥ 90%, level ≥ 30, Gender: Female, in your areas')
  t.same(card.pills.map((p) => [p.key, p.tone]), [['iv', 'iv'], ['level', 'level'], ['gender', 'gender'], ['scope', 'scope']])
  const parts = client.describeParts(TYPES.pokemon as Descriptor, { uid: 1, pokemon_id: 147, min_iv: 90 }, vocabulary())
  t.same(parts, { subject: 'Dratini', filters: ['IV ≥ 90%'], scope: 'in your areas' })
})

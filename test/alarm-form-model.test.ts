/**
 * The alarm form's model (client/src/alarm-kit/form-model.ts), as units: every field edited as
 * text and turned into the engine's values only when sent, the checks made before sending, and a 400's
 * details placed at their fields. The alarm types come from the server's own table.
 */
import t from 'tap'
import { ALARM_KINDS, describeKind } from '../schemas/alarm-types.js'
import { loadClientModules } from './client-modules.js'

type Descriptor = ReturnType<typeof describeKind>
type Values = Record<string, string>
interface FormModel {
  initialValues: (type: Descriptor, alarm?: Record<string, unknown> & { uid: number }, personal?: Record<string, unknown>) => Values
  toBody: (type: Descriptor, values: Values, original?: Values) => Record<string, unknown>
  validate: (type: Descriptor, values: Values, t: unknown, creating: boolean) => Record<string, string>
  serverErrors: (type: Descriptor, details: Array<{ field: string, message: string }>) => { fields: Record<string, string>, other: string[] }
  recreateBody: (type: Descriptor, alarm: Record<string, unknown> & { uid: number }) => Record<string, unknown>
  listItems: (text: string) => string[]
}

const model = await loadClientModules<FormModel>('alarm-kit/form-model.ts')
const TYPES = Object.fromEntries(ALARM_KINDS.map((kind) => [kind.type, describeKind(kind)])) as Record<string, Descriptor>
const pokemon = TYPES.pokemon as Descriptor
const gym = TYPES.gym as Descriptor

t.test('a new alarm starts from the defaults with the member\'s own defaults over them', async (t) => {
  const fresh = model.initialValues(pokemon)
  t.equal(fresh.min_iv, '-1')
  t.equal(fresh.max_cp, '9000')
  t.equal(fresh.pokemon_id, '', 'no species chosen')
  t.notOk('override_location_label' in fresh, 'saved places are not offered')
  const own = model.initialValues(pokemon, undefined, { min_iv: 90, distance: 500, unknown_field: 1, max_cp: null })
  t.equal(own.min_iv, '90')
  t.equal(own.distance, '500')
  t.equal(own.max_cp, '9000', 'a null personal default leaves the site default')
  t.notOk('unknown_field' in own)
  const edit = model.initialValues(pokemon, { uid: 7, pokemon_id: 147, min_iv: 95, override_areas: ['Town', 'Park'] }, { min_iv: 10 })
  t.equal(edit.min_iv, '95', 'an edit starts from the alarm, not the member\'s defaults')
  t.equal(edit.override_areas, 'Town, Park', 'a list as the text the member edits')
})

t.test('a create sends every field with a value, typed; an edit only what changed', async (t) => {
  const fresh = model.initialValues(pokemon)
  const created = model.toBody(pokemon, { ...fresh, pokemon_id: '147', min_iv: ' 90 ' })
  t.equal(created.pokemon_id, 147)
  t.equal(created.min_iv, 90, 'trimmed and a number')
  t.equal(created.max_cp, 9000)
  t.notOk('override_areas' in created, 'an empty field is left out of a create')
  const original = model.initialValues(pokemon, { uid: 7, pokemon_id: 147, min_iv: 95, override_areas: ['Town'] })
  t.same(model.toBody(pokemon, { ...original, min_iv: '80' }, original), { min_iv: 80 }, 'only the changed field')
  t.same(model.toBody(pokemon, { ...original, override_areas: '' }, original), { override_areas: [] }, 'an emptied list is sent empty')
  t.same(model.toBody(pokemon, original, original), {}, 'nothing changed, nothing sent')
  const gymOriginal = model.initialValues(gym, { uid: 3, gym_id: 'gym-1', team: 1 })
  t.same(model.toBody(gym, { ...gymOriginal, gym_id: '' }, gymOriginal), { gym_id: '' }, 'an emptied text id is sent as "" (any gym)')
})

t.test('the server\'s checks are made first: required, whole numbers, bounds, ranges', async (t) => {
  const fresh = model.initialValues(pokemon)
  t.same(model.validate(pokemon, { ...fresh, pokemon_id: '147' }, model.t, true), {}, 'a valid create')
  const errors = model.validate(pokemon, { ...fresh, min_iv: '95', max_iv: '90', min_cp: '1.5', max_level: '999' }, model.t, true)
  t.equal(errors.pokemon_id, 'Choose a value.', 'required on create')
  t.equal(errors.min_cp, 'Enter a whole number.')
  t.equal(errors.max_level, 'Must be between 0 and 55.', 'outside the field\'s bounds')
  t.equal(errors.max_iv, 'Must not be below Minimum IV.', 'a range whose top is below its bottom')
  t.notOk('pokemon_id' in model.validate(pokemon, { ...fresh }, model.t, false), 'an edit need not repeat a required field')
  t.same(model.validate(pokemon, { ...fresh, pokemon_id: '1', min_iv: '90', max_iv: '90' }, model.t, true), {}, 'equal ends are a valid range')
})

t.test('a 400\'s details go to their fields; the rest above the form', async (t) => {
  const placed = model.serverErrors(pokemon, [
    { field: '/min_iv', message: 'must be <= 100' },
    { field: '/MIN_IV', message: 'again' },
    { field: '/override_areas/0', message: 'unknown area' },
    { field: '/zzz', message: 'odd' },
    { field: '', message: 'nope' }
  ])
  t.same(placed.fields, { min_iv: 'must be <= 100; again', override_areas: 'unknown area' })
  t.same(placed.other, ['/zzz: odd', 'nope'])
})

t.test('a deleted alarm is recreated from its own fields only', async (t) => {
  t.same(model.recreateBody(pokemon, { uid: 9, id: '1', profile_no: 2, pokemon_id: 147, min_iv: 90, template: null }), { pokemon_id: 147, min_iv: 90 })
  t.same(model.listItems(' Town, ,Park ,'), ['Town', 'Park'])
})

import t from 'tap'
import { notificationFor, topicOf } from '../plugins/domain/push-alerts/notification.js'

/** The notification a matched event becomes: text, tag, TTL, link and its bounds (plugins/domain/push-alerts/notification.ts). */

const context = { pokemonName: (id: number) => (id === 147 ? 'Dratini' : `#${id}`), language: null, area: 'Centre', nowS: 1_000_000, metres: 350, mapTemplate: 'https://map.example.org/@/{lat}/{lon}/16' }

t.test('a pokemon: species, IV, level and CP; the time left is the TTL', async (t) => {
  const n = notificationFor('pokemon', { encounter_id: '99', pokemon_id: 147, latitude: 51.5, longitude: 7.25, disappear_time: 1_000_720, individual_attack: 15, individual_defense: 14, individual_stamina: 15, cp: 912, pokemon_level: 30 }, context)
  t.same(n, { title: 'Dratini 98% · L30 · CP 912', body: '12 min left · Centre · 350 m', tag: 'pokemon-99', url: 'https://map.example.org/@/51.500000/7.250000/16', ttlSeconds: 720, urgency: 'high' })
  const unseen = notificationFor('pokemon', { pokemon_id: 147, latitude: 1, longitude: 2, disappear_time: 999_000 }, { ...context, metres: null, mapTemplate: '' })
  t.equal(unseen.title, 'Dratini', 'not encountered: no IV, level or CP')
  t.equal(unseen.ttlSeconds, 0, 'gone already: nothing to send')
  t.equal(unseen.url, '/')
})

t.test('in the member\'s language: its words, its species names (given), its numbers', async (t) => {
  const spawn = { encounter_id: '99', pokemon_id: 147, latitude: 51.5, longitude: 7.25, disappear_time: 1_000_720, individual_attack: 15, individual_defense: 14, individual_stamina: 15, cp: 912, pokemon_level: 30 }
  const german = { ...context, language: 'de', pokemonName: () => 'Dratini', metres: 1250 }
  t.same(notificationFor('pokemon', spawn, german).body, 'noch 12 Min. · Centre · 1,3 km')
  t.equal(notificationFor('raid', { gym_id: 'g', gym_name: 'Brunnen', level: 5, end: 1_000_600, pokemon_id: 150, latitude: 1, longitude: 2 }, { ...german, pokemonName: () => 'Mewtu' }).title, 'Mewtu-Raid · Level 5')
  t.equal(notificationFor('raid', { gym_id: 'g', level: 3, end: 1_000_600, pokemon_id: 0, latitude: 1, longitude: 2 }, german).title, 'Level-3-Ei')
  t.equal(notificationFor('lure', { pokestop_id: 's', lure_expiration: 1_000_600, latitude: 1, longitude: 2 }, german).title, 'Lockmodul')
  t.equal(notificationFor('pokemon', spawn, { ...context, language: 'de-AT' }).body, 'noch 12 Min. · Centre · 350 m', 'a regional code reads as its language')
  t.equal(notificationFor('pokemon', spawn, { ...context, language: 'pt-BR' }).body, 'faltam 12 min · Centre · 350 m')
  t.equal(notificationFor('pokemon', spawn, { ...context, language: 'xx' }).body, '12 min left · Centre · 350 m', 'a language without words is English')
})

t.test('scanner texts are bounded: the payload stays under 3 KB', async (t) => {
  const n = notificationFor('raid', { gym_id: 'g'.repeat(3000), gym_name: 'Ω'.repeat(5000), level: 5, end: 1_000_600, pokemon_id: 150, latitude: 1, longitude: 2 }, { ...context, mapTemplate: `https://map.example.org/${'x'.repeat(3000)}/{lat}` })
  t.ok(Buffer.byteLength(JSON.stringify({ kind: 'alert', ...n })) < 3072, `${Buffer.byteLength(JSON.stringify(n))} bytes`)
  t.match(n.title, /^#150 raid · level 5$/)
})

t.test('a topic is at most 32 URL-safe characters, the same for the same tag', async (t) => {
  const topic = topicOf('pokemon-12345678901234567890')
  t.match(topic, /^[A-Za-z0-9_-]{1,32}$/)
  t.equal(topicOf('pokemon-12345678901234567890'), topic)
  t.not(topicOf('pokemon-1'), topic)
})

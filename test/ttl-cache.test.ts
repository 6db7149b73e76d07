import t from 'tap'
import { TtlCache } from '../lib/ttl-cache.js'
import { ManualClock } from '../plugins/base/clock.js'

t.test('an entry lives until its end, on the given clock', async (t) => {
  const clock = new ManualClock(1_000_000)
  const cache = new TtlCache<string, number>(clock, 10)
  cache.set('a', 1, 1000)
  clock.advance(999)
  t.equal(cache.get('a'), 1)
  clock.advance(1)
  t.equal(cache.get('a'), undefined, 'gone at its end')
  t.equal(cache.size, 0, 'and dropped when read')
  cache.setUntil('b', 2, clock.now() + 10)
  t.equal(cache.get('b'), 2)
  cache.set('b', 3, 0)
  t.equal(cache.get('b'), undefined, 'a ttl of 0 forgets the key')
  cache.setUntil('c', 4, clock.now() - 1)
  t.equal(cache.size, 0, 'an end in the past is not kept')
})

t.test('the size is capped: the oldest entry goes first, whatever its end', async (t) => {
  const clock = new ManualClock()
  const cache = new TtlCache<number, number>(clock, 3)
  for (let i = 1; i <= 5; i++) cache.set(i, i, 60_000)
  t.equal(cache.size, 3)
  t.same([1, 2, 3, 4, 5].map((k) => cache.get(k)), [undefined, undefined, 3, 4, 5])
  cache.set(3, 30, 60_000)
  cache.set(6, 6, 60_000)
  t.same([3, 4, 5, 6].map((k) => cache.get(k)), [30, undefined, 5, 6], 'a rewritten entry counts as new')
  for (let i = 0; i < 10_000; i++) cache.set(i + 100, i, 60_000)
  t.equal(cache.size, 3, 'never more than the cap')
  t.throws(() => new TtlCache(clock, 0))
})

t.test('concurrent loads of one key share one call; failures and ttl 0 are not kept', async (t) => {
  const clock = new ManualClock()
  const cache = new TtlCache<string, string>(clock, 10)
  let calls = 0
  const load = async () => { calls++; await new Promise((resolve) => setTimeout(resolve, 10)); return { value: `v${calls}`, ttlMs: 1000 } }
  t.same(await Promise.all([cache.getOrLoad('k', load), cache.getOrLoad('k', load), cache.getOrLoad('k', load)]), ['v1', 'v1', 'v1'])
  t.equal(calls, 1)
  t.equal(await cache.getOrLoad('k', load), 'v1', 'then from memory')
  clock.advance(1000)
  t.equal(await cache.getOrLoad('k', load), 'v2', 'loaded again after its end')

  await t.rejects(cache.getOrLoad('bad', async () => { throw new Error('down') }), /down/)
  t.equal(await cache.getOrLoad('bad', async () => ({ value: 'ok', ttlMs: 1000 })), 'ok', 'a failed load is not remembered')
  t.equal(await cache.getOrLoad('once', async () => ({ value: 'a', ttlMs: 0 })), 'a')
  t.equal(await cache.getOrLoad('once', async () => ({ value: 'b', ttlMs: 0 })), 'b', 'ttl 0 answers without keeping')
})

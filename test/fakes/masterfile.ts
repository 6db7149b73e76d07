import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'

/**
 * The game master file as the reference describes it (`master-latest-poracle.json`, served as a static
 * file): `monsters` keyed "{id}_{form}" (form a number or `{ id, name }`, with `types`), `grunts` keyed
 * by game id, `moves` and `items` keyed by id, each entry with its English `name`. `status` other than 200 makes the file unavailable.
 */
export async function startMasterfileFake () {
  const fake = {
    url: '',
    status: 200,
    downloads: 0,
    body: {
      monsters: {
        '1_0': { name: 'Bulbasaur', id: 1, form: 0, types: [{ id: 12, name: 'Grass' }, { id: 4, name: 'Poison' }] },
        '1_163': { name: 'Bulbasaur', id: 1, form: { id: 163, name: 'Normal' }, types: [{ id: 12, name: 'Grass' }, { id: 4, name: 'Poison' }] },
        '25_0': { name: 'Pikachu', id: 25, form: 0, types: [{ id: 13, name: 'Electric' }] }
      },
      grunts: { 4: { type: 'Mixed', gender: 2, grunt: 'Grunt' }, 44: { type: 'Metal', gender: 0, grunt: 'Giovanni' } },
      moves: { 13: { name: 'Wrap' }, 14: { name: 'Hyper Beam' } },
      items: { 1: { name: 'Poke Ball' }, 1301: { name: 'Rare Candy' } }
    } as Record<string, unknown>,
    close: async () => {}
  }
  const server = createServer((_req, res) => {
    fake.downloads++
    if (fake.status !== 200) {
      res.writeHead(fake.status, { 'content-type': 'text/plain' }).end('unavailable')
      return
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(fake.body))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  fake.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/master-latest-poracle.json`
  fake.close = async () => {
    server.closeAllConnections()
    await new Promise<void>((resolve) => server.close(() => resolve()))
  }
  return fake
}

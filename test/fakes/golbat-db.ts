import t from 'tap'
import { rootConnection } from '../helper.js'
import { createGolbatDatabase, dropGolbatDatabase } from '../fixtures/golbat-schema.js'

let created: Promise<string> | undefined
/** One scanner database with Golbat's schema per test file, dropped when the file ends; its name. */
export async function golbatDatabase (): Promise<string> {
  created ??= (async () => {
    const c = await rootConnection()
    const name = await createGolbatDatabase(c, 'aw_test_golbat')
    await c.end()
    t.teardown(async () => {
      const d = await rootConnection()
      await dropGolbatDatabase(d, name)
      await d.end()
    })
    return name
  })()
  return await created
}

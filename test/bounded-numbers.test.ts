import t from 'tap'
import { build, bearer, seedHuman } from './helper.js'

/**
 * `1e309` is Infinity once a query or path is coerced, and Infinity passes `type: integer` (and every
 * number without a bound) and reached the SQL (`GET /api/admin/audit?before=1e309` answered 500). The
 * app's own OpenAPI document names every numeric parameter: each one, sent ±1e309, is a 4xx.
 */

const ADMIN = '100000000000000001'
type Json = Record<string, unknown>
interface Parameter { in: string, name: string, required?: boolean, schema: Json }

/** The schema and the choices of its unions, flattened. */
const alternatives = (schema: Json): Json[] => ((schema.anyOf ?? schema.oneOf) as Json[] | undefined)?.flatMap(alternatives) ?? [schema]
const numeric = (schema: Json) => schema.type === 'integer' || schema.type === 'number'
const isNumeric = (schema: Json) => alternatives(schema).some(numeric)

/** A value the parameter's schema takes, for the parameters not under test. */
function sample (schema: Json): string {
  if (Array.isArray(schema.enum)) return String(schema.enum[0])
  if ('const' in schema) return String(schema.const)
  const choices = (schema.anyOf ?? schema.oneOf) as Json[] | undefined
  if (choices !== undefined) return sample(choices[0] ?? {})
  if (schema.type === 'integer' || schema.type === 'number') return String(Math.max(1, (schema.minimum as number | undefined) ?? 1))
  if (schema.type === 'boolean') return 'true'
  if (typeof schema.pattern === 'string') return ['1', 'a', 'pokemon', 'en'].find((c) => new RegExp(schema.pattern as string, 'u').test(c)) ?? 'a'
  return 'a'
}

t.test('±1e309 in every numeric parameter of the OpenAPI document is a 4xx, never a 500', async (t) => {
  const s = await build(t, { config: { RATE_LIMIT_AUTH_MAX: 100_000, RATE_LIMIT_AUTH_READ_MAX: 100_000 } })
  await seedHuman(s, { id: ADMIN, name: 'Ada' })
  const headers = bearer(s.app, { userId: ADMIN, isAdmin: true })
  const doc = (await s.app.inject({ method: 'GET', url: '/api/openapi.json' })).json() as { paths: Record<string, Record<string, { parameters?: Parameter[], requestBody?: { content?: Record<string, { schema: Json }> } }>> }
  let checked = 0
  for (const [path, operations] of Object.entries(doc.paths)) {
    for (const [method, operation] of Object.entries(operations)) {
      const parameters = operation.parameters ?? []
      const body = operation.requestBody?.content?.['application/json']?.schema
      const properties = (body?.properties ?? {}) as Record<string, Json>
      const targets = [
        ...parameters.filter((p) => (p.in === 'query' || p.in === 'path') && isNumeric(p.schema)).map((p) => ({ where: p.in, name: p.name })),
        ...Object.entries(properties).filter(([, schema]) => isNumeric(schema)).map(([name]) => ({ where: 'body', name }))
      ]
      for (const target of targets) {
        for (const huge of ['1e309', '-1e309']) {
          const value = (p: Parameter) => (p.in === target.where && p.name === target.name ? huge : sample(p.schema))
          let url = path
          for (const p of parameters.filter((p) => p.in === 'path')) url = url.replace(`{${p.name}}`, encodeURIComponent(value(p)))
          const query = parameters.filter((p) => p.in === 'query' && (p.required === true || p.name === target.name)).map((p) => `${p.name}=${encodeURIComponent(value(p))}`).join('&')
          const payload = body === undefined
            ? undefined
            : JSON.stringify(Object.fromEntries(Object.entries(properties).map(([name, schema]) => [name, name === target.name ? 'HUGE' : sample(schema)]))).replace('"HUGE"', huge)
          const res = await s.app.inject({
            method: method.toUpperCase() as 'GET',
            url: query === '' ? url : `${url}?${query}`,
            headers: payload === undefined ? headers : { ...headers, 'content-type': 'application/json' },
            ...(payload === undefined ? {} : { payload })
          })
          t.ok(res.statusCode >= 400 && res.statusCode < 500, `${method.toUpperCase()} ${path} ${target.where} ${target.name}=${huge}: ${res.statusCode}`)
          checked++
        }
      }
    }
  }
  t.ok(checked > 20, `${checked} numeric parameters sent ±1e309`)
})

t.test('every numeric query and path parameter declares a minimum and a maximum (schemas/common.ts BoundedInteger)', async (t) => {
  const s = await build(t)
  const doc = (await s.app.inject({ method: 'GET', url: '/api/openapi.json' })).json() as { paths: Record<string, Record<string, { parameters?: Parameter[] }>> }
  const unbounded = Object.entries(doc.paths).flatMap(([path, operations]) => Object.entries(operations).flatMap(([method, operation]) =>
    (operation.parameters ?? []).filter((p) => p.in !== 'header' && alternatives(p.schema).some((a) => numeric(a) && (a.minimum === undefined || a.maximum === undefined)))
      .map((p) => `${method.toUpperCase()} ${path} ${p.in} ${p.name}`)))
  t.same(unbounded, [])
})

t.test('the audit log\'s cursor is bounded: before=1e309 is a 400 naming it', async (t) => {
  const s = await build(t)
  const res = await s.app.inject({ method: 'GET', url: '/api/admin/audit?before=1e309', headers: bearer(s.app, { userId: ADMIN, isAdmin: true }) })
  t.equal(res.statusCode, 400)
  t.match(res.json(), { details: [{ field: '/before' }] })
})

/**
 * A schema compiler that compiles each distinct schema once per process. Routes repeat the same schemas
 * (an alarm's uid parameter, the error answers), and a process that builds the app more than once (a
 * test file, a benchmark) would otherwise compile every schema again for each build; Ajv and
 * fast-json-stringify make up most of the time an app takes to get ready. The key is the schema's JSON,
 * which is all either compiler reads, plus the variant (which compiler it goes to).
 */
export function compiledOnce<F> (compile: (schema: object, variant: string) => F): (schema: object, variant?: string) => F {
  const compiled = new Map<string, F>()
  return (schema, variant = '') => {
    const key = `${variant}\n${JSON.stringify(schema)}`
    let fn = compiled.get(key)
    if (fn === undefined) {
      fn = compile(schema, variant)
      compiled.set(key, fn)
    }
    return fn
  }
}

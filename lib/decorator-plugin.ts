import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'

/** `quick-picks` → `quickPicks`: the decorator that a plugin's name stands for. */
type CamelCase<S extends string> = S extends `${infer Head}-${infer Tail}` ? `${Head}${Capitalize<CamelCase<Tail>>}` : S

/** The decorator `name` stands for, when the concern declared it on FastifyInstance (else `never`, a type error). */
type DecoratorOf<Name extends string> = CamelCase<Name> & keyof FastifyInstance

/**
 * The plugin of a concern that is one object made by its factory: it decorates `fastify.<camelName>` with
 * `create(fastify)`, named like its file (`quick-picks` → `fastify.quickPicks`). The concern keeps only its
 * factory and the `declare module 'fastify'` line that types the decorator; naming, the Fastify version
 * and the dependency list are said once here.
 */
export function decoratorPlugin<Name extends string> (
  name: Name,
  create: (fastify: FastifyInstance) => FastifyInstance[DecoratorOf<Name>],
  dependencies: string[]
) {
  const decorator = name.replace(/-(.)/g, (_, letter: string) => letter.toUpperCase()) as DecoratorOf<Name>
  return fp(async (fastify) => {
    fastify.decorate<unknown>(decorator, create(fastify))
  }, { name, fastify: '5.x', dependencies })
}

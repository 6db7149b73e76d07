/**
 * Runs `tasks` at most `parallel` at a time and answers their results in order. For work sent to a shared
 * pool: a burst of statements would hold every connection and leave the rest waiting past the pool's
 * acquire timeout.
 */
export async function inTurn<T> (tasks: Array<() => Promise<T>>, parallel: number): Promise<T[]> {
  const results = new Array<T>(tasks.length)
  let next = 0
  const worker = async (): Promise<void> => {
    while (next < tasks.length) {
      const i = next++
      results[i] = await (tasks[i] as () => Promise<T>)()
    }
  }
  await Promise.all(Array.from({ length: Math.min(parallel, tasks.length) }, worker))
  return results
}

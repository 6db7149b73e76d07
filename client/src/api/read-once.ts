/**
 * Answers read once per page load and shared by every component that asks for them: one request per key,
 * a failed one forgotten so that a retry asks again, and the answers already in kept, so a component
 * mounted later draws them in its first render instead of a loading one.
 */
const pending = new Map<string, Promise<unknown>>()
const settled = new Map<string, unknown>()

/** Takes `answer` as the key's answer from now on: a first read, or a save's result for the next reader. */
export function keepAnswer<T> (key: string, answer: Promise<T>): Promise<T> {
  pending.set(key, answer)
  settled.delete(key)
  answer.then(
    (value) => { if (pending.get(key) === answer) settled.set(key, value) },
    () => { if (pending.get(key) === answer) pending.delete(key) }
  )
  return answer
}

/** The key's answer: the one read or being read, else the one `load` starts now. */
export const readOnce = <T>(key: string, load: () => Promise<T>): Promise<T> =>
  (pending.get(key) as Promise<T> | undefined) ?? keepAnswer(key, load())

/** The key's answer if it is already in. */
export const answerIn = <T>(key: string): T | undefined => settled.get(key) as T | undefined

/** Where a failing undo step is reported: the request's or the app's logger. */
export interface UndoLog { error: (details: object, message: string) => void }

/**
 * The undo list of a multi-step operation, the one undo mechanism of every write that spans several
 * calls (alarm writes, cleaning, profile copies and edits): each step that changed something registers
 * how to take it back; on failure the steps are undone newest first, each on its own (a failing undo is
 * logged and the others still run), and the original error is what the caller sees.
 */
export class Undo {
  private readonly steps: Array<{ what: string, run: () => Promise<void> }> = []

  constructor (private readonly log: UndoLog) {}

  push (what: string, run: () => Promise<void>): void {
    this.steps.push({ what, run })
  }

  /** Drops the newest step: what it would undo has been undone on the normal path. */
  pop (): void {
    this.steps.pop()
  }

  async run (): Promise<void> {
    for (const step of this.steps.reverse()) {
      try {
        await step.run()
      } catch (err) {
        this.log.error({ err, step: step.what }, 'could not undo a step of a failed operation')
      }
    }
    this.steps.length = 0
  }

  /** Runs `work`; if it throws, undoes the registered steps and re-throws. */
  async guard<T> (work: () => Promise<T>): Promise<T> {
    try {
      return await work()
    } catch (err) {
      await this.run()
      throw err
    }
  }
}

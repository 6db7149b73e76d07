import type { FastifyInstance } from 'fastify'
import type { AlarmRow } from '../../data/engine.js'
import { engineRules, type AlarmType } from '../../../schemas/alarm-types.js'
import { toTransferAlarm } from '../../../schemas/profiles.js'
import { predict } from '../../../lib/alarm-diff.js'
import type { Undo } from '../../../lib/undo.js'
import { AUTO_DELETE, hasAutoDelete, type Row } from './rows.js'

/**
 * Switches auto-delete on or off for every alarm of a type and registers on `undo` how to put the
 * changed alarms back. Each changed alarm is posted back with only the bit changed: the engine sees a
 * one-field change of an updatable field and updates the row in place (pokemon are addressed by uid,
 * which the engine honours for that type only). Max battles are insert-only upstream, so they are
 * deleted and created again. An alarm whose changed row the engine would match to another of the
 * user's alarms first (alarm-engine.md 1.3: that one differs in one updatable field, or equals it) is
 * left as it is: sent, it would rewrite that other alarm. Says how many alarms changed.
 */
export function createAutoDelete ({ engine, userWriteLock }: Pick<FastifyInstance, 'engine' | 'userWriteLock'>) {
  return (type: AlarmType, userId: string, enabled: boolean, undo: Undo): Promise<number> => userWriteLock.run(userId, async () => {
    const stored = (await engine.tracking.get(type, userId)).sort((a, b) => a.uid - b.uid)
    const rules = engineRules(type, await engine.generation())
    const flipped = (body: Row): Row => {
      const clean = Number(body.clean ?? 0)
      return { ...body, clean: enabled ? clean | AUTO_DELETE : clean & ~AUTO_DELETE }
    }
    // Pokemon are addressed by uid and max battles are written anew: only the other types are matched by content.
    const matchedToItself = (row: AlarmRow): boolean => {
      if (type === 'pokemon' || rules.match === null) return true
      const outcome = predict(rules, flipped(toTransferAlarm(type, row)), stored)
      return outcome.kind === 'update' && outcome.row.uid === row.uid
    }
    const rows = stored.filter((row) => hasAutoDelete(row) !== enabled && matchedToItself(row))
    if (rows.length === 0) return 0
    const originals: Row[] = rows.map((row) => ({ ...toTransferAlarm(type, row), ...(type === 'pokemon' ? { uid: row.uid } : {}) }))
    const changed = originals.map(flipped)
    const create = (bodies: Row[]) => engine.tracking.create(type, userId, bodies, { silent: true })

    if (type !== 'maxbattle') {
      await create(changed)
      undo.push(`put back the ${type} alarms' auto-delete`, async () => { await create(originals) })
      return rows.length
    }
    await engine.tracking.bulkDelete(type, userId, rows.map((row) => row.uid), { silent: true })
    undo.push('restore the deleted max battle alarms', async () => { await create(originals) })
    const result = await create(changed)
    const newUids = result.generation === 'ng' ? result.newUids ?? [] : []
    undo.pop()
    undo.push('put back the max battle alarms\' auto-delete', async () => {
      await engine.tracking.bulkDelete(type, userId, newUids, { silent: true })
      await create(originals)
    })
    return rows.length
  })
}

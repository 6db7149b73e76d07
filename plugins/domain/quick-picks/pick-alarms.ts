import { badRequest, validationDetails } from '../../edge/errors.js'
import { alarmCreateValidator } from '../../edge/validation.js'
import { KIND_OF, type AlarmType } from '../../../schemas/alarm-types.js'

type Row = Record<string, unknown>

/** A pick's alarm type as the engine names it (picks say `monster` for pokemon). */
export const engineType = (type: string): AlarmType => (type === 'monster' ? 'pokemon' : type) as AlarmType

/** The alarms one pick stands for: list values of single-value fields fan out, one alarm per combination. */
function expand (filters: Row): Row[] {
  let rows: Row[] = [{}]
  for (const [field, value] of Object.entries(filters)) {
    const choices = Array.isArray(value) && field !== 'override_areas' ? value : [value]
    rows = rows.flatMap((row) => choices.map((choice) => ({ ...row, [field]: choice })))
    if (rows.length > 2000) throw badRequest('A quick pick may stand for at most 2000 alarms.')
  }
  return rows
}

/**
 * Every alarm of a pick as it will be sent, checked by the validator the alarm routes check a create's
 * body with (each type's create schema); a row that is no valid alarm refuses the whole pick with a 400.
 */
export function pickAlarms (alarmType: string, filters: Row, extra: Row = {}): Row[] {
  const type = engineType(alarmType)
  const kind = KIND_OF[type]
  const rows: Row[] = expand(filters).map((row) => ({ ...kind.createDefaults, ...row, ...extra }))
  const validate = alarmCreateValidator(type)
  for (const row of rows) {
    if (!validate(row)) {
      throw badRequest('The quick pick\'s filters are not a valid alarm.', { details: validationDetails(validate.errors ?? [], '/filters') })
    }
    if (typeof row.grunt_type === 'string') row.grunt_type = row.grunt_type.toLowerCase()
  }
  return rows
}

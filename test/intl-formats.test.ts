import t from 'tap'
import { dateTimeFormat, numberFormat } from '../lib/intl-formats.js'

t.test('a formatter is made once per locale and options, and formats as a new one would', async (t) => {
  const km = numberFormat('de', { minimumFractionDigits: 1, maximumFractionDigits: 1 })
  t.equal(numberFormat('de', { minimumFractionDigits: 1, maximumFractionDigits: 1 }), km, 'the same one again')
  t.not(numberFormat('en', { minimumFractionDigits: 1, maximumFractionDigits: 1 }), km, 'another locale, another formatter')
  t.not(numberFormat('de', { maximumFractionDigits: 0 }), km, 'other options, another formatter')
  t.equal(km.format(1.25), new Intl.NumberFormat('de', { minimumFractionDigits: 1, maximumFractionDigits: 1 }).format(1.25))
  const berlin = dateTimeFormat('en-GB', { timeZone: 'Europe/Berlin', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' })
  t.equal(dateTimeFormat('en-GB', { timeZone: 'Europe/Berlin', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }), berlin)
  t.equal(berlin.format(Date.parse('2026-07-01T10:00:00Z')), '12:00')
})

t.test('a formatter that cannot be made throws every time, and nothing is kept', async (t) => {
  const unknownZone = () => dateTimeFormat('en-GB', { timeZone: 'Mars/Olympus' })
  t.throws(unknownZone, RangeError)
  t.throws(unknownZone, RangeError, 'again: no formatter was kept for it')
})

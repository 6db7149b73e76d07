import { lazy, Suspense, useCallback, useId, useMemo, useState } from 'react'
import { Link } from 'react-router'
import { useTranslation } from 'react-i18next'
import { Card } from '../../components/Card'
import { Page } from '../../components/Page'
import { admin } from '../../api'
import type { InsightPanels } from '../../api/admin'
import { useFormat } from '../../i18n/format'
import { viewAs } from '../../shell/impersonation'
import { Status } from '../../shell/Status'
import { useLoad } from '../../shell/useLoad'
import { usePageTitle } from '../../shell/usePageTitle'
import { GameIcon, type IconRequest } from '../../icons'
import { Chart, type Series } from './Chart'
import { downloadCsv } from './csv'
import './insights.css'

type Cell = string | number | boolean
interface Table { name: string, header: string[], rows: Cell[][] }

/** Days as the service counts them (UTC), written in the reader's language. */
const utcDay = (day: string) => new Date(`${day}T00:00:00Z`)
const DAY_FORMAT: Intl.DateTimeFormatOptions = { day: 'numeric', month: 'short', timeZone: 'UTC' }

/**
 * Community insight for administrators: members, alarms, areas, noise and sign-in methods, each panel a
 * chart first and its numbers behind it (a table and a CSV download). Every panel loads on its own, so
 * one slow or failed figure does not hold up the others; the server keeps each for 10 minutes.
 */
export default function Insights () {
  const { t } = useTranslation()
  usePageTitle(t('insights.nav'))
  return (
    <Page title={t('insights.title')} intro={t('insights.intro')} className='insights-page'>
      <MembersPanel />
      <AlarmsPanel />
      <AreasPanel />
      <NoisePanel />
      <SignInsPanel />
    </Page>
  )
}

/** A panel's frame: heading, how fresh its figures are, and its loading and error states. */
function Panel<P extends keyof InsightPanels> ({ panel, title, children }: { panel: P, title: string, children: (data: InsightPanels[P]) => React.ReactNode }) {
  const { t } = useTranslation()
  const format = useFormat()
  const [state, retry] = useLoad((signal) => admin.insight(panel, signal))
  return (
    <Card className='stack insight-panel' title={title}>
      <Status state={state} retry={retry}>
        {(data) => (
          <>
            <p className='small muted'>{t('insights.computedAt', { time: format.dateTime(new Date(data.computedAt)) })}</p>
            {children(data)}
          </>
        )}
      </Status>
    </Card>
  )
}

/** The numbers behind a chart: a table behind a disclosure, and the same rows as a CSV file. */
function Numbers ({ table }: { table: Table }) {
  const { t } = useTranslation()
  const format = useFormat()
  const cell = (value: Cell) => (typeof value === 'number' ? format.number(value) : typeof value === 'boolean' ? (value ? t('insights.yes') : t('insights.no')) : value)
  return (
    <div className='insight-numbers'>
      <details>
        <summary>{t('insights.showTable')}</summary>
        <div className='insight-table-scroll' tabIndex={0} role='region' aria-label={table.name}>
          <table className='insight-table'>
            <caption className='visually-hidden'>{table.name}</caption>
            <thead><tr>{table.header.map((h) => <th key={h} scope='col'>{h}</th>)}</tr></thead>
            <tbody>
              {table.rows.map((row, i) => (
                <tr key={i}>{row.map((value, j) => (j === 0 ? <th key={j} scope='row'>{cell(value)}</th> : <td key={j}>{cell(value)}</td>))}</tr>
              ))}
            </tbody>
          </table>
        </div>
      </details>
      <button type='button' className='button' onClick={() => { downloadCsv(`${table.name}.csv`, table.header, table.rows) }}>
        {t('insights.download', { name: table.name })}
      </button>
    </div>
  )
}

/** A chart with its numbers, or the empty state when there is nothing to draw. */
function Figure ({ title, kind, labels, series, summary, table }: { title: string, kind: 'line' | 'bar' | 'hbar', labels: string[], series: Series[], summary: string, table: Table }) {
  const { t } = useTranslation()
  const format = useFormat()
  const number = useCallback((value: number) => format.number(value), [format])
  const empty = series.every((s) => s.values.every((v) => v === 0))
  return (
    <div className='insight-figure stack'>
      <h3>{title}</h3>
      {empty
        ? <p className='muted'>{t('insights.empty')}</p>
        : <Chart kind={kind} labels={labels} series={series} summary={summary} format={number} />}
      {table.rows.length > 0 && <Numbers table={table} />}
    </div>
  )
}

function MembersPanel () {
  const { t } = useTranslation()
  const format = useFormat()
  return (
    <Panel panel='members' title={t('insights.members.title')}>
      {(m) => {
        const days = m.signInsPerDay.map((d) => format.dateTime(utcDay(d.day), DAY_FORMAT))
        const busiest = m.signInsPerDay.reduce((best, d) => (d.signIns > best.signIns ? d : best), m.signInsPerDay[0] ?? { day: '', signIns: 0, members: 0 })
        const weeks = m.newPerWeek.map((w) => format.dateTime(utcDay(w.weekStart), DAY_FORMAT))
        const facts: Array<[string, number]> = [
          [t('insights.members.total'), m.total], [t('insights.members.signedIn7d'), m.signedIn7d], [t('insights.members.signedIn30d'), m.signedIn30d],
          [t('insights.members.paused'), m.paused], [t('insights.members.blocked'), m.blocked],
          [t('insights.members.withoutLocation'), m.withoutLocation], [t('insights.members.withoutAreas'), m.withoutAreas]
        ]
        return (
          <>
            <dl className='insight-tiles'>
              {facts.map(([label, value]) => <div key={label} className='insight-tile'><dt>{label}</dt><dd>{format.number(value)}</dd></div>)}
            </dl>
            <Figure
              title={t('insights.members.perDay')}
              kind='line'
              labels={days}
              series={[{ label: t('insights.col.signIns'), values: m.signInsPerDay.map((d) => d.signIns) }, { label: t('insights.col.members'), values: m.signInsPerDay.map((d) => d.members) }]}
              summary={t('insights.members.perDaySummary', {
                total: format.number(m.signInsPerDay.reduce((n, d) => n + d.signIns, 0)),
                day: busiest.day === '' ? '' : format.dateTime(utcDay(busiest.day), DAY_FORMAT),
                most: format.number(busiest.signIns)
              })}
              table={{ name: t('insights.members.perDay'), header: [t('insights.col.day'), t('insights.col.signIns'), t('insights.col.members')], rows: m.signInsPerDay.map((d) => [d.day, d.signIns, d.members]) }}
            />
            <Figure
              title={t('insights.members.newPerWeek')}
              kind='bar'
              labels={weeks}
              series={[{ label: t('insights.col.members'), values: m.newPerWeek.map((w) => w.members) }]}
              summary={t('insights.members.newSummary', { total: format.number(m.newPerWeek.reduce((n, w) => n + w.members, 0)) })}
              table={{ name: t('insights.members.newPerWeek'), header: [t('insights.col.week'), t('insights.col.members')], rows: m.newPerWeek.map((w) => [w.weekStart, w.members]) }}
            />
          </>
        )
      }}
    </Panel>
  )
}

type Tracked = InsightPanels['alarms']['topTracked'][number]
const TRACKED_KINDS = ['pokemon', 'raid', 'quest'] as const

/** The icon of a tracked species, boss or reward (quest rewards by the engine's reward type). */
function trackedIcon (entry: Tracked): IconRequest | null {
  if (entry.type !== 'quest') return { kind: 'pokemon', id: entry.id }
  if (entry.rewardType === 2) return { kind: 'reward', reward: 'item', id: entry.id }
  if (entry.rewardType === 4) return { kind: 'reward', reward: 'candy', id: entry.id }
  if (entry.rewardType === 12) return { kind: 'reward', reward: 'mega_resource', id: entry.id }
  if (entry.rewardType === 7) return { kind: 'pokemon', id: entry.id }
  return null
}

function AlarmsPanel () {
  const { t } = useTranslation()
  const format = useFormat()
  const [kind, setKind] = useState<typeof TRACKED_KINDS[number]>('pokemon')
  const kindId = useId()
  return (
    <Panel panel='alarms' title={t('insights.alarms.title')}>
      {(a) => {
        const types = Object.entries(a.byType).sort((x, y) => y[1] - x[1])
        const typeName = (type: string) => t(`alarms.types.${type}`)
        const range = (b: { from: number, to: number | null }) => (b.to === null ? `${format.number(b.from)}+` : b.from === b.to ? format.number(b.from) : format.numberRange(b.from, b.to))
        const top = a.topTracked.filter((e) => e.type === kind)
        const most = top[0]?.members ?? 0
        const kindName = t(`insights.alarms.kinds.${kind}`)
        return (
          <>
            <Figure
              title={t('insights.alarms.byType')}
              kind='hbar'
              labels={types.map(([type]) => typeName(type))}
              series={[{ label: t('insights.col.alarms'), values: types.map(([, n]) => n) }]}
              summary={t('insights.alarms.byTypeSummary', { total: format.number(types.reduce((n, [, v]) => n + v, 0)), type: types[0] === undefined ? '' : typeName(types[0][0]), most: format.number(types[0]?.[1] ?? 0) })}
              table={{ name: t('insights.alarms.byType'), header: [t('insights.col.type'), t('insights.col.alarms')], rows: types.map(([type, n]) => [typeName(type), n]) }}
            />
            <Figure
              title={t('insights.alarms.histogram')}
              kind='bar'
              labels={a.membersByAlarmCount.map(range)}
              series={[{ label: t('insights.col.members'), values: a.membersByAlarmCount.map((b) => b.members) }]}
              summary={t('insights.alarms.histogramSummary', { none: format.number(a.membersByAlarmCount[0]?.members ?? 0), total: format.number(a.membersByAlarmCount.reduce((n, b) => n + b.members, 0)) })}
              table={{ name: t('insights.alarms.histogram'), header: [t('insights.col.alarms'), t('insights.col.members')], rows: a.membersByAlarmCount.map((b) => [range(b), b.members]) }}
            />
            <Figure
              title={t('insights.alarms.profiles')}
              kind='bar'
              labels={a.membersByProfileCount.map((p) => format.number(p.profiles))}
              series={[{ label: t('insights.col.members'), values: a.membersByProfileCount.map((p) => p.members) }]}
              summary={t('insights.alarms.profilesSummary', { total: format.number(a.membersByProfileCount.reduce((n, p) => n + p.members, 0)) })}
              table={{ name: t('insights.alarms.profiles'), header: [t('insights.col.profiles'), t('insights.col.members')], rows: a.membersByProfileCount.map((p) => [p.profiles, p.members]) }}
            />
            <div className='insight-figure stack'>
              <h3>{t('insights.alarms.top')}</h3>
              <div className='field'>
                <label htmlFor={kindId}>{t('insights.alarms.kind')}</label>
                <select id={kindId} className='input' value={kind} onChange={(e) => { setKind(e.target.value as typeof kind) }}>
                  {TRACKED_KINDS.map((k) => <option key={k} value={k}>{t(`insights.alarms.kinds.${k}`)}</option>)}
                </select>
              </div>
              {top.length === 0
                ? <p className='muted'>{t('insights.empty')}</p>
                : (
                  <ol className='insight-ranking' aria-label={t('insights.alarms.topOf', { kind: kindName })}>
                    {top.map((e) => (
                      <li key={`${e.rewardType ?? ''}:${e.id}`}>
                        <GameIcon icon={trackedIcon(e)} label={e.name} size={32} />
                        <span className='insight-ranking-text'>
                          <span className='insight-ranking-name'>{e.name}</span>
                          <span className='small muted'>{t('insights.alarms.topCounts', { members: format.number(e.members), alarms: format.number(e.alarms) })}</span>
                        </span>
                        <span className='insight-bar' aria-hidden='true'><span style={{ width: `${Math.max(2, (e.members / Math.max(1, most)) * 100)}%` }} /></span>
                      </li>
                    ))}
                  </ol>)}
              {top.length > 0 && (
                <Numbers table={{ name: t('insights.alarms.topOf', { kind: kindName }), header: [t('insights.col.name'), t('insights.col.id'), t('insights.col.members'), t('insights.col.alarms')], rows: top.map((e) => [e.name, e.id, e.members, e.alarms]) }} />
              )}
            </div>
          </>
        )
      }}
    </Panel>
  )
}

const AreaMap = lazy(() => import('./AreaMap'))

/** Areas drawn as bars: the 20 with the most members (every area is in the table). */
const AREA_BARS = 20

function AreasPanel () {
  const { t } = useTranslation()
  const format = useFormat()
  return (
    <Panel panel='areas' title={t('insights.areas.title')}>
      {(a) => {
        const shown = a.areas.slice(0, AREA_BARS)
        const name = (area: { name: string, known: boolean }) => (area.known ? area.name : t('insights.areas.unknown', { name: area.name }))
        return (
          <>
            <p>
              {t('insights.areas.pending', { shown: format.number(a.pendingFences) })}
              {a.oldestPendingSince !== null && <> {t('insights.areas.oldest', { time: format.dateTime(new Date(a.oldestPendingSince)) })}</>}
              {a.pendingFences > 0 && <> <Link to='/admin/geofences'>{t('insights.areas.review')}</Link></>}
            </p>
            <Figure
              title={t('insights.areas.chart')}
              kind='hbar'
              labels={shown.map(name)}
              series={[{ label: t('insights.col.members'), values: shown.map((x) => x.members) }]}
              summary={t('insights.areas.summary', { count: format.number(a.areas.length), name: shown[0]?.name ?? '', most: format.number(shown[0]?.members ?? 0) })}
              table={{ name: t('insights.areas.chart'), header: [t('insights.col.area'), t('insights.col.members'), t('insights.col.known')], rows: a.areas.map((x) => [x.name, x.members, x.known]) }}
            />
            <Suspense fallback={null}><AreaMap areas={a.areas} /></Suspense>
          </>
        )
      }}
    </Panel>
  )
}

/** The loudest members drawn as bars (every measured member is in the table). */
const NOISE_BARS = 20

function NoisePanel () {
  const { t } = useTranslation()
  const format = useFormat()
  return (
    <Panel panel='noise' title={t('insights.noise.title')}>
      {(n) => {
        const intro = t('insights.noise.intro', { hours: format.number(n.windowHours), alerts: format.number(n.limit.alerts), seconds: format.number(n.limit.seconds), perHour: format.number(n.limit.perHour) })
        if (n.basis === 'unavailable') return <><p>{intro}</p><p className='notice'>{t('insights.noise.unavailable')}</p></>
        const shown = n.members.slice(0, NOISE_BARS)
        const over = n.members.filter((m) => m.overLimit)
        return (
          <>
            <p>{intro}</p>
            <p className='small muted'>{t('insights.noise.measured', { measured: format.number(n.measured), failed: format.number(n.failed) })}</p>
            <NoiseFigure shown={shown} over={over.length} />
            {over.length > 0 && (
              <div className='stack'>
                <h3>{t('insights.noise.over')}</h3>
                <ul className='insight-over'>
                  {over.map((m) => (
                    <li key={m.userId}>
                      <span><strong>{m.name}</strong> <span className='muted'>{t('insights.noise.perHour', { value: format.number(m.recentPerHour) })}</span></span>
                      <span className='row'>
                        <Link className='button' to={`/admin/users/edit?id=${encodeURIComponent(m.userId)}`}>{t('insights.noise.open', { name: m.name })}</Link>
                        <button type='button' className='button' onClick={() => { void viewAs(m.userId) }}>{t('insights.noise.viewAs', { name: m.name })}</button>
                      </span>
                    </li>
                  ))}
                </ul>
              </div>
            )}
            {n.members.length > 0 && (
              <Numbers table={{
                name: t('insights.noise.title'),
                header: [t('insights.col.name'), t('insights.col.id'), t('insights.col.perHour'), t('insights.noise.over')],
                rows: n.members.map((m) => [m.name, m.userId, m.recentPerHour, m.overLimit])
              }}
              />
            )}
          </>
        )
      }}
    </Panel>
  )
}

function NoiseFigure ({ shown, over }: { shown: InsightPanels['noise']['members'], over: number }) {
  const { t } = useTranslation()
  const format = useFormat()
  const number = useCallback((value: number) => format.number(value), [format])
  const labels = useMemo(() => shown.map((m) => m.name), [shown])
  const series = useMemo(() => [{ label: t('insights.col.perHour'), values: shown.map((m) => m.recentPerHour), marked: shown.map((m) => m.overLimit) }], [shown, t])
  if (shown.length === 0) return <p className='muted'>{t('insights.empty')}</p>
  return (
    <div className='insight-figure stack'>
      <h3>{t('insights.noise.chart')}</h3>
      <Chart kind='hbar' labels={labels} series={series} format={number} summary={t('insights.noise.summary', { count: format.number(shown.length), over: format.number(over) })} />
      <p className='small muted'><span className='insight-key insight-key-over' aria-hidden='true' /> {t('insights.noise.over')}</p>
    </div>
  )
}

function SignInsPanel () {
  const { t } = useTranslation()
  const format = useFormat()
  return (
    <Panel panel='sign-ins' title={t('insights.signIns.title')}>
      {(s) => {
        const method = (m: string) => t(`insights.signIns.methods.${m}`)
        const d = s.devices
        // Browser families are product names, the same in every language; only "other" is translated.
        const browser = (b: string) => (b === 'other' ? t('insights.signIns.devices.other') : b)
        const push = [t('insights.signIns.devices.with'), t('insights.signIns.devices.without')]
        return (
          <>
            <Figure
              title={t('insights.signIns.chart', { days: format.number(s.days) })}
              kind='hbar'
              labels={s.byMethod.map((m) => method(m.method))}
              series={[{ label: t('insights.col.signIns'), values: s.byMethod.map((m) => m.signIns) }, { label: t('insights.col.members'), values: s.byMethod.map((m) => m.members) }]}
              summary={t('insights.signIns.summary', { days: format.number(s.days), list: s.byMethod.map((m) => `${method(m.method)} ${format.number(m.signIns)}`).join(', ') })}
              table={{ name: t('insights.signIns.title'), header: [t('insights.col.method'), t('insights.col.signIns'), t('insights.col.members')], rows: s.byMethod.map((m) => [method(m.method), m.signIns, m.members]) }}
            />
            <Figure
              title={t('insights.signIns.devices.chart')}
              kind='hbar'
              labels={push}
              series={[{ label: t('insights.signIns.devices.members'), values: [d.withPush, d.withoutPush] }]}
              summary={t('insights.signIns.devices.summary', { with: format.number(d.withPush), without: format.number(d.withoutPush), members: format.number(d.members) })}
              table={{ name: t('insights.signIns.devices.chart'), header: [t('insights.signIns.devices.push'), t('insights.signIns.devices.members')], rows: [[push[0] ?? '', d.withPush], [push[1] ?? '', d.withoutPush]] }}
            />
            {d.byBrowser.length > 0 && (
              <Figure
                title={t('insights.signIns.devices.browsersChart')}
                kind='hbar'
                labels={d.byBrowser.map((b) => browser(b.browser))}
                series={[{ label: t('insights.signIns.devices.members'), values: d.byBrowser.map((b) => b.members) }]}
                summary={t('insights.signIns.devices.browsersSummary', { list: d.byBrowser.map((b) => `${browser(b.browser)} ${format.number(b.members)}`).join(', ') })}
                table={{ name: t('insights.signIns.devices.browsersChart'), header: [t('insights.signIns.devices.browser'), t('insights.signIns.devices.members')], rows: d.byBrowser.map((b) => [browser(b.browser), b.members]) }}
              />
            )}
          </>
        )
      }}
    </Panel>
  )
}

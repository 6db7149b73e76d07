import { useId, useState, type ReactNode } from 'react'
import { useTranslation } from 'react-i18next'
import { Card } from '../../components/Card'
import { Page } from '../../components/Page'
import type { OidcConfig } from '../../../../schemas/sign-in'
import { admin, auth, settings as settingsApi } from '../../api'
import { useSubmit } from '../../forms/useSubmit'
import { ConfirmDialog } from '../../components/Dialog'
import { Facts } from '../../components/Facts'
import { SettingSwitch } from '../../components/SettingSwitch'
import { useFormat } from '../../i18n/format'
import { Status } from '../../shell/Status'
import { useLoad } from '../../shell/useLoad'
import { usePageTitle } from '../../shell/usePageTitle'
import type { Providers } from '../../types'
import { isNotFalse, isTrue, loadSettings, saveSetting, type SettingValues } from '../../setting-values'

interface PageData {
  settings: SettingValues
  oidc: OidcConfig
  providers: Providers
}

async function loadPage (signal: AbortSignal): Promise<PageData> {
  const [settings, oidc, providers] = await Promise.all([
    loadSettings(signal),
    settingsApi.oidcConfig(signal),
    auth.providers(signal)
  ])
  return { settings, oidc, providers }
}

/** Admin: how people sign in and ending a user's sessions (the alarm types are on SiteSettings). */
export default function SignInSettings () {
  const { t } = useTranslation()
  usePageTitle(t('nav.signInSettings'))
  const [state, retry, replace] = useLoad(loadPage)

  return (
    <Page title={t('nav.signInSettings')}>
      <Status state={state} retry={retry}>
        {(data) => {
          const set = async (key: string, value: string, confirm = false): Promise<void> => {
            const row = await saveSetting(key, value, confirm)
            const settings = new Map(data.settings)
            settings.set(row.key, row.value)
            replace({ ...data, settings })
          }
          return (
            <>
              <SignInMode data={data} set={set} />
              <RoleGating settings={data.settings} set={set} />
              <OidcCard oidc={data.oidc} />
              <ChatPlatformCards data={data} set={set} />
              <SessionsPanel />
            </>
          )
        }}
      </Status>
    </Page>
  )
}

type Save = (key: string, value: string, confirm?: boolean) => Promise<void>

function SignInMode ({ data, set }: { data: PageData, set: Save }) {
  const { t } = useTranslation()
  const sso = isTrue(data.settings, 'enable_oidc')
  const [target, setTarget] = useState<'sso' | 'local' | null>(null)
  // A refusal (for example SSO without a complete provider configuration) stays in the dialog: the API says why.
  const { busy, error, setError, run } = useSubmit()

  const close = (): void => {
    setTarget(null)
    setError(null)
  }
  const confirm = async (): Promise<void> => {
    if (target !== null && await run(() => set('enable_oidc', target === 'sso' ? 'true' : 'false', target === 'sso'))) close()
  }

  return (
    <Card title={t('signIn.mode.title')}>
      <p>{sso ? t('signIn.mode.ssoNow') : t('signIn.mode.localNow')}</p>
      {data.oidc.forceLocal && <p className='notice notice-warning'>{t('signIn.mode.forceLocal')}</p>}
      <div className='row'>
        <button type='button' className='button button-primary' onClick={() => { setTarget(sso ? 'local' : 'sso') }}>
          {sso ? t('signIn.mode.toLocal') : t('signIn.mode.toSso')}
        </button>
      </div>
      <SettingSwitch
        label={t('signIn.mode.singleLogout')}
        help={data.oidc.endSessionUrl === '' ? t('signIn.mode.singleLogoutUnavailable') : t('signIn.mode.singleLogoutHelp')}
        checked={isNotFalse(data.settings, 'enable_oidc_slo')}
        disabled={data.oidc.endSessionUrl === ''}
        onChange={(on) => set('enable_oidc_slo', on ? 'true' : 'false')}
      />
      <ConfirmDialog
        open={target !== null}
        title={target === 'sso' ? t('signIn.mode.confirmSsoTitle') : t('signIn.mode.confirmLocalTitle')}
        confirmLabel={target === 'sso' ? t('signIn.mode.toSso') : t('signIn.mode.toLocal')}
        busy={busy}
        error={error}
        onConfirm={() => { void confirm() }}
        onCancel={close}
      >
        <p>{target === 'sso' ? t('signIn.mode.confirmSso', { provider: data.oidc.providerName || t('login.sso') }) : t('signIn.mode.confirmLocal')}</p>
      </ConfirmDialog>
    </Card>
  )
}

function RoleGating ({ settings, set }: { settings: SettingValues, set: Save }) {
  const { t } = useTranslation()
  const id = useId()
  const [roles, setRoles] = useState(settings.get('allowed_role_ids') ?? '')
  const [saved, setSaved] = useState(false)
  const { busy, error, run } = useSubmit()
  const save = () => run(async () => {
    setSaved(false)
    await set('allowed_role_ids', roles.split(/[\s,]+/).filter((r) => r !== '').join(','))
    setSaved(true)
  })

  return (
    <Card title={t('signIn.roles.title')}>
      <SettingSwitch
        label={t('signIn.roles.enable')}
        help={t('signIn.roles.help')}
        checked={isTrue(settings, 'enable_roles')}
        onChange={(on) => set('enable_roles', on ? 'true' : 'false')}
      />
      <form className='stack' onSubmit={(e) => { e.preventDefault(); void save() }}>
        <div className='field'>
          <label htmlFor={id}>{t('signIn.roles.allowed')}</label>
          <input id={id} className='input' inputMode='numeric' value={roles} onChange={(e) => { setRoles(e.target.value) }} aria-describedby={`${id}-help`} />
          <span id={`${id}-help`} className='help'>{t('signIn.roles.allowedHelp')}</span>
        </div>
        <button type='submit' className='button' disabled={busy}>{t('signIn.save')}</button>
        {error !== null && <p className='notice notice-error' role='alert'>{error}</p>}
        {saved && <p className='muted' role='status'>{t('status.saved')}</p>}
      </form>
    </Card>
  )
}

function OidcCard ({ oidc }: { oidc: OidcConfig }) {
  const { t } = useTranslation()
  const format = useFormat()
  const yes = (value: boolean): string => value ? t('signIn.yes') : t('signIn.no')
  return (
    <Card
      title={t('signIn.oidc.title')} help={t('signIn.readOnly')}
      aside={<span className='muted small'>{oidc.configured ? t('signIn.configured') : t('signIn.notConfigured')}</span>}
    >
      <Facts rows={[
        [t('signIn.oidc.provider'), oidc.providerName],
        [t('signIn.oidc.issuer'), oidc.issuer],
        [t('signIn.oidc.authorization'), oidc.authorizationUrl],
        [t('signIn.oidc.token'), oidc.tokenUrl],
        [t('signIn.oidc.userinfo'), oidc.userInfoUrl],
        [t('signIn.oidc.endSession'), oidc.endSessionUrl],
        [t('signIn.oidc.revocation'), oidc.revocationUrl],
        [t('signIn.oidc.clientId'), oidc.clientId],
        [t('signIn.oidc.clientSecret'), oidc.clientSecret],
        [t('signIn.oidc.scopes'), oidc.requestedScopes],
        [t('signIn.oidc.identityClaim'), oidc.identityClaim],
        [t('signIn.oidc.pkce'), yes(oidc.usePkce)],
        [t('signIn.oidc.authMethod'), oidc.tokenEndpointAuthMethod],
        [t('signIn.oidc.refresh'), oidc.useRefreshTokens
          ? t('signIn.oidc.refreshOn', { minutes: format.number(oidc.accessTokenMinutes), days: format.number(oidc.refreshTokenLifetimeDays) })
          : t('signIn.no')],
        [t('signIn.oidc.forceLocal'), yes(oidc.forceLocal)]
      ]}
      />
    </Card>
  )
}

/** One way of signing in: configured or not, and the admin's switch that offers it to members. */
function MethodCard ({ title, configured, settingKey, enableLabel, settings, set, children }: {
  title: string
  configured: boolean
  settingKey: string
  enableLabel: string
  settings: SettingValues
  set: Save
  children?: ReactNode
}) {
  const { t } = useTranslation()
  return (
    <Card title={title} aside={<span className='muted small'>{configured ? t('signIn.configured') : t('signIn.notConfigured')}</span>}>
      {children}
      <SettingSwitch
        label={enableLabel}
        help={t('signIn.adminsAlways')}
        checked={isNotFalse(settings, settingKey)}
        disabled={!configured}
        onChange={(on) => set(settingKey, on ? 'true' : 'false')}
      />
    </Card>
  )
}

function ChatPlatformCards ({ data, set }: { data: PageData, set: Save }) {
  const { t } = useTranslation()
  const { discord, telegram } = data.providers
  return (
    <>
      <MethodCard title={t('signIn.discord.title')} configured={discord.configured} settingKey='enable_discord' enableLabel={t('signIn.discord.enable')} settings={data.settings} set={set} />
      <MethodCard title={t('signIn.telegram.title')} configured={telegram.configured} settingKey='enable_telegram' enableLabel={t('signIn.telegram.enable')} settings={data.settings} set={set}>
        <Facts rows={[[t('signIn.telegram.bot'), telegram.botUsername === '' ? '' : `@${telegram.botUsername}`]]} />
      </MethodCard>
    </>
  )
}

function SessionsPanel () {
  const { t } = useTranslation()
  const format = useFormat()
  const id = useId()
  const [userId, setUserId] = useState('')
  const [done, setDone] = useState<string | null>(null)
  const { busy, error, run } = useSubmit()
  const revoke = () => run(async () => {
    setDone(null)
    const { revoked } = await admin.revokeSessions(userId.trim())
    setDone(t('signIn.sessions.revoked', { count: revoked, formatted: format.number(revoked) }))
  })

  return (
    <Card title={t('signIn.sessions.title')} help={t('signIn.sessions.help')}>
      <form className='stack' onSubmit={(e) => { e.preventDefault(); void revoke() }}>
        <div className='field'>
          <label htmlFor={id}>{t('signIn.sessions.userId')}</label>
          <input id={id} className='input' required maxLength={255} value={userId} onChange={(e) => { setUserId(e.target.value) }} />
        </div>
        <button type='submit' className='button button-danger' disabled={busy || userId.trim() === ''}>{t('signIn.sessions.revoke')}</button>
        <div aria-live='polite'>
          {error !== null && <p className='notice notice-error'>{error}</p>}
          {done !== null && <p className='notice'>{done}</p>}
        </div>
      </form>
    </Card>
  )
}

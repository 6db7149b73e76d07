import { spawn } from 'node:child_process'
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir, userInfo } from 'node:os'
import { join } from 'node:path'
import { ROOT_DIR, type Owner } from './built-server.js'
import type { HeldPort } from './ports.js'

/**
 * A real nginx (Debian's /usr/sbin/nginx) as a child process, with the project's deploy/nginx/alarm-web.conf
 * adapted to the test: the instances it balances, a port on 127.0.0.1, its files in a temporary folder,
 * and an `X-Upstream` answer header naming the instance that answered.
 */

export const NGINX = '/usr/sbin/nginx'

/** The deploy configuration with each replacement applied exactly once (so a changed file fails loudly). */
export function adaptConfig (text: string, replacements: Array<[RegExp, string]>): string {
  let out = text
  for (const [pattern, replacement] of replacements) {
    const hits = out.match(new RegExp(pattern.source, pattern.flags.includes('g') ? pattern.flags : `${pattern.flags}g`))?.length ?? 0
    if (hits !== 1) throw new Error(`deploy/nginx/alarm-web.conf: expected one match of ${String(pattern)}, found ${hits}`)
    out = out.replace(pattern, replacement)
  }
  return out
}

/**
 * `held` is released just before nginx starts: held from before the instances started, the port cannot have
 * been given to one of them (a freed port can, and the instance then answers in nginx's place).
 */
export async function startNginx (t: Owner, upstreams: string[], held: HeldPort): Promise<{ url: string, errorLog: () => Promise<string> }> {
  const { port } = held
  const dir = await mkdtemp(join(tmpdir(), 'aw-nginx-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  await mkdir(join(dir, 'cache'))
  const site = adaptConfig(await readFile(join(ROOT_DIR, 'deploy', 'nginx', 'alarm-web.conf'), 'utf8'), [
    [/^ {4}server alarm-web-scaled:8080 (.*);$/m, upstreams.map((u) => `    server ${u} $1;`).join('\n')],
    [/^ {4}listen 80;$/m, `    listen 127.0.0.1:${port};`],
    [/proxy_cache_path \/var\/cache\/nginx\/alarm-web /, `proxy_cache_path ${join(dir, 'cache')} `],
    [/^ {4}location \/ \{$/m, '    location / {\n        add_header X-Upstream $upstream_addr always;']
  ])
  await writeFile(join(dir, 'alarm-web.conf'), site)
  const temp = (name: string) => join(dir, name)
  // `user`: started by root, nginx would run its worker as nobody, who may not write the temporary folder
  // (ignored with a warning when started by anyone else). One worker: strict round robin.
  await writeFile(join(dir, 'nginx.conf'), `
user ${userInfo().username};
worker_processes 1;
daemon off;
pid ${temp('nginx.pid')};
error_log ${temp('error.log')} warn;
events { worker_connections 512; }
http {
  access_log off;
  client_body_temp_path ${temp('client_body')};
  proxy_temp_path ${temp('proxy')};
  fastcgi_temp_path ${temp('fastcgi')};
  uwsgi_temp_path ${temp('uwsgi')};
  scgi_temp_path ${temp('scgi')};
  include ${join(dir, 'alarm-web.conf')};
}
`)
  // -e: the error log before the configuration is read (the default is a root-owned path).
  await held.release()
  const child = spawn(NGINX, ['-p', dir, '-c', join(dir, 'nginx.conf'), '-e', temp('error.log')], { stdio: ['ignore', 'ignore', 'pipe'] })
  let stderr = ''
  child.stderr.on('data', (chunk: Buffer) => { stderr += chunk.toString('utf8') })
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()))
  t.teardown(async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGQUIT')
    await exited
  })
  const url = `http://127.0.0.1:${port}`
  const end = Date.now() + 10_000
  for (;;) {
    if (child.exitCode !== null) throw new Error(`nginx exited: ${stderr} ${await readFile(temp('error.log'), 'utf8').catch(() => '')}`)
    const answer = await fetch(`${url}/api/version`).catch(() => null)
    // Only nginx names the instance: an answer without it came from something else on the port.
    if (answer?.ok === true && answer.headers.get('x-upstream') === null) throw new Error(`port ${port} answered without nginx: ${stderr}`)
    if (answer?.ok === true) break
    if (Date.now() > end) throw new Error(`nginx did not answer: ${stderr}`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  return { url, errorLog: () => readFile(temp('error.log'), 'utf8').catch(() => '') }
}

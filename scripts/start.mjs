#!/usr/bin/env node
/**
 * `npm start`: builds the server and the client when either is missing or older than its sources
 * (scripts/builds.mjs), then runs `node dist/server.js` in the project folder (where `.env` is read
 * from), passing signals on so the server can close gracefully, and exiting with its code.
 */
import { join } from 'node:path'
import { buildDue, root, run } from './builds.mjs'

const built = await buildDue(['server', 'client'])
if (built !== 0) process.exit(built)
process.exitCode = await run(process.execPath, [join(root, 'dist', 'server.js'), ...process.argv.slice(2)])

// A real atproto network for socialgen's Bluesky tests: PLC + PDS + AppView
// (@atproto/dev-env's TestNetwork), started once per pytest session by
// tests/bluesky_support.py.
//
// Prints one JSON line on stdout when it is up:
//   {"ready": true, "pds": URL, "appview": URL, "plc": URL, "appviewDid": DID, "startSeconds": N}
// then reads commands from stdin, one JSON object a line, and answers each with one
// JSON line carrying the same "id":
//   {"id": 1, "cmd": "processAll"}   the AppView indexes everything the PDS has
// It shuts down (and drops its PostgreSQL schemas) when stdin closes or on SIGTERM.
//
// Settings (environment): BSKY_DB_POSTGRES_URL (default a database `socialgen_bsky`
// on 127.0.0.1, created when missing), REDIS_HOST (default 127.0.0.1:6379).
import fs from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import readline from 'node:readline'

import { TestNetwork } from '@atproto/dev-env'
import pg from 'pg'

const started = Date.now()
const dbUrl =
  process.env.BSKY_DB_POSTGRES_URL ??
  'postgresql://postgres@127.0.0.1:5432/socialgen_bsky'
process.env.REDIS_HOST ??= '127.0.0.1:6379'
// One schema set per process, so two test sessions on one machine never share an
// AppView database; dropped again on shutdown.
// (bsync accepts letters and underscores only.)
const schema =
  'sg_' + Array.from({ length: 12 }, () => String.fromCharCode(97 + Math.floor(Math.random() * 26))).join('')
const schemas = [`appview_${schema}`, `bsync_${schema}`, `ozone_${schema}`]

// Both PDSes of the network keep their SQLite files and blobs under os.tmpdir(),
// each in its own random folder: point it at one folder removed on shutdown.
const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'socialgen-bsky-'))
process.env.TMPDIR = dataDir

function say(obj) {
  process.stdout.write(JSON.stringify(obj) + '\n')
}

async function ensureDatabase(url) {
  const target = new URL(url)
  const name = decodeURIComponent(target.pathname.slice(1))
  const admin = new URL(url)
  admin.pathname = '/postgres'
  const client = new pg.Client({ connectionString: admin.toString() })
  await client.connect()
  try {
    const found = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name])
    if (found.rowCount === 0) {
      try {
        await client.query(`CREATE DATABASE "${name.replaceAll('"', '""')}"`)
      } catch (err) {
        // Two sessions starting at once: the other one created it.
        if (err.code !== '42P04') throw err
      }
    }
  } finally {
    await client.end()
  }
}

async function dropSchemas() {
  const client = new pg.Client({ connectionString: dbUrl })
  await client.connect()
  try {
    for (const name of schemas) {
      await client.query(`DROP SCHEMA IF EXISTS "${name}" CASCADE`)
    }
  } finally {
    await client.end()
  }
}

let network
try {
  await ensureDatabase(dbUrl)
  network = await TestNetwork.create({ dbPostgresUrl: dbUrl, dbPostgresSchema: schema })
} catch (err) {
  process.stderr.write(`the network did not start: ${err?.stack ?? err}\n`)
  await dropSchemas().catch(() => {})
  await fs.rm(dataDir, { recursive: true, force: true })
  process.exit(1)
}

let closing = null
async function shutdown(code) {
  if (closing) return closing
  closing = (async () => {
    try {
      await network.close()
    } catch (err) {
      process.stderr.write(`close failed: ${err}\n`)
    }
    try {
      await dropSchemas()
    } catch (err) {
      process.stderr.write(`dropping schemas failed: ${err}\n`)
    }
    await fs.rm(dataDir, { recursive: true, force: true })
    process.exit(code)
  })()
  return closing
}
process.on('SIGTERM', () => void shutdown(0))
process.on('SIGINT', () => void shutdown(0))

const commands = {
  async processAll() {
    await network.processAll()
    return {}
  },
}

say({
  ready: true,
  pds: network.pds.url,
  appview: network.bsky.url,
  plc: network.plc.url,
  appviewDid: network.bsky.ctx.cfg.serverDid,
  startSeconds: (Date.now() - started) / 1000,
})

const lines = readline.createInterface({ input: process.stdin })
lines.on('line', async (line) => {
  if (!line.trim()) return
  let request
  try {
    request = JSON.parse(line)
  } catch {
    say({ error: 'not JSON' })
    return
  }
  const run = commands[request.cmd]
  if (!run) {
    say({ id: request.id, error: `unknown command ${request.cmd}` })
    return
  }
  try {
    say({ id: request.id, ok: true, ...(await run(request)) })
  } catch (err) {
    say({ id: request.id, error: String(err) })
  }
})
lines.on('close', () => void shutdown(0))

/**
 * Paired browsers, the one place that decides "is this request paired": a random token in the
 * browser, only its hash on disk, codes of 8 characters for 5 minutes (the first shown only on DSH's
 * terminal, or a one-time pairing window while every chat is quiet), 5 wrong codes void them all; a
 * broken file fails closed. `requirePaired` for what always needs the person, `person(req)` for what
 * the services decide. Deliberately not a login, and not the judge of what raises.
 */
import { createHash, randomBytes, randomInt, timingSafeEqual } from 'node:crypto'
import type { IncomingMessage } from 'node:http'
import { HttpError } from './http.ts'
import { LABEL_MAX, MAX_DEVICES, readPairingFile, writePairingFile, type PairedDevice, type PairingFile } from './pairing-file.ts'
import { terminal } from '../dsh/warn.ts'
import { personOverHttp, type Requester } from '../core/caller.ts'

export const PAIRING_HEADER = 'x-bot-team-pairing'
export const CODE_TTL_MS = 5 * 60_000
export const CODE_LENGTH = 8
export const MAX_FAILED_ATTEMPTS = 5
export const MAX_LIVE_CODES = 3
/** How long a pairing window stays open for the browser that opened it. */
export const WINDOW_TTL_MS = 60_000
/** `lastUsedAt` is rewritten at most this often per device. */
const LAST_USED_EVERY_MS = 60_000
/** No 0/O, 1/I: a code is read off a screen and typed. */
const CODE_ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789'
const TOKEN_RE = /^[A-Za-z0-9_-]{43}$/

export const NOT_PAIRED_MESSAGE =
  "This change raises a Bot's authority, so it is accepted only from the paired team page: open /bot-team in your paired browser and make the change there. Requests from a shell, a script or an unpaired browser are refused."

export type PairCheck = { paired: true; device: PairedDevice } | { paired: false; reason: string }

/** What the API shows of a device: never its token hash. */
export interface DeviceView {
  id: string
  label: string
  createdAt: string
  lastUsedAt: string
}

export interface PairingStatus {
  /** This request carries a valid token. */
  paired: boolean
  deviceId?: string
  devices: DeviceView[]
  /** How the next browser pairs: by a code printed on DSH's terminal, or shown in a paired browser. */
  nextPairing: 'terminal' | 'paired-browser'
  /** The first browser may pair in a pairing window instead (no terminal needed). */
  window?: boolean
  problem?: string
}

export type CodeGrant = { code: string; expiresAt: string } | { shownIn: 'terminal'; expiresAt: string }

/**
 * What a pairing window needs of DSH: whether every chat is quiet (no turn running, nothing
 * queued, no background job — a Bot's shell runs only inside one), holding Bot-started work while
 * the window is open, and a call when any turn starts (which closes it).
 */
export interface QuietPort {
  /** Undefined when every DSH chat is quiet; else why not ("Main is working"). */
  busy(): string | undefined
  /** Hold all Bot-started work; returns the release. */
  hold(): () => void
  /** Call `listener` when any DSH chat starts a turn; returns the unsubscribe. */
  onTurnStart(listener: () => void): () => void
}

export interface PairingOptions {
  /** Absolute path of `bot/pairing.json`. */
  file: string
  /** Shows a line to the person at DSH's terminal (stderr by default). */
  announce?: (line: string) => void
  now?: () => number
  /** Without it no pairing window opens (a host without DSH's agents). */
  quiet?: QuietPort
}

interface OpenWindow {
  id: string
  expiresAt: number
  close: () => void
}

interface LiveCode {
  expiresAt: number
  /** `terminal`, or the id of the paired device that showed it. */
  by: string
}

export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex')
}

/** A short name for a device from its User-Agent ("Chrome on Linux", "curl"). */
export function deviceLabel(userAgent: string | undefined): string {
  const ua = userAgent ?? ''
  // First match in this order: a Chrome UA also says Safari, an Edge UA also says Chrome.
  const browsers: [RegExp, string][] = [
    [/\bEdg\//, 'Edge'],
    [/\bFirefox\//, 'Firefox'],
    [/\bHeadlessChrome\//, 'Headless Chrome'],
    [/\bChromium\//, 'Chromium'],
    [/\bChrome\//, 'Chrome'],
    [/\bSafari\//, 'Safari'],
    [/^curl\//, 'curl'],
    [/^Wget\//, 'Wget'],
    [/^node\b/, 'node'],
    [/^python-requests\//, 'python-requests'],
  ]
  const name = browsers.find(([re]) => re.test(ua))?.[1]
  const os = ['Windows', 'Android', 'iPhone', 'iPad', 'Mac OS X', 'CrOS', 'Linux'].find((o) => ua.includes(o))
  const label = name ? (os ? `${name} on ${os === 'Mac OS X' ? 'macOS' : os}` : name) : ua.replace(/[^\x20-\x7e]/g, '').trim() || 'unknown client'
  return label.slice(0, LABEL_MAX)
}

function view(d: PairedDevice): DeviceView {
  return { id: d.id, label: d.label, createdAt: d.createdAt, lastUsedAt: d.lastUsedAt }
}

function sameHash(a: string, b: string): boolean {
  return a.length === b.length && timingSafeEqual(Buffer.from(a, 'hex'), Buffer.from(b, 'hex'))
}

function sameText(a: string, b: string): boolean {
  const x = Buffer.from(a)
  const y = Buffer.from(b)
  return x.length === y.length && timingSafeEqual(x, y)
}

function tokenOf(req: Pick<IncomingMessage, 'headers'>): string | undefined {
  const raw = req.headers[PAIRING_HEADER]
  const value = Array.isArray(raw) ? raw[0] : raw
  return value !== undefined && TOKEN_RE.test(value) ? value : undefined
}

/** The form a person types a code in: case and separators do not matter. */
export function normaliseCode(raw: string): string {
  return raw.toUpperCase().replace(/[\s-]/g, '')
}

function formatCode(code: string): string {
  return `${code.slice(0, 4)}-${code.slice(4)}`
}

export class Pairing {
  private readonly file: string
  private readonly announce: (line: string) => void
  private readonly now: () => number
  private readonly codes = new Map<string, LiveCode>()
  private failures = 0
  private queue: Promise<unknown> = Promise.resolve()
  private readonly quiet: QuietPort | undefined
  private window: OpenWindow | undefined

  constructor(options: PairingOptions) {
    this.file = options.file
    this.announce = options.announce ?? terminal
    this.now = options.now ?? Date.now
    this.quiet = options.quiet
  }

  /** Read-modify-write steps run one at a time. */
  private serial<T>(task: () => Promise<T>): Promise<T> {
    const run = this.queue.then(task, task)
    this.queue = run.catch(() => {})
    return run
  }

  private async read(): Promise<PairingFile> {
    const read = await readPairingFile(this.file)
    if (read.kind === 'broken') throw new HttpError(409, `${read.problem}. Delete it (or fix it) and pair the browser again.`)
    return read.file
  }

  private iso(ms = this.now()): string {
    return new Date(ms).toISOString()
  }

  /** Is this request paired? The only decider; every authority-raising route asks through `requirePaired`. */
  async check(req: Pick<IncomingMessage, 'headers'>): Promise<PairCheck> {
    const token = tokenOf(req)
    if (!token) return { paired: false, reason: 'no pairing token' }
    const read = await readPairingFile(this.file)
    if (read.kind === 'broken') return { paired: false, reason: read.problem }
    const hash = hashToken(token)
    const device = read.file.devices.find((d) => sameHash(d.tokenHash, hash))
    if (!device) return { paired: false, reason: 'unknown pairing token' }
    if (this.now() - Date.parse(device.lastUsedAt) >= LAST_USED_EVERY_MS) await this.touch(device.id).catch(() => {})
    return { paired: true, device }
  }

  /**
   * The person behind this request, for a service to decide against: paired or not. Every route
   * whose change depends on the team as it is (a raise of this Bot's preset, a new admin of that
   * group, a loosened cap) passes this and lets the service decide inside its save.
   */
  async person(req: Pick<IncomingMessage, 'headers'>): Promise<Requester> {
    return personOverHttp((await this.check(req)).paired)
  }

  /** Throw a 403 that tells the person to use the paired team page, unless the request is paired. */
  async requirePaired(req: Pick<IncomingMessage, 'headers'>): Promise<PairedDevice> {
    const verdict = await this.check(req)
    if (!verdict.paired) throw new HttpError(403, NOT_PAIRED_MESSAGE)
    return verdict.device
  }

  private touch(id: string): Promise<void> {
    return this.serial(async () => {
      const file = await this.read()
      const device = file.devices.find((d) => d.id === id)
      if (!device) return
      device.lastUsedAt = this.iso()
      await writePairingFile(this.file, file)
    })
  }

  async status(req: Pick<IncomingMessage, 'headers'>): Promise<PairingStatus> {
    const verdict = await this.check(req)
    const read = await readPairingFile(this.file)
    const devices = read.kind === 'ok' ? read.file.devices : []
    return {
      paired: verdict.paired,
      ...(verdict.paired ? { deviceId: verdict.device.id } : {}),
      devices: devices.map(view),
      nextPairing: devices.length ? 'paired-browser' : 'terminal',
      ...(!devices.length && read.kind === 'ok' && this.quiet ? { window: true } : {}),
      ...(read.kind === 'broken' ? { problem: `${read.problem}. Delete it (or fix it) and pair the browser again.` } : {}),
    }
  }

  private liveCodes(): Map<string, LiveCode> {
    const now = this.now()
    for (const [code, live] of this.codes) if (live.expiresAt <= now) this.codes.delete(code)
    return this.codes
  }

  private mint(by: string): [string, LiveCode] {
    const codes = this.liveCodes()
    let code = ''
    for (let i = 0; i < CODE_LENGTH; i++) code += CODE_ALPHABET[randomInt(CODE_ALPHABET.length)]
    const live = { expiresAt: this.now() + CODE_TTL_MS, by }
    codes.set(code, live)
    while (codes.size > MAX_LIVE_CODES) codes.delete(codes.keys().next().value!)
    return [code, live]
  }

  /**
   * A code for the next browser. A paired browser gets it in the answer (to show); while nobody is
   * paired it is printed on DSH's terminal only; otherwise an unpaired request is refused.
   */
  async createCode(req: Pick<IncomingMessage, 'headers'>): Promise<CodeGrant> {
    const verdict = await this.check(req)
    if (verdict.paired) {
      const [code, live] = this.mint(verdict.device.id)
      return { code: formatCode(code), expiresAt: this.iso(live.expiresAt) }
    }
    const file = await this.read()
    if (file.devices.length) {
      throw new HttpError(
        403,
        'This browser is not paired. On a paired browser, open the team page and choose "Pair another browser" to get a code; or delete bot/pairing.json to start over.',
      )
    }
    const shown = [...this.liveCodes().values()].find((c) => c.by === 'terminal')
    if (shown) return { shownIn: 'terminal', expiresAt: this.iso(shown.expiresAt) }
    const [code, live] = this.mint('terminal')
    this.announce(
      `dsh-bot-team: pairing code for the team page: ${formatCode(code)} (valid for ${CODE_TTL_MS / 60_000} minutes). Type it only into your own browser's team page.`,
    )
    return { shownIn: 'terminal', expiresAt: this.iso(live.expiresAt) }
  }

  /**
   * Open the one-time pairing window for the first browser (no terminal needed): only while no
   * browser is paired, no other window is open, and every DSH chat is quiet. While it is open all
   * Bot-started work is held; any turn that starts closes it; it closes after `WINDOW_TTL_MS`.
   * The answer is the window's id, which `pairInWindow` takes.
   */
  openWindow(): Promise<{ window: string; expiresAt: string }> {
    return this.serial(async () => {
      if (!this.quiet) throw new HttpError(409, 'A pairing window needs DSH Web or DSH Desktop; pair with the code printed on its terminal.')
      const file = await this.read()
      if (file.devices.length)
        throw new HttpError(403, 'A browser is paired already: pair this one with a code from it ("Pair another browser" on its team page).')
      if (this.openNow()) throw new HttpError(409, 'A pairing window is open already; it closes within a minute. Try again then.')
      const busy = this.quiet.busy()
      if (busy) throw new HttpError(409, `${busy}. A pairing window opens only while every chat is idle: wait until it finishes (or stop it), then try again.`)
      const id = randomBytes(16).toString('base64url')
      const expiresAt = this.now() + WINDOW_TTL_MS
      const release = this.quiet.hold()
      let closed = false
      const close = () => {
        if (closed) return
        closed = true
        release()
        unsubscribe()
        clearTimeout(timer)
        if (this.window?.id === id) this.window = undefined
      }
      const unsubscribe = this.quiet.onTurnStart(close)
      const timer = setTimeout(close, WINDOW_TTL_MS)
      timer.unref?.()
      this.window = { id, expiresAt, close }
      return { window: id, expiresAt: this.iso(expiresAt) }
    })
  }

  private openNow(): OpenWindow | undefined {
    const w = this.window
    if (w && w.expiresAt <= this.now()) w.close()
    return this.window
  }

  /** Pair the browser that opened the pairing window (its id); the window closes either way. */
  pairInWindow(windowId: string, userAgent: string | undefined): Promise<{ token: string; device: DeviceView }> {
    return this.serial(async () => {
      const file = await this.read()
      const open = this.openNow()
      // Closed either way: a claim with another id is someone else's (a guess closes the window too).
      open?.close()
      if (!open || !sameText(open.id, windowId))
        throw new HttpError(
          403,
          'No pairing window is open for this browser (it closed: it lasts a minute, any chat turn closes it, and so does a wrong claim). Open it again.',
        )
      const busy = this.quiet?.busy()
      if (busy) throw new HttpError(409, `${busy}. The pairing window closed: open it again once every chat is idle.`)
      if (file.devices.length) throw new HttpError(403, 'A browser is paired already: pair this one with a code from it.')
      return this.addDevice(file, `${deviceLabel(userAgent)} (window)`.slice(0, LABEL_MAX))
    })
  }

  private async addDevice(file: PairingFile, label: string): Promise<{ token: string; device: DeviceView }> {
    const token = randomBytes(32).toString('base64url')
    const at = this.iso()
    const device: PairedDevice = { id: randomBytes(8).toString('hex'), label, tokenHash: hashToken(token), createdAt: at, lastUsedAt: at }
    await writePairingFile(this.file, { version: 1, devices: [...file.devices, device] })
    return { token, device: view(device) }
  }

  /** Pair a browser with a code; returns its token (shown once, never stored). */
  pair(rawCode: string, userAgent: string | undefined): Promise<{ token: string; device: DeviceView }> {
    return this.serial(async () => {
      const file = await this.read()
      const code = normaliseCode(rawCode)
      const live = this.liveCodes().get(code)
      if (!live) {
        this.failures++
        if (this.failures >= MAX_FAILED_ATTEMPTS) {
          this.failures = 0
          this.codes.clear()
          throw new HttpError(403, `Wrong or expired pairing code. After ${MAX_FAILED_ATTEMPTS} wrong codes every pairing code was voided: ask for a new one.`)
        }
        throw new HttpError(403, `Wrong or expired pairing code (${MAX_FAILED_ATTEMPTS - this.failures} more wrong codes void every code).`)
      }
      if (file.devices.length >= MAX_DEVICES) throw new HttpError(409, `${MAX_DEVICES} browsers are paired already; unpair one on the team page first.`)
      this.codes.delete(code)
      this.failures = 0
      return this.addDevice(file, deviceLabel(userAgent))
    })
  }

  /** Unpair one device (paired requests only); unpairing the last one brings back the terminal code. */
  async unpair(req: Pick<IncomingMessage, 'headers'>, id: string): Promise<DeviceView> {
    await this.requirePaired(req)
    return this.serial(async () => {
      const file = await this.read()
      const device = file.devices.find((d) => d.id === id)
      if (!device) throw new HttpError(404, `No paired device with id "${id}".`)
      await writePairingFile(this.file, { version: 1, devices: file.devices.filter((d) => d !== device) })
      return view(device)
    })
  }
}

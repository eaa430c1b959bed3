/**
 * The trust fence for the plugin's routes (pure), the rules DSH puts on its own `/api`: a loopback or
 * trusted Host, no cross-site request, an `Origin` equal to the Host, JSON for every write.
 * Deliberately not authentication: who can reach the socket is the server's bind policy.
 */

export type TrustVerdict = { ok: true } | { ok: false; status: 400 | 403 | 415; reason: string }

export interface TrustRequest {
  method?: string | undefined
  headers: Record<string, string | string[] | undefined>
}

function header(req: TrustRequest, name: string): string | undefined {
  const value = req.headers[name]
  return Array.isArray(value) ? value[0] : value
}

function parseAuthority(authority: string): URL | undefined {
  try {
    const url = new URL(`http://${authority}`)
    // Anything beyond a bare authority (path, credentials) is not a Host we accept.
    return url.username || url.password || url.pathname !== '/' || url.search || url.hash ? undefined : url
  } catch {
    return undefined
  }
}

export function isLoopbackHostname(hostname: string): boolean {
  if (hostname === 'localhost' || hostname === '[::1]') return true
  const parts = hostname.split('.')
  return parts.length === 4 && parts[0] === '127' && parts.every((p) => /^\d{1,3}$/.test(p) && Number(p) <= 255)
}

function isTrustedAuthority(host: URL, trustedHosts: readonly string[]): boolean {
  return trustedHosts.some((entry) => {
    const url = parseAuthority(entry)
    if (!url) return false
    return url.port === '' && !/:\d+$/.test(entry) ? url.hostname === host.hostname : url.host === host.host
  })
}

/** Decide whether one request may reach a plugin route. */
export function checkRequestTrust(req: TrustRequest, trustedHosts: readonly string[] = []): TrustVerdict {
  const rawHost = header(req, 'host')
  const host = rawHost === undefined ? undefined : parseAuthority(rawHost)
  if (!host) return { ok: false, status: 400, reason: 'missing or malformed Host header' }
  if (!isLoopbackHostname(host.hostname) && !isTrustedAuthority(host, trustedHosts)) {
    return { ok: false, status: 403, reason: `Host "${rawHost}" is not loopback or a trusted host` }
  }
  if (header(req, 'sec-fetch-site') === 'cross-site') {
    return { ok: false, status: 403, reason: 'cross-site request refused' }
  }
  const origin = header(req, 'origin')
  if (origin !== undefined) {
    let originHost: string | undefined
    try {
      originHost = new URL(origin).host
    } catch {
      originHost = undefined
    }
    if (originHost !== host.host) return { ok: false, status: 403, reason: `Origin "${origin}" is not this server` }
  }
  const method = (req.method ?? 'GET').toUpperCase()
  if (method !== 'GET' && method !== 'HEAD') {
    const type = header(req, 'content-type')?.split(';')[0]?.trim().toLowerCase()
    if (type !== 'application/json') {
      return { ok: false, status: 415, reason: 'writes must be sent as application/json' }
    }
  }
  return { ok: true }
}

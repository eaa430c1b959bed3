import { describe, expect, it } from 'vitest'
import { checkRequestTrust, isLoopbackHostname } from '../../../src/web/fence.ts'

const get = (headers: Record<string, string>) => checkRequestTrust({ method: 'GET', headers })

describe('trust fence for plugin routes', () => {
  it('accepts loopback hosts with no browser markers', () => {
    for (const host of ['127.0.0.1:3080', 'localhost:3080', '[::1]:3080', '127.9.9.9', 'LOCALHOST:1']) {
      expect(get({ host })).toEqual({ ok: true })
    }
  })

  it('refuses a foreign Host (DNS rebinding) and a missing or malformed one', () => {
    expect(get({ host: 'evil.example:3080' })).toMatchObject({ ok: false, status: 403 })
    expect(get({ host: '128.0.0.1:3080' })).toMatchObject({ ok: false, status: 403 })
    expect(get({})).toMatchObject({ ok: false, status: 400 })
    expect(get({ host: 'user@127.0.0.1' })).toMatchObject({ ok: false, status: 400 })
    expect(get({ host: '127.0.0.1/x' })).toMatchObject({ ok: false, status: 400 })
  })

  it('refuses a foreign Origin and cross-site fetch metadata, accepts same-origin', () => {
    expect(get({ host: '127.0.0.1:3080', origin: 'http://evil.example' })).toMatchObject({ ok: false, status: 403 })
    expect(get({ host: '127.0.0.1:3080', origin: 'http://127.0.0.1:9999' })).toMatchObject({ ok: false, status: 403 })
    expect(get({ host: '127.0.0.1:3080', origin: 'null' })).toMatchObject({ ok: false, status: 403 })
    expect(get({ host: '127.0.0.1:3080', 'sec-fetch-site': 'cross-site' })).toMatchObject({ ok: false, status: 403 })
    expect(get({ host: '127.0.0.1:3080', origin: 'http://127.0.0.1:3080', 'sec-fetch-site': 'same-origin' })).toEqual({ ok: true })
  })

  it('requires a JSON content type for writes only', () => {
    const host = '127.0.0.1:3080'
    expect(checkRequestTrust({ method: 'POST', headers: { host } })).toMatchObject({ ok: false, status: 415 })
    expect(checkRequestTrust({ method: 'POST', headers: { host, 'content-type': 'text/plain' } })).toMatchObject({ ok: false, status: 415 })
    expect(checkRequestTrust({ method: 'PUT', headers: { host, 'content-type': 'application/x-www-form-urlencoded' } })).toMatchObject({
      ok: false,
      status: 415,
    })
    expect(checkRequestTrust({ method: 'POST', headers: { host, 'content-type': 'application/json; charset=utf-8' } })).toEqual({ ok: true })
    expect(checkRequestTrust({ method: 'HEAD', headers: { host } })).toEqual({ ok: true })
  })

  it('honours trusted hosts: port-less entries match any port, others exactly', () => {
    expect(checkRequestTrust({ headers: { host: 'box.lan:3080' } }, ['box.lan'])).toEqual({ ok: true })
    expect(checkRequestTrust({ headers: { host: 'box.lan:3080' } }, ['box.lan:3080'])).toEqual({ ok: true })
    expect(checkRequestTrust({ headers: { host: 'box.lan:4000' } }, ['box.lan:3080'])).toMatchObject({ ok: false, status: 403 })
    expect(checkRequestTrust({ headers: { host: 'other.lan' } }, ['box.lan'])).toMatchObject({ ok: false, status: 403 })
  })

  it('knows what loopback is', () => {
    expect(isLoopbackHostname('127.0.0.1')).toBe(true)
    expect(isLoopbackHostname('127.256.0.1')).toBe(false)
    expect(isLoopbackHostname('10.0.0.1')).toBe(false)
  })
})

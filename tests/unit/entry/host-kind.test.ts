import { describe, expect, it } from 'vitest'
import { hostsWebApp, promotesWhenWebAppAppears, storeRole } from '../../../src/dsh/host-kind.ts'

const services =
  (...present: string[]) =>
  (name: string) =>
    present.includes(name)

describe('which DSH process may write team state', () => {
  it("a process hosting DSH's web app (API gateway and web server) is long-lived, whatever its profile is called", () => {
    expect(hostsWebApp(services('apiProxy', 'webServer'))).toBe(true)
    expect(hostsWebApp(services('apiProxy', 'webServer', 'agents', 'sessions'))).toBe(true)
  })

  it('a one-shot run (neither service) and `dsh --profile web --help` (gateway without server) are not', () => {
    expect(hostsWebApp(services())).toBe(false)
    expect(hostsWebApp(services('agents', 'sessions', 'tools'))).toBe(false)
    expect(hostsWebApp(services('apiProxy'))).toBe(false)
    expect(hostsWebApp(services('webServer'))).toBe(false)
  })

  it('maps the writer setting to a store role', () => {
    expect(storeRole('always')).toBe('writer')
    expect(storeRole('never')).toBe('follower')
    expect(storeRole('auto')).toBe('auto')
  })

  it('promotes when the web app appears later only under `writer: auto`', () => {
    expect(promotesWhenWebAppAppears('auto')).toBe(true)
    expect(promotesWhenWebAppAppears('always')).toBe(false)
    expect(promotesWhenWebAppAppears('never')).toBe(false)
  })
})

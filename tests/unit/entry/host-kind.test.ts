import { describe, expect, it } from 'vitest'
import { isLongLivedHost, storeRole } from '../../../src/host-kind.ts'

const argv = (...args: string[]) => ['/node', '/dsh/lib/bin.js', ...args]

describe('which DSH process may write team state', () => {
  it('treats DSH Web as long-lived and one-shot runs as followers', () => {
    expect(isLongLivedHost(argv('web', '--no-open', '--port', '0'))).toBe(true)
    expect(isLongLivedHost(argv('--profile', 'web', '--no-open'))).toBe(true)
    expect(isLongLivedHost(argv('--profile=web'))).toBe(true)
    expect(isLongLivedHost(argv('--profile', 'headless', 'say web'))).toBe(false)
    expect(isLongLivedHost(argv('run the web tests'))).toBe(false)
    expect(isLongLivedHost(argv())).toBe(false)
  })

  it('maps the writer setting to a store role', () => {
    expect(storeRole('always')).toBe('writer')
    expect(storeRole('never')).toBe('follower')
    expect(storeRole('auto')).toBe('auto')
  })
})

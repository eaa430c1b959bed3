// The pure half of Bots' networks: levels and the strictest along a chain, the ranges a Bot at
// internet may not reach (as a BlockList and as nft text), which paths a Bot's mount namespace
// covers, and the migration of team state from v7 to v8.
import { describe, expect, it } from 'vitest'
import { turnNetwork, turnOrigin } from '../../src/core/chain.ts'
import { asNetworkLevel, strictestLevel, widensNetwork } from '../../src/core/network.ts'
import { refusedAddress, refusedList } from '../../src/core/refused-ranges.ts'
import { deliverySource, readSource } from '../../src/core/sources.ts'
import { type CoverFacts, coversFor, socketPaths } from '../../src/network/covers.ts'
import { filterRuleset, refreshRuleset } from '../../src/network/filter.ts'

describe('network levels', () => {
  it('ranks none < internet < full; the strictest of several wins; unknown reads as the default', () => {
    expect(strictestLevel('full', 'internet')).toBe('internet')
    expect(strictestLevel('internet', 'none', 'full')).toBe('none')
    expect(strictestLevel(undefined, 'full')).toBe('full')
    expect(strictestLevel()).toBeUndefined()
    expect(widensNetwork('none', 'internet')).toBe(true)
    expect(widensNetwork('full', 'internet')).toBe(false)
    expect(asNetworkLevel('bogus')).toBe('internet')
  })

  it("a chain turn runs at the strictest of the Bot's own level and the chain's, unless the Bot accepts delegated work; the person's turn at its own", () => {
    const chain = turnOrigin([{ kind: 'bot', chain: { hop: 1, network: 'none' } }], () => undefined)
    expect(turnNetwork('internet', chain, false)).toBe('none')
    expect(turnNetwork('internet', chain, true)).toBe('internet')
    expect(turnNetwork('full', { kind: 'person' }, false)).toBe('full')
    // Several opening messages: the strictest of their chains.
    const two = turnOrigin(
      [
        { kind: 'bot', chain: { hop: 1, network: 'full' } },
        { kind: 'bot', chain: { hop: 2, network: 'internet' } },
      ],
      () => undefined,
    )
    expect(turnNetwork('full', two, false)).toBe('internet')
    // Nothing known opened it: the strictest level.
    expect(
      turnNetwork(
        'full',
        turnOrigin([{ kind: 'other' }], () => undefined),
        false,
      ),
    ).toBe('none')
  })

  it('a message carries the level along its chain, and a source without one still reads', () => {
    const source = deliverySource({ id: 'delivery-1', from: 'bot-2', kind: 'message' }, 'Eve', { hop: 1, network: 'none' })
    expect(readSource(JSON.parse(JSON.stringify(source)))).toMatchObject({ network: 'none' })
    const old = { ...source } as Record<string, unknown>
    delete old.network
    expect(readSource(old)).toMatchObject({ hop: 1 })
    expect(readSource({ ...source, network: 'everything' })).toBeUndefined()
  })
})

describe('refused addresses at internet', () => {
  const list = refusedList(['203.0.113.7', '2001:db8::7'])
  it.each([
    ['127.0.0.1'],
    ['127.8.9.10'],
    ['10.0.2.2'],
    ['172.16.0.1'],
    ['192.168.1.1'],
    ['169.254.169.254'],
    ['100.64.0.1'],
    ['0.0.0.0'],
    ['224.0.0.1'],
    ['::1'],
    ['[::1]'],
    ['fe80::1%eth0'],
    ['fd00::1'],
    ['::ffff:127.0.0.1'],
    ['::ffff:7f00:1'],
    ['203.0.113.7'],
    ['2001:db8::7'],
  ])('%s is refused', (address) => {
    expect(refusedAddress(address, list)).toBe(true)
  })
  it.each([['198.51.100.7'], ['93.184.216.34'], ['2606:4700::1111'], ['example.com']])('%s is not', (address) => {
    expect(refusedAddress(address, list)).toBe(false)
  })

  it('as nft text: loopback and the stack DNS pass, the machine and the ranges are rejected; a refresh replaces only the machine sets', () => {
    const text = filterRuleset(['192.0.2.5', 'fe80::1%eth0', '127.0.0.1', 'nonsense'])
    expect(text).toContain('set host4 { type ipv4_addr; elements = { 127.0.0.1, 192.0.2.5 }; }')
    expect(text).toContain('set host6 { type ipv6_addr; elements = { fe80::1 }; }')
    expect(text.indexOf('oifname "lo" accept')).toBeLessThan(text.indexOf('ip daddr @host4 reject'))
    expect(text.indexOf('ip daddr 10.0.2.3 udp dport 53 accept')).toBeLessThan(text.indexOf('10.0.0.0/8'))
    expect(text).toMatch(/ip daddr \{ 0\.0\.0\.0\/8, 10\.0\.0\.0\/8, 100\.64\.0\.0\/10, 127\.0\.0\.0\/8, 169\.254\.0\.0\/16, 172\.16\.0\.0\/12/)
    expect(text).toMatch(/ip6 daddr \{ ::\/127, ::ffff:0:0\/96, 64:ff9b:1::\/48, fc00::\/7, fe80::\/10/)
    expect(text).not.toContain('198.51.100')
    expect(filterRuleset([])).toContain('set host4 { type ipv4_addr; }')
    expect(refreshRuleset(['192.0.2.9'])).toBe('flush set inet bot_team host4\nflush set inet bot_team host6\nadd element inet bot_team host4 { 192.0.2.9 }\n')
  })
})

describe("what a Bot's mount namespace covers", () => {
  const world: Record<string, 'dir' | 'socket' | 'file'> = {
    '/run/user': 'dir',
    '/run/user/0': 'dir',
    '/run/user/0/bus': 'socket',
    '/tmp/ssh-abc': 'dir',
    '/tmp/ssh-abc/agent.1': 'socket',
    '/tmp/.X11-unix': 'dir',
    '/run/docker.sock': 'socket',
    '/run/dbus/system_bus_socket': 'socket',
    '/tmp/tmux-0/default': 'socket',
    '/srv/work/app.sock': 'socket',
    '/tmp/agent.2': 'socket',
  }
  const facts = (over: Partial<CoverFacts> = {}): CoverFacts => ({
    uid: 0,
    home: '/root',
    sshAuthSock: '/tmp/ssh-abc/agent.1',
    sockets: ['/run/user/0/bus', '/run/dbus/system_bus_socket', '/tmp/tmux-0/default', '/srv/work/app.sock', '/tmp/ssh-abc/agent.1'],
    keep: ['/srv/work'],
    kind: (p) => world[p],
    real: (p) => (world[p] ? p : p === '/var/run/docker.sock' ? '/run/docker.sock' : p === '/tmp' ? '/tmp' : undefined),
    ...over,
  })

  it('the runtime folders, the agent socket folder, X11, Docker and every other bound socket — never what the Bot works in', () => {
    expect(coversFor(facts())).toEqual([
      { path: '/run/user', as: 'dir' },
      { path: '/tmp/ssh-abc', as: 'dir' },
      { path: '/tmp/.X11-unix', as: 'dir' },
      { path: '/run/docker.sock', as: 'file' },
      { path: '/run/dbus/system_bus_socket', as: 'file' },
      { path: '/tmp/tmux-0/default', as: 'file' },
    ])
  })

  it('an agent socket directly in /tmp is covered alone (/tmp stays shared); a folder holding the workspace is never covered', () => {
    const covers = coversFor(facts({ sshAuthSock: '/tmp/agent.2', sockets: [], keep: ['/tmp/ssh-abc/inside'] }))
    expect(covers).toContainEqual({ path: '/tmp/agent.2', as: 'file' })
    expect(covers.map((c) => c.path)).not.toContain('/tmp')
    expect(coversFor(facts({ keep: ['/tmp/ssh-abc/work'] })).map((c) => c.path)).toContain('/tmp/ssh-abc/agent.1')
  })

  it('reads the paths of /proc/net/unix, leaving abstract names out', () => {
    const listing = [
      'Num       RefCount Protocol Flags    Type St Inode Path',
      '0000000000000000: 00000002 00000000 00010000 0001 01 20563 /run/dbus/system_bus_socket',
      '0000000000000000: 00000002 00000000 00010000 0001 01 20999 @/tmp/.X11-unix/X0',
      '0000000000000000: 00000003 00000000 00000000 0001 03 21000',
      '0000000000000000: 00000002 00000000 00010000 0001 01 21001 /tmp/with space.sock',
    ].join('\n')
    expect(socketPaths(listing)).toEqual(['/run/dbus/system_bus_socket', '/tmp/with space.sock'])
  })
})

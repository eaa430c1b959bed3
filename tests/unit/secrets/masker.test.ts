import { describe, expect, it } from 'vitest'
import { base64Cores, createMasker, MAX_GAP, maskDeep, SHORT_MAX } from '../../../src/secrets/masker.ts'

const VALUE = 'ghp_Zq81tY/vX+9=kk"quote\\back&more?'
const m = createMasker([{ name: 'GH_TOKEN', value: VALUE }])
const P = '[secret:GH_TOKEN]'

describe('masker: the exact value and its encodings', () => {
  it('replaces the literal value, wherever it sits', () => {
    expect(m.mask(`a ${VALUE} b`)).toBe(`a ${P} b`)
    expect(m.mask(`x${VALUE}y${VALUE}`)).toBe(`x${P}y${P}`)
  })
  it('replaces the JSON-escaped value, once and twice escaped', () => {
    const once = JSON.stringify(VALUE).slice(1, -1)
    const twice = JSON.stringify(JSON.stringify(VALUE)).slice(1, -1)
    expect(m.mask(`{"k":"${once}"}`)).toBe(`{"k":"${P}"}`)
    expect(m.mask(twice)).not.toContain('Zq81tY')
  })
  it('replaces the URL-encoded value with upper- and lower-case escapes', () => {
    const url = encodeURIComponent(VALUE)
    expect(m.mask(`https://x/?t=${url}&a=1`)).toBe(`https://x/?t=${P}&a=1`)
    expect(m.mask(url.replace(/%[0-9A-F]{2}/g, (e) => e.toLowerCase()))).toBe(P)
  })
  it('replaces base64 and base64url at every byte alignment inside a longer stream', () => {
    for (const prefix of ['', 'a', 'ab', 'abc', 'abcd']) {
      for (const suffix of ['', 'z', 'zz']) {
        const b64 = Buffer.from(`${prefix}${VALUE}${suffix}`).toString('base64')
        expect(m.has(b64), `prefix ${prefix.length} suffix ${suffix.length}`).toBe(true)
        expect(m.mask(b64)).toContain(P)
        const url = Buffer.from(`${prefix}${VALUE}${suffix}`).toString('base64url')
        expect(m.has(url)).toBe(true)
      }
    }
  })
  it('replaces base64 wrapped by line breaks (the base64 tool wraps at 76 columns)', () => {
    const long = createMasker([{ name: 'LONG', value: 'k'.repeat(30) + 'Q9!x'.repeat(20) }])
    const wrapped = Buffer.from('k'.repeat(30) + 'Q9!x'.repeat(20))
      .toString('base64')
      .replace(/.{76}/g, '$&\n')
    expect(wrapped).toContain('\n')
    expect(long.has(wrapped)).toBe(true)
  })
  it('replaces hex in lower and upper case, plain or with spaces and line breaks between bytes', () => {
    const hex = Buffer.from(VALUE).toString('hex')
    expect(m.mask(hex)).toBe(P)
    expect(m.mask(hex.toUpperCase())).toBe(P)
    expect(m.mask(hex.match(/../g)!.join(' '))).toBe(P)
    expect(m.mask(hex.replace(/.{60}/g, '$&\n'))).toBe(P)
  })
  it(`finds an encoded form with up to ${MAX_GAP} ASCII whitespace characters between two of its characters; a wider gap splits it, and a split value is left as it is`, () => {
    const hex = [...Buffer.from(VALUE).toString('hex')]
    expect(m.mask(`x ${hex.join(' '.repeat(MAX_GAP))} y`)).toBe(`x ${P} y`)
    expect(m.mask(`x ${hex.join('\r\n    ')} y`)).toBe(`x ${P} y`)
    const split = `${hex[0]}${' '.repeat(MAX_GAP + 1)}${hex.slice(1).join(' ')}`
    expect(m.mask(split)).toBe(split)
    // only ASCII whitespace is a gap (a no-break space is a character like any other)
    expect(m.mask(hex.join('\u00a0'))).toBe(hex.join('\u00a0'))
  })

  it('names what it found and leaves other text alone', () => {
    expect(m.found(`x ${VALUE}`)).toEqual(['GH_TOKEN'])
    expect(m.found('nothing here')).toEqual([])
    expect(m.mask('ghp_ alone, Zq81 alone')).toBe('ghp_ alone, Zq81 alone')
  })
  it('never matches its own placeholder again (one pass)', () => {
    const self = createMasker([{ name: 'S', value: 'secret:S' + 'x'.repeat(8) }])
    expect(self.mask(`secret:Sxxxxxxxx`)).toBe('[secret:S]')
    expect(self.mask(self.mask(`secret:Sxxxxxxxx`))).toBe('[secret:S]')
  })
  it('masks the longer of two values that overlap as the longer one', () => {
    const two = createMasker([
      { name: 'A', value: 'abcdefgh1234' },
      { name: 'B', value: 'abcdefgh1234-and-more' },
    ])
    expect(two.mask('abcdefgh1234-and-more / abcdefgh1234')).toBe('[secret:B] / [secret:A]')
  })
})

describe('masker: short values', () => {
  const short = createMasker([{ name: 'PIN', value: 'x7k9' }])
  it(`masks a value of at most ${SHORT_MAX} characters only where no letter or digit touches it`, () => {
    expect(short.mask('pin x7k9.')).toBe('pin [secret:PIN].')
    expect(short.mask('"x7k9"')).toBe('"[secret:PIN]"')
    expect(short.mask('ax7k9 x7k9b 1x7k91')).toBe('ax7k9 x7k9b 1x7k91')
  })
  it('does not mask the encodings of a short value', () => {
    expect(short.mask(Buffer.from('x7k9').toString('hex'))).toBe(Buffer.from('x7k9').toString('hex'))
  })
})

describe('masker: no secrets, odd input', () => {
  it('is the identity with no entries or only empty values', () => {
    const none = createMasker([{ name: 'E', value: '' }])
    expect(none.mask('text')).toBe('text')
    expect(none.has('text')).toBe(false)
  })
  it('treats regex characters in values as text', () => {
    const re = createMasker([{ name: 'R', value: '.*+?^${}()|[]\\/' }])
    expect(re.mask('a .*+?^${}()|[]\\/ b')).toBe('a [secret:R] b')
    expect(re.mask('abcdefghijklmnop')).toBe('abcdefghijklmnop')
  })
  it('handles non-ASCII values (UTF-8 bytes for base64 and hex)', () => {
    const u = createMasker([{ name: 'U', value: '密码-pässwörd-🔑-long' }])
    expect(u.mask('密码-pässwörd-🔑-long')).toBe('[secret:U]')
    expect(u.has(Buffer.from('密码-pässwörd-🔑-long').toString('base64'))).toBe(true)
    expect(u.has(Buffer.from('密码-pässwörd-🔑-long').toString('hex'))).toBe(true)
  })
  it('base64Cores gives three cores for a value long enough', () => {
    expect(base64Cores(Buffer.from('abcdefghij'))).toHaveLength(3)
  })
})

describe('maskDeep', () => {
  it('masks every string in arrays and plain objects and keeps the rest', () => {
    const input = { a: [`${VALUE}`, 1, null, { b: `x ${VALUE}` }], n: 2, t: true }
    expect(maskDeep(input, m.mask)).toEqual({ a: [P, 1, null, { b: `x ${P}` }], n: 2, t: true })
  })
  it('returns the same object when nothing changed', () => {
    const input = Object.freeze({ a: ['clean'], b: { c: 'also clean' } })
    expect(maskDeep(input, m.mask)).toBe(input)
  })
})

describe('masker: size', () => {
  it('masks a 16,384-character value and its hex inside a large text', () => {
    const value = 'v'.repeat(8000) + 'Zz9-'.repeat(2096)
    const big = createMasker([{ name: 'BIG', value }])
    const text = `${'lorem ipsum '.repeat(2000)}${value} and ${Buffer.from(value).toString('hex')}`
    expect(big.found(text)).toEqual(['BIG'])
    expect(big.mask(text)).not.toContain('Zz9-')
  })
})

describe('masker: only whole values, never a piece of one', () => {
  const cut = createMasker([{ name: 'T', value: 'first-value-1-long' }])
  it('leaves a prefix of the value at the end of a text and a suffix at its start as they are: a probe learns nothing from the mask', () => {
    for (const probe of ['f', 'fi', 'firs', 'first-', 'first-value-1-lon']) expect(cut.mask(`output: ${probe}`)).toBe(`output: ${probe}`)
    expect(cut.mask('ue-1-long\nline 2')).toBe('ue-1-long\nline 2')
    expect(cut.has('line 1\nfirst-val')).toBe(false)
  })
  it('still masks the whole value wherever it is', () => {
    expect(cut.mask('a first-value-1-long b')).toBe('a [secret:T] b')
    expect(cut.mask('first-value-1-long')).toBe('[secret:T]')
  })
})

describe('maskTail: capped output masked before it is cut', () => {
  const VALUE = 'tok-5e4d3c2b1a0f9e8d7c6b'
  const m = createMasker([{ name: 'GH_TOKEN', value: VALUE }])
  const bytes = (s: string) => Buffer.from(s, 'utf8')
  const pieces = (text: string) => Array.from({ length: VALUE.length - 3 }, (_, i) => VALUE.slice(i, i + 4)).filter((p) => text.includes(p))

  it('keeps a value the cut crosses as its whole placeholder, never its tail', () => {
    for (let cut = 1; cut < VALUE.length; cut++) {
      const out = `${'a'.repeat(100)}${VALUE}${'b'.repeat(40)}`
      const cap = VALUE.length - cut + 40
      const text = m.maskTail(bytes(out), cap)
      expect(text).toBe(`[secret:GH_TOKEN]${'b'.repeat(40)}`.slice(-Math.min(cap, 17 + 40)))
      expect(pieces(text)).toEqual([])
    }
  })

  it(`keeps an encoded form spread with the widest gaps mask finds (${MAX_GAP} between every two characters) whole wherever the cut crosses it: no piece shows`, () => {
    const hex = Buffer.from(VALUE).toString('hex')
    const b64 = base64Cores(Buffer.from(VALUE))[0]!
    for (const form of [hex, b64]) {
      const spread = [...form].join(' '.repeat(MAX_GAP))
      expect(m.mask(`x ${spread} y`)).toBe('x [secret:GH_TOKEN] y')
      for (let into = 1; into < spread.length; into += 7) {
        const cap = spread.length - into + 50
        const text = m.maskTail(bytes(`${'a'.repeat(5000)}${spread}${'b'.repeat(50)}`), cap)
        const kept = text.replace(/\s+/g, '')
        const shown = Array.from({ length: form.length - 11 }, (_, i) => form.slice(i, i + 12)).filter((p) => kept.includes(p))
        expect(shown).toEqual([])
        expect(text).toBe(`[secret:GH_TOKEN]${'b'.repeat(50)}`.slice(-cap))
      }
    }
    expect(m.margin).toBe(hex.length + (hex.length - 1) * MAX_GAP)
  })

  it('drops a piece of a value cut at the start of what it was given, and values wholly before the cut', () => {
    const out = `${VALUE.slice(5)}x${VALUE}${'c'.repeat(10)}`
    expect(m.maskTail(bytes(out), 10)).toBe('c'.repeat(10))
    expect(m.maskTail(bytes(out), 11 + VALUE.length)).toBe(`x[secret:GH_TOKEN]${'c'.repeat(10)}`)
  })

  it('cuts where a character starts and keeps at most `cap` bytes; with no secrets it only cuts', () => {
    const out = `é${'ü'.repeat(10)}`
    expect(m.maskTail(bytes(out), 5)).toBe('üü')
    expect(createMasker([]).maskTail(bytes(out), 5)).toBe('üü')
    expect(Buffer.byteLength(m.maskTail(bytes(`${VALUE}${'d'.repeat(3)}`), 10))).toBeLessThanOrEqual(10)
    expect(m.margin).toBeGreaterThanOrEqual(Buffer.byteLength(VALUE))
  })
})

/**
 * The secret-like filter (pure): `secretProblem(text)` names the kind of secret an entry hands over
 * ("it looks like a password") — by value (key shapes, long mixed tokens, Luhn-valid cards, checked
 * IDs, IBANs, SSNs) or by context (a credential word introducing a value, a login pair) — while
 * hashes, ids, versions and sentences about secrets pass. Deliberately does not look up saved secrets
 * or catch a secret in words, split or encoded (docs/limitations.md).
 */
import { KEY_SHAPE_KINDS } from '../core/key-shapes.ts'

type Kind = 'password' | 'code' | 'key' | 'phrase'

const SAYS: Record<Kind, string> = {
  password: 'it looks like a password',
  code: 'it looks like a PIN or one-time code',
  key: 'it looks like an API key, token or secret',
  phrase: 'it looks like a recovery phrase',
}

// ── what is not a value ───────────────────────────────────────────────────────────────────────

const URL_RE = /\b[a-z][a-z0-9+.-]*:\/\/\S+|\b(?:[a-z0-9-]+\.)+[a-z]{2,}\/\S*/gi
const DATA_URI = /\bdata:[\w/+.-]+;base64,[A-Za-z0-9+/=]+/g
const PUBLIC_SSH_KEY = /\b(?:ssh-(?:rsa|ed25519|dss)|ecdsa-sha2-nistp\d+|sk-ssh-ed25519@openssh\.com)\s+AAAA[0-9A-Za-z+/=]+/g
const FINGERPRINT = /\b(?:SHA256|SHA1|MD5):[A-Za-z0-9+/=:]{16,}/g
const DATE_RE =
  /\b\d{4}[-/.]\d{1,2}[-/.]\d{1,2}(?:[T ]\d{1,2}:\d{2}(?::\d{2})?Z?)?\b|\b\d{1,2}[-/.]\d{1,2}[-/.]\d{4}\b|\d{4}\s*年\s*\d{1,2}\s*月(?:\s*\d{1,2}\s*[日号])?/g

/** First words after "password is" that make the sentence one ABOUT the password. */
const NOT_A_VALUE = new Set(
  `a an the this that these those it its it's my our your their his her not no never always only just also still now then
in on at by from with without for to of into inside under over via per as is was are be been being
stored kept saved managed handled shared sent written held synced printed listed shown found located posted attached
included documented displayed labelled labeled noted taped stuck generated provided given known used asked prompted
required needed necessary mandatory optional set changed reset rotated updated expired expiring valid invalid correct
incorrect wrong right same different strong weak long short secure insecure case-sensitive empty blank missing unknown
hidden encrypted hashed salted too very quite going supposed available must should will can could may might
see check ask use tbd tba n/a none unchanged new old temporary default fine ok okay good bad secret private public
something anything nothing one here there elsewhere somewhere what which who whose when where why how
policy policies rules rule field fields manager hint reset length strength rotation expiry requirements history change changes`.split(/\s+/),
)
/** Words that start a sentence about a phrase rather than the phrase itself ("passphrase: see the vault"). */
const FUNCTION_WORDS = new Set(
  'a an the in on at of to for with by from see is are was were be stored kept saved managed ask check use not no none same it this that'.split(' '),
)
/** Letters-only words with these endings are adjectives or participles, not passwords. */
const WORDY = /(?:ed|ing|ly|able|ible|ive|ous|ful|less|ment|tion|sion|ness|ity)$/i
/** A number followed by one of these is a quantity ("12 characters", "5 分钟"). */
const UNIT_AFTER =
  /^\s*(?:[%％]|(?:lines?|characters?|chars?|digits?|letters?|bytes?|bits?|times?|tries|attempts?|minutes?|mins?|seconds?|secs?|s\b|ms\b|hours?|hrs?|days?|weeks?|months?|years?|words?|people|users?|files?|items?|steps?|tokens?|requests?|rows?|pages?|kb|mb|gb|k\b)\b|[位次个分秒天小时年月日号条字元人页行])/i
const CRYPTO_NAMES = /^(?:aes|rsa|chacha|sha|md5|argon2|bcrypt|scrypt|pbkdf2|gpg|pgp|tls|ssl|hmac|ed25519|ecdsa|x25519|kms|vault)/i

function cleanValue(raw: string): string {
  return raw.replace(/^["'“‘「`(]+/, '').replace(/["'”’」`)\].,;。，；、]+$/u, '')
}

/** A token that is a URL, path, e-mail, version, date, env-var name or identifier, never a value. */
function structural(v: string): boolean {
  return (
    /^[a-z][a-z0-9+.-]*:\/\//i.test(v) ||
    /^(?:~|\.{1,2})?\//.test(v) ||
    /^[\w.-]+\/[\w./-]*\.[a-z0-9]{1,5}$/i.test(v) ||
    /^[^@\s]+@[^@\s]+\.[a-z]{2,}$/i.test(v) ||
    /^v?\d+(?:\.\d+){1,3}(?:[-+][\w.]+)?$/i.test(v) ||
    /^\d{1,2}:\d{2}(?::\d{2})?$/.test(v) ||
    /^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+$/.test(v) ||
    /^\$\{?[A-Za-z_][\w]*\}?$/.test(v) ||
    /^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)+(?:\(\))?$/.test(v) ||
    /^<[^<>]+>$/.test(v) ||
    /^[a-z]+(?:[_-][a-z]+)+$/.test(v)
  )
}

/** Character classes in a value: lower case, upper case after the first letter, digits, symbols. */
const classes = (v: string) => [/[a-z]/.test(v), /[A-Z]/.test(v.slice(1)), /\d/.test(v), /[^A-Za-z0-9]/.test(v)].filter(Boolean).length

/** A password-like value: mixes letters and digits, or has a symbol (4–64 characters). */
function strongPassword(v: string): boolean {
  if (/^[a-z]{4}(?:-[a-z]{4}){3}$/.test(v)) return true
  if (v.length < 4 || v.length > 64 || structural(v) || CRYPTO_NAMES.test(v)) return false
  const letters = /\p{L}/u.test(v)
  const digits = /\d/.test(v)
  const symbols = /[^\p{L}\p{N}]/u.test(v)
  return (letters && digits) || (symbols && (letters || digits) && classes(v) >= 2 && !/^[\p{L}]+[-'][\p{L}]+$/u.test(v))
}

/** What a password word may introduce after a giving marker: anything but a word about it. */
function givenPassword(v: string, quoted: boolean, colon: boolean): boolean {
  if (quoted) return v.length >= 3 && !NOT_A_VALUE.has(v.toLowerCase())
  if (v.length < 3 || NOT_A_VALUE.has(v.toLowerCase())) return false
  // "the master password: correct-horse" (after ":" or "=" a hyphenated word is the value).
  if (colon && /^[a-z]+(?:-[a-z]+)+$/i.test(v)) return true
  if (structural(v)) return false
  if (/^\d+$/.test(v)) return v.length >= 4
  if (/^\p{L}+$/u.test(v)) return v.length >= 4 && !WORDY.test(v)
  return strongPassword(v) || (v.length >= 4 && /[\p{L}\p{N}]/u.test(v))
}

/** A code: 3–12 digits (spaces or hyphens between groups), or a short code with 3+ digits in it. */
function codeLike(v: string): boolean {
  if (/^\d[\d -]{1,14}\d#?$/.test(v)) return v.replace(/\D/g, '').length >= 3
  const digits = v.match(/\d/g)?.length ?? 0
  return (/^[A-Za-z0-9-]{4,16}#?$/.test(v) && digits >= 3) || (/^[A-Za-z0-9]{4,8}$/.test(v) && digits >= 2 && /[A-Za-z]/.test(v))
}

/** A key or token value: long and mixed, or long from a token alphabet. */
function keyLike(v: string): boolean {
  if (structural(v) && !/^[A-Z0-9_]+$/.test(v)) return false
  // Plain words and snake_case identifiers ("created_at", "user_id_2") name things; they are no keys.
  if (/^[a-z]+(?:[_-][a-z]+)*$/.test(v) || /^[a-z]+(?:_(?:[a-z]+|\d{1,2}))+$/.test(v)) return false
  return (v.length >= 8 && /\d/.test(v) && /[A-Za-z]/.test(v)) || (v.length >= 16 && /^[\w+/=.:-]+$/.test(v))
}

// ── credential words ──────────────────────────────────────────────────────────────────────────

const EN_WORDS: readonly [Kind, string][] = [
  ['phrase', String.raw`(?:recovery|seed|backup|secret|wallet)\s+(?:phrase|words)|mnemonic(?:\s+phrase)?`],
  [
    'key',
    String.raw`(?:(?:api|access|secret|private|app|client|signing|encryption|master|recovery|unseal|pre-?shared|deploy|ssh|license|licence|wi-?fi|network|router|wpa2?)[\s_-]?keys?|psk|(?:client|app|signing|webhook|jwt|shared|api|access)\s*secrets?|secret(?:\s+(?:access\s+)?key)?|appsecret|secretkey|secretid|accesskey(?:\s*(?:secret|id))?|(?:auth|bearer|refresh|session|bot|api|access|personal\s+access|oauth|integration)\s+tokens?|tokens?|pat|keys?)`,
  ],
  [
    'code',
    String.raw`pin(?:\s+(?:code|number))?|otp|totp|cvv2?|cvc|csc|one[- ]time\s+(?:code|password|pin)|combination|(?:verification|security|confirmation|auth(?:entication)?|2fa|mfa|sms|login|door|gate|alarm|disarm|lock|safe|entry|building|garage|keypad|unlock|access|backup|recovery|locker|pass)\s+codes?|passcodes?|code`,
  ],
  ['password', 'pass(?:word|phrase)s?|passwd|pwd|pw|pass|requirepass|auth|creds|credentials'],
]
/** "code" after one of these is no secret ("the zip code is 94107"). */
const BENIGN_CODE =
  /\b(?:zip|postal|post|area|country|error|status|exit|return|product|promo|discount|coupon|source|http|response|reason|exception|language|currency|airport|colou?r|bar|qr|build|version|release|project|course|class|sku|item|tax|ticket|order|invoice|branch|dial|region|station|morse|html|css|sample|example|test|write|review|legacy|python|java|rust|go)[\s-]+$/i
/** "key" after one of these is no secret ("the sort key is created_at"). */
const BENIGN_KEY =
  /\b(?:primary|foreign|sort|partition|composite|unique|cache|map|hash|object|idempotency|registry|lookup|row|column|index|shard|routing|translation|i18n|dictionary|json|yaml|config|s3|redis|hot|shortcut|music|answer|public|publishable|file|natural|surrogate|react|list|group|dedup(?:e|lication)?)[\s-]+$/i
/** Words a password word may not modify: "password policy", "token bucket". */
const COMPOUND_AFTER =
  /^[\s-]+(?:policy|policies|rules?|field|fields|manager|managers|reset|resets|strength|rotation|length|expiry|requirements?|complexity|history|prompt|screen|form|page|flow|feature|protected|hashing|hash|hashes|bucket|limits?|budget|counts?|usage|endpoint|url|header|cookie|refresh|format|type|types|scope|scopes|name|names|path|paths|takeaway|point|points|rotat\w*|based|less|free)\b/i

/** Between the word and its marker: "for the staging db", "on pi4", "hint" (then a marker must follow). */
const QUALIFIER = String.raw`\s+(?:for|of|on|at|in|to|from|inside|used|hint)\b(?:[^.;!?\n=:：，。；]|\.(?=\S)){0,40}?`
/** What gives a value: "is", ":", "=", "was changed to", "是", "改成" … (longest first). */
const MARKER = String.raw`(?:\s*[:=：]\s*|\s+[-–—→]\s+|\s+(?:(?:is|was|has\s+been|had\s+been|got)\s+(?:now\s+)?(?:set|changed|reset|updated)\s+to|(?:set|changed|reset|updated|switched|rotated)\s+to|has\s+been|had\s+been|will\s+be|is\s+now|is|was|are|were|became|becomes|equals|reads|now|to)\s+|\s*(?:是|为|改成了?|改为|换成了?|设成|设为|设置为|设置成|配成了?|就是|都是|叫|变成了?|更新为|重置为)\s*)`
const FILLER = /^(?:it's|it\s+is|its|now|just|simply|still|always|=)\s+/i
const VERB_TO = /\b(?:set|sets|setting|change[ds]?|changing|reset|resets|update[ds]?|switch(?:ed)?|rotate[ds]?)\b/i

interface Found {
  kind: Kind
  /** The credential word as written. */
  word: string
  value: string
  quoted: boolean
  marker: string
  after: string
}

/** Each kind's words, then a qualifier and its marker, or a marker alone (compiled once). */
const EN_GIVEN: readonly [Kind, RegExp][] = EN_WORDS.map(([kind, words]) => [
  kind,
  new RegExp(String.raw`(?<![\p{L}\p{N}_-])(${words})(?![\p{L}\p{N}_])(?:(${QUALIFIER})(${MARKER})|(${MARKER}))?`, 'giu'),
])

function* afterWords(text: string): Generator<Found> {
  for (const [kind, re] of EN_GIVEN) {
    for (const m of text.matchAll(re)) {
      const word = m[1]!
      const end = m.index + m[0].length
      const before = text.slice(Math.max(0, m.index - 30), m.index)
      const rest = text.slice(end)
      const marker = (m[3] ?? m[4] ?? '').trim()
      if (kind === 'code' && /^code$/i.test(word) && BENIGN_CODE.test(before)) continue
      if (kind === 'key' && ((/^keys?$/i.test(word) && BENIGN_KEY.test(before)) || /\b(?:public|publishable)\b[\w\s-]{0,20}$/i.test(before))) continue
      if (!marker && COMPOUND_AFTER.test(rest)) continue
      // "pass" is a verb too: it gives a value after ":" / "=", or right before a long password-like one.
      if (
        /^pass$/i.test(word) &&
        !/^[:=：]$/.test(marker) &&
        !(marker === '' && /^\s+\S{6,}/.test(rest) && strongPassword(cleanValue(rest.trim().split(/\s+/)[0]!)))
      )
        continue
      if (/^to$/i.test(marker) && !VERB_TO.test(text.slice(0, end))) continue
      yield* valueAt(kind, rest.replace(FILLER, ''), marker, word)
    }
  }
}

function* valueAt(kind: Kind, rest: string, marker: string, word: string): Generator<Found> {
  const quotedMatch = /^["'“‘「`]([^"'”’」`]{1,80})["'”’」`]/.exec(rest)
  if (quotedMatch) {
    yield { kind, word, value: quotedMatch[1]!, quoted: true, marker, after: rest.slice(quotedMatch[0].length) }
    return
  }
  const m = /^\s*(\S+)/.exec(rest)
  if (!m) return
  const raw = m[1]!
  // A multi-word phrase after a colon ("recovery phrase: witch collapse practice …").
  if (kind === 'phrase' || (/^pass\s*phrase/i.test(word) && /^[:=：]$/.test(marker))) {
    const words = rest.trim().split(/[\s,]+/)
    if (/^[:=：]$/.test(marker) && words.length >= 3 && words.slice(0, 3).every((w) => /^\p{Ll}+$/u.test(w) && !FUNCTION_WORDS.has(w))) {
      yield { kind: 'phrase', word, value: words.join(' '), quoted: true, marker, after: '' }
      return
    }
  }
  yield { kind, word, value: cleanValue(raw), quoted: false, marker, after: rest.slice(m[0].length) }
}

/** Does the value given after a credential word of `kind` look like one? */
function gives(f: Found, text: string): boolean {
  if (UNIT_AFTER.test(f.after) && /^\d+$/.test(f.value)) return false
  // A hex string in an entry about a commit or hash is that hash ("the commit that fixed auth is 0c1d…").
  if (f.kind !== 'key' && /^[0-9a-f]{7,}$/i.test(f.value) && HASH_CONTEXT.test(text)) return false
  const bare = f.marker === '' || /^[-–—→]$/.test(f.marker)
  switch (f.kind) {
    case 'password':
      if (/^(?:auth|creds|credentials)$/i.test(f.word)) return strongPassword(f.value) || (f.quoted && f.value.length >= 4)
      return bare ? strongPassword(f.value) || (/^\d{4,}$/.test(f.value) && f.marker !== '') : givenPassword(f.value, f.quoted, /^[:=：]$/.test(f.marker))
    case 'code':
      return codeLike(f.value)
    case 'key':
      return keyLike(f.value) || (f.quoted && f.value.length >= 8)
    case 'phrase':
      return f.quoted ? f.value.split(/\s+/).length >= 3 : keyLike(f.value) || strongPassword(f.value)
  }
}

// ── Chinese ───────────────────────────────────────────────────────────────────────────────────

const ZH_WORDS: readonly [Kind, string][] = [
  ['phrase', '助记词|恢复短语'],
  ['key', '密钥|秘钥|私钥|令牌|加签密钥|访问令牌|访问密钥'],
  ['code', '验证码|校验码|动态码|动态口令|短信码|安全码|取件码|取货码|提货码|提取码|门禁码|开锁码|激活码|PIN\\s*码|pin\\s*码'],
  ['password', '密码|口令|授权码|专用密码'],
]
const ZH_MARKER = '(?:是|为|：|:|=|改成了?|改为|换成了?|设成|设为|设置为|设置成|配成了?|就是|都是|一律是|叫|变成了?|更新为|重置为|改回)'
const HAN = String.raw`[\p{Script=Han}]`

/** Each kind's Chinese words, a few Han characters, an optional marker, then an ASCII value (compiled once). */
const ZH_GIVEN: readonly [Kind, RegExp][] = ZH_WORDS.map(([kind, words]) => [
  kind,
  new RegExp(String.raw`(?:${words})(${HAN}{0,6}?)(${ZH_MARKER})?(${HAN}{0,4}?)\s*(["'“‘「]?)([!-~]+)`, 'gu'),
])

function* zhWords(text: string): Generator<Found> {
  for (const [kind, re] of ZH_GIVEN) {
    for (const m of text.matchAll(re)) {
      // `口令` inside `动态口令`, `密码` inside `密码学`: the longer word decides.
      if (kind === 'password' && /^学/.test(m[1] ?? '')) continue
      const between = m[1] ?? ''
      const marker = m[2] ?? ''
      const value = cleanValue(m[5]!)
      const after = text.slice(m.index + m[0].length)
      if (/^\d+$/.test(value) && UNIT_AFTER.test(after)) continue
      if ((structural(value) && !/^[a-z]{4}(?:-[a-z]{4}){3}$/.test(value)) || /^v?\d+(?:\.\d+)+$/.test(value)) continue
      const quoted = m[4] !== ''
      if (zhGives(kind, value, { given: marker !== '' || quoted, between })) yield { kind, word: m[0], value, quoted, marker, after }
    }
  }
}

/**
 * After a Chinese credential word: a code or key of its shape; a password after a giving marker
 * (`是`, `：`, `改成` …) is any ASCII token of 3+ characters; without one it must look like a password.
 */
function zhGives(kind: Kind, value: string, at: { given: boolean; between: string }): boolean {
  if (kind === 'code') return codeLike(value)
  if (kind === 'key') return keyLike(value)
  if (kind === 'phrase') return value.length >= 3
  if (at.given) return value.length >= 3 && !NOT_A_VALUE.has(value.toLowerCase())
  return at.between === '' ? strongPassword(value) || /^\d{4,}#?$/.test(value) : strongPassword(value) && /\d/.test(value)
}

// ── login pairs, "use X as my password" ───────────────────────────────────────────────────────

const LOGIN_CONTEXT = /\b(?:log\s?in|logins|sign[- ]?in|creds|credentials|user(?:name)?|account|admin|router|panel)\b|账号|帐号|账户|登录|登陆|用户名|后台/i
const COMMON_WORDS = new Set('read write execute yes no on off true false allow deny in out up down input output and or none all any'.split(' '))
const LOGIN_PAIR = /(?:^|[\s:：(（,，])([A-Za-z][\w.@-]{1,40})\s+\/\s+(\S{3,64})/g
const USES_AS = /\b(?:use[sd]?|using|tried)\s+["'“‘`]?(\S+?)["'”’`]?\s+(?:as|for)\s+(?:[\w'-]+\s+){0,4}?(?:password|passphrase|passcode|pin|login|sign-?in)\b/i
const ZH_USES_AS = /(?:用|拿|以)\s*["'“‘「]?([!-~]{3,})["'”’」]?\s*(?:当作|当成|当|作为|做)[^，。；！？\s]{0,10}?(?:密码|口令)/
const HASH_CONTEXT = /\b(?:commit|sha\d*|hash|checksum|digest|revision|rev|md5)\b|提交|哈希|校验和|摘要/i
/** `DB_PASSWORD=…`, `OPENAI_API_KEY=…`: a value assigned to a credential-named variable. */
const ASSIGNED = /\b[A-Z][A-Z0-9]*_?(?:PASSWORD|PASSWD|PASS|PWD|SECRET|TOKEN|API_?KEY|ACCESS_?KEY|PRIVATE_?KEY|SECRET_?KEY|AUTH)\b(?:=|\s*:\s+)["']?([^\s"']+)/
/** "the safe opens with 3-19-27". */
const OPENS_WITH = /\b(?:opens?|unlocks?|unlock\s+it|disarms?)\s+with\s+(?:code\s+|pin\s+)?([\dA-Za-z#-]+)/i
/** "the password changed yesterday; it is now pg-Stg-0611": the value given a clause later. */
const GIVEN_LATER =
  /\b(?:pass(?:word|phrase|code)|pin|pwd)\b[^.!?\n]{0,60}?\b(?:it(?:'s|\s+is|\s+was)(?:\s+now)?|now\s+it(?:'s|\s+is)|the\s+new\s+one\s+is)\s+["'“‘`]?([^\s"'”’`]+)/i
const ENCRYPTED_WITH = /\b(?:encrypted|protected|locked|secured)\s+(?:with|by|using)\s+(?:the\s+)?(?:password\s+|passphrase\s+|key\s+)?["'“‘`]?([^\s"'”’`]+)/i

function loginPair(text: string): boolean {
  for (const m of text.matchAll(LOGIN_PAIR)) {
    const user = m[1]!
    const pw = cleanValue(m[2]!)
    if (/^[a-z][a-z0-9+.-]*:\/\//i.test(user) || structural(pw) || /^\d+$/.test(user)) continue
    if (strongPassword(pw)) return true
    if (LOGIN_CONTEXT.test(text) && /^[!-~]{3,}$/.test(pw) && !COMMON_WORDS.has(pw.toLowerCase()) && !NOT_A_VALUE.has(pw.toLowerCase())) return true
  }
  return false
}

// ── numbers with checksums ────────────────────────────────────────────────────────────────────

function luhn(digits: string): boolean {
  let sum = 0
  for (let i = 0; i < digits.length; i++) {
    let d = Number(digits[digits.length - 1 - i])
    if (i % 2 === 1) {
      d *= 2
      if (d > 9) d -= 9
    }
    sum += d
  }
  return sum % 10 === 0
}

/** Issuer prefixes of payment cards (Visa, Mastercard, Amex, Discover, UnionPay, JCB, Diners, Maestro). */
const CARD_PREFIX = /^(?:4|5[1-5]|2(?:2[2-9]|[3-6]\d|7[01]|720)|3[47]|6(?:011|5|4[4-9]|2)|35(?:2[89]|[3-8])|3(?:0[0-5]|[68])|5[06-9]|6[37])/

const CN_ID = /(?<![\dA-Za-z])([1-8]\d{5}(?:19|20)\d{2}(?:0[1-9]|1[0-2])(?:0[1-9]|[12]\d|3[01])\d{3}[\dXx])(?![\dA-Za-z])/g
const CN_ID_WEIGHTS = [7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2]

function cnIdValid(id: string): boolean {
  let sum = 0
  for (let i = 0; i < 17; i++) sum += Number(id[i]) * CN_ID_WEIGHTS[i]!
  return '10X98765432'[sum % 11] === id[17]!.toUpperCase()
}

function ibanValid(raw: string): boolean {
  const s = raw.replace(/\s/g, '').toUpperCase()
  if (!/^[A-Z]{2}\d{2}[A-Z0-9]{11,30}$/.test(s)) return false
  const moved = s.slice(4) + s.slice(0, 4)
  let rem = 0
  for (const ch of moved) {
    const n = /\d/.test(ch) ? ch : String(ch.charCodeAt(0) - 55)
    for (const d of n) rem = (rem * 10 + Number(d)) % 97
  }
  return rem === 1
}

const ACCOUNT_CONTEXT =
  /\b(?:card|cards|account\s+(?:number|no\.?|#)|bank\s+account|acct|iban|routing(?:\s+number)?|sort\s+code|pay(?:ment)?\s+to|wire\s+to|transfer\s+to|refund\s+(?:goes\s+)?to)\b|银行卡|信用卡|储蓄卡|工资卡|借记卡|卡号|银行账号|开户行?账号|收款账号|对公账户|转账|汇款/i
const ID_WORDS =
  /\b(?:ssn|sin|nhs\s+number|aadhaa?r|national\s+insurance|nino|medicare|resident\s+registration|citizen\s+id|voter\s+id|pan\s+card|social\s+security|passport|driver'?s\s+licen[cs]e|licen[cs]e\s+(?:no|number)|tax\s+(?:id|number)|national\s+id|id\s+card)\b|身份证|护照|社保|社会保障号?码?|医保|税号|纳税人识别号|统一社会信用代码|驾照|驾驶证/i
const SSN = /(?<![\d-])(?!000|666|9\d\d)\d{3}-(?!00)\d{2}-(?!0000)\d{4}(?![\d-])/
const IBAN = /\b[A-Z]{2}\d{2}(?:\s?[A-Z0-9]{4}){2,7}(?:\s?[A-Z0-9]{1,4})?\b/g

function numberProblem(text: string): string | undefined {
  for (const m of text.matchAll(CN_ID)) if (cnIdValid(m[1]!)) return 'it looks like an ID number'
  if (SSN.test(text)) return 'it looks like an ID number'
  for (const m of text.matchAll(IBAN)) if (ibanValid(m[0])) return 'it looks like a bank account number (IBAN)'
  const account = ACCOUNT_CONTEXT.test(text)
  for (const m of text.matchAll(/(?<![\dA-Za-z.:/-])\d(?:[ -]?\d){7,22}(?![\dA-Za-z.:/-])/g)) {
    const digits = m[0].replace(/\D/g, '')
    if (digits.length >= 13 && digits.length <= 19 && luhn(digits) && CARD_PREFIX.test(digits)) return 'it looks like a card number'
    if (account && digits.length >= 8 && !UNIT_AFTER.test(text.slice(m.index + m[0].length))) {
      const lead = text.slice(Math.max(0, m.index - 40), m.index)
      if (ACCOUNT_CONTEXT.test(lead)) return digits.length >= 13 ? 'it looks like a card or account number' : 'it looks like an account number'
    }
  }
  const id = ID_WORDS.exec(text)
  if (id) {
    const rest = text.slice(id.index + id[0].length, id.index + id[0].length + 40)
    const value =
      /(?<![\dA-Za-z])([A-Z]{0,2}\d[\d -]{4,}[\dA-Z])(?![\dA-Za-z])|(?<![\dA-Za-z])([A-Z]\d{6,9}|[A-Z]\d{3,4}-\d{3,5}-\d{3,5}|(?=[0-9A-Z]*\d[0-9A-Z]*\d[0-9A-Z]*\d[0-9A-Z]*\d[0-9A-Z]*\d[0-9A-Z]*\d)[0-9A-Z]{15,20})(?![\dA-Za-z])/.exec(
        rest,
      )
    if (value && (value[0].replace(/\D/g, '').length >= 6 || value[2])) return 'it looks like an ID number'
  }
  return undefined
}

// ── long mixed tokens ─────────────────────────────────────────────────────────────────────────

const BENIGN_LEAD =
  /(?:\b(?:id|ids|uuid|guid|hash|sha\d*|digest|fingerprint|commit|tag|build|version|trace|request|video|sheet|spreadsheet|file|doc|document|slug|handle|etag|checksum|revision|rev|public|publishable|channel|message|order|tracking)\b[^.;!?\n]{0,12}|编号|提交|哈希|摘要|指纹|公开)[\s:：=#]*$/i

function tokenProblem(text: string): boolean {
  const publicEntry = /\bpublic\b|公开/i.test(text) && !/\b(?:private|secret)\b|私钥|密钥/i.test(text)
  for (const m of text.matchAll(/[A-Za-z0-9+/=_-]{20,}/g)) {
    const run = m[0]
    if (!(/[a-z]/.test(run) && /[A-Z]/.test(run) && /\d/.test(run))) continue
    if (publicEntry || BENIGN_LEAD.test(text.slice(Math.max(0, m.index - 40), m.index))) continue
    return true
  }
  return false
}

/** Why `text` looks like it hands over a secret, or undefined when it does not (pure). */
export function secretProblem(text: string): string | undefined {
  for (const shape of KEY_SHAPE_KINDS) if (shape.re.test(text)) return `it looks like ${shape.kind}`
  const bare = text.replace(URL_RE, ' ').replace(DATA_URI, ' ').replace(PUBLIC_SSH_KEY, ' ').replace(FINGERPRINT, ' ').replace(DATE_RE, ' ')
  for (const f of afterWords(bare)) if (gives(f, bare)) return SAYS[f.kind]
  for (const f of zhWords(bare)) return SAYS[f.kind]
  if (loginPair(bare)) return 'it looks like a login and password'
  const uses = USES_AS.exec(bare) ?? ZH_USES_AS.exec(bare)
  if (uses && strongPassword(cleanValue(uses[1]!))) return SAYS.password
  const assigned = ASSIGNED.exec(bare)
  const value = assigned ? cleanValue(assigned[1]!) : ''
  if (assigned && value.length >= 3 && !structural(value) && !NOT_A_VALUE.has(value.toLowerCase()))
    return /KEY|TOKEN|SECRET/.test(assigned[0]) ? SAYS.key : SAYS.password
  const opens = OPENS_WITH.exec(bare)
  if (opens && codeLike(cleanValue(opens[1]!))) return SAYS.code
  const later = GIVEN_LATER.exec(bare)
  if (later && strongPassword(cleanValue(later[1]!))) return SAYS.password
  const sealed = ENCRYPTED_WITH.exec(bare)
  if (sealed && strongPassword(cleanValue(sealed[1]!))) return SAYS.password
  const number = numberProblem(bare)
  if (number) return number
  if (tokenProblem(bare)) return 'it looks like an API key or token'
  return undefined
}

/**
 * The secret-like filter — does a memory entry look like it hands over a key, token, password,
 * one-time code or identity/card number? (pure)
 *
 * Owns `secretProblem(text)`: the reason (a short phrase) an entry is refused, or
 * undefined. The principle, not a word list: refuse when the text GIVES a value — a credential-
 * shaped string (known key prefixes, private-key armour, JWTs, URL credentials, high-entropy
 * blobs), or a credential word immediately followed by a giving marker ("is", ":", "=", "set to",
 * "是", "为", "：", "改成" …) and a value-like token, or an identity/card word with a long number,
 * or a long digit run on its own. Merely mentioning these words ("we use a password manager",
 * "验证码有效期是 5 分钟", "the ticket id is 4521", dates, versions) is fine.
 *
 * Deliberately does not: decide anything else about an entry (caps, topics: `caps.ts`), look up
 * saved secrets (the memory service asks `botSecrets.holdsSecret`, which knows their encodings), or try to catch
 * a secret written in words, split across entries, or encoded (see docs/limitations.md).
 */
import { KEY_SHAPES } from '../core/key-shapes.ts'

const URL = /\b[a-z][a-z0-9+.-]*:\/\/\S+/gi
const DATE = /\b\d{4}[-/.]\d{1,2}[-/.]\d{1,2}\b|\b\d{1,2}[-/.]\d{1,2}[-/.]\d{4}\b|\d{4}\s*年\s*\d{1,2}\s*月(?:\s*\d{1,2}\s*[日号])?/g

/** Words that, right after "password is", mean the sentence talks ABOUT the password. */
const NOT_A_VALUE = new Set(
  `a an the this that these those it its my our your their his her not no never always only just also still now
in on at by from with without for to of into inside under stored kept saved managed handled shared sent written held synced
required needed necessary mandatory optional set changed reset rotated updated expired expiring valid invalid correct incorrect wrong
right same different strong weak long short secure insecure case-sensitive empty blank missing unknown hidden encrypted hashed
too very quite being been going supposed available generated provided given known used asked prompted
must should will can could may might is was are be
printed listed shown found located posted attached included documented displayed labelled labeled noted taped stuck
see check ask use via per same-as tbd tba n/a none unchanged`.split(/\s+/),
)

/** EN credential words whose value is a password (any word-like value counts). */
const PASSWORD_WORDS = String.raw`pass(?:word|phrase|code)s?|passwd|pwd|pw|(?:wi-?fi|network|wpa2?|router)\s+key`
/** EN words whose value is a code of digits. */
const CODE_WORDS = String.raw`pin(?:\s+(?:code|number))?|otp|one[- ]time\s+(?:code|password|pin)|(?:verification|security|confirmation|auth(?:entication)?|2fa|mfa|sms|login|door|gate|alarm|lock|safe|entry|building|garage|unlock|access|backup|recovery)\s+codes?|cvv2?|cvc|totp`
/** EN words whose value is a key (a value must look key-like). */
const KEY_WORDS = String.raw`api[\s_-]?key|secret(?:\s+key)?|client\s+secret|access\s+(?:key|token)|(?:auth|bearer|refresh|session|personal\s+access)?\s*token|private\s+key|credentials?|seed\s+phrase|recovery\s+(?:phrase|code)|mnemonic`
/** Markers that give a value: "is", "was", "set to", ":", "=" … (after an optional "for the staging db"). */
const GIVES = String.raw`(?:\s+(?:for|of|on|to)\s+[^.,;:!?\n=]{1,40}?)?(?:\s*[:=]\s*|\s+(?:has been changed to|has been set to|was changed to|was set to|is now|will be|changed to|set to|reset to|became|is|was|are)\s+)`

const PASSWORD_GIVEN = new RegExp(String.raw`\b(?:${PASSWORD_WORDS})${GIVES}["'“‘\`(]?([^\s"'”’\`)]+)`, 'gi')
const CODE_GIVEN = new RegExp(String.raw`\b(?:${CODE_WORDS})(?:${GIVES}|\s+|\s*#\s*)["'“‘\`(]?([^\s"'”’\`)]+)`, 'gi')
const KEY_GIVEN = new RegExp(String.raw`\b(?:${KEY_WORDS})${GIVES}["'“‘\`(]?([^\s"'”’\`)]+)`, 'gi')
/** An English credential word with a Chinese giving marker: "AccessKey Secret 是 …", "WiFi password 为 …". */
const EN_WORD_ZH_GIVES = new RegExp(
  String.raw`\b(?:${PASSWORD_WORDS}|${KEY_WORDS}|access\s*key(?:\s+secret)?)\s*(?:是|为|：|改成|改为|设为|设置为|就是)\s*["'“‘「]?([!-~]{3,})`,
  'i',
)
/** A credential word followed straight by a password-like value: "the password hunter2", "Password - Summer2024!". */
const PASSWORD_BARE = new RegExp(String.raw`\b(?:${PASSWORD_WORDS})\s*[-–—]?\s+["'“‘\`]?([^\s"'”’\`]+)`, 'gi')
/** "pass: …" / "pass=…" (only with a colon or equals sign: "pass" is an ordinary verb). */
const PASS_COLON = /\bpass\s*[:=]\s*(\S{3,})/i
/** "the code (to the safe / for the door) is 3390"; zip, error, status … codes are not secrets. */
const CODE_IS =
  /(?<!\b(?:zip|postal|post|area|country|error|status|exit|return|product|promo|discount|source|http|response|reason|exception|language|currency|airport|color|colour|bar|qr|build|version|release|project|course|class|sku|item|tax|ticket|order|invoice|branch|dial|region|station|post)[\s-])\bcode(?:\s+(?:to|for|of)\s+[^.,;:!?\n]{1,30}?)?\s+(?:is|was|:)\s*(\d{4,})\b(?!\s+\p{L})/iu
const USES_AS = new RegExp(
  String.raw`\b(?:use[sd]?|using)\s+["'“‘\`]?(\S+?)["'”’\`]?\s+as\s+(?:the\s+|my\s+|our\s+|his\s+|her\s+|their\s+|a\s+)?(?:${PASSWORD_WORDS}|${CODE_WORDS})\b`,
  'i',
)

/** ZH credential words, a giving marker right after them, and an ASCII value. */
const ZH_WORDS = '密码|口令|密钥|秘钥|私钥|令牌|验证码|校验码|动态码|短信码|安全码|支付码|助记词|pin码|PIN码'
const ZH_GIVEN = new RegExp(String.raw`(?:${ZH_WORDS})(?:是|为|：|:|=|改成|改为|换成|设为|设成|设置为|设置成|就是|都是|一律是)\s*["'“‘「]?([!-~]{3,})`, 'i')
const ZH_CODE_DIGITS = /(?:验证码|校验码|动态码|短信码|安全码|门禁码|开锁码|取件码|取货码|提货码|授权码|激活码)\s*[:：]?\s*\d{3,}/
/** A credential word followed directly by an ASCII value with a digit in it ("账户密码 Abc@2024"). */
const ZH_BARE = new RegExp(String.raw`(?:${ZH_WORDS})\s*([!-~]*\d[!-~]*)`, 'i')
const ZH_USES_AS = /(?:用|拿|以)\s*["'“‘「]?([!-~]{3,})["'”’」]?\s*(?:当|做|作为|当作)(?:登录|开机|支付|管理员)?(?:密码|口令)/

/** Identity, tax and card words followed (closely) by a long number. */
const ID_WORDS = String.raw`ssn|sin|nhs\s+number|aadhaa?r(?:\s+(?:number|no\.?))?|national\s+insurance(?:\s+number)?|nino|medicare(?:\s+number)?|health\s+(?:card|insurance)\s+number|resident\s+registration\s+number|personal\s+id(?:entity)?\s+number|citizen\s+id|voter\s+id|pan\s+card|social\s+security(?:\s+(?:number|no\.?))?|passport(?:\s+(?:number|no\.?))?|driver'?s\s+licen[cs]e(?:\s+(?:number|no\.?))?|tax\s+(?:id|number)|national\s+id|id\s+(?:card|number)|(?:credit|debit|bank)\s+card(?:\s+number)?|card\s+number|account\s+number|iban|routing\s+number|bank\s+account`
const ID_GIVEN = new RegExp(String.raw`\b(?:${ID_WORDS})[^;!?\n\d]{0,25}?([A-Z]{0,2}\d[\d -]{4,}\d)`, 'i')
const ZH_ID_GIVEN =
  /(?:身份证|护照|社保|医保|税号|纳税人识别号|驾照|驾驶证|银行卡|信用卡|储蓄卡|卡号|账号|帐号)[^。；！？\n\d]{0,12}?([A-Z]{0,2}\d[\d -]{4,}\d)/i
const SSN = /\b\d{3}-\d{2}-\d{4}\b/
const CN_ID = /(?<!\d)\d{17}[\dXx](?!\d)/
const IBAN = /\b[A-Z]{2}\d{2}(?:\s?[A-Z0-9]{4}){3,7}(?:\s?[A-Z0-9]{1,4})?\b/

/** Hex that is a commit, hash or checksum by its own words. */
const HASH_CONTEXT = /\b(?:commit|sha(?:-?\d+)?|hash|checksum|digest|revision|rev|md5)\b|提交|哈希|校验和/i

function long(value: string): boolean {
  return value.length >= 3
}

function valueLike(raw: string): string | undefined {
  const value = raw.replace(/[.,;:!?。，；！？)]+$/u, '')
  if (!value || NOT_A_VALUE.has(value.toLowerCase())) return undefined
  return value
}

function keyLike(value: string): boolean {
  return (value.length >= 8 && /\d/.test(value) && /[A-Za-z]/.test(value)) || (value.length >= 16 && /^[\w+/=.-]+$/.test(value))
}

/** The longest run of digits, reading through single spaces or hyphens between digit groups of 3+. */
function longestDigitRun(text: string): number {
  let best = 0
  for (const m of text.matchAll(/(?<![A-Za-z0-9])\d+(?:[ -]\d{3,})*(?![A-Za-z])/g)) best = Math.max(best, m[0].replace(/\D/g, '').length)
  return best
}

/** Why `text` looks like it gives a secret, or undefined when it does not (pure). */
export function secretProblem(text: string): string | undefined {
  for (const shape of KEY_SHAPES) if (shape.test(text)) return 'it looks like a key, token or credential'
  const bare = text.replace(URL, ' ').replace(DATE, ' ')
  for (const m of bare.matchAll(/[A-Za-z0-9+=_-]{24,}|[A-Za-z0-9+/=]{40,}/g)) {
    const run = m[0]
    if (/[a-z]/.test(run) && /[A-Z]/.test(run) && /\d/.test(run)) return 'it looks like a key or token'
  }
  if (!HASH_CONTEXT.test(bare) && /(?<![0-9a-f])[0-9a-f]{32,}(?![0-9a-f])/i.test(bare)) return 'it looks like a key or token'
  for (const m of bare.matchAll(PASSWORD_GIVEN)) {
    const value = valueLike(m[1] ?? '')
    if (value && long(value)) return 'it gives a password'
  }
  for (const m of bare.matchAll(CODE_GIVEN)) {
    const value = valueLike(m[1] ?? '')
    if (value && /^\S*\d{3,}\S*$/.test(value)) return 'it gives a PIN or one-time code'
  }
  for (const m of bare.matchAll(KEY_GIVEN)) {
    const value = valueLike(m[1] ?? '')
    if (value && keyLike(value)) return 'it gives a key or token'
  }
  for (const m of bare.matchAll(PASSWORD_BARE)) {
    const value = (m[1] ?? '').replace(/[.,;!?。，；！？)]+$/u, '')
    if (NOT_A_VALUE.has(value.toLowerCase())) continue
    if (
      (value.length >= 4 && /\d/.test(value) && /\p{L}/u.test(value)) ||
      /^\d{4,}$/.test(value) ||
      (value.length >= 6 && /[^\p{L}\p{N}]/u.test(value) && /[\p{L}\p{N}]/u.test(value) && !/^[\p{L}-]+$/u.test(value))
    )
      return 'it gives a password'
  }
  if (PASS_COLON.test(bare) || EN_WORD_ZH_GIVES.test(bare)) return 'it gives a password or key'
  if (CODE_IS.test(bare)) return 'it gives a PIN or one-time code'
  const usesAs = USES_AS.exec(bare)
  if (usesAs && valueLike(usesAs[1] ?? '')) return 'it gives a password'
  const zhBare = ZH_BARE.exec(bare)
  if (ZH_GIVEN.test(bare) || ZH_USES_AS.test(bare) || (zhBare && (zhBare[1] ?? '').length >= 4)) return 'it gives a password or key'
  if (ZH_CODE_DIGITS.test(bare)) return 'it gives a one-time code'
  if (SSN.test(bare) || CN_ID.test(bare)) return 'it gives an ID number'
  const id = ID_GIVEN.exec(bare) ?? ZH_ID_GIVEN.exec(bare)
  if (id && (id[1] ?? '').replace(/\D/g, '').length >= 6) return 'it gives an ID, account or card number'
  if (IBAN.test(bare)) return 'it gives an account number'
  if (longestDigitRun(bare) >= 14) return 'it holds a long digit run (a card, account or ID number?)'
  return undefined
}

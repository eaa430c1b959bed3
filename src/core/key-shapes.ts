/**
 * Known credential shapes (pure): provider key prefixes, private-key armour, JWTs, URL credentials,
 * auth headers and tokens in query strings. The memory filter refuses an entry holding one; the
 * diagnostics scrubber redacts them. Deliberately narrow: shapes only, no judgement of context.
 */

/** Known credential shapes: provider key prefixes, key armour, JWTs, URL credentials, auth headers. */
export const KEY_SHAPES: readonly RegExp[] = [
  /\bsk-(?:proj-|ant-|live-)?[A-Za-z0-9_-]{16,}/,
  /\b[rsp]k_(?:live|test)_[A-Za-z0-9]{10,}/,
  /\bgh[pousr]_[A-Za-z0-9]{20,}/,
  /\bgithub_pat_[A-Za-z0-9_]{20,}/,
  /\bglpat-[A-Za-z0-9_-]{16,}/,
  /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/,
  /\bxox[abposr]-[A-Za-z0-9-]{10,}/,
  /\bAIza[0-9A-Za-z_-]{30,}/,
  /\bhf_[A-Za-z0-9]{30,}/,
  /\bnpm_[A-Za-z0-9]{30,}/,
  /-----BEGIN [A-Z ]*PRIVATE KEY-----/,
  /\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{4,}/,
  /[a-z][a-z0-9+.-]*:\/\/[^\s/:@]+:[^\s/@]+@/i,
  /\b(?:bearer|basic)\s+[A-Za-z0-9._~+/=-]{16,}/i,
  /[?&](?:access_token|token|api_?key|key|secret|sig|signature|password|pwd)=[^&\s]{8,}/i,
  /hooks\.slack\.com\/services\/[A-Za-z0-9/]{20,}/,
  /discord(?:app)?\.com\/api\/webhooks\/\d+\/[\w-]{20,}/,
]

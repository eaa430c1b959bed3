/**
 * Known credential shapes (pure): vendor key and token prefixes, private-key armour, JWTs, URL and
 * command-line credentials, auth headers, tokens in query strings, webhook URLs. Each shape names
 * what it is, so the memory filter's refusal can say so; the diagnostics scrubber redacts every
 * one. Deliberately narrow: shapes only, no judgement of context (a publishable key, a public
 * key or a fingerprint is no credential and has no shape here).
 */

export type KeyShapeKind = 'an API key or token' | 'a private key' | 'a password in a URL or command'

export interface KeyShape {
  kind: KeyShapeKind
  re: RegExp
}

const token = (re: RegExp): KeyShape => ({ kind: 'an API key or token', re })

/** Known credential shapes, each with what it is. */
export const KEY_SHAPE_KINDS: readonly KeyShape[] = [
  // model providers (OpenAI, DeepSeek, Anthropic, …) and payment APIs
  token(/\bsk-(?:proj-|ant-(?:api\d+-)?|live-)?[A-Za-z0-9_-]{20,}/),
  token(/\b[rs]k_(?:live|test)_[A-Za-z0-9]{10,}/),
  token(/\bsq0(?:atp|csp)-[A-Za-z0-9_-]{16,}/),
  token(/\bwhsec_[A-Za-z0-9]{20,}/),
  // code hosting, registries, containers
  token(/\bgh[pousr]_[A-Za-z0-9]{20,}/),
  token(/\bgithub_pat_[A-Za-z0-9_]{20,}/),
  token(/\bglpat-[A-Za-z0-9_-]{16,}/),
  token(/\bnpm_[A-Za-z0-9]{30,}/),
  token(/\bpypi-AgE[A-Za-z0-9_-]{30,}/),
  token(/\bdckr_pat_[A-Za-z0-9_-]{20,}/),
  token(/\bhf_[A-Za-z0-9]{30,}/),
  token(/\bdop_v1_[a-f0-9]{64}\b/),
  // clouds (AWS, Google, Azure, Alibaba, Tencent)
  token(/\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/),
  token(/\bAIza[0-9A-Za-z_-]{30,}/),
  token(/\bGOCSPX-[A-Za-z0-9_-]{20,}/),
  token(/\bAccountKey=[A-Za-z0-9+/]{20,}={0,2}/),
  token(/\bLTAI[A-Za-z0-9]{12,}/),
  token(/\bAKID[A-Za-z0-9]{24,}/),
  // chat, mail, work tools
  token(/\bxox[abposr]-[A-Za-z0-9-]{10,}/),
  token(/\b\d{8,10}:AA[A-Za-z0-9_-]{30,}/),
  token(/\b[MN][A-Za-z0-9]{23,25}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,}/),
  token(/\bSG\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{20,}/),
  token(/\bkey-[0-9a-z]{32}\b/),
  token(/\bshp(?:at|ss|ca|pa)_[0-9a-fA-F]{32}\b/),
  token(/\bATATT[A-Za-z0-9_=-]{30,}/),
  token(/\bsecret_[A-Za-z0-9]{40,}/),
  token(/\blin_api_[A-Za-z0-9]{30,}/),
  token(/\bfigd_[A-Za-z0-9_-]{30,}/),
  token(/\bsntrys_[A-Za-z0-9_=-]{40,}/),
  token(/\bSEC[0-9a-f]{60,}\b/),
  token(/\bAGE-SECRET-KEY-1[0-9A-Z]{50,}/),
  token(/hooks\.slack\.com\/services\/[A-Za-z0-9/]{20,}/),
  token(/discord(?:app)?\.com\/api\/webhooks\/\d+\/[\w-]{20,}/),
  // signed tokens and auth headers
  token(/\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{4,}/),
  token(/\b(?:bearer|basic)\s+[A-Za-z0-9._~+/=-]{16,}/i),
  token(/[?&](?:access_token|token|api_?key|key|secret|sig|signature|password|pwd)=[^&\s]{8,}/i),
  { kind: 'a private key', re: /-----BEGIN [A-Z ]*PRIVATE KEY-----/ },
  { kind: 'a password in a URL or command', re: /[a-z][a-z0-9+.-]*:\/\/[^\s/:@]+:[^\s/@]+@/i },
  { kind: 'a password in a URL or command', re: /(?:^|\s)(?:-u|--user)\s+[^\s:]+:\S{3,}/ },
]

/** The shapes alone (the diagnostics scrubber redacts every match). */
export const KEY_SHAPES: readonly RegExp[] = KEY_SHAPE_KINDS.map((s) => s.re)

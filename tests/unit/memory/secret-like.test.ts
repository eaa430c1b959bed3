// The secret-like filter on a labelled set (English and Chinese): secret-like entries refused,
// ordinary look-alikes accepted. Prints both rates; the goal is ≥ 95 % and ≤ 2 %.
import { describe, expect, it } from 'vitest'
import { secretProblem } from '../../../src/memory/secret-like.ts'

const SECRET_LIKE: readonly string[] = [
  // key and token shapes
  'OpenAI key: sk-proj-4fJx9Qw2LmZt8RbVn3KcYp7H',
  'use sk-abcdefghijklmnop1234 for the staging account',
  'Stripe live key sk_live_51HxQ2eKf8s9T3aBc',
  'GitHub token ghp_aB3dE5fG7hI9jK1lM3nO5pQ7rS9tU1vW3xY5',
  'fine-grained PAT github_pat_11ABCDEFG0123456789_abcdefghijkl',
  'GitLab: glpat-Xy12zAb34Cd56Ef78Gh9',
  'AWS access key AKIAIOSFODNN7EXAMPLE',
  'slack bot token xoxb-123456789012-abcdefABCDEF',
  'Maps key AIzaSyD3f8Gh2kLmN0pQrStUvWxYz1234567890',
  'HF token hf_AbCdEfGhIjKlMnOpQrStUvWxYz12345678',
  '-----BEGIN OPENSSH PRIVATE KEY----- b3BlbnNzaC1rZXktdjEAAAAA',
  '-----BEGIN RSA PRIVATE KEY----- MIIEpAIBAAKCAQEA',
  'session jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U',
  'db is postgres://admin:S3cretPass@db.internal:5432/app',
  'call the API with Authorization: Bearer 9f8e7d6c5b4a3f2e1d0c9b8a7f6e5d4c',
  'webhook https://hooks.example.com/in?token=Zx81kQp02mNa77Lw',
  'the signing secret is 7Hc9Kd2Lq8Wm4Rt6Yp1Zx3Vb',
  'api key = 3a9f1c2e8b7d4f6a0c5e9b1d2f8a7c6e',
  'deploy key QmFzZTY0S2V5V2l0aE1peGVkQ2FzZTEyMzQ1Ng==',
  'the token is abc123xyz789def456',
  'client secret: K8s_9dLmQ2xR7vT4',
  'the access token was Yt5Kq9Lm2Xn8Rb4W',
  'the API key for the weather service is wx_20398475ab',
  'our recovery phrase is 9-ribbon-galaxy-otter-42',
  'refresh token: rT_8f7e6d5c4b3a2910',
  'store this: 0f1e2d3c4b5a69788796a5b4c3d2e1f0',
  // passwords and codes given
  'the password is hunter2',
  'The wifi password is sunshine42',
  'my Gmail password: Tr0ub4dor&3',
  'password=correcthorsebattery',
  'root password set to P@ssw0rd!',
  'The admin password was changed to qwerty2024',
  'pwd: letmein99',
  'the password for the staging db is Xk92!mq',
  'passphrase is "purple monkey dishwasher"',
  'he uses dragon77 as his password',
  'My PIN is 4821',
  'PIN code: 0937',
  'OTP 558213',
  'the one-time code is 771204',
  'verification code: 339104',
  'your 2FA code is 882731',
  'card CVV 417',
  'security code is 902',
  // identity and card numbers
  'SSN 123-45-6789',
  'my social security number is 078-05-1120',
  'passport number E12345678',
  'her passport no. is G98765432',
  "driver's license number D1234-56789-01234",
  'tax id 912345678',
  'credit card 4111 1111 1111 1111',
  'card number 5500-0000-0000-0004',
  'bank account 6222021234567890123',
  'IBAN DE89 3704 0044 0532 0130 00',
  'pay to 6217003810026896',
  'routing number 021000021',
  // Chinese
  '我的密码是 abc12345',
  'WiFi 密码：sunshine88',
  '服务器密码改成 Qw3rty!@#',
  '数据库口令为 db_pass_2024',
  '验证码 482913',
  '短信验证码：660275',
  '我用 dragon77 当密码',
  '支付密码设为 880122',
  '身份证号 110101199003074512',
  '护照号码 E12345678',
  '银行卡号 6222 0212 3456 7890 123',
  '社保卡号：12345678901',
  '密钥是 sk-1234567890abcdefghij',
  'API 令牌为 a8Kd92Lm3Qx7',
  '信用卡号 4111111111111111',
  '助记词是 apple-banana-7',
  '税号 91310000MA1FL8XQ30',
]

const ORDINARY: readonly string[] = [
  'The user prefers tabs over spaces',
  'We use a password manager (1Password) for shared logins',
  'The password policy requires at least 12 characters',
  'the password is stored in the team vault',
  'The admin password is managed by IT; ask them',
  'Passwords must be rotated every 90 days',
  'the ticket id is 4521',
  'Release 2.14.3 ships on 2026-12-01',
  'Node 22.11.0 is the minimum version',
  'The meeting moved to 12/03/2026 at 15:00',
  'Rotate API keys every 90 days',
  'The API key is in the .env file, never in the repo',
  'Tokens expire after 3600 seconds',
  'the token is valid for one hour',
  'the secret is to keep functions small',
  'Use the staging API at https://staging.example.com/api/v2/items?page=2',
  'Docs live at https://github.com/deepseek-ai/deepseek-harness/blob/main/README.md',
  'Postgres runs on port 5432 on host db.internal',
  'The office wifi is called Guest-5G',
  'Verification codes arrive by SMS within a minute',
  'the verification code expires in 5 minutes',
  'PIN the numpy version to 1.26.4',
  'Error code 404 means the bot was deleted',
  'HTTP status code is 200 on success',
  'Commit 3f9a2b7c1d4e5f60718293a4b5c6d7e8f9012345 fixed the crash',
  'the sha256 checksum is e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
  'Request id 550e8400-e29b-41d4-a716-446655440000 failed',
  'Her phone is +1 415 555 0134',
  'The budget is 12,000 USD for Q3',
  'Invoices are numbered INV-2024-0042',
  'Passport renewals take six weeks',
  'The passport expires on 2027-05-01',
  'Keep SSNs out of the logs',
  'Card payments go through Stripe',
  'the card ending in 4242 is the test card',
  'Use sk- prefixed keys only from the vault',
  'One-time codes are sent by email',
  'He forgot his password twice this week',
  'Never paste private keys into chat',
  'JWTs are signed with RS256',
  'The CI job id is 918273',
  'Build 20261130 passed',
  'The user is based in Berlin (UTC+1)',
  'Answer in short paragraphs, no bullet lists',
  'useEffect cleanup must cancel the fetch',
  'Tests run with vitest --project unit',
  'The credential helper is osxkeychain',
  'the password reset link is sent to the user',
  'Access tokens are refreshed by the gateway',
  'We prefer pnpm over npm',
  // Chinese
  '用户喜欢简体中文回答',
  '项目用 pnpm 管理依赖',
  '工单号是 4521',
  '版本号是 3.2.1',
  '会议定在 2026-12-03 下午三点',
  '密码策略要求每 90 天更换一次',
  '不要把密码写进代码',
  '验证码有效期是 5 分钟',
  '密码是否正确由后端判断',
  '密码保存在公司的密码管理器里',
  '身份证复印件放在人事部',
  '护照办理需要两周',
  '银行卡支付走支付宝通道',
  '密钥由运维统一管理',
  '令牌过期后需要重新登录',
  '2026年12月1日上线',
  '端口是 8080',
  '用户的时区是 UTC+8',
  '报告用 Markdown 格式',
  '验证码通过短信发送',
  '他用 Vim 写代码',
  '数据库在 db.internal 上，端口 5432',
]

describe('secretProblem on the labelled set', () => {
  it(`has at least 60 labelled entries of each kind, English and Chinese`, () => {
    expect(SECRET_LIKE.length).toBeGreaterThanOrEqual(60)
    expect(ORDINARY.length).toBeGreaterThanOrEqual(60)
    const zh = (s: string) => /\p{Script=Han}/u.test(s)
    expect(SECRET_LIKE.filter(zh).length).toBeGreaterThanOrEqual(10)
    expect(ORDINARY.filter(zh).length).toBeGreaterThanOrEqual(10)
  })

  it('refuses at least 95 % of secret-like entries and at most 2 % of ordinary ones (rates printed)', () => {
    const missed = SECRET_LIKE.filter((t) => secretProblem(t) === undefined)
    const falsePositives = ORDINARY.filter((t) => secretProblem(t) !== undefined).map((t) => `${t} → ${secretProblem(t)}`)
    const refusedRate = 1 - missed.length / SECRET_LIKE.length
    const falseRate = falsePositives.length / ORDINARY.length
    console.log(`secret-like filter: refused ${(refusedRate * 100).toFixed(1)}% of ${SECRET_LIKE.length} secret-like, ${(falseRate * 100).toFixed(1)}% of ${ORDINARY.length} ordinary`)
    expect({ missed, falsePositives }).toEqual({ missed: [], falsePositives: [] })
    expect(refusedRate).toBeGreaterThanOrEqual(0.95)
    expect(falseRate).toBeLessThanOrEqual(0.02)
  })

  it('refuses an entry holding a saved secret value, whatever its shape', () => {
    expect(secretProblem('remember the phrase blue-otter', ['blue-otter'])).toMatch(/saved secret/)
    expect(secretProblem('remember the phrase blue-otter', ['green-fox'])).toBeUndefined()
  })
})

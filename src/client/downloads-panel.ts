/**
 * Two downloads a paired browser may take, for the team page and DSH Web's Team settings alike:
 * a backup of the whole team (`POST /bot-team/api/backup`, secrets only when asked) and the
 * scrubbed diagnostics log (`GET /bot-team/api/diagnostics?download=1`). An unpaired browser gets
 * the API's refusal in the line beside the button; nothing is kept on the server.
 */
import { errorText } from '../core/errors.ts'
import { button, el, fill, type Panel } from './dom.ts'
import type { Translate } from './i18n.ts'
import { downloadApi } from './team-client.ts'

function save(blob: Blob, name: string): void {
  const a = el('a', { attrs: { download: name } })
  a.href = URL.createObjectURL(blob)
  document.body.append(a)
  a.click()
  setTimeout(() => {
    URL.revokeObjectURL(a.href)
    a.remove()
  }, 0)
}

export function mountDownloads(root: HTMLElement, deps: { t: Translate }): Panel {
  const { t } = deps
  const secrets = el('input', { id: 'backup-secrets', attrs: { type: 'checkbox' } })
  const backupState = el('p', { id: 'backup-state', className: 'bt-hint bt-left', attrs: { role: 'status' } })
  const diagnosticsState = el('p', { id: 'diagnostics-state', className: 'bt-hint bt-left', attrs: { role: 'status' } })
  backupState.hidden = diagnosticsState.hidden = true
  const run = async (line: HTMLElement, work: () => Promise<{ blob: Blob; fileName?: string }>, fallbackName: string) => {
    line.textContent = t('downloads.packing')
    line.dataset.state = 'working'
    line.hidden = false
    try {
      const { blob, fileName } = await work()
      save(blob, fileName ?? fallbackName)
      line.textContent = t('downloads.done')
      line.dataset.state = 'done'
    } catch (error) {
      line.textContent = errorText(error)
      line.dataset.state = 'error'
    }
  }
  fill(
    root,
    el(
      'div',
      { className: 'bt-panel' },
      el('div', { className: 'bt-field check' }, secrets, el('label', { text: t('downloads.secrets'), attrs: { for: 'backup-secrets' } })),
      button(t('downloads.backup'), () => void run(backupState, () => downloadApi('POST', '/backup', { secrets: secrets.checked }), 'bot-team-backup.dshbt'), {
        id: 'backup-download',
      }),
      backupState,
      button(t('downloads.diagnostics'), () => void run(diagnosticsState, () => downloadApi('GET', '/diagnostics?download=1'), 'bot-team-diagnostics.jsonl'), {
        id: 'diagnostics-download',
      }),
      diagnosticsState,
    ),
  )
  return { refresh: () => {}, dispose: () => {} }
}

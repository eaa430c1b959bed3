/**
 * Held settings in words (pure): what the person is asked to confirm — a restore's raises kept
 * lowered, the working folders set before state v4, a project held by v7 — for the roster's activity, the held list
 * the team page shows and the restore report. What is held, and why, is `store/schema.ts`.
 */
import type { HeldItem } from '../store/index.ts'

/** A held setting in words (the activity line, the restore report). */
export function heldText(item: HeldItem, nameOf: (botId: string) => string | undefined): string {
  const bot = 'botId' in item ? `Bot ${nameOf(item.botId) ?? item.botId}` : ''
  switch (item.kind) {
    case 'preset':
      return `permission preset ${item.preset} of ${bot} (workspace-write until confirmed)`
    case 'delegated-work':
      return `"accepts delegated work" of ${bot} (off until confirmed)`
    case 'work-folder':
      return `working folder ${item.folder} of ${bot} (the team workspace until confirmed)`
    case 'schedule':
      return `schedule ${item.scheduleId} (not due until confirmed)`
    case 'project':
      return `the team's project ${item.path} (branch ${item.branch}; no project tasks until the person names it again${item.problem ? `: ${item.problem}` : ''})`
  }
}

/**
 * The team page's panels inside DSH Web (all `shell.overlay`): `SecretCards`, a non-modal stack of
 * the open secret requests at the bottom right; `PairingDialog`, this browser's pairing and the
 * paired devices; `SecretsDialog`, the saved secrets with Delete. Each is the very panel the
 * `/bot-team` page draws (`dom-panel.ts`), re-read when the team stream pushes.
 */
import { useMemo, type ReactNode } from 'react'
import { DomPanel, PanelDialog } from './dom-panel.ts'
import { translator, type Lang } from './i18n.ts'
import { mountPairing } from './pairing-panel.ts'
import { mountSavedSecrets, mountSecretCards } from './secrets-panel.ts'
import { h } from './shared.ts'
import type { TeamState } from './team-client.ts'

export interface PanelDialogDeps {
  useLang: () => Lang
  useTeam: () => TeamState
  /** Which of these dialogs is open (a hook: the dialog value). */
  useShown: () => 'pairing' | 'secrets' | undefined
  /** Open this browser's pairing (from a card or a dialog that needs it). */
  pair: () => void
  close: () => void
  /** This browser was paired or unpaired: re-read what depends on it. */
  changed: () => void
}

/** What a push changes: a secret request (the stream's `secrets` count) or the team's revision. */
const pushed = (team: TeamState) => `${team.secrets ?? 0}:${team.view?.revision ?? ''}`

export function makePanelDialogs(deps: PanelDialogDeps) {
  function SecretCards(): ReactNode {
    const lang = deps.useLang()
    const team = deps.useTeam()
    const mount = useMemo(() => (root: HTMLElement) => mountSecretCards(root, { t: translator(lang), pair: deps.pair, floating: true }), [lang])
    return h(DomPanel, { mount, refreshKey: pushed(team) })
  }

  function PairingDialog(): ReactNode {
    const lang = deps.useLang()
    const shown = deps.useShown()
    const mount = useMemo(() => (root: HTMLElement) => mountPairing(root, { t: translator(lang), changed: deps.changed }), [lang])
    if (shown !== 'pairing') return null
    const t = translator(lang)
    return h(PanelDialog, { id: 'bt-pairing-dialog', title: t('pairing.title'), closeLabel: t('close'), close: deps.close }, h(DomPanel, { mount }))
  }

  function SecretsDialog(): ReactNode {
    const lang = deps.useLang()
    const shown = deps.useShown()
    const team = deps.useTeam()
    const mount = useMemo(() => (root: HTMLElement) => mountSavedSecrets(root, { t: translator(lang), pair: deps.pair }), [lang])
    if (shown !== 'secrets') return null
    const t = translator(lang)
    return h(
      PanelDialog,
      { id: 'bt-secrets-dialog', title: t('secrets.title'), closeLabel: t('close'), close: deps.close },
      h(DomPanel, { mount, refreshKey: pushed(team) }),
    )
  }

  return { SecretCards, PairingDialog, SecretsDialog }
}

/**
 * The Group dialog inside DSH Web: name, members in speaking order, admin, mode, notice, delete with
 * a reason; saves only what changed and shows the rooms service's refusal next to each field.
 * Deliberately presentation and the form's state; every check is the API's (`group-form.ts`: pure).
 */
import { useEffect, useState, type ReactNode } from 'react'
import { fieldErrors, type FieldErrors } from './field-errors.ts'
import {
  FALLBACK_LIMITS,
  formOf,
  GROUP_FIELDS,
  groupBody,
  moveMember,
  readGroups,
  withoutMember,
  type GroupDetails,
  type GroupForm,
  type GroupLimits,
} from './group-form.ts'
import type { Translate } from './i18n.ts'
import { h, useEscape } from './shared.ts'
import { callApi, pairingToken, type TeamState } from './team-client.ts'
import { errorText } from '../core/errors.ts'

export interface GroupDialogDeps {
  useT: () => Translate
  useTeam: () => TeamState
  /** The dialog's state (a hook): undefined when closed; `groupId` when editing a group. */
  useOpen: () => { groupId?: string } | undefined
  close: () => void
  /** Re-read the team once after a change (the push follows anyway). */
  refresh: () => Promise<void>
}

export function makeGroupDialog(deps: GroupDialogDeps) {
  /**
   * The body is unmounted while the dialog is closed (and remounted for another group), so each
   * opening starts from fresh state. A body kept mounted drew the previous opening's form (ready,
   * with its fields) on the first render of the next one; the reset to "loading" came from an
   * effect whose updates render a task later. Input landing in between (Playwright's next action,
   * a quick person) was then overwritten by that reset and by the `/groups` answer: a new admin
   * picked there was lost, and the pairing note never showed.
   */
  function GroupDialog(): ReactNode {
    const open = deps.useOpen()
    if (!open) return null
    return h(GroupDialogBody, { key: open.groupId ?? '', groupId: open.groupId })
  }

  function GroupDialogBody({ groupId }: { groupId?: string | undefined }): ReactNode {
    const t = deps.useT()
    const team = deps.useTeam()
    const [loaded, setLoaded] = useState<{ group?: GroupDetails; limits: GroupLimits; ready: boolean }>({ limits: FALLBACK_LIMITS, ready: !groupId })
    const [form, setForm] = useState<GroupForm>(formOf(undefined))
    const [adding, setAdding] = useState('')
    const [reason, setReason] = useState('')
    const [errors, setErrors] = useState<FieldErrors>({ fields: {} })
    const [busy, setBusy] = useState(false)
    useEffect(() => {
      let live = true
      callApi('GET', '/groups').then(
        (r) => {
          if (!live) return
          const { groups, limits } = readGroups(r)
          const group = groupId ? groups.find((g) => g.id === groupId) : undefined
          setLoaded({ ...(group ? { group } : {}), limits, ready: true })
          if (group) setForm(formOf(group))
          else if (groupId) setErrors({ fields: {}, general: t('group.gone') })
        },
        (e: unknown) => {
          if (live) {
            setLoaded((l) => ({ ...l, ready: !groupId }))
            setErrors({ fields: {}, general: errorText(e) })
          }
        },
      )
      return () => {
        live = false
      }
    }, [])
    useEscape(true, deps.close)
    const { group, limits } = loaded
    const bots = team.view?.bots ?? []
    const nameOf = (id: string) => bots.find((b) => b.id === id)?.name ?? group?.members.find((m) => m.id === id)?.name ?? id
    const run = async (work: () => Promise<unknown>) => {
      setBusy(true)
      try {
        await work()
        deps.close()
        await deps.refresh()
      } catch (error) {
        setErrors(fieldErrors(errorText(error), GROUP_FIELDS))
      } finally {
        setBusy(false)
      }
    }
    const save = () => {
      const body = groupBody(form, group)
      if (group && Object.keys(body).length === 0) return deps.close()
      return run(() => (group ? callApi('PATCH', `/groups/${encodeURIComponent(group.id)}`, body) : callApi('POST', '/groups', body)))
    }
    const remove = () => group && run(() => callApi('DELETE', `/groups/${encodeURIComponent(group.id)}`, { reason }))
    const err = (k: string) =>
      errors.fields[k] ? h('span', { className: 'bt-err', id: `bt-ge-${k}`, role: 'alert', 'data-field-error': k }, errors.fields[k]) : null
    const described = (k: string) => (errors.fields[k] ? { 'aria-invalid': 'true', 'aria-describedby': `bt-ge-${k}` } : {})
    const candidates = bots.filter((b) => !form.members.includes(b.id))
    const add = () => {
      const id = adding || candidates[0]?.id
      if (!id || form.members.includes(id)) return
      setForm({ ...form, members: [...form.members, id] })
      setAdding('')
    }
    const newAdmin = form.admin !== '' && form.admin !== (group?.admin?.id ?? '')
    const title = group ? t('group.edit', { name: group.name }) : t('group.new')
    return h(
      'div',
      {
        className: 'bt-dialog-back',
        onClick: (e: { target: unknown; currentTarget: unknown }) => {
          if (e.target === e.currentTarget) deps.close()
        },
      },
      h(
        'div',
        {
          className: 'bt-dialog',
          role: 'dialog',
          'aria-modal': 'true',
          'aria-labelledby': 'bt-group-title',
          'data-testid': 'bt-group-dialog',
          style: { width: 'min(540px,94vw)' },
        },
        h('h2', { id: 'bt-group-title' }, title),
        errors.general ? h('div', { className: 'bt-err', role: 'alert', 'data-testid': 'bt-group-general-error' }, errors.general) : null,
        !loaded.ready
          ? h('span', { className: 'bt-note' }, t('loading'))
          : h(
              'form',
              {
                onSubmit: (e: { preventDefault(): void }) => {
                  e.preventDefault()
                  void save()
                },
              },
              h(
                'div',
                { className: 'bt-field' },
                h('label', { htmlFor: 'bt-g-name' }, t('name')),
                h('input', {
                  id: 'bt-g-name',
                  name: 'name',
                  value: form.name,
                  maxLength: 200,
                  autoFocus: true,
                  onChange: (e: { target: { value: string } }) => setForm({ ...form, name: e.target.value }),
                  ...described('name'),
                }),
                err('name'),
              ),
              h(
                'fieldset',
                { className: 'bt-field bt-members', 'aria-describedby': errors.fields.members ? 'bt-ge-members' : 'bt-g-members-hint' },
                h('legend', null, t('group.members')),
                h(
                  'small',
                  { id: 'bt-g-members-hint', className: 'bt-quiet', style: { textAlign: 'left' } },
                  t('group.membersHint', { min: limits.membersMin, max: limits.membersMax }),
                ),
                form.members.length
                  ? h(
                      'ol',
                      { 'data-testid': 'bt-group-members' },
                      ...form.members.map((id, i) => {
                        const name = nameOf(id)
                        return h(
                          'li',
                          { key: id, 'data-member': name },
                          h('span', { style: { flex: 1 } }, h('span', { 'aria-hidden': 'true' }, `${i + 1}. `), name),
                          h(
                            'button',
                            {
                              type: 'button',
                              className: 'bt-btn',
                              disabled: i === 0,
                              'aria-label': t('group.moveUp', { name }),
                              title: t('group.moveUp', { name }),
                              onClick: () => setForm({ ...form, members: moveMember(form.members, i, -1) }),
                            },
                            '↑',
                          ),
                          h(
                            'button',
                            {
                              type: 'button',
                              className: 'bt-btn',
                              disabled: i === form.members.length - 1,
                              'aria-label': t('group.moveDown', { name }),
                              title: t('group.moveDown', { name }),
                              onClick: () => setForm({ ...form, members: moveMember(form.members, i, 1) }),
                            },
                            '↓',
                          ),
                          h(
                            'button',
                            {
                              type: 'button',
                              className: 'bt-btn',
                              'aria-label': t('group.remove', { name }),
                              title: t('group.remove', { name }),
                              onClick: () => setForm(withoutMember(form, id)),
                            },
                            '✕',
                          ),
                        )
                      }),
                    )
                  : null,
                candidates.length && form.members.length < limits.membersMax
                  ? h(
                      'div',
                      { className: 'bt-add' },
                      h('label', { htmlFor: 'bt-g-add', className: 'bt-sr' }, t('group.addMember')),
                      h(
                        'select',
                        { id: 'bt-g-add', value: adding || candidates[0]!.id, onChange: (e: { target: { value: string } }) => setAdding(e.target.value) },
                        ...candidates.map((b) => h('option', { value: b.id, key: b.id }, b.name)),
                      ),
                      h('button', { type: 'button', className: 'bt-btn', 'data-testid': 'bt-group-add', onClick: add }, t('group.add')),
                    )
                  : null,
                err('members'),
              ),
              h(
                'div',
                { className: 'bt-field' },
                h('label', { htmlFor: 'bt-g-admin' }, t('group.admin')),
                h(
                  'select',
                  {
                    id: 'bt-g-admin',
                    value: form.admin,
                    onChange: (e: { target: { value: string } }) => setForm({ ...form, admin: e.target.value }),
                    ...described('admin'),
                  },
                  h('option', { value: '' }, t('group.noAdmin')),
                  ...form.members.map((id) => h('option', { value: id, key: id }, nameOf(id))),
                ),
                newAdmin && !pairingToken()
                  ? h(
                      'small',
                      { className: 'bt-quiet', style: { textAlign: 'left' }, 'data-testid': 'bt-group-unpaired' },
                      t('group.adminPairing'),
                      ' ',
                      h('a', { href: '/bot-team', target: '_blank', rel: 'noopener' }, t('openStatusPage')),
                    )
                  : null,
                err('admin'),
              ),
              h(
                'div',
                { className: 'bt-field' },
                h('label', { htmlFor: 'bt-g-mode' }, t('group.mode')),
                h(
                  'select',
                  {
                    id: 'bt-g-mode',
                    value: form.mode,
                    onChange: (e: { target: { value: string } }) => setForm({ ...form, mode: e.target.value === 'everyone' ? 'everyone' : 'admin' }),
                    ...described('mode'),
                  },
                  h('option', { value: 'admin' }, t('group.modeAdmin')),
                  h('option', { value: 'everyone' }, t('group.modeEveryone')),
                ),
                // What a room costs: said where the choice that drives it is made.
                h('small', { className: 'bt-hint', 'data-testid': 'bt-group-cost' }, t(form.mode === 'everyone' ? 'group.costEveryone' : 'group.costAdmin')),
                err('mode'),
              ),
              h(
                'div',
                { className: 'bt-field' },
                h('label', { htmlFor: 'bt-g-notice' }, t('group.notice')),
                h('textarea', {
                  id: 'bt-g-notice',
                  rows: 3,
                  value: form.notice,
                  maxLength: limits.noticeMax,
                  onChange: (e: { target: { value: string } }) => setForm({ ...form, notice: e.target.value }),
                  ...described('notice'),
                }),
                h('small', { className: 'bt-quiet', style: { textAlign: 'right' } }, `${form.notice.length} / ${limits.noticeMax}`),
                err('notice'),
              ),
              h(
                'div',
                { className: 'bt-actions' },
                h('button', { type: 'button', className: 'bt-btn', onClick: () => deps.close() }, t('cancel')),
                h('button', { type: 'submit', className: 'bt-btn primary', disabled: busy, 'data-testid': 'bt-group-save' }, t('save')),
              ),
            ),
        group
          ? h(
              'div',
              { style: { marginTop: '14px', borderTop: '1px solid var(--dsw-alias-border-l2,#ccc)', paddingTop: '10px' } },
              h(
                'div',
                { className: 'bt-field' },
                h('label', { htmlFor: 'bt-g-reason' }, t('reason')),
                h('input', {
                  id: 'bt-g-reason',
                  value: reason,
                  maxLength: 500,
                  onChange: (e: { target: { value: string } }) => setReason(e.target.value),
                  ...described('reason'),
                }),
                err('reason'),
              ),
              h(
                'div',
                { className: 'bt-actions' },
                h(
                  'button',
                  { type: 'button', className: 'bt-btn danger', disabled: busy, 'data-testid': 'bt-group-delete', onClick: () => void remove() },
                  t('confirmDelete', { name: group.name }),
                ),
              ),
            )
          : null,
      ),
    )
  }
  return { GroupDialog }
}

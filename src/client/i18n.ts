/**
 * The client half's words in English and Chinese (pure). The language follows DSH Web's own locale
 * service (`ctx.get('locale')`, ids `en` / `zh`); anything else falls back to English.
 *
 * Deliberately narrow: plain lookups with `{name}` placeholders; no plural rules beyond what the
 * strings need.
 */
export const STRINGS = {
  en: {
    team: 'Bot team',
    teamSidebar: 'Team',
    showSessions: 'DSH sessions',
    showTeam: 'Bot team',
    mainBots: 'Main Bot',
    bots: 'Bots',
    groups: 'Groups',
    newBot: 'New Bot',
    editBot: 'Edit {name}',
    deleteBot: 'Delete',
    save: 'Save',
    cancel: 'Cancel',
    close: 'Close',
    name: 'Name',
    role: 'Role',
    instructions: 'Instructions',
    model: 'Model',
    preset: 'Permission preset',
    colour: 'Colour',
    shape: 'Avatar shape',
    pinned: 'Pinned',
    hidden: 'Hidden',
    reason: 'Why delete it?',
    confirmDelete: 'Delete {name}',
    unavailable: 'The team is not reachable right now. DSH Web keeps working; this list comes back by itself.',
    loading: 'Loading the team…',
    'status.idle': 'idle',
    'status.working': 'working',
    'status.queued': '{count} queued',
    'status.read-only': 'read-only',
    'status.follower': 'follower',
    messageFrom: 'Message from {name}',
    replyFrom: 'Reply from {name}',
    interruptFrom: 'Interruption from {name}',
    stopFrom: 'Stop request from {name}',
    postIn: '{name} in {group}',
    youIn: 'You in {group}',
    notice: 'Notice in {group}',
    members: '{count} members',
    openStatusPage: 'Status page',
    problems: 'Problems',
    details: 'Details',
    noGroups: 'No groups yet.',
    deliveryLog: 'Delivery log',
    allBots: 'All Bots',
    noDeliveries: 'No messages between Bots yet.',
    'log.from': 'From',
    'log.to': 'To',
    'log.kind': 'Kind',
    'log.hop': 'Hop',
    'log.time': 'Time',
    'log.outcome': 'Outcome',
  },
  zh: {
    team: 'Bot 团队',
    teamSidebar: '团队',
    showSessions: 'DSH 会话',
    showTeam: 'Bot 团队',
    mainBots: '主 Bot',
    bots: 'Bot',
    groups: '群组',
    newBot: '新建 Bot',
    editBot: '编辑 {name}',
    deleteBot: '删除',
    save: '保存',
    cancel: '取消',
    close: '关闭',
    name: '名称',
    role: '角色',
    instructions: '说明',
    model: '模型',
    preset: '权限预设',
    colour: '颜色',
    shape: '头像形状',
    pinned: '置顶',
    hidden: '隐藏',
    reason: '为什么删除？',
    confirmDelete: '删除 {name}',
    unavailable: '暂时无法连接团队。DSH Web 仍可正常使用；列表会自动恢复。',
    loading: '正在加载团队…',
    'status.idle': '空闲',
    'status.working': '工作中',
    'status.queued': '{count} 条排队',
    'status.read-only': '只读',
    'status.follower': '跟随',
    messageFrom: '来自 {name} 的消息',
    replyFrom: '来自 {name} 的回复',
    interruptFrom: '来自 {name} 的打断',
    stopFrom: '来自 {name} 的停止请求',
    postIn: '{name}（{group}）',
    youIn: '你（{group}）',
    notice: '{group} 的通知',
    members: '{count} 位成员',
    openStatusPage: '状态页',
    problems: '问题',
    details: '详情',
    noGroups: '还没有群组。',
    deliveryLog: '投递记录',
    allBots: '全部 Bot',
    noDeliveries: 'Bot 之间还没有消息。',
    'log.from': '发送方',
    'log.to': '接收方',
    'log.kind': '类型',
    'log.hop': '跳数',
    'log.time': '时间',
    'log.outcome': '结果',
  },
} as const

export type Lang = keyof typeof STRINGS
export type StringKey = keyof (typeof STRINGS)['en']

/** DSH's locale id (or a browser language tag) → one of ours. */
export function langOf(locale: string | undefined): Lang {
  return locale?.toLowerCase().startsWith('zh') ? 'zh' : 'en'
}

export type Translate = (key: StringKey, vars?: Record<string, string | number>) => string

export function translator(lang: Lang): Translate {
  return (key, vars) => {
    const text: string = STRINGS[lang][key] ?? STRINGS.en[key]
    return vars ? text.replace(/\{(\w+)\}/g, (m, k: string) => (k in vars ? String(vars[k]) : m)) : text
  }
}

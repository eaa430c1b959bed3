/**
 * The panels' way to draw: plain DOM, no framework, so one panel serves both the team page
 * (`page.ts`, a browser without DSH Web's shell) and DSH Web (mounted by `dom-panel.ts`).
 * `el` builds an element from a tag, a few props and children; text is always set as text.
 * A `Panel` is what a mount returns: `refresh()` re-reads the API, `dispose()` removes listeners.
 */
/// <reference lib="dom" />

export interface Panel {
  refresh(): void
  dispose(): void
}

type Child = Node | string | null | undefined | false
export interface Props {
  id?: string
  className?: string
  testid?: string
  text?: string
  attrs?: Record<string, string>
  on?: Record<string, (event: Event) => void>
}

export function el<K extends keyof HTMLElementTagNameMap>(tag: K, props: Props = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag)
  if (props.id) node.id = props.id
  if (props.className) node.className = props.className
  if (props.testid) node.dataset.testid = props.testid
  if (props.text !== undefined) node.textContent = props.text
  for (const [name, value] of Object.entries(props.attrs ?? {})) node.setAttribute(name, value)
  for (const [name, fn] of Object.entries(props.on ?? {})) node.addEventListener(name, fn)
  for (const child of children) if (child !== null && child !== undefined && child !== false) node.append(child)
  return node
}

/** A `<button type="button">` with its text and click handler. */
export function button(text: string, onClick: () => void, props: Props = {}): HTMLButtonElement {
  const b = el('button', { className: 'bt-btn', ...props, text, on: { click: () => onClick() } })
  b.type = 'button'
  return b
}

/** Replace everything inside `node` with `children`. */
export function fill(node: Element, ...children: Child[]): void {
  node.replaceChildren(...children.filter((c): c is Node | string => c !== null && c !== undefined && c !== false))
}

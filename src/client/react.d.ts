// The small part of React 18's API the client half uses. React comes from DSH Web's module table at
// run time (never bundled, never installed for this project), so its types are declared here
// instead of adding @types/react.
declare module 'react' {
  export type ReactNode = ReactElement | string | number | boolean | null | undefined | readonly ReactNode[]
  export interface ReactElement { type: unknown; props: unknown; key: string | null }
  export type ComponentType<P = any> = ((props: P) => ReactNode) | (new (props: P) => Component<P, any>)
  export function createElement(type: unknown, props?: Record<string, unknown> | null, ...children: ReactNode[]): ReactElement
  export const Fragment: unique symbol
  export function useState<S>(initial: S | (() => S)): [S, (next: S | ((prev: S) => S)) => void]
  export function useEffect(effect: () => void | (() => void), deps?: readonly unknown[]): void
  export function useMemo<T>(make: () => T, deps: readonly unknown[]): T
  export function useRef<T>(initial: T): { current: T }
  export function memo<P>(component: (props: P) => ReactNode): ComponentType<P>
  export function useSyncExternalStore<T>(subscribe: (listener: () => void) => () => void, getSnapshot: () => T): T
  export class Component<P = {}, S = {}> {
    constructor(props: P)
    props: Readonly<P>
    state: Readonly<S>
    setState(next: Partial<S>): void
    render(): ReactNode
  }
  export const version: string
}

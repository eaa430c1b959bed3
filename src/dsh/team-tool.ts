/**
 * The one way a team tool is defined: DSH's `defineTool`, with every argument the tool does not
 * declare dropped before its `execute` sees the call. DSH validates the declared arguments and lets
 * any others through (its parameter root is an open object), and a tool's arguments are the model's
 * words: an undeclared `hidden` or `admin` must never reach a service. Nothing else changes.
 */
import { defineTool, type DefineToolOptions, type ParameterSchemaSpec, type ToolDefinition, type ValueSchemaSpec } from '@deepseek-ai/dsh-tools'

/** The declared arguments of a call only (pure; a non-object passes as it is, DSH refused it already). */
export function declaredOnly<T>(args: T, parameters: Readonly<Record<string, unknown>>): T {
  if (args === null || typeof args !== 'object' || Array.isArray(args)) return args
  return Object.fromEntries(Object.entries(args).filter(([key]) => Object.hasOwn(parameters, key))) as T
}

export function defineTeamTool<const S extends ParameterSchemaSpec, const O extends ValueSchemaSpec>(options: DefineToolOptions<S, O>): ToolDefinition {
  // Typed at the call site (the options' own inference); defined here without re-inferring it.
  const tool = (defineTool as (options: unknown) => ToolDefinition)(options)
  const execute = tool.execute
  return { ...tool, execute: (args, exec) => execute(declaredOnly(args, options.parameters), exec) }
}

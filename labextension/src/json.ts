/**
 * Narrowing JSON that came from outside (the kernel, an MCP server, an app's frame): one check used
 * wherever such data is read, instead of `any`.
 */

/** A JSON object as parsed: its members are still unknown. */
export type JsonRecord = Record<string, unknown>;

/** Whether `value` is a plain object (not null, not an array). */
export function isObject(value: unknown): value is JsonRecord {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

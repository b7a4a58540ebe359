/**
 * The code each sidebar action writes into a new cell (pure functions, unit-tested).
 *
 * Every click leaves reproducible code in the notebook. A `%mcp` line is written when every word is
 * plain (letters, digits and `_ . - : / @ +`); the magic expands `$var` and `{expr}` and splits on
 * spaces and quotes, so any other name or URI is written as Python with string literals instead.
 * `JSON.stringify` of a string is a valid Python string literal (same escapes), whatever it holds.
 */

/** A word `%mcp` takes as it is: nothing it would expand, split, unquote or read as an option. */
const PLAIN = /^[A-Za-z0-9_./][A-Za-z0-9_.\-:/@+]*$/;

/** Python string literal of `text`. */
export function pyString(text: string): string {
  return JSON.stringify(String(text));
}

function plain(...words: string[]): boolean {
  return words.every(word => PLAIN.test(word));
}

const IMPORT = 'import mcp_jupyter as mj\n';

/** "Insert import": what makes a kernel's sidebar come alive (the package and its `%mcp` magic). */
export const IMPORT_CODE = `${IMPORT}%load_ext mcp_jupyter`;

function conn(name: string): string {
  return `mj.get_connection(${pyString(name)})`;
}

/** `%load_ext` line to put before a magic when the kernel did not say `%mcp` is registered. */
function magic(line: string, magicsLoaded: boolean | undefined): string {
  return (magicsLoaded === false ? '%load_ext mcp_jupyter\n' : '') + line;
}

/** Options shared by the code generators. */
export interface ICodeOptions {
  /** The snapshot's `magics` flag: false prepends `%load_ext mcp_jupyter` to magic lines. */
  magics?: boolean;
}

/** "Call": a form for the tool (`%mcp form NAME TOOL`). */
export function callCode(
  connection: string,
  tool: string,
  options: ICodeOptions = {}
): string {
  if (plain(connection, tool)) {
    return magic(`%mcp form ${connection} ${tool}`, options.magics);
  }
  return `${IMPORT}${conn(connection)}.tools[${pyString(tool)}].form()`;
}

/** "Read": read a resource by URI (always Python: URIs carry `?`, `&`, `{`, `$`, quotes...). */
export function readCode(connection: string, uri: string): string {
  return `${IMPORT}${conn(connection)}.read(${pyString(uri)})`;
}

/**
 * "Prompt": `%mcp prompt NAME PROMPT` for a prompt without required arguments, else the prompt's
 * form (which completes argument values as you type); `%mcp` has no prompt form of its own.
 */
export function promptCode(
  connection: string,
  prompt: string,
  args: { name: string; required?: boolean | null }[] = [],
  options: ICodeOptions = {}
): string {
  const needsArgs = args.some(arg => arg.required);
  if (!needsArgs && plain(connection, prompt)) {
    return magic(`%mcp prompt ${connection} ${prompt}`, options.magics);
  }
  return `${IMPORT}${conn(connection)}.prompts[${pyString(prompt)}].form()`;
}

/** "Connect" a server from a config file: `%mcp connect --config FILE NAME`. */
export function connectCode(
  name: string,
  source: string,
  options: ICodeOptions = {}
): string {
  if (plain(name, source)) {
    return magic(`%mcp connect --config ${source} ${name}`, options.magics);
  }
  return `${IMPORT}mj.connect_config(${pyString(source)}, names=[${pyString(name)}])`;
}

/** "Explore": the explorer widget for one connection. */
export function exploreCode(
  connection: string,
  options: ICodeOptions = {}
): string {
  if (plain(connection)) {
    return magic(`%mcp explore ${connection}`, options.magics);
  }
  return `${IMPORT}${conn(connection)}.explore()`;
}

/**
 * "Result" on a task: wait for its end and show the tool's result (always Python: a task id is
 * whatever the server chose, and `%mcp task result` would split or expand it).
 */
export function taskResultCode(connection: string, taskId: string): string {
  return `${IMPORT}${conn(connection)}.task(${pyString(taskId)}).result()`;
}

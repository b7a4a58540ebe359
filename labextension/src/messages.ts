/**
 * The messages of the MCP channel, both ways, as two discriminated unions on `type`.
 *
 * The kernel side is mcp_jupyter/lab: _channel.py (hello, refresh, theme, error), _snapshot.py
 * (snapshot), _inbox.py (answer, answer.error), _tasks.py (task.cancel, task.error), _signin.py
 * (auth.*), _apps.py (app.request, app.response) and _registry.py (registry.search, registry.results).
 * Every message the kernel sends goes through
 * `parseKernelMessage` once, in the channel, so the sidebar, the apps and the sign-in notifications
 * receive typed data; text inside them came from MCP servers and is rendered as text, never as markup.
 */

import { isObject, JsonRecord } from './json';

// -- the snapshot's parts ------------------------------------------------------------------------

/** What the frontend tells the kernel about the page in its hello. */
export interface IPageInfo {
  origin: string;
  base_url: string;
  theme: Theme;
  server_extension: boolean;
}

export type Theme = 'light' | 'dark';

/**
 * An item's or server's icon as the kernel checked it (mcp_jupyter/_icons.py): `src` is an allowed
 * `data:` image or an `https:` URL of the server's own origin; otherwise `note` says why none was
 * loaded. The sidebar checks `src` again before loading it (view.ts `iconView`).
 */
export interface IIconInfo {
  src?: string | null;
  note?: string | null;
  mime_type?: string | null;
}

/** A tool of a connection. */
export interface IToolInfo {
  name: string;
  title?: string | null;
  description?: string | null;
  has_app?: boolean;
  /** Who may call it (MCP Apps `_meta.ui.visibility`): "model", "app"; absent means both. */
  visibility?: string[];
  icon?: IIconInfo | null;
}

export interface IResourceInfo {
  uri: string;
  name?: string | null;
  description?: string | null;
  mime_type?: string | null;
  icon?: IIconInfo | null;
}

export interface ITemplateInfo {
  uri_template: string;
  name?: string | null;
  description?: string | null;
  icon?: IIconInfo | null;
}

export interface IPromptArgument {
  name: string;
  description?: string | null;
  required?: boolean | null;
}

export interface IPromptInfo {
  name: string;
  title?: string | null;
  description?: string | null;
  arguments?: IPromptArgument[] | null;
  icon?: IIconInfo | null;
}

/** The statuses of a task (both protocol eras). */
export type TaskStatus =
  'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';

/** A task this notebook knows on a connection (mcp_jupyter/lab/_snapshot.py `task_entries`). */
export interface ITaskInfo {
  id: string;
  tool: string;
  /** A short preview of its arguments (`topic='MCP', depth=2`), secrets hidden by the kernel. */
  arguments: string;
  /** A status this frontend does not know is kept as the server sent it. */
  status: TaskStatus | string;
  /** The server's status message while it runs, its outcome once it ended (may be server text). */
  message: string | null;
  /** ISO 8601 times: when the server created it, when it last changed (as last seen). */
  created: string | null;
  updated: string | null;
  /** The server no longer knows it (expired, restarted...): its last status is shown. */
  gone: boolean;
}

/** One live (or dead) connection of the kernel, as the kernel's snapshot describes it. */
export interface IConnectionInfo {
  name: string;
  transport: string;
  target: string;
  server: { name: string; version: string; icon?: IIconInfo | null } | null;
  protocol_version: string | null;
  alive: boolean;
  error: string | null;
  counts: {
    tools: number;
    resources: number;
    templates: number;
    prompts: number;
  };
  tools: IToolInfo[];
  resources: IResourceInfo[];
  templates: ITemplateInfo[];
  prompts: IPromptInfo[];
  /** Its tasks, newest first (optional: older kernels do not send them). */
  tasks?: ITaskInfo[];
}

/** A server found in a config file (mcp.json, Claude Desktop, Cursor, VS Code). */
export interface IConfiguredServer {
  name: string;
  source: string;
  transport: string;
  target: string;
  /** Marked disabled in its config file. */
  disabled?: boolean;
}

/** A message of a sampling request: the kernel's flat view, or a raw MCP message. */
export interface ISamplingMessage {
  role?: string;
  type?: string;
  text?: string;
  content?: unknown;
}

/** A tool the server offers the model in a sampling request (the server runs it, not the kernel). */
export interface ISamplingTool {
  name: string;
  description?: string | null;
  input_schema?: Record<string, unknown> | null;
}

/** A tool call the model answered with, shown for review before it is sent to the server. */
export interface IToolCall {
  id?: string | null;
  name: string;
  input?: unknown;
}

/** What a sampling request shows (mcp_jupyter/lab/_snapshot.py `inbox_item`). */
export interface ISamplingPayload {
  messages?: ISamplingMessage[];
  system_prompt?: string | null;
  max_tokens?: number | null;
  model_preferences?: unknown;
  models?: string[] | null;
  chosen_model?: string | null;
  /** The human provider: the person writes the reply. */
  needs_human?: boolean;
  /** waiting (approve?), generating (the model answers), review (send the draft?). */
  state?: 'waiting' | 'generating' | 'review' | 'done';
  draft?: {
    text: string;
    model?: string | null;
    tool_calls?: IToolCall[] | null;
  } | null;
  /** Sampling with tools: the server's tools offered to the model, and how it may use them. */
  tools?: ISamplingTool[] | null;
  tool_choice?: 'auto' | 'required' | 'none' | null;
  error?: string | null;
}

/** What an elicitation shows: a message and a form (or a URL to open). */
export interface IElicitationPayload {
  message?: string;
  requested_schema?: Record<string, unknown> | null;
  mode?: 'form' | 'url' | string;
  url?: string | null;
  asks_for_secret?: boolean;
}

/** A root the kernel would share. */
export interface IRoot {
  uri: string;
  name?: string | null;
}

/** What a roots request shows. */
export interface IRootsPayload {
  roots?: IRoot[];
}

interface IInboxItemBase {
  id: string;
  connection: string;
  title: string;
  created: string | number;
}

export interface ISamplingItem extends IInboxItemBase {
  kind: 'sampling';
  payload: ISamplingPayload;
}

export interface IElicitationItem extends IInboxItemBase {
  kind: 'elicitation';
  payload: IElicitationPayload;
}

export interface IRootsItem extends IInboxItemBase {
  kind: 'roots';
  payload: IRootsPayload;
}

/** A consent request waiting for the person, discriminated on `kind`. */
export type IInboxItem = ISamplingItem | IElicitationItem | IRootsItem;

/** The kernel's full state, sent after hello, after a refresh and after every change. */
export interface ISnapshot {
  connections: IConnectionInfo[];
  configured: IConfiguredServer[];
  inbox: IInboxItem[];
  /** Whether `%mcp` is registered in the kernel (optional: older kernels do not say). */
  magics?: boolean;
}

// -- kernel -> frontend --------------------------------------------------------------------------

/** `snapshot`: the kernel's whole state. */
export interface ISnapshotMessage extends ISnapshot {
  type: 'snapshot';
}

/** One problem with an answer: where (a path into the form's values) and what. */
export interface IAnswerProblem {
  path?: (string | number)[];
  message?: string;
}

/** `answer.error`: the kernel refused an inbox answer; the request keeps waiting. */
export interface IAnswerErrorMessage {
  type: 'answer.error';
  id: string;
  errors: IAnswerProblem[];
}

/** `error`: the kernel refused the hello (another protocol version). */
export interface IChannelErrorMessage {
  type: 'error';
  message: string;
}

/** A JSON-RPC error as the kernel forwards it to an app. */
export interface IRpcErrorData {
  code: number;
  message: string;
}

/** `app.response`: the kernel's answer to one `app.request` (a result or an error). */
export interface IAppResponseMessage {
  type: 'app.response';
  app_id: string;
  request_id: string;
  result?: unknown;
  error?: IRpcErrorData;
}

/** `auth.signin`: a sign-in began; `blocked`: the cell blocks, so the card cannot be clicked. */
export interface ISignInMessage {
  type: 'auth.signin';
  id: string;
  server: string;
  host: string;
  url: string;
  deadline?: number | null;
  via?: string | null;
  blocked: boolean;
}

/** `auth.done`: a sign-in ended. */
export interface ISignInDoneMessage {
  type: 'auth.done';
  id: string;
  outcome: 'signed-in' | 'stopped';
}

/** `auth.paste.error`: the pasted address is not this sign-in's redirect. */
export interface IPasteErrorMessage {
  type: 'auth.paste.error';
  id: string;
  message: string;
}

/** `task.error`: the kernel could not cancel a task (no such connection, unknown task...). */
export interface ITaskErrorMessage {
  type: 'task.error';
  connection: string;
  id: string;
  message: string;
}

/** A server the MCP Registry lists, as the kernel describes it for Find servers (lab/_registry.py). */
export interface IRegistryServer {
  /** Its registry name (reverse DNS with one slash: `io.github.owner/name`). */
  name: string;
  title: string | null;
  description: string | null;
  version: string | null;
  /** How it runs, in words: "npm (npx, stdio)", "remote (streamable-http)" ... */
  runs: string;
  repository: string | null;
  /** When the registry last updated it (ISO 8601), null when it does not say. */
  updated: string | null;
  /** The secrets connecting asks for (in a password field when the cell runs). */
  secrets: string[];
  /** Every value connecting needs that nothing gives (secrets, arguments...). */
  needs: string[];
  /** The cell Connect writes: `mj.registry.get(NAME).connect(...)`. */
  code: string;
  /** Whether Connect may run that cell (false: it needs a value the person gives, so it is only written). */
  run: boolean;
  /** From the last search kept while the registry cannot be reached. */
  stale: boolean;
}

/** `registry.results`: the kernel's answer to one `registry.search`. */
export interface IRegistryResultsMessage {
  type: 'registry.results';
  id: string;
  query: string;
  /** The registry's URL (the one the notebook set: `mj.registry.url`). */
  registry: string;
  servers: IRegistryServer[];
  /** The registry could not be reached: `servers` are the last search's. */
  stale: boolean;
  /** Why the registry could not be used (null when it answered). */
  error: string | null;
}

/** Every message the kernel sends on the channel. */
export type KernelMessage =
  | ISnapshotMessage
  | IAnswerErrorMessage
  | ITaskErrorMessage
  | IRegistryResultsMessage
  | IChannelErrorMessage
  | IAppResponseMessage
  | ISignInMessage
  | ISignInDoneMessage
  | IPasteErrorMessage;

/** The kernel message whose `type` is `T`. */
export type KernelMessageOf<T extends KernelMessage['type']> = Extract<
  KernelMessage,
  { type: T }
>;

// -- frontend -> kernel --------------------------------------------------------------------------

/** `hello`: the comm_open's data; the kernel answers with a snapshot (or an `error`). */
export interface IHelloMessage {
  type: 'hello';
  protocol: number;
  page: IPageInfo;
}

/** `refresh`: ask for a fresh snapshot. */
export interface IRefreshMessage {
  type: 'refresh';
}

/** `theme`: JupyterLab's theme changed. */
export interface IThemeMessage {
  type: 'theme';
  theme: Theme;
}

export type AnswerAction = 'accept' | 'decline' | 'cancel';

/** A tool call a person answers a sampling request with (the kernel checks it against the offered
 * tool's input schema and makes up its id). */
export interface ISamplingToolCallAnswer {
  name: string;
  input: Record<string, unknown>;
}

/** `answer`: decide an inbox request. `content`: an elicitation form's values; a sampling reply
 * `{text}` or, with the human provider and offered tools, `{text, tool_calls: ISamplingToolCallAnswer[]}`;
 * approval edits `{messages, system_prompt, model}`. */
export interface IAnswerMessage {
  type: 'answer';
  id: string;
  action: AnswerAction;
  content?: Record<string, unknown>;
}

/** `app.request`: an app's JSON-RPC request, forwarded to the kernel. */
export interface IAppRequestMessage {
  type: 'app.request';
  app_id: string;
  request_id: string;
  method: string;
  params: unknown;
}

/** `auth.cancel`: stop a sign-in. */
export interface IAuthCancelMessage {
  type: 'auth.cancel';
  id: string;
}

/** `auth.paste`: the address the browser ended on after signing in. */
export interface IAuthPasteMessage {
  type: 'auth.paste';
  id: string;
  url: string;
}

/** `task.cancel`: ask the server to cancel a task (carried out on the kernel's runtime thread, so it
 * works while a cell waits for that task). */
export interface ITaskCancelMessage {
  type: 'task.cancel';
  connection: string;
  id: string;
}

/** `registry.search`: find servers in the MCP Registry (the kernel searches, never the browser). */
export interface IRegistrySearchMessage {
  type: 'registry.search';
  id: string;
  query: string;
  /** At most this many servers (the kernel's default is 30, its maximum 100). */
  limit?: number;
}

/** Every message the frontend sends on the channel. */
export type FrontendMessage =
  | IHelloMessage
  | IRefreshMessage
  | IThemeMessage
  | IAnswerMessage
  | ITaskCancelMessage
  | IRegistrySearchMessage
  | IAppRequestMessage
  | IAuthCancelMessage
  | IAuthPasteMessage;

// -- parsing -------------------------------------------------------------------------------------

function list<T>(value: unknown): T[] {
  return Array.isArray(value) ? (value as T[]) : [];
}

function text(value: unknown): string {
  return typeof value === 'string'
    ? value
    : value === null || value === undefined
      ? ''
      : String(value);
}

const INBOX_KINDS = new Set(['sampling', 'elicitation', 'roots']);

/** An inbox item with the fields the views rely on, or null for something else. */
export function parseInboxItem(value: unknown): IInboxItem | null {
  if (
    !isObject(value) ||
    !INBOX_KINDS.has(value.kind as string) ||
    value.id === undefined
  ) {
    return null;
  }
  return {
    id: text(value.id),
    kind: value.kind as IInboxItem['kind'],
    connection: text(value.connection),
    title: text(value.title),
    created:
      typeof value.created === 'number' ? value.created : text(value.created),
    payload: isObject(value.payload) ? value.payload : {}
  } as IInboxItem;
}

/** A task with the fields the views rely on, or null for something without an id. */
export function parseTask(value: unknown): ITaskInfo | null {
  if (!isObject(value) || value.id === undefined || value.id === null) {
    return null;
  }
  const time = (v: unknown): string | null =>
    typeof v === 'string' && v ? v : null;
  return {
    id: text(value.id),
    tool: text(value.tool),
    arguments: typeof value.arguments === 'string' ? value.arguments : '',
    status: text(value.status) || 'working',
    message: typeof value.message === 'string' ? value.message : null,
    created: time(value.created),
    updated: time(value.updated),
    gone: value.gone === true
  };
}

/** A registry server with the fields the views rely on, or null without a name and a Connect cell. */
export function parseRegistryServer(value: unknown): IRegistryServer | null {
  if (
    !isObject(value) ||
    typeof value.name !== 'string' ||
    !value.name ||
    typeof value.code !== 'string'
  ) {
    return null;
  }
  const optional = (v: unknown): string | null =>
    typeof v === 'string' && v ? v : null;
  const names = (v: unknown): string[] => list<unknown>(v).map(text);
  return {
    name: value.name,
    title: optional(value.title),
    description: optional(value.description),
    version: optional(value.version),
    runs: text(value.runs),
    repository: optional(value.repository),
    updated: optional(value.updated),
    secrets: names(value.secrets),
    needs: names(value.needs),
    code: value.code,
    run: value.run === true,
    stale: value.stale === true
  };
}

function parseRegistryResults(value: JsonRecord): IRegistryResultsMessage {
  return {
    type: 'registry.results',
    id: text(value.id),
    query: text(value.query),
    registry: text(value.registry),
    servers: list<unknown>(value.servers)
      .map(parseRegistryServer)
      .filter((server): server is IRegistryServer => server !== null),
    stale: value.stale === true,
    error: typeof value.error === 'string' && value.error ? value.error : null
  };
}

function parseConnection(value: JsonRecord): IConnectionInfo {
  const connection = value as unknown as IConnectionInfo;
  return {
    ...connection,
    tasks: list<unknown>(value.tasks)
      .map(parseTask)
      .filter((task): task is ITaskInfo => task !== null)
  };
}

/** The snapshot's lists, each defaulting to empty; unknown inbox kinds are left out. */
export function parseSnapshot(value: JsonRecord): ISnapshotMessage {
  return {
    type: 'snapshot',
    connections: list<unknown>(value.connections)
      .filter((c): c is JsonRecord => isObject(c) && typeof c.name === 'string')
      .map(parseConnection),
    configured: list<IConfiguredServer>(value.configured).filter(
      s => isObject(s) && typeof s.name === 'string'
    ),
    inbox: list<unknown>(value.inbox)
      .map(parseInboxItem)
      .filter((item): item is IInboxItem => item !== null),
    magics: typeof value.magics === 'boolean' ? value.magics : undefined
  };
}

/**
 * The typed message in `data` (a comm message's data), or null when it is not one this frontend
 * knows: not an object, an unknown `type`, or a known type without its identifying fields.
 */
export function parseKernelMessage(data: unknown): KernelMessage | null {
  if (!isObject(data) || typeof data.type !== 'string') {
    return null;
  }
  switch (data.type) {
    case 'snapshot':
      return parseSnapshot(data);
    case 'answer.error':
      return data.id === undefined
        ? null
        : {
            type: 'answer.error',
            id: text(data.id),
            errors: list<unknown>(data.errors).filter(isObject)
          };
    case 'error':
      return { type: 'error', message: text(data.message) };
    case 'task.error':
      return data.id === undefined
        ? null
        : {
            type: 'task.error',
            connection: text(data.connection),
            id: text(data.id),
            message: text(data.message)
          };
    case 'app.response':
      if (data.app_id === undefined || data.request_id === undefined) {
        return null;
      }
      return {
        type: 'app.response',
        app_id: text(data.app_id),
        request_id: text(data.request_id),
        ...('result' in data ? { result: data.result } : {}),
        ...(isObject(data.error)
          ? {
              error: {
                code: Number(data.error.code) || -32000,
                message: text(data.error.message)
              }
            }
          : {})
      };
    case 'auth.signin':
      if (data.id === undefined) {
        return null;
      }
      return {
        type: 'auth.signin',
        id: text(data.id),
        server: text(data.server),
        host: text(data.host),
        url: text(data.url),
        deadline: typeof data.deadline === 'number' ? data.deadline : null,
        via: typeof data.via === 'string' ? data.via : null,
        blocked: data.blocked === true
      };
    case 'auth.done':
      return data.id === undefined
        ? null
        : {
            type: 'auth.done',
            id: text(data.id),
            outcome: data.outcome === 'signed-in' ? 'signed-in' : 'stopped'
          };
    case 'registry.results':
      return data.id === undefined || data.id === null
        ? null
        : parseRegistryResults(data);
    case 'auth.paste.error':
      return data.id === undefined
        ? null
        : {
            type: 'auth.paste.error',
            id: text(data.id),
            message: text(data.message)
          };
    default:
      return null;
  }
}

/** Whether `msg` is the kernel message of type `type` (narrows it). */
export function isKernelMessage<T extends KernelMessage['type']>(
  msg: KernelMessage | null | undefined,
  type: T
): msg is KernelMessageOf<T> {
  return !!msg && msg.type === type;
}

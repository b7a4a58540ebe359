/**
 * The sidebar's view model: what to show for a snapshot and a filter text (pure, unit-tested).
 */
import { TranslationBundle } from '@jupyterlab/translation';

import { ENGLISH } from './i18n';
import {
  IConnectionInfo,
  IIconInfo,
  IInboxItem,
  ISamplingPayload,
  ISnapshot,
  ITaskInfo,
  IToolInfo
} from './messages';
import { svgRefusal } from './svg';

/** What to draw for an icon: an `<img>` source, or the note of one that was not loaded. */
export type IconView = { src: string } | { note: string };

/** Image types an icon may have (as mcp_jupyter/_icons.py: never inline, only as `<img>`). */
const ICON_DATA = /^data:image\/(png|jpeg|gif|webp|svg\+xml)[;,]/i;
/** Longest `data:` icon (characters), as the kernel's `MAX_DATA_URI`. */
export const MAX_ICON_DATA = 64 * 1024;

/** The https origin of `url`, or null. */
function httpsOrigin(url: string | null | undefined): string | null {
  try {
    const parsed = new URL(String(url ?? ''));
    return parsed.protocol === 'https:' ? parsed.origin : null;
  } catch {
    return null;
  }
}

/**
 * The icon to draw, checked again here (defence in depth) before any `src` is set: a small `data:`
 * image (an SVG only without script, `svg.ts`), or an `https:` URL of the server's own origin
 * (`serverUrl`: an HTTP connection's target). Anything else becomes a note and is never fetched.
 */
export function iconView(
  icon: IIconInfo | null | undefined,
  serverUrl: string | null,
  trans: TranslationBundle = ENGLISH
): IconView | null {
  if (!icon || typeof icon !== 'object') {
    return null;
  }
  const src = typeof icon.src === 'string' ? icon.src : '';
  if (src && ICON_DATA.test(src) && src.length <= MAX_ICON_DATA) {
    const refused = svgRefusal(src);
    if (refused) {
      const why = {
        script: trans.__('an SVG with script'),
        encoding: trans.__('an SVG in an unknown encoding'),
        base64: trans.__('its data is not valid base64')
      }[refused];
      return { note: trans.__('icon not loaded: %1', why) };
    }
    return { src };
  }
  const origin = src ? httpsOrigin(src) : null;
  if (origin && origin === httpsOrigin(serverUrl)) {
    return { src };
  }
  if (src) {
    let host = '';
    try {
      host = new URL(src).hostname || new URL(src).protocol;
    } catch {
      host = trans.__('a malformed address');
    }
    return { note: trans.__('icon not loaded: %1', clip(host, 80)) };
  }
  return { note: clip(icon.note || trans.__('icon not loaded'), LIMITS.label) };
}

export type SectionKind = 'tools' | 'resources' | 'templates' | 'prompts';
export type ActionKind = 'call' | 'read' | 'prompt' | null;

/** One row of a list: a tool, resource, template or prompt. */
export interface IItemView {
  /** Stable key: the tool/prompt name, resource URI or template. */
  key: string;
  label: string;
  /** Secondary text: the URI of a resource, the name under a title, the mime type... */
  detail: string;
  description: string;
  action: ActionKind;
  /** For prompts: the arguments (the code generator needs to know which are required). */
  args?: { name: string; required?: boolean | null }[];
  /** For tools: only an MCP App may call it (its visibility lacks "model"). */
  appOnly?: boolean;
  icon?: IconView | null;
}

export interface ISectionView {
  kind: SectionKind;
  label: string;
  /** How many the server has (the snapshot's count). */
  total: number;
  /** The rows matching the filter. */
  items: IItemView[];
}

export interface IConnectionView {
  name: string;
  alive: boolean;
  status: 'alive' | 'dead';
  transport: string;
  target: string;
  server: string;
  icon: IconView | null;
  protocol: string;
  counts: string;
  error: string;
  sections: ISectionView[];
  /** Its tasks, newest first (the Tasks section). */
  tasks: ITaskInfo[];
  /** Whether the filter matched anything here (the connection's own name counts). */
  matches: boolean;
}

/** A section's title ("Tools", ...). */
export function sectionLabel(
  kind: SectionKind,
  trans: TranslationBundle = ENGLISH
): string {
  switch (kind) {
    case 'tools':
      return trans.__('Tools');
    case 'resources':
      return trans.__('Resources');
    case 'templates':
      return trans.__('Templates');
    default:
      return trans.__('Prompts');
  }
}

/** Longest text the lists show per field: a server may send megabytes, and laying out a long unbroken
 * string freezes the page. The cell's explorer and forms show everything. */
export const LIMITS = {
  label: 200,
  detail: 300,
  description: 600,
  message: 20_000
};

/** `text` cut to `max` characters, saying how much was left out. */
export function clip(text: string | null | undefined, max: number): string {
  const value = String(text ?? '');
  return value.length <= max
    ? value
    : `${value.slice(0, max)}… (${value.length - max} more characters)`;
}

/** "1 tool", "3 tools". */
export function plural(
  count: number,
  kind: SectionKind,
  trans: TranslationBundle = ENGLISH
): string {
  switch (kind) {
    case 'tools':
      return trans._n('%1 tool', '%1 tools', count);
    case 'resources':
      return trans._n('%1 resource', '%1 resources', count);
    case 'templates':
      return trans._n('%1 template', '%1 templates', count);
    default:
      return trans._n('%1 prompt', '%1 prompts', count);
  }
}

/** Whether only an MCP App may call `tool`: it says who may, and the model is not among them. */
export function isAppOnly(tool: IToolInfo): boolean {
  return Array.isArray(tool.visibility) && !tool.visibility.includes('model');
}

/** Whether every word of `filter` occurs (case-insensitively) in one of `texts`. */
export function matches(
  filter: string,
  ...texts: (string | null | undefined)[]
): boolean {
  const haystack = texts.filter(Boolean).join('\n').toLowerCase();
  return filter
    .toLowerCase()
    .split(/\s+/)
    .filter(Boolean)
    .every(word => haystack.includes(word));
}

function sections(
  c: IConnectionInfo,
  trans: TranslationBundle
): Record<SectionKind, IItemView[]> {
  const all = rawSections(c, serverUrl(c), trans);
  for (const items of Object.values(all)) {
    for (const item of items) {
      item.label = clip(item.label, LIMITS.label);
      item.detail = clip(item.detail, LIMITS.detail);
      item.description = clip(item.description, LIMITS.description);
    }
  }
  return all;
}

/** The URL an HTTP connection reached (its icons may come from that origin), else null. */
function serverUrl(c: IConnectionInfo): string | null {
  return /^(streamable-http|sse|http)$/.test(c.transport) ? c.target : null;
}

function rawSections(
  c: IConnectionInfo,
  url: string | null,
  trans: TranslationBundle
): Record<SectionKind, IItemView[]> {
  return {
    tools: (c.tools ?? []).map(t => ({
      key: t.name,
      label: t.title || t.name,
      detail: t.title && t.title !== t.name ? t.name : '',
      description: t.description ?? '',
      action: 'call' as const,
      appOnly: isAppOnly(t),
      icon: iconView(t.icon, url, trans)
    })),
    resources: (c.resources ?? []).map(r => ({
      key: r.uri,
      label: r.name || r.uri,
      detail: [r.uri, r.mime_type].filter(Boolean).join(' · '),
      description: r.description ?? '',
      action: 'read' as const,
      icon: iconView(r.icon, url, trans)
    })),
    templates: (c.templates ?? []).map(t => ({
      key: t.uri_template,
      label: t.name || t.uri_template,
      detail: t.uri_template,
      description: t.description ?? '',
      action: null,
      icon: iconView(t.icon, url, trans)
    })),
    prompts: (c.prompts ?? []).map(p => ({
      key: p.name,
      label: p.title || p.name,
      detail: [
        p.title && p.title !== p.name ? p.name : '',
        argumentList(p.arguments)
      ]
        .filter(Boolean)
        .join(' '),
      description: p.description ?? '',
      action: 'prompt' as const,
      args: p.arguments ?? [],
      icon: iconView(p.icon, url, trans)
    }))
  };
}

function argumentList(
  args: { name: string; required?: boolean | null }[] | null | undefined
): string {
  if (!args || !args.length) {
    return '';
  }
  return (
    '(' + args.map(a => (a.required ? a.name : `${a.name}?`)).join(', ') + ')'
  );
}

/** The view of one connection, its lists narrowed to `filter`. */
export function connectionView(
  c: IConnectionInfo,
  filter = '',
  trans: TranslationBundle = ENGLISH
): IConnectionView {
  const all = sections(c, trans);
  const own = matches(filter, c.name, c.target, c.server?.name);
  const kinds: SectionKind[] = ['tools', 'resources', 'templates', 'prompts'];
  const views = kinds.map(kind => ({
    kind,
    label: sectionLabel(kind, trans),
    total: c.counts?.[kind] ?? all[kind].length,
    items: own
      ? all[kind]
      : all[kind].filter(i =>
          matches(filter, i.key, i.label, i.detail, i.description)
        )
  }));
  return {
    name: c.name,
    alive: !!c.alive,
    status: c.alive ? 'alive' : 'dead',
    transport: c.transport,
    target: c.target,
    server: c.server
      ? clip(`${c.server.name} ${c.server.version}`.trim(), LIMITS.detail)
      : trans.__('unknown server'),
    icon: iconView(c.server?.icon, serverUrl(c), trans),
    protocol: c.protocol_version ?? '',
    counts: views.map(s => plural(s.total, s.kind, trans)).join(' · '),
    error: clip(c.error, LIMITS.description),
    sections: views,
    tasks: c.tasks ?? [],
    matches: own || views.some(s => s.items.length > 0)
  };
}

/** Views of all connections matching `filter` (all of them when it is empty). */
export function connectionsView(
  snapshot: ISnapshot | null,
  filter = '',
  trans: TranslationBundle = ENGLISH
): IConnectionView[] {
  return (snapshot?.connections ?? [])
    .map(c => connectionView(c, filter, trans))
    .filter(v => v.matches);
}

/** How many consent requests wait (the badge number). */
export function pendingCount(snapshot: ISnapshot | null): number {
  return snapshot?.inbox?.length ?? 0;
}

/** A sampling message as text: text blocks as they are, other blocks as "[image]", "[audio]"... */
export interface IMessageView {
  role: string;
  text: string;
}

function blockText(block: unknown): string {
  if (block === null || block === undefined) {
    return '';
  }
  if (typeof block === 'string') {
    return block;
  }
  if (Array.isArray(block)) {
    return block.map(blockText).join('\n');
  }
  const { type, text } = block as { type?: unknown; text?: unknown };
  if (type === 'text' || typeof text === 'string') {
    return String(text ?? '');
  }
  return `[${String(type ?? 'content')}]`;
}

/** The messages of a sampling request, for reading before approving. */
export function samplingMessages(
  payload: ISamplingPayload | null | undefined
): IMessageView[] {
  const messages: unknown[] = Array.isArray(payload?.messages)
    ? payload.messages
    : [];
  // the kernel sends flat views ({role, type, text}); raw MCP messages ({role, content}) work too
  return messages.map(m => {
    const message =
      m && typeof m === 'object'
        ? (m as { role?: unknown; content?: unknown })
        : null;
    return {
      role: String(message?.role ?? 'user'),
      text: clip(
        message && 'content' in message
          ? blockText(message.content)
          : blockText(m),
        LIMITS.message
      )
    };
  });
}

/** One offered tool or tool call, as text to read. */
export interface IToolLine {
  name: string;
  detail: string;
}

/** The tools a sampling request offers the model (name, description), at most 50. */
export function samplingTools(
  payload: ISamplingPayload | null | undefined
): IToolLine[] {
  const tools = Array.isArray(payload?.tools) ? payload.tools : [];
  return tools.slice(0, 50).map(t => ({
    name: clip(String(t?.name ?? ''), LIMITS.label),
    detail: clip(String(t?.description ?? ''), LIMITS.detail)
  }));
}

/** The tool calls of a sampling draft: the tool and its arguments as JSON. */
export function draftToolCalls(
  payload: ISamplingPayload | null | undefined
): IToolLine[] {
  const calls = Array.isArray(payload?.draft?.tool_calls)
    ? payload.draft.tool_calls
    : [];
  return calls.slice(0, 50).map(c => {
    let args: string;
    try {
      args = JSON.stringify(c?.input ?? {});
    } catch {
      args = String(c?.input);
    }
    return {
      name: clip(String(c?.name ?? ''), LIMITS.label),
      detail: clip(args, LIMITS.description)
    };
  });
}

/** A one-line label of an inbox item's kind. */
export function inboxLabel(
  item: IInboxItem,
  trans: TranslationBundle = ENGLISH
): string {
  const name = clip(item.connection, LIMITS.label);
  switch (item.kind) {
    case 'sampling':
      return trans.__('%1 wants to use your LLM', name);
    case 'elicitation':
      return trans.__('%1 asks you', name);
    case 'roots':
      return trans.__('%1 asks for your roots', name);
    default:
      return trans.__('%1 asks', name);
  }
}

// -- tasks ---------------------------------------------------------------------------------------

/** One row of a connection's Tasks section. */
export interface ITaskView {
  id: string;
  tool: string;
  /** The arguments preview (empty: none given). */
  arguments: string;
  /** The status as the server sent it (the badge's `data-status`). */
  status: string;
  /** The status in words. */
  label: string;
  message: string;
  /** "4 s", "2 min 5 s": running time so far, or from start to the last change once it ended. */
  elapsed: string;
  /** Working or waiting for input: Cancel is offered. */
  active: boolean;
  /** Completed or failed: Result is offered (it shows the tool's result, or why it failed). */
  hasResult: boolean;
  /** The server no longer knows it: its last status is shown. */
  gone: boolean;
}

/** Whether a task with `status` has not ended yet. */
export function taskActive(status: string): boolean {
  return status === 'working' || status === 'input_required';
}

/** A task status in words ("needs input" for input_required). */
export function taskStatusLabel(
  status: string,
  trans: TranslationBundle = ENGLISH
): string {
  switch (status) {
    case 'working':
      return trans.__('working');
    case 'input_required':
      return trans.__('needs input');
    case 'completed':
      return trans.__('completed');
    case 'failed':
      return trans.__('failed');
    case 'cancelled':
      return trans.__('cancelled');
    default:
      return clip(status, LIMITS.label);
  }
}

/** A duration in seconds as "45 s", "2 min 5 s", "3 h 12 min". */
export function formatElapsed(
  seconds: number,
  trans: TranslationBundle = ENGLISH
): string {
  const s = Math.max(0, Math.floor(seconds));
  if (s < 60) {
    return trans.__('%1 s', s);
  }
  if (s < 3600) {
    return trans.__('%1 min %2 s', Math.floor(s / 60), s % 60);
  }
  return trans.__(
    '%1 h %2 min',
    Math.floor(s / 3600),
    Math.floor((s % 3600) / 60)
  );
}

/** Seconds a task has run: until `now` (ms) while active, until its last change once ended; null
 * when the kernel does not know when it started. */
export function elapsedSeconds(task: ITaskInfo, now: number): number | null {
  const start = task.created ? Date.parse(task.created) : NaN;
  if (Number.isNaN(start)) {
    return null;
  }
  const last = task.updated ? Date.parse(task.updated) : NaN;
  const end = taskActive(task.status) || Number.isNaN(last) ? now : last;
  return Math.max(0, (end - start) / 1000);
}

/** The rows of a Tasks section at time `now` (ms since the epoch). */
export function taskViews(
  tasks: ITaskInfo[],
  now: number,
  trans: TranslationBundle = ENGLISH
): ITaskView[] {
  return tasks.map(task => {
    const seconds = elapsedSeconds(task, now);
    const active = taskActive(task.status) && !task.gone;
    return {
      id: task.id,
      tool: clip(task.tool, LIMITS.label),
      arguments: clip(task.arguments, LIMITS.detail),
      status: task.status,
      label: taskStatusLabel(task.status, trans),
      message: clip(task.message, LIMITS.description),
      elapsed: seconds === null ? '' : formatElapsed(seconds, trans),
      active,
      hasResult:
        !task.gone && (task.status === 'completed' || task.status === 'failed'),
      gone: task.gone
    };
  });
}

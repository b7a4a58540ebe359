/**
 * Pure pieces of the MCP Apps host (no DOM, no JupyterLab): what an app output and an opened app
 * are, and the checks on what an app asks for. Unit-tested in test/apps.test.ts.
 */
import { isObject, JsonRecord } from '../json';

/** What an app output's JSON (`application/vnd.mcp-jupyter.app+json`) names: the app, its server and
 * tool; the app itself comes from the kernel (`app/open`). */
export interface IAppOutputData {
  version: number;
  app_id: string;
  server: string;
  tool: string;
  title?: string;
  resource_uri?: string;
}

/** The kernel's answer to `app/open`: the app's HTML and what it declared, the tool's input and result. */
export interface IOpenedApp {
  html: string;
  csp: Record<string, string[]> | null;
  permissions: Record<string, unknown> | null;
  prefersBorder: boolean | null;
  tool: unknown;
  input: Record<string, unknown>;
  result: unknown;
}

/** The MCP Apps protocol version this host speaks. */
export const APPS_PROTOCOL_VERSION = '2026-01-26';
/** The app frame's height before the app reports its own, and the bounds it may ask for (px). */
export const INITIAL_HEIGHT = 320;
export const MIN_HEIGHT = 40;
export const MAX_HEIGHT = 4000;

/** Browser permissions an app may ask for (`_meta.ui.permissions`), as iframe `allow` features. */
const PERMISSIONS: Record<string, string> = {
  camera: 'camera',
  microphone: 'microphone',
  geolocation: 'geolocation',
  clipboardWrite: 'clipboard-write'
};

/** The sandbox route's URL for an app that declared `csp` (the route validates every domain). */
export function sandboxUrl(baseUrl: string, csp: unknown): string {
  const base = baseUrl.endsWith('/') ? baseUrl : `${baseUrl}/`;
  const declared =
    csp && typeof csp === 'object' && !Array.isArray(csp) ? csp : {};
  return `${base}mcp-jupyter/apps/sandbox?csp=${encodeURIComponent(JSON.stringify(declared))}`;
}

/** The iframe `allow` attribute for the permissions an app asked for ('' for none). */
export function allowAttribute(permissions: unknown): string {
  if (!permissions || typeof permissions !== 'object') {
    return '';
  }
  return Object.keys(permissions)
    .map(key => PERMISSIONS[key])
    .filter(Boolean)
    .join('; ');
}

/** The frame height (px) for an app's `size-changed` height, or null when it is not a number. */
export function frameHeight(height: unknown): number | null {
  const value = Number(height);
  if (height === null || height === undefined || !Number.isFinite(value)) {
    return null;
  }
  return Math.min(MAX_HEIGHT, Math.max(MIN_HEIGHT, Math.ceil(value)));
}

/** An absolute http(s) URL from `ui/open-link` params, or null (javascript:, data:, file:, junk). */
export function linkUrl(params: unknown): string | null {
  const asked = isObject(params) ? params.url : undefined;
  try {
    const url = new URL(String(asked ?? ''));
    return url.protocol === 'https:' || url.protocol === 'http:'
      ? url.href
      : null;
  } catch {
    return null;
  }
}

/** What a `ui/message` says, as text for its consent card (non-text blocks by their type). */
export function messageText(content: unknown): string {
  if (!Array.isArray(content)) {
    return '';
  }
  return content
    .map((block: unknown) => {
      const { type, text }: JsonRecord = isObject(block) ? block : {};
      return type === 'text' ? String(text ?? '') : `[${String(type)}]`;
    })
    .join('\n');
}

/** The host's capabilities in `ui/initialize` (what it forwards, what it asks consent for). */
export function hostCapabilities(
  csp: unknown,
  permissions: unknown
): Record<string, unknown> {
  return {
    openLinks: {},
    serverTools: {},
    serverResources: {},
    logging: {},
    message: { text: {} },
    updateModelContext: { text: {}, structuredContent: {} },
    sandbox: { csp: csp ?? undefined, permissions: permissions ?? undefined }
  };
}

/**
 * The host's side of an app's JSON-RPC (MCP Apps spec 2026-01-26), once its frame is up.
 *
 * The sandbox proxy page says `ui/notifications/sandbox-proxy-ready` and gets the app's HTML, once;
 * the app asks `ui/initialize` and gets the host context (theme and style variables, display mode,
 * size, locale); once it says `ui/notifications/initialized` it gets the tool's input and result.
 * `tools/call`, `resources/*`, `ui/update-model-context` and log messages go to the kernel, which
 * knows the server and enforces tool visibility; `ui/open-link` and `ui/message` wait for the
 * person's consent; `size-changed` resizes the frame; `request-teardown` closes the app.
 * No DOM here: test/hostProtocol.test.ts drives it with stand-ins for the frame and the kernel.
 */
import { TranslationBundle } from '@jupyterlab/translation';

import { isObject } from '../json';
import { INVALID_PARAMS, METHOD_NOT_FOUND, RpcError } from './bridge';
import { ConsentQuestion } from './consents';
import {
  APPS_PROTOCOL_VERSION,
  frameHeight,
  hostCapabilities,
  IOpenedApp,
  linkUrl,
  MAX_HEIGHT,
  messageText
} from './protocol';
import { ILook } from './theming';

/** Methods the kernel answers (it knows the server; visibility is enforced there). */
const KERNEL_METHODS = new Set([
  'tools/call',
  'resources/read',
  'resources/list',
  'resources/templates/list',
  'ui/update-model-context'
]);

/** What the protocol needs from the output that shows the app. */
export interface IHostProtocolOptions {
  /** The app, as the kernel opened it. */
  app: IOpenedApp;
  /** The app's name in consent questions: "Viewer (pdf)". */
  appName: string;
  /** Send a notification to the app's frame. */
  notify: (method: string, params: unknown) => void;
  /** Forward a request to the kernel; resolves with its result. */
  kernel: (method: string, params: unknown) => Promise<unknown>;
  /** Ask the person (a consent card above the app); true when they allow. */
  ask: (question: ConsentQuestion) => Promise<boolean>;
  /** JupyterLab's look now. */
  look: () => ILook;
  /** The output's width now (px; 0 when unknown). */
  width: () => number;
  /** Set the frame's height (px). */
  resize: (height: number) => void;
  /** The app asked to be closed. */
  close: () => void;
  /** Open an http(s) URL in a new tab. */
  openLink: (url: string) => void;
  /** mcp_jupyter's version, for `hostInfo`. */
  version: string;
  /** The strings' translations. */
  trans: TranslationBundle;
}

/** The host's answers to one app (see the module docstring). */
export class AppHostProtocol {
  constructor(private readonly _options: IHostProtocolOptions) {}

  /** Whether the app has said `ui/notifications/initialized`. */
  get initialized(): boolean {
    return this._initialized;
  }

  /** Answer one request of the app (a thrown `RpcError` is a JSON-RPC error). */
  async handleRequest(method: string, params: unknown): Promise<unknown> {
    if (method === 'ui/initialize') {
      return this._initializeResult(params);
    }
    if (method === 'ping') {
      return {};
    }
    if (method === 'ui/request-display-mode') {
      return { mode: 'inline' }; // the only mode an output cell has
    }
    if (method === 'ui/open-link') {
      return this._openLink(params);
    }
    if (method === 'ui/message') {
      return this._message(params);
    }
    if (KERNEL_METHODS.has(method)) {
      return this._options.kernel(method, params);
    }
    throw new RpcError(
      METHOD_NOT_FOUND,
      `this host does not support ${method}`
    );
  }

  /** Take one notification of the app. */
  handleNotification(method: string, params: unknown): void {
    const { app, notify } = this._options;
    if (method === 'ui/notifications/sandbox-proxy-ready' && !this._htmlSent) {
      this._htmlSent = true; // once: the HTML goes to the proxy page, never again to the app
      notify('ui/notifications/sandbox-resource-ready', {
        html: app.html,
        csp: app.csp ?? undefined,
        permissions: app.permissions ?? undefined
      });
    } else if (
      method === 'ui/notifications/initialized' &&
      !this._initialized
    ) {
      this._initialized = true;
      notify('ui/notifications/tool-input', { arguments: app.input ?? {} });
      if (app.result) {
        notify('ui/notifications/tool-result', app.result);
      }
    } else if (method === 'ui/notifications/size-changed') {
      const height = frameHeight(isObject(params) ? params.height : undefined);
      if (height !== null) {
        this._options.resize(height);
      }
    } else if (method === 'notifications/message') {
      this._options
        .kernel('notifications/message', params)
        .catch(() => undefined);
    } else if (method === 'ui/notifications/request-teardown') {
      this._options.close();
    }
  }

  /** JupyterLab's theme changed: tell an initialized app its new look. */
  lookChanged(): void {
    if (this._initialized) {
      this._options.notify(
        'ui/notifications/host-context-changed',
        this._options.look()
      );
    }
  }

  private _initializeResult(params: unknown): Record<string, unknown> {
    const { app, version } = this._options;
    const asked = isObject(params) ? params.protocolVersion : undefined;
    return {
      protocolVersion:
        asked === APPS_PROTOCOL_VERSION ? asked : APPS_PROTOCOL_VERSION,
      hostInfo: { name: 'mcp-jupyter', version },
      hostCapabilities: hostCapabilities(app.csp, app.permissions),
      hostContext: this._hostContext()
    };
  }

  private _hostContext(): Record<string, unknown> {
    const { app, version } = this._options;
    const width = this._options.width() || undefined;
    return {
      toolInfo: app.tool ? { tool: app.tool } : undefined,
      ...this._options.look(),
      displayMode: 'inline',
      availableDisplayModes: ['inline'],
      containerDimensions: width
        ? { width, maxHeight: MAX_HEIGHT }
        : { maxHeight: MAX_HEIGHT },
      locale: globalThis.navigator?.language,
      timeZone: Intl.DateTimeFormat().resolvedOptions().timeZone,
      userAgent: `mcp-jupyter/${version} JupyterLab`,
      platform: 'web'
    };
  }

  private async _openLink(params: unknown): Promise<Record<string, unknown>> {
    const url = linkUrl(params);
    if (url === null) {
      throw new RpcError(
        INVALID_PARAMS,
        'ui/open-link takes an absolute http(s) URL'
      );
    }
    const trans = this._options.trans;
    const allowed = await this._ask(
      'open-link',
      trans.__('The app wants to open a link in a new tab:'),
      url,
      trans.__('Open')
    );
    if (!allowed) {
      return { isError: true };
    }
    this._options.openLink(url);
    return {};
  }

  private async _message(params: unknown): Promise<Record<string, unknown>> {
    const asked = isObject(params) ? params.content : undefined;
    const content = Array.isArray(asked) ? asked : [];
    const trans = this._options.trans;
    const allowed = await this._ask(
      'message',
      trans.__('The app wants to send this message:'),
      messageText(content),
      trans.__('Send')
    );
    if (!allowed) {
      return { isError: true };
    }
    await this._options.kernel('ui/message', { role: 'user', content });
    return {};
  }

  /** A card above the app asking the person; true on the allow button only. */
  private _ask(
    kind: string,
    question: string,
    detail: string,
    allowLabel: string
  ): Promise<boolean> {
    return this._options.ask({
      kind,
      question: `${this._options.appName}: ${question}`,
      detail,
      allowLabel
    });
  }

  private _htmlSent = false;
  private _initialized = false;
}

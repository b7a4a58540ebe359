/**
 * The renderer of `application/vnd.mcp-jupyter.app+json` outputs: a live MCP App in a sandboxed frame.
 *
 * 1. Ask the kernel (channel message `app.request`, method `app/open`) for the app's HTML, CSP and
 *    permissions; the output's JSON only names the app (`app_id`), the server and the tool.
 * 2. Point an `<iframe sandbox="allow-scripts">` at the server extension's sandbox route
 *    (`mcp-jupyter/apps/sandbox?csp=...`), whose `Content-Security-Policy: sandbox allow-scripts; ...`
 *    header gives it an opaque origin and the app's CSP; when the page says
 *    `ui/notifications/sandbox-proxy-ready`, send it the HTML (`ui/notifications/sandbox-resource-ready`).
 * 3. Speak the app's JSON-RPC (`HostBridge`): answer `ui/initialize` with the host context (theme,
 *    display mode, size), send the tool's input and result, forward `tools/call` and `resources/*`
 *    to the kernel (which enforces tool visibility), put `ui/open-link` and `ui/message` behind a
 *    consent card (React, components/AppConsentCard.tsx), resize on `size-changed`.
 * 4. Tear down when the output is cleared (dispose) or the kernel restarts; without a live channel,
 *    show a static placeholder instead of a frame.
 */
import { PageConfig } from '@jupyterlab/coreutils';
import { IRenderMime } from '@jupyterlab/rendermime-interfaces';
import { Kernel } from '@jupyterlab/services';
import { TranslationBundle } from '@jupyterlab/translation';
import { ReactWidget } from '@jupyterlab/ui-components';
import { ISignal } from '@lumino/signaling';
import { PanelLayout, Widget } from '@lumino/widgets';
import React from 'react';

import {
  AppConsents,
  AppNotice,
  AppNoticeState,
  IAppConsent
} from '../components/AppConsentCard';
import { TranslationContext } from '../components/translation';
import { KernelMessage } from '../messages';
import { IMcpChannel, IMcpChannels } from '../tokens';
import {
  HostBridge,
  INVALID_PARAMS,
  METHOD_NOT_FOUND,
  RpcError
} from './bridge';
import {
  allowAttribute,
  APPS_PROTOCOL_VERSION,
  frameHeight,
  hostCapabilities,
  INITIAL_HEIGHT,
  linkUrl,
  MAX_HEIGHT,
  messageText,
  sandboxUrl
} from './protocol';

/** The output MIME type the kernel emits for a tool result whose tool has an app. */
export const APP_OUTPUT_MIME = 'application/vnd.mcp-jupyter.app+json';
/** Methods the kernel answers (it knows the server; visibility is enforced there). */
const KERNEL_METHODS = new Set([
  'tools/call',
  'resources/read',
  'resources/list',
  'resources/templates/list',
  'ui/update-model-context'
]);

/** What the renderer needs from the notebook it renders in. */
export interface IAppHost {
  channels: IMcpChannels;
  /** The notebook's kernel now (it changes on restart or kernel switch). */
  kernel: () => Kernel.IKernelConnection | null;
  /** JupyterLab's theme now. */
  theme: () => 'light' | 'dark';
  /** Emitted when JupyterLab's theme changes (null: never). */
  themeChanged: ISignal<any, any> | null;
  /** mcp_jupyter's version, for `hostInfo`. */
  version: string;
  /** The strings' translations. */
  trans: TranslationBundle;
}

interface IAppData {
  version: number;
  app_id: string;
  server: string;
  tool: string;
  title?: string;
  resource_uri?: string;
}

interface IOpened {
  html: string;
  csp: Record<string, string[]> | null;
  permissions: Record<string, unknown> | null;
  prefersBorder: boolean | null;
  tool: unknown;
  input: Record<string, unknown>;
  result: unknown;
}

/** Host style variables (spec names) taken from JupyterLab's theme variables. */
const STYLE_VARIABLES: Record<string, string> = {
  '--color-background-primary': '--jp-layout-color0',
  '--color-background-secondary': '--jp-layout-color1',
  '--color-background-tertiary': '--jp-layout-color2',
  '--color-text-primary': '--jp-ui-font-color0',
  '--color-text-secondary': '--jp-ui-font-color1',
  '--color-text-tertiary': '--jp-ui-font-color2',
  '--color-border-primary': '--jp-border-color0',
  '--color-border-secondary': '--jp-border-color1',
  '--color-text-danger': '--jp-error-color1',
  '--color-text-success': '--jp-success-color1',
  '--color-text-warning': '--jp-warn-color1',
  '--font-sans': '--jp-ui-font-family',
  '--font-mono': '--jp-code-font-family'
};

function hostStyles(): Record<string, string> {
  const computed = getComputedStyle(document.body);
  const variables: Record<string, string> = {};
  for (const [spec, jp] of Object.entries(STYLE_VARIABLES)) {
    const value = computed.getPropertyValue(jp).trim();
    if (value) {
      variables[spec] = value;
    }
  }
  return variables;
}

/** A part of the output rendered by React: its `render` reads the output's state. */
class ReactArea extends ReactWidget {
  constructor(
    className: string,
    private readonly _trans: TranslationBundle,
    private readonly _content: () => JSX.Element | null
  ) {
    super();
    this.addClass(className);
  }

  protected render(): JSX.Element {
    return (
      <TranslationContext.Provider value={this._trans}>
        {this._content()}
      </TranslationContext.Provider>
    );
  }
}

/** One live app output: consent cards, a status or placeholder, and the app's frame. */
export class AppOutput extends Widget implements IRenderMime.IRenderer {
  constructor(
    options: IRenderMime.IRendererOptions,
    private readonly _host: IAppHost
  ) {
    super();
    this.addClass('mcpj-app');
    const trans = _host.trans;
    this._consentArea = new ReactArea('mcpj-app-consents', trans, () => (
      <AppConsents consents={this._consents} />
    ));
    this._body = new ReactArea('mcpj-app-body', trans, () => (
      <AppNotice notice={this._notice} />
    ));
    this._frameHost = new Widget();
    this._frameHost.addClass('mcpj-app-frame-host');
    const layout = new PanelLayout();
    layout.addWidget(this._consentArea);
    layout.addWidget(this._body);
    layout.addWidget(this._frameHost);
    this.layout = layout;
  }

  async renderModel(model: IRenderMime.IMimeModel): Promise<void> {
    const data = model.data[APP_OUTPUT_MIME] as unknown as IAppData | undefined;
    if (!data || typeof data.app_id !== 'string') {
      this._placeholder(
        null,
        this._host.trans.__('This app output is malformed.')
      );
      return;
    }
    if (data.app_id === this._data?.app_id && this._bridge) {
      return; // already live: a re-render of the same output keeps the app
    }
    this._data = data;
    await this._start();
  }

  dispose(): void {
    if (this.isDisposed) {
      return;
    }
    this._teardown();
    this._host.channels.channelStateChanged.disconnect(
      this._onChannelState,
      this
    );
    super.dispose();
  }

  // -- lifecycle ------------------------------------------------------------------------------

  private async _start(): Promise<void> {
    const trans = this._host.trans;
    this._teardown();
    const channel = this._host.channels.channelFor(this._host.kernel());
    this._host.channels.channelStateChanged.connect(this._onChannelState, this);
    if (!channel || !channel.isOpen) {
      this._placeholder(
        'waiting',
        trans.__(
          "This app runs when the notebook's kernel is connected to its MCP server. Run the cell to show it."
        )
      );
      return; // _onChannelState retries when the channel opens
    }
    if (channel.page && channel.page.server_extension === false) {
      this._placeholder(
        'no-route',
        trans.__(
          'The app needs the mcp_jupyter Jupyter server extension (its sandbox route), which this server lacks.'
        )
      );
      return;
    }
    this._channel = channel;
    channel.messageReceived.connect(this._onKernelMessage, this);
    const kernel = channel.kernel;
    kernel.statusChanged.connect(this._onKernelStatus, this);
    this._status(trans.__('Loading the app…'));
    let opened: IOpened;
    try {
      opened = await this._kernelRequest<IOpened>('app/open', {});
    } catch (error) {
      this._placeholder(
        'gone',
        error instanceof Error ? error.message : String(error)
      );
      return;
    }
    if (this.isDisposed || this._channel !== channel) {
      return;
    }
    this._mount(opened);
  }

  private _mount(opened: IOpened): void {
    this._opened = opened;
    this._setNotice(null);
    this._frameHost.node.textContent = ''; // a frame still saying goodbye (teardown) goes now
    const frame = document.createElement('iframe');
    frame.className = 'mcpj-app-frame';
    // Belt and braces with the route's CSP sandbox: scripts only (no same-origin, popups, forms,
    // top navigation, modals, downloads).
    frame.setAttribute('sandbox', 'allow-scripts');
    frame.setAttribute('referrerpolicy', 'no-referrer');
    frame.title = this._host.trans.__(
      'MCP App: %1',
      this._data!.title ?? this._data!.tool
    );
    const allow = allowAttribute(opened.permissions);
    if (allow) {
      frame.setAttribute('allow', allow);
    }
    frame.style.height = `${INITIAL_HEIGHT}px`;
    if (opened.prefersBorder) {
      frame.classList.add('mcpj-app-bordered');
    }
    frame.src = sandboxUrl(PageConfig.getBaseUrl(), opened.csp);
    this._frame = frame;
    this._bridge = new HostBridge({
      frame,
      onRequest: (method, params) => this._onAppRequest(method, params),
      onNotification: (method, params) =>
        this._onAppNotification(method, params)
    });
    this._host.themeChanged?.connect(this._onThemeChanged, this);
    this._frameHost.node.appendChild(frame);
  }

  /**
   * Close the app: send `ui/resource-teardown`, remove the frame once the app answered (or after
   * half a second), drop every listener; pending kernel requests fail. When the output itself is
   * disposed, JupyterLab removes its DOM at once, so the app gets the request but no time.
   */
  private _teardown(): void {
    const bridge = this._bridge;
    const frame = this._frame;
    if (bridge && frame && this._initialized && frame.isConnected) {
      frame.classList.add('mcpj-app-closing');
      void bridge
        .request('ui/resource-teardown', {}, 500)
        .catch(() => undefined)
        .then(() => {
          bridge.dispose();
          frame.remove();
        });
    } else {
      bridge?.dispose();
      frame?.remove();
    }
    this._bridge = null;
    this._frame = null;
    this._htmlSent = false;
    this._initialized = false;
    this._host.themeChanged?.disconnect(this._onThemeChanged, this);
    if (this._channel) {
      this._channel.messageReceived.disconnect(this._onKernelMessage, this);
      this._channel.kernel.statusChanged.disconnect(this._onKernelStatus, this);
    }
    this._channel = null;
    for (const pending of this._pending.values()) {
      pending.reject(new Error('the app was closed'));
    }
    this._pending.clear();
    const consents = this._consents;
    this._consents = [];
    consents.forEach(consent => consent.answer(false)); // the app is gone: nothing was allowed
    this._consentArea.update();
  }

  private _onChannelState(_: IMcpChannels, channel: IMcpChannel): void {
    if (this._channel && channel === this._channel && !channel.isOpen) {
      this._teardown();
      this._placeholder('restarted', this._restartedText());
    } else if (
      !this._channel &&
      channel.isOpen &&
      this._waiting &&
      channel.kernel === this._host.kernel()
    ) {
      void this._start();
    }
  }

  private _onKernelStatus(
    _: Kernel.IKernelConnection,
    status: Kernel.Status
  ): void {
    if (
      status === 'restarting' ||
      status === 'autorestarting' ||
      status === 'dead'
    ) {
      this._teardown();
      this._placeholder('restarted', this._restartedText());
    }
  }

  private _restartedText(): string {
    return this._host.trans.__(
      'The kernel restarted or stopped, so the app was closed. Run the cell again.'
    );
  }

  // -- the app's requests and notifications ---------------------------------------------------

  private async _onAppRequest(method: string, params: any): Promise<any> {
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
      return this._kernelRequest(method, params);
    }
    throw new RpcError(
      METHOD_NOT_FOUND,
      `this host does not support ${method}`
    );
  }

  private _onAppNotification(method: string, params: any): void {
    const opened = this._opened;
    if (
      method === 'ui/notifications/sandbox-proxy-ready' &&
      opened &&
      !this._htmlSent
    ) {
      this._htmlSent = true; // once: the HTML goes to the proxy page, never again to the app
      this._bridge?.notify('ui/notifications/sandbox-resource-ready', {
        html: opened.html,
        csp: opened.csp ?? undefined,
        permissions: opened.permissions ?? undefined
      });
    } else if (
      method === 'ui/notifications/initialized' &&
      opened &&
      !this._initialized
    ) {
      this._initialized = true;
      this._bridge?.notify('ui/notifications/tool-input', {
        arguments: opened.input ?? {}
      });
      if (opened.result) {
        this._bridge?.notify('ui/notifications/tool-result', opened.result);
      }
    } else if (method === 'ui/notifications/size-changed') {
      const height = frameHeight(params?.height);
      if (this._frame && height !== null) {
        this._frame.style.height = `${height}px`;
      }
    } else if (method === 'notifications/message') {
      this._kernelRequest('notifications/message', params).catch(
        () => undefined
      );
    } else if (method === 'ui/notifications/request-teardown') {
      this._teardown();
      this._placeholder(
        'closed',
        this._host.trans.__('The app closed itself.')
      );
    }
  }

  private _initializeResult(params: any): any {
    const asked =
      typeof params?.protocolVersion === 'string' ? params.protocolVersion : '';
    return {
      protocolVersion:
        asked === APPS_PROTOCOL_VERSION ? asked : APPS_PROTOCOL_VERSION,
      hostInfo: { name: 'mcp-jupyter', version: this._host.version },
      hostCapabilities: hostCapabilities(
        this._opened?.csp,
        this._opened?.permissions
      ),
      hostContext: this._hostContext()
    };
  }

  private _hostContext(): any {
    const width = this.node.clientWidth || undefined;
    return {
      toolInfo: this._opened?.tool ? { tool: this._opened.tool } : undefined,
      theme: this._host.theme(),
      styles: { variables: hostStyles() },
      displayMode: 'inline',
      availableDisplayModes: ['inline'],
      containerDimensions: width
        ? { width, maxHeight: MAX_HEIGHT }
        : { maxHeight: MAX_HEIGHT },
      locale: navigator.language,
      timeZone: Intl.DateTimeFormat().resolvedOptions().timeZone,
      userAgent: `mcp-jupyter/${this._host.version} JupyterLab`,
      platform: 'web'
    };
  }

  private _onThemeChanged(): void {
    if (this._initialized) {
      this._bridge?.notify('ui/notifications/host-context-changed', {
        theme: this._host.theme(),
        styles: { variables: hostStyles() }
      });
    }
  }

  private async _openLink(params: any): Promise<any> {
    const url = linkUrl(params);
    if (url === null) {
      throw new RpcError(
        INVALID_PARAMS,
        'ui/open-link takes an absolute http(s) URL'
      );
    }
    const trans = this._host.trans;
    const allowed = await this._consent(
      'open-link',
      trans.__('The app wants to open a link in a new tab:'),
      url,
      trans.__('Open')
    );
    if (!allowed) {
      return { isError: true };
    }
    window.open(url, '_blank', 'noopener,noreferrer');
    return {};
  }

  private async _message(params: any): Promise<any> {
    const content = Array.isArray(params?.content) ? params.content : [];
    const trans = this._host.trans;
    const allowed = await this._consent(
      'message',
      trans.__('The app wants to send this message:'),
      messageText(content),
      trans.__('Send')
    );
    if (!allowed) {
      return { isError: true };
    }
    await this._kernelRequest('ui/message', { role: 'user', content });
    return {};
  }

  /** A card above the app asking the person; resolves true on the allow button only. */
  private _consent(
    kind: string,
    question: string,
    detail: string,
    allowLabel: string
  ): Promise<boolean> {
    const app = `${this._data?.title ?? this._data?.tool} (${this._data?.server})`;
    return new Promise(resolve => {
      const consent: IAppConsent = {
        id: ++this._lastConsent,
        kind,
        question: `${app}: ${question}`,
        detail,
        allowLabel,
        answer: allowed => {
          this._consents = this._consents.filter(c => c !== consent);
          this._consentArea.update();
          resolve(allowed);
        }
      };
      this._consents = [...this._consents, consent];
      this._consentArea.update();
    });
  }

  // -- the kernel -------------------------------------------------------------------------------

  /** Forward one request to the kernel (`app.request`); resolves with its `app.response`'s result. */
  private _kernelRequest<T = unknown>(
    method: string,
    params: unknown
  ): Promise<T> {
    const channel = this._channel;
    if (!channel || !this._data) {
      return Promise.reject(
        new Error(this._host.trans.__('the kernel is not connected'))
      );
    }
    const requestId = `${this._nonce}-${++this._lastRequest}`;
    return new Promise<T>((resolve, reject) => {
      this._pending.set(requestId, {
        resolve: value => resolve(value as T),
        reject
      });
      const sent = channel.send({
        type: 'app.request',
        app_id: this._data!.app_id,
        request_id: requestId,
        method,
        params
      });
      if (!sent) {
        this._pending.delete(requestId);
        reject(new Error(this._host.trans.__('the kernel is not connected')));
      }
    });
  }

  private _onKernelMessage(_: IMcpChannel, msg: KernelMessage): void {
    if (msg.type !== 'app.response' || msg.app_id !== this._data?.app_id) {
      return;
    }
    const pending = this._pending.get(msg.request_id);
    if (!pending) {
      return;
    }
    this._pending.delete(msg.request_id);
    if (msg.error) {
      pending.reject(new RpcError(msg.error.code, msg.error.message));
    } else {
      pending.resolve(msg.result);
    }
  }

  // -- static views -----------------------------------------------------------------------------

  private _setNotice(notice: AppNoticeState): void {
    this._notice = notice;
    this._body.update();
  }

  private _status(text: string): void {
    this._setNotice({ kind: 'status', text });
  }

  private _placeholder(reason: string | null, text: string): void {
    this._waiting = reason === 'waiting';
    const data = this._data;
    const trans = this._host.trans;
    const title = data
      ? trans.__(
          'MCP App: %1 (server %2)',
          data.title ?? data.tool,
          data.server
        )
      : trans.__('MCP App');
    this._setNotice({
      kind: 'placeholder',
      reason: reason ?? 'invalid',
      title,
      text
    });
  }

  private _data: IAppData | null = null;
  private _opened: IOpened | null = null;
  private _channel: IMcpChannel | null = null;
  private _bridge: HostBridge | null = null;
  private _frame: HTMLIFrameElement | null = null;
  private _htmlSent = false;
  private _initialized = false;
  private _waiting = false;
  private _lastRequest = 0;
  // Every open tab gets every response: ids unique across tabs keep answers apart.
  private readonly _nonce = Math.random().toString(36).slice(2);
  private _pending = new Map<
    string,
    { resolve: (v: unknown) => void; reject: (e: Error) => void }
  >();
  private _consents: IAppConsent[] = [];
  private _lastConsent = 0;
  private _notice: AppNoticeState = null;
  private readonly _consentArea: ReactArea;
  private readonly _body: ReactArea;
  private readonly _frameHost: Widget;
}

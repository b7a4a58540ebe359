/**
 * The renderer of `application/vnd.mcp-jupyter.app+json` outputs: a live MCP App in a sandboxed frame.
 * This module is the output's lifecycle; each other job has a module of its own.
 *
 * 1. Ask the kernel (channel message `app.request`, method `app/open`: kernelRequests.ts) for the
 *    app's HTML, CSP and permissions; the output's JSON only names the app (`app_id`), the server and
 *    the tool.
 * 2. Show it in a sandboxed frame (frame.ts) and answer its JSON-RPC (bridge.ts carries it,
 *    hostProtocol.ts answers it), with consent cards above the frame for what the person must allow
 *    (consents.ts, components/AppConsentCard.tsx) and JupyterLab's look (theming.ts).
 * 3. Tear down when the output is cleared (dispose) or the kernel restarts; without a live channel,
 *    show a static placeholder instead of a frame.
 */
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
  AppNoticeState
} from '../components/AppConsentCard';
import { TranslationContext } from '../components/translation';
import { Theme } from '../messages';
import { IMcpChannel, IMcpChannels } from '../tokens';
import { HostBridge } from './bridge';
import { ConsentQueue } from './consents';
import { createAppFrame } from './frame';
import { AppHostProtocol } from './hostProtocol';
import { KernelRequests } from './kernelRequests';
import { IAppOutputData, IOpenedApp } from './protocol';
import { look } from './theming';

/** The output MIME type the kernel emits for a tool result whose tool has an app. */
export const APP_OUTPUT_MIME = 'application/vnd.mcp-jupyter.app+json';

/** What the renderer needs from the notebook it renders in. */
export interface IAppHost {
  channels: IMcpChannels;
  /** The notebook's kernel now (it changes on restart or kernel switch). */
  kernel: () => Kernel.IKernelConnection | null;
  /** JupyterLab's theme now. */
  theme: () => Theme;
  /** Emitted when JupyterLab's theme changes (null: never). */
  themeChanged: ISignal<unknown, unknown> | null;
  /** mcp_jupyter's version, for `hostInfo`. */
  version: string;
  /** The strings' translations. */
  trans: TranslationBundle;
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
      <AppConsents consents={this._consents.consents} />
    ));
    this._consents.changed.connect(this._onConsentsChanged, this);
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
    const data = model.data[APP_OUTPUT_MIME] as unknown as
      IAppOutputData | undefined;
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
    this._consents.changed.disconnect(this._onConsentsChanged, this);
    super.dispose();
  }

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
    const requests = new KernelRequests(
      channel,
      this._data!.app_id,
      trans.__('the kernel is not connected')
    );
    this._requests = requests;
    channel.kernel.statusChanged.connect(this._onKernelStatus, this);
    this._status(trans.__('Loading the app…'));
    let opened: IOpenedApp;
    try {
      opened = await requests.request<IOpenedApp>('app/open', {});
    } catch (error) {
      this._placeholder(
        'gone',
        error instanceof Error ? error.message : String(error)
      );
      return;
    }
    if (this.isDisposed || this._requests !== requests) {
      return;
    }
    this._mount(opened);
  }

  private _mount(app: IOpenedApp): void {
    const host = this._host;
    const trans = host.trans;
    const data = this._data!;
    this._setNotice(null);
    this._frameHost.node.textContent = ''; // a frame still saying goodbye (teardown) goes now
    const frame = createAppFrame(
      app,
      trans.__('MCP App: %1', data.title ?? data.tool)
    );
    const protocol = new AppHostProtocol({
      app,
      appName: `${data.title ?? data.tool} (${data.server})`,
      notify: (method, params) => bridge.notify(method, params),
      kernel: (method, params) => this._kernelRequest(method, params),
      ask: question => this._consents.ask(question),
      look: () => look(host.theme(), getComputedStyle(document.body)),
      width: () => this.node.clientWidth,
      resize: height => {
        if (this._frame) {
          this._frame.style.height = `${height}px`;
        }
      },
      close: () => {
        this._teardown();
        this._placeholder('closed', trans.__('The app closed itself.'));
      },
      openLink: url => void window.open(url, '_blank', 'noopener,noreferrer'),
      version: host.version,
      trans
    });
    const bridge = new HostBridge({
      frame,
      onRequest: (method, params) => protocol.handleRequest(method, params),
      onNotification: (method, params) =>
        protocol.handleNotification(method, params)
    });
    this._frame = frame;
    this._bridge = bridge;
    this._protocol = protocol;
    host.themeChanged?.connect(this._onThemeChanged, this);
    this._frameHost.node.appendChild(frame);
  }

  /**
   * Close the app: send `ui/resource-teardown`, remove the frame once the app answered (or after
   * half a second), drop every listener; pending kernel requests fail and waiting consent cards are
   * denied. When the output itself is disposed, JupyterLab removes its DOM at once, so the app gets
   * the request but no time.
   */
  private _teardown(): void {
    const bridge = this._bridge;
    const frame = this._frame;
    if (bridge && frame && this._protocol?.initialized && frame.isConnected) {
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
    this._protocol = null;
    this._host.themeChanged?.disconnect(this._onThemeChanged, this);
    const requests = this._requests;
    this._requests = null;
    requests?.channel.kernel.statusChanged.disconnect(
      this._onKernelStatus,
      this
    );
    requests?.dispose();
    this._consents.denyAll(); // the app is gone: nothing was allowed
  }

  /** Forward one of the app's requests to the kernel; resolves with the kernel's result. */
  private _kernelRequest(method: string, params: unknown): Promise<unknown> {
    if (!this._requests) {
      return Promise.reject(
        new Error(this._host.trans.__('the kernel is not connected'))
      );
    }
    return this._requests.request(method, params);
  }

  private _onChannelState(_: IMcpChannels, channel: IMcpChannel): void {
    const current = this._requests?.channel ?? null;
    if (current && channel === current && !channel.isOpen) {
      this._teardown();
      this._placeholder('restarted', this._restartedText());
    } else if (
      !current &&
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

  private _onConsentsChanged(): void {
    this._consentArea.update();
  }

  private _onThemeChanged(): void {
    this._protocol?.lookChanged();
  }

  private _restartedText(): string {
    return this._host.trans.__(
      'The kernel restarted or stopped, so the app was closed. Run the cell again.'
    );
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

  private _data: IAppOutputData | null = null;
  private _requests: KernelRequests | null = null;
  private _bridge: HostBridge | null = null;
  private _frame: HTMLIFrameElement | null = null;
  private _protocol: AppHostProtocol | null = null;
  private _waiting = false;
  private readonly _consents = new ConsentQueue();
  private _notice: AppNoticeState = null;
  private readonly _consentArea: ReactArea;
  private readonly _body: ReactArea;
  private readonly _frameHost: Widget;
}

/**
 * `IMcpChannels`: one comm per kernel to the kernel's `mcp_jupyter.channel` target.
 *
 * Lifecycle of a channel:
 * - created for a kernel connection (the sidebar and MCP Apps ask for it); it registers the frontend
 *   target `mcp_jupyter.announce` and tries to open the channel once (a page reload finds kernels
 *   that imported mcp_jupyter long ago);
 * - the kernel opens an `announce` comm when mcp_jupyter is imported: the channel (re)opens;
 * - a kernel restart drops the comm and the snapshot; the next announce opens it again.
 *
 * The comm is opened only after JupyterLab has started its subshell (`comm.subshellStarted`), so
 * that even the `comm_open` travels on the subshell and is handled while a cell blocks the kernel.
 */
import { Kernel, KernelMessage as JupyterMessage } from '@jupyterlab/services';
import { JSONObject } from '@lumino/coreutils';
import { ISignal, Signal } from '@lumino/signaling';

import {
  FrontendMessage,
  IHelloMessage,
  IPageInfo,
  ISnapshot,
  KernelMessage,
  parseKernelMessage
} from './messages';
import {
  ANNOUNCE_TARGET,
  CHANNEL_TARGET,
  IMcpChannel,
  IMcpChannels,
  PROTOCOL
} from './tokens';

/** How long to wait for JupyterLab's comm subshell before opening on the main shell anyway (ms). */
const SUBSHELL_WAIT_MS = 10_000;

/** Supplies the hello's page info (theme, server extension) when a channel opens. */
export type PageInfoProvider = () => Promise<IPageInfo>;

/** The channel to one kernel (see the module docstring for its lifecycle). */
export class McpChannel implements IMcpChannel {
  constructor(
    readonly kernel: Kernel.IKernelConnection,
    private readonly _pageInfo: PageInfoProvider,
    private readonly _onStateChanged: (channel: McpChannel) => void
  ) {
    kernel.registerCommTarget(ANNOUNCE_TARGET, comm => {
      comm.onMsg = () => undefined; // the announce carries its data in the comm_open only
      void this.open();
    });
    kernel.statusChanged.connect(this._onStatus, this);
    void this.open();
  }

  get page(): IPageInfo | null {
    return this._page;
  }

  get snapshot(): ISnapshot | null {
    return this._snapshot;
  }

  get isOpen(): boolean {
    return this._comm !== null && this._answered && !this._comm.isDisposed;
  }

  get messageReceived(): ISignal<IMcpChannel, KernelMessage> {
    return this._messageReceived;
  }

  get snapshotChanged(): ISignal<IMcpChannel, ISnapshot | null> {
    return this._snapshotChanged;
  }

  /** Send `msg` to the kernel; a no-op (false) when no comm is open. */
  send(msg: FrontendMessage): boolean {
    const comm = this._comm;
    if (!comm || comm.isDisposed || this.kernel.isDisposed) {
      return false;
    }
    try {
      comm.send(asJson(msg));
      return true;
    } catch (error) {
      console.warn('mcp_jupyter: could not send on the channel', error);
      return false;
    }
  }

  /** Open (or reopen) the channel: a fresh comm on a subshell, with a hello. */
  async open(): Promise<void> {
    if (this.kernel.isDisposed) {
      return;
    }
    const attempt = ++this._attempt;
    await this.kernel.info;
    const comm = this.kernel.createComm(CHANNEL_TARGET);
    // `subshellStarted` is on JupyterLab's CommHandler, not on the IComm interface; it never
    // settles when subshells are off, hence the checks and the time limit.
    const started = (comm as { subshellStarted?: Promise<void> })
      .subshellStarted;
    if (
      started &&
      this.kernel.supportsSubshells &&
      String(comm.commsOverSubshells) !== 'disabled'
    ) {
      await Promise.race([
        started.catch(() => undefined),
        delay(SUBSHELL_WAIT_MS)
      ]);
    }
    const page = await this._pageInfo();
    if (attempt !== this._attempt || this.kernel.isDisposed) {
      comm.dispose(); // a newer open() superseded this one
      return;
    }
    this._drop();
    this._comm = comm;
    this._page = page;
    comm.onMsg = (msg: JupyterMessage.ICommMsgMsg) =>
      this._onMessage(comm, msg.content.data);
    comm.onClose = () => {
      if (this._comm === comm) {
        this._drop();
      }
    };
    try {
      const hello: IHelloMessage = { type: 'hello', protocol: PROTOCOL, page };
      comm.open(asJson(hello));
    } catch {
      this._drop();
    }
  }

  /** Called by the service when the page changes in a way the kernel should know (the theme). */
  updatePage(page: IPageInfo): void {
    this._page = page;
    this.send({ type: 'theme', theme: page.theme });
  }

  private _onMessage(comm: Kernel.IComm, data: unknown): void {
    if (comm !== this._comm || !data || typeof data !== 'object') {
      return;
    }
    const wasOpen = this.isOpen;
    this._answered = true; // any answer means the kernel has mcp_jupyter, even one we cannot read
    if (!wasOpen) {
      // Announce the open channel BEFORE its first message: plugins connect to `messageReceived` on
      // this signal, and the first message is not always the snapshot (a sign-in that began before
      // the hello is announced while the snapshot is still being built).
      this._onStateChanged(this);
    }
    const msg = parseKernelMessage(data);
    if (msg?.type === 'snapshot') {
      const { type: _, ...snapshot } = msg;
      this._snapshot = snapshot;
      this._snapshotChanged.emit(this._snapshot);
    } else if (msg?.type === 'error') {
      console.warn(
        `mcp_jupyter: the kernel refused the channel: ${msg.message}`
      );
    }
    if (msg) {
      this._messageReceived.emit(msg);
    }
  }

  private _onStatus(_: Kernel.IKernelConnection, status: Kernel.Status): void {
    if (
      status === 'restarting' ||
      status === 'autorestarting' ||
      status === 'dead'
    ) {
      this._attempt++;
      this._drop();
    }
  }

  /** Forget the comm and the snapshot (the comm itself is closed by the kernel or disposed by Lab). */
  private _drop(): void {
    const had = this._comm !== null;
    const wasOpen = this.isOpen;
    const comm = this._comm;
    this._comm = null;
    this._answered = false;
    if (comm && !comm.isDisposed) {
      comm.dispose();
    }
    if (had && this._snapshot !== null) {
      this._snapshot = null;
      this._snapshotChanged.emit(null);
    }
    if (wasOpen) {
      this._onStateChanged(this);
    }
  }

  private _comm: Kernel.IComm | null = null;
  private _answered = false;
  private _attempt = 0;
  private _page: IPageInfo | null = null;
  private _snapshot: ISnapshot | null = null;
  private _messageReceived = new Signal<IMcpChannel, KernelMessage>(this);
  private _snapshotChanged = new Signal<IMcpChannel, ISnapshot | null>(this);
}

/** The service: channels by kernel connection. */
export class McpChannels implements IMcpChannels {
  constructor(private readonly _pageInfo: PageInfoProvider) {}

  get channelStateChanged(): ISignal<IMcpChannels, IMcpChannel> {
    return this._stateChanged;
  }

  channelFor(
    kernel: Kernel.IKernelConnection | null | undefined
  ): McpChannel | null {
    if (!kernel || kernel.isDisposed) {
      return null;
    }
    let channel = this._channels.get(kernel);
    if (!channel) {
      channel = new McpChannel(kernel, this._pageInfo, c =>
        this._stateChanged.emit(c)
      );
      this._channels.set(kernel, channel);
      kernel.disposed.connect(() => this._channels.delete(kernel));
    }
    return channel;
  }

  /** Tell every open channel about a new page state (a theme change). */
  async pageChanged(): Promise<void> {
    const page = await this._pageInfo();
    for (const channel of this._channels.values()) {
      channel.updatePage(page);
    }
  }

  private _channels = new Map<Kernel.IKernelConnection, McpChannel>();
  private _stateChanged = new Signal<IMcpChannels, IMcpChannel>(this);
}

/** A message as the comm's JSON payload (every message is plain JSON data). */
function asJson(msg: FrontendMessage): JSONObject {
  return msg as unknown as JSONObject;
}

function delay(ms: number): Promise<void> {
  return new Promise(resolve => setTimeout(resolve, ms));
}

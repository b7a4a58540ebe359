/**
 * `IMcpChannels`: one comm per kernel to the kernel's `mcp_jupyter.channel` target.
 *
 * The kernel serves that target once mcp_jupyter is imported, and never announces itself (a headless
 * run would log a comm it cannot handle): the channel asks. The kernel keeps one silent comm under the
 * target, so `comm_info` for it is not empty exactly when the channel can open. Asking costs a kernel
 * without mcp_jupyter nothing; a comm opened to a target it lacks would be refused with an error on its
 * stderr and closed again, at every try.
 * A channel asks, and opens when the answer is yes:
 * - when it is created (a page reload finds kernels that imported mcp_jupyter long ago) and when its
 *   kernel is idle after a restart (a startup file may import it);
 * - after each cell while it is not open (the cell may have imported it, even through another module),
 *   and once more when a "no" arrives after a cell ended while it was on its way (the subshell may
 *   have answered before the cell's import ran);
 * - every ASK_EVERY_MS while a cell that names mcp_jupyter runs, on the channel's subshell (the main
 *   shell is busy with that cell), so `import mcp_jupyter` and `mj.connect(...)` in one cell get the
 *   channel while the cell runs (the sign-in's Jupyter route and notification need it).
 * A kernel restart drops the comm and the snapshot.
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
  parseKernelMessage,
  withTraffic
} from './messages';
import { CHANNEL_TARGET, IMcpChannel, IMcpChannels, PROTOCOL } from './tokens';

/** How long to wait for JupyterLab's comm subshell before opening on the main shell anyway (ms). */
const SUBSHELL_WAIT_MS = 10_000;
/** How often to ask, while a cell that names mcp_jupyter runs, whether the kernel serves the channel (ms). */
const ASK_EVERY_MS = 250;
/** A cell whose code names the package may import it. */
const NAMES_THE_PACKAGE = /\bmcp_jupyter\b/;

/** Supplies the hello's page info (theme, server extension) when a channel opens. */
export type PageInfoProvider = () => Promise<IPageInfo>;

/** The channel to one kernel (see the module docstring for its lifecycle). */
export class McpChannel implements IMcpChannel {
  constructor(
    readonly kernel: Kernel.IKernelConnection,
    private readonly _pageInfo: PageInfoProvider,
    private readonly _onStateChanged: (channel: McpChannel) => void
  ) {
    kernel.statusChanged.connect(this._onStatus, this);
    kernel.anyMessage.connect(this._onAnyMessage, this);
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

  /**
   * Open (or reopen) the channel if the kernel serves it: a fresh comm on a subshell, with a hello.
   * The kernel is asked first, on that subshell, and again every ASK_EVERY_MS while a cell that
   * names mcp_jupyter runs.
   */
  async open(): Promise<void> {
    if (this.kernel.isDisposed) {
      return;
    }
    const attempt = ++this._attempt;
    this._asking = true;
    try {
      await this.kernel.info;
      const comm = this.kernel.createComm(CHANNEL_TARGET);
      // `subshellStarted` and `subshellId` are on JupyterLab's CommHandler, not on the IComm
      // interface; the promise never settles when subshells are off, hence the checks and the limit.
      const handler = comm as {
        subshellStarted?: Promise<void>;
        subshellId?: string | null;
      };
      const started = handler.subshellStarted;
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
      for (;;) {
        const endedBefore = this._cellsEnded;
        if (await this._served(handler.subshellId ?? null)) {
          break;
        }
        if (attempt !== this._attempt || this.kernel.isDisposed) {
          comm.dispose();
          return;
        }
        if (this._watched.size > 0) {
          await delay(ASK_EVERY_MS);
        } else if (this._cellsEnded === endedBefore) {
          comm.dispose();
          return;
        }
        // else a cell ended while the question was on its way (one that ran when it was asked, or
        // one that started and ended meanwhile, as an import run right after the notebook opens
        // does on a busy machine): the subshell may have answered "no" before the cell's import
        // ran, and the cell's reply came first. Ask once more, now.
      }
      await this._hello(comm, attempt);
    } finally {
      if (attempt === this._attempt) {
        this._asking = false;
      }
    }
  }

  /** Whether the kernel serves the channel (asked on `subshellId`, or on the main shell without one). */
  private async _served(subshellId: string | null): Promise<boolean> {
    try {
      const request =
        JupyterMessage.createMessage<JupyterMessage.ICommInfoRequestMsg>({
          msgType: 'comm_info_request',
          channel: 'shell',
          session: this.kernel.clientId,
          username: this.kernel.username,
          content: { target_name: CHANNEL_TARGET },
          subshellId
        });
      const reply = (await this.kernel.sendShellMessage(request, true, true)
        .done) as JupyterMessage.ICommInfoReplyMsg;
      return (
        reply.content.status === 'ok' &&
        Object.keys(reply.content.comms).length > 0
      );
    } catch {
      return false; // a kernel restarting or gone: asked again when it is back
    }
  }

  /** Take `comm` as the channel and say hello (the page info goes with it). */
  private async _hello(comm: Kernel.IComm, attempt: number): Promise<void> {
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
    } else if (msg?.type === 'traffic' && this._snapshot) {
      // Calls change no listing, so the kernel sends their numbers apart from its snapshots.
      this._snapshot = withTraffic(this._snapshot, msg.connections);
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
      this._asking = false;
      this._restarted = true;
      this._watched.clear();
      this._drop();
    } else if (status === 'idle' && this._restarted) {
      this._restarted = false;
      void this.open();
    }
  }

  /** Cells of this kernel connection: ask while one that names the package runs, and after each one. */
  private _onAnyMessage(
    _: Kernel.IKernelConnection,
    args: Kernel.IAnyMessageArgs
  ): void {
    const { msg, direction } = args;
    if (direction === 'send' && msg.header.msg_type === 'execute_request') {
      const code = (msg as JupyterMessage.IExecuteRequestMsg).content.code;
      if (this._comm === null && NAMES_THE_PACKAGE.test(code)) {
        this._watched.add(msg.header.msg_id);
        if (!this._asking) {
          void this.open(); // it keeps asking while a watched cell runs
        }
      }
    } else if (
      direction === 'recv' &&
      msg.header.msg_type === 'execute_reply'
    ) {
      this._cellsEnded++;
      this._watched.delete(msg.parent_header.msg_id as string);
      if (this._comm === null && !this._asking) {
        void this._askAfterCell();
      }
    }
  }

  /** After a cell: ask on the main shell (the kernel is idle, or runs the next cell and answers after it). */
  private async _askAfterCell(): Promise<void> {
    const attempt = this._attempt;
    if (
      (await this._served(null)) &&
      attempt === this._attempt &&
      this._comm === null &&
      !this._asking
    ) {
      void this.open();
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
  private _asking = false; // an open() is asking or opening
  private _restarted = false; // the kernel restarted and was not asked since
  private _watched = new Set<string>(); // running cells that name mcp_jupyter (execute msg ids)
  private _cellsEnded = 0; // execute replies seen: a "no" asked before one may predate its import
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

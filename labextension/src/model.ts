/**
 * The MCP sidebar's state, in one object that says when it changed.
 *
 * The plugin feeds it what JupyterLab knows: the active notebook and its kernel (`follow`) and the
 * settings (`setSettings`). The kernel's channel moves it on: its snapshots, its opening and closing,
 * its refusals of answers the sidebar sent (`answer.error`) and its answers to Find servers
 * (`registry.results`). The React views read it and render
 * again on `changed` (components/useModel.ts); the tab's badge (sidebar.tsx) and the inbox
 * notifications (notices.ts) observe it too. It holds no DOM and no widget: test/model.test.ts drives
 * it with a stub channel.
 *
 * A feature with state of its own adds it here: a private field and a getter; a method, or a case in
 * `_onMessage` for a kernel message, that sets the field and calls `_emit` with a new
 * `SidebarChange`. Views read the getter (they render again on every change); code that acts on one
 * kind of change filters `changed` on it.
 */
import { Kernel } from '@jupyterlab/services';
import { IDisposable } from '@lumino/disposable';
import { ISignal, Signal } from '@lumino/signaling';

import {
  AnswerAction,
  IAnswerErrorMessage,
  IInboxItem,
  IRegistryResultsMessage,
  ISnapshot,
  KernelMessage
} from './messages';
import { DEFAULT_SETTINGS, ISidebarSettings } from './settings';
import { IMcpChannel, IMcpChannels } from './tokens';

/** What a change touched (the argument of `changed`). */
export type SidebarChange =
  /** The active notebook's name. */
  | 'notebook'
  /** The channel followed, or whether it is open. */
  | 'channel'
  /** The followed kernel's snapshot (connections, configured servers, inbox). */
  | 'snapshot'
  /** The sidebar's settings. */
  | 'settings'
  /** The filter text of the connections' lists. */
  | 'filter'
  /** An inbox answer was sent or refused. */
  | 'answers'
  /** Find servers: a search was sent, answered, or forgotten with its kernel. */
  | 'registry';

/** What became of the person's answer to one showing of an inbox request. */
export interface IAnswerState {
  /** The answer sent ('' before one is sent, and again after the kernel refused it). */
  readonly sent: AnswerAction | '';
  /** The kernel's reasons for refusing the last answer (null when it did not refuse one). */
  readonly refused: readonly string[] | null;
}

/**
 * What identifies one showing of an inbox request: its id, and for sampling its state, since a
 * sampling request comes back in "review" with the model's draft, to be answered afresh.
 */
export function inboxKey(item: IInboxItem): string {
  return `${item.id}:${item.kind === 'sampling' ? (item.payload?.state ?? '') : ''}`;
}

const NOT_ANSWERED: IAnswerState = Object.freeze({ sent: '', refused: null });

/** Find servers: the last search sent to the kernel, and the kernel's answer. */
export interface IRegistrySearch {
  /** The last query sent ('' before the first search). */
  readonly query: string;
  /** Sent and not answered yet (the previous answer, if any, still shows). */
  readonly pending: boolean;
  /** The kernel's answer to the last answered search (null before one). */
  readonly results: IRegistryResultsMessage | null;
}

const NO_SEARCH: IRegistrySearch = Object.freeze({
  query: '',
  pending: false,
  results: null
});

/** The sidebar's state (see the module docstring). */
export class SidebarModel implements IDisposable {
  /** A model following no notebook yet; it learns of channels opening and closing from `channels`. */
  constructor(private readonly _channels: IMcpChannels) {
    _channels.channelStateChanged.connect(this._onChannelState, this);
  }

  /** Emitted after every change, with what changed. */
  get changed(): ISignal<this, SidebarChange> {
    return this._changed;
  }

  /** The active notebook's name ('' when no notebook is active). */
  get notebook(): string {
    return this._notebook;
  }

  /** The channel of the active notebook's kernel (null: no notebook, or no kernel). */
  get channel(): IMcpChannel | null {
    return this._channel;
  }

  /** Whether that channel is open (its kernel has imported mcp_jupyter and answered). */
  get isOpen(): boolean {
    return this._channel?.isOpen ?? false;
  }

  /** The followed kernel's latest snapshot (null before its first one and after a restart). */
  get snapshot(): ISnapshot | null {
    return this._channel?.snapshot ?? null;
  }

  /** The consent requests waiting in the followed kernel, oldest first. */
  get inbox(): IInboxItem[] {
    return this.snapshot?.inbox ?? [];
  }

  /** The settings (the defaults until the settings registry has answered). */
  get settings(): ISidebarSettings {
    return this._settings;
  }

  /** The filter text of the connections' lists. */
  get filter(): string {
    return this._filter;
  }

  get isDisposed(): boolean {
    return this._isDisposed;
  }

  /** Find servers: the last search and its answer (through the followed kernel). */
  get registry(): IRegistrySearch {
    return this._registry;
  }

  /** What became of the answer to `item` as it shows now. */
  answerState(item: IInboxItem): IAnswerState {
    return this._answers.get(inboxKey(item)) ?? NOT_ANSWERED;
  }

  /** Follow the notebook named `notebook` whose kernel is `kernel` (none: no notebook is active). */
  follow(
    kernel: Kernel.IKernelConnection | null | undefined,
    notebook: string
  ): void {
    const channel = this._channels.channelFor(kernel);
    if (notebook !== this._notebook) {
      this._notebook = notebook;
      this._emit('notebook');
    }
    if (channel === this._channel) {
      return;
    }
    this._channel?.snapshotChanged.disconnect(this._onSnapshot, this);
    this._channel?.messageReceived.disconnect(this._onMessage, this);
    this._channel = channel;
    this._open = channel?.isOpen ?? false;
    this._answers.clear(); // another kernel's requests
    this._forgetRegistry(); // another kernel's registry (its `mj.registry.url`)
    channel?.snapshotChanged.connect(this._onSnapshot, this);
    channel?.messageReceived.connect(this._onMessage, this);
    this._emit('channel');
  }

  /** Use `settings` from now on (the next click, tooltip and notification follow them). */
  setSettings(settings: ISidebarSettings): void {
    const before = this._settings;
    if (
      before.cellPosition === settings.cellPosition &&
      before.runCells === settings.runCells &&
      before.inboxNotifications === settings.inboxNotifications
    ) {
      return;
    }
    this._settings = { ...settings };
    this._emit('settings');
  }

  /** Narrow the connections' lists to `filter`. */
  setFilter(filter: string): void {
    if (filter !== this._filter) {
      this._filter = filter;
      this._emit('filter');
    }
  }

  /**
   * Send the person's answer to `item` (`content`: a form's values, a reply); false when no channel
   * took it. Until the kernel refuses it, the request shows the answer as sent.
   */
  answer(
    item: IInboxItem,
    action: AnswerAction,
    content?: Record<string, unknown>
  ): boolean {
    const sent = this._channel?.send({
      type: 'answer',
      id: item.id,
      action,
      ...(content ? { content } : {})
    });
    if (!sent) {
      return false;
    }
    this._answers.set(inboxKey(item), { sent: action, refused: null });
    this._emit('answers');
    return true;
  }

  /**
   * Ask the followed kernel to search the MCP Registry for `query` (a part of the servers' names; at
   * most `limit` servers, the kernel's default 30 without one); false when no open channel took it. The browser never talks to the registry: the kernel searches the one the
   * notebook set (`mj.registry.url`) and answers `registry.results`. An answer to an earlier search that
   * arrives after this one was sent is dropped.
   */
  searchRegistry(query: string, limit?: number): boolean {
    const id = `registry-${++this._searches}`;
    const sent =
      this.isOpen && // a kernel without mcp_jupyter would never answer
      this._channel?.send({
        type: 'registry.search',
        id,
        query,
        ...(limit ? { limit } : {})
      });
    if (!sent) {
      return false;
    }
    this._searchId = id;
    this._registry = { ...this._registry, query, pending: true };
    this._emit('registry');
    return true;
  }

  dispose(): void {
    if (this._isDisposed) {
      return;
    }
    this._isDisposed = true;
    this._channels.channelStateChanged.disconnect(this._onChannelState, this);
    this._channel?.snapshotChanged.disconnect(this._onSnapshot, this);
    this._channel?.messageReceived.disconnect(this._onMessage, this);
    this._channel = null;
    Signal.clearData(this);
  }

  private _onChannelState(_: IMcpChannels, channel: IMcpChannel): void {
    if (channel === this._channel && channel.isOpen !== this._open) {
      this._open = channel.isOpen;
      if (!this._open) {
        this._forgetRegistry(); // a restarted kernel answers no search sent before
      }
      this._emit('channel');
    }
  }

  private _onSnapshot(_: IMcpChannel, snapshot: ISnapshot | null): void {
    // an answer's state lasts as long as its request shows (a sampling request in review is new)
    const showing = new Set((snapshot?.inbox ?? []).map(inboxKey));
    for (const key of [...this._answers.keys()]) {
      if (!showing.has(key)) {
        this._answers.delete(key);
      }
    }
    this._emit('snapshot');
  }

  private _onMessage(_: IMcpChannel, msg: KernelMessage): void {
    switch (msg.type) {
      case 'answer.error':
        this._onAnswerRefused(msg);
        break;
      case 'registry.results':
        this._onRegistryResults(msg);
        break;
    }
  }

  /** The answer to the last search shows; one to an earlier search is too late to show. */
  private _onRegistryResults(msg: IRegistryResultsMessage): void {
    if (msg.id !== this._searchId) {
      return;
    }
    this._searchId = '';
    this._registry = { query: msg.query, pending: false, results: msg };
    this._emit('registry');
  }

  private _forgetRegistry(): void {
    this._searchId = '';
    if (this._registry !== NO_SEARCH) {
      this._registry = NO_SEARCH;
      this._emit('registry');
    }
  }

  /** The kernel checks an answer as the in-cell card does; a refusal lets the person answer again. */
  private _onAnswerRefused(msg: IAnswerErrorMessage): void {
    const item = this.inbox.find(waiting => waiting.id === msg.id);
    if (!item) {
      return;
    }
    const reasons = msg.errors.map(problem =>
      [problem.path?.join('.'), problem.message].filter(Boolean).join(': ')
    );
    this._answers.set(inboxKey(item), { sent: '', refused: reasons });
    this._emit('answers');
  }

  private _emit(change: SidebarChange): void {
    this._changed.emit(change);
  }

  private _notebook = '';
  private _channel: IMcpChannel | null = null;
  private _open = false;
  private _settings: ISidebarSettings = { ...DEFAULT_SETTINGS };
  private _filter = '';
  private _answers = new Map<string, IAnswerState>();
  private _registry: IRegistrySearch = NO_SEARCH;
  private _searchId = '';
  private _searches = 0;
  private _isDisposed = false;
  private _changed = new Signal<this, SidebarChange>(this);
}

/**
 * The public service of this extension: one MCP channel per kernel.
 *
 * The channel is a comm the FRONTEND opens to the kernel target `mcp_jupyter.channel`. JupyterLab 4.6
 * sends the messages of frontend-opened comms on a kernel subshell (`commsOverSubshells`), and
 * ipykernel 7.4 handles them on that subshell's thread, so the channel works while a cell blocks
 * the kernel's main thread. Message shapes are documented in docs/architecture.md.
 */
import { Kernel } from '@jupyterlab/services';
import { Token } from '@lumino/coreutils';
import { ISignal } from '@lumino/signaling';

/** Comm target the kernel opens (then closes) to say "mcp_jupyter is imported here". */
export const ANNOUNCE_TARGET = 'mcp_jupyter.announce';
/** Comm target of the channel itself, opened by the frontend. */
export const CHANNEL_TARGET = 'mcp_jupyter.channel';
/** Version of the message protocol spoken on the channel. */
export const PROTOCOL = 1;

export type Theme = 'light' | 'dark';

/** What the frontend tells the kernel about the page in its hello. */
export interface IPageInfo {
  origin: string;
  base_url: string;
  theme: Theme;
  server_extension: boolean;
}

export interface IToolInfo {
  name: string;
  title?: string | null;
  description?: string | null;
  has_app?: boolean;
  /** MCP Apps `_meta.ui.visibility`: who the server means to call the tool ("model", "app"). */
  visibility?: string[];
}

export interface IResourceInfo {
  uri: string;
  name?: string | null;
  description?: string | null;
  mime_type?: string | null;
}

export interface ITemplateInfo {
  uri_template: string;
  name?: string | null;
  description?: string | null;
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
}

/** One live (or dead) connection of the kernel, as the kernel's snapshot describes it. */
export interface IConnectionInfo {
  name: string;
  transport: string;
  target: string;
  server: { name: string; version: string } | null;
  protocol_version: string | null;
  alive: boolean;
  error: string | null;
  counts: { tools: number; resources: number; templates: number; prompts: number };
  tools: IToolInfo[];
  resources: IResourceInfo[];
  templates: ITemplateInfo[];
  prompts: IPromptInfo[];
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

/** A consent request waiting for the person. */
export interface IInboxItem {
  id: string;
  kind: 'sampling' | 'elicitation' | 'roots';
  connection: string;
  title: string;
  created: string | number;
  payload: any;
}

/** The kernel's full state, sent after hello, after a refresh and after every change. */
export interface ISnapshot {
  connections: IConnectionInfo[];
  configured: IConfiguredServer[];
  inbox: IInboxItem[];
  /** Whether `%mcp` is registered in the kernel (optional: older kernels do not say). */
  magics?: boolean;
}

/** The channel to one kernel. */
export interface IMcpChannel {
  /** The kernel connection this channel talks to. */
  readonly kernel: Kernel.IKernelConnection;
  /** The page info sent in the last hello (null before the first hello). */
  readonly page: IPageInfo | null;
  /** The latest snapshot (null until the kernel sent one, and again after a restart). */
  readonly snapshot: ISnapshot | null;
  /** Whether the comm is open (the kernel has mcp_jupyter and answered). */
  readonly isOpen: boolean;
  /** Send a JSON message to the kernel; dropped (false) when the comm is not open. */
  send(msg: { type: string; [key: string]: any }): boolean;
  /** Every message the kernel sends (snapshots included). */
  readonly messageReceived: ISignal<IMcpChannel, any>;
  /** Emitted with the new snapshot (or null when the channel closes). */
  readonly snapshotChanged: ISignal<IMcpChannel, ISnapshot | null>;
}

/** The service: the channel of a kernel. */
export interface IMcpChannels {
  /**
   * The channel of `kernel`, created (and tried) on first request; null for a disposed kernel.
   * A channel exists before the kernel has mcp_jupyter: it opens when the kernel announces itself.
   */
  channelFor(kernel: Kernel.IKernelConnection | null | undefined): IMcpChannel | null;
  /** Emitted when a channel opens or closes (its kernel imported mcp_jupyter, restarted, ...). */
  readonly channelStateChanged: ISignal<IMcpChannels, IMcpChannel>;
}

export const IMcpChannels = new Token<IMcpChannels>(
  'mcp-jupyter-labextension:IMcpChannels',
  'The MCP channel (a comm over a kernel subshell) of each kernel.'
);

/** Alias used by the contract: a channel. */
export type McpChannel = IMcpChannel;

/**
 * The public service of this extension: one MCP channel per kernel.
 *
 * The channel is a comm the FRONTEND opens to the kernel target `mcp_jupyter.channel`. JupyterLab 4.6
 * sends the messages of frontend-opened comms on a kernel subshell (`commsOverSubshells`), and
 * ipykernel 7.4 handles them on that subshell's thread, so the channel works while a cell blocks
 * the kernel's main thread. The messages, both ways, are the unions in messages.ts.
 */
import { Kernel } from '@jupyterlab/services';
import { Token } from '@lumino/coreutils';
import { ISignal } from '@lumino/signaling';

import {
  FrontendMessage,
  IPageInfo,
  ISnapshot,
  KernelMessage
} from './messages';

/**
 * Comm target of the channel, opened by the frontend. A kernel serves it once mcp_jupyter is imported
 * and then lists a comm under it in `comm_info`: that is how the frontend knows it can open the channel.
 */
export const CHANNEL_TARGET = 'mcp_jupyter.channel';
/** Version of the message protocol spoken on the channel. */
export const PROTOCOL = 1;

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
  /** Send a message to the kernel; dropped (false) when the comm is not open. */
  send(msg: FrontendMessage): boolean;
  /** Every message the kernel sends that this frontend knows (snapshots included), parsed. */
  readonly messageReceived: ISignal<IMcpChannel, KernelMessage>;
  /** Emitted with the new snapshot (or null when the channel closes). */
  readonly snapshotChanged: ISignal<IMcpChannel, ISnapshot | null>;
}

/** The service: the channel of a kernel. */
export interface IMcpChannels {
  /**
   * The channel of `kernel`, created (and tried) on first request; null for a disposed kernel.
   * A channel exists before the kernel has mcp_jupyter: it asks the kernel (channel.ts) and opens once
   * the kernel serves it.
   */
  channelFor(
    kernel: Kernel.IKernelConnection | null | undefined
  ): IMcpChannel | null;
  /** Emitted when a channel opens or closes (its kernel imported mcp_jupyter, restarted, ...). */
  readonly channelStateChanged: ISignal<IMcpChannels, IMcpChannel>;
}

export const IMcpChannels = new Token<IMcpChannels>(
  'mcp-jupyter-labextension:IMcpChannels',
  'The MCP channel (a comm over a kernel subshell) of each kernel.'
);

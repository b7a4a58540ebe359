/**
 * The host end of an MCP App's postMessage JSON-RPC (MCP Apps spec 2026-01-26).
 *
 * One `HostBridge` per app frame. It accepts messages only from that frame's window (its origin is
 * opaque, so the window is the only identity there is), answers requests through `onRequest`,
 * passes notifications to `onNotification`, and can send requests/notifications to the app.
 *
 * Why not the SDK's AppBridge: our MCP client lives in the kernel, not in the browser, so every
 * method is forwarded anyway; a small bridge keeps zod and the MCP TypeScript SDK out of the
 * JupyterLab bundle and puts every check in one place we can read.
 */

import { isObject } from '../json';

/** A JSON-RPC error an `onRequest` handler may throw to answer with a specific code. */
export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string
  ) {
    super(message);
  }
}

export const METHOD_NOT_FOUND = -32601;
export const INVALID_PARAMS = -32602;
export const INTERNAL_ERROR = -32603;

/** The params of a message, as the other side sent them (checked by whoever reads them). */
export type RpcParams = unknown;

/** A JSON-RPC 2.0 message as posted to the app. */
interface IRpcMessage {
  jsonrpc: '2.0';
  id?: string | number;
  method?: string;
  params?: RpcParams;
  result?: unknown;
  error?: { code: number; message: string };
}

/** A request of ours that waits for the app's answer. */
interface IPending {
  resolve: (result: unknown) => void;
  reject: (error: Error) => void;
}

export interface IBridgeOptions {
  /** The app frame; messages from any other window are ignored. */
  frame: HTMLIFrameElement;
  /** Answer one request from the app (throw `RpcError` for a JSON-RPC error). */
  onRequest: (method: string, params: RpcParams) => Promise<unknown>;
  /** Take one notification from the app. */
  onNotification: (method: string, params: RpcParams) => void;
}

/** The postMessage JSON-RPC endpoint of one app frame. */
export class HostBridge {
  constructor(private readonly _options: IBridgeOptions) {
    window.addEventListener('message', this._onMessage);
  }

  /** Send a notification to the app. */
  notify(method: string, params: RpcParams = {}): void {
    this._post({ jsonrpc: '2.0', method, params });
  }

  /** Send a request to the app; resolves with its result (rejects on error or after `timeoutMs`). */
  request(
    method: string,
    params: RpcParams = {},
    timeoutMs = 2000
  ): Promise<unknown> {
    const id = `host-${++this._lastId}`;
    return new Promise((resolve, reject) => {
      const timer = window.setTimeout(() => {
        this._pending.delete(id);
        reject(new Error(`${method}: no answer from the app`));
      }, timeoutMs);
      this._pending.set(id, {
        resolve: value => {
          window.clearTimeout(timer);
          resolve(value);
        },
        reject: error => {
          window.clearTimeout(timer);
          reject(error);
        }
      });
      this._post({ jsonrpc: '2.0', id, method, params });
    });
  }

  /** Stop listening (pending requests are rejected). */
  dispose(): void {
    window.removeEventListener('message', this._onMessage);
    for (const pending of this._pending.values()) {
      pending.reject(new Error('the app was closed'));
    }
    this._pending.clear();
  }

  private _post(message: IRpcMessage): void {
    // The frame's origin is opaque ("null"), so "*" is the only target origin that reaches it;
    // the window reference is what makes this go to that one frame.
    this._options.frame.contentWindow?.postMessage(message, '*');
  }

  private _onMessage = (event: MessageEvent): void => {
    const frameWindow = this._options.frame.contentWindow;
    if (!frameWindow || event.source !== frameWindow) {
      return;
    }
    const msg: unknown = event.data;
    if (!isObject(msg) || msg.jsonrpc !== '2.0') {
      return;
    }
    const id =
      typeof msg.id === 'string' || typeof msg.id === 'number' ? msg.id : null;
    if (typeof msg.method === 'string' && id !== null) {
      void this._answer(id, msg.method, msg.params ?? {});
    } else if (typeof msg.method === 'string') {
      this._options.onNotification(msg.method, msg.params ?? {});
    } else if (id !== null && this._pending.has(String(id))) {
      const pending = this._pending.get(String(id))!;
      this._pending.delete(String(id));
      if (msg.error) {
        pending.reject(new Error(messageOf(msg.error, 'error')));
      } else {
        pending.resolve(msg.result);
      }
    }
  };

  private async _answer(
    id: string | number,
    method: string,
    params: RpcParams
  ): Promise<void> {
    try {
      const result = await this._options.onRequest(method, params);
      this._post({ jsonrpc: '2.0', id, result: result ?? {} });
    } catch (error: unknown) {
      const code = error instanceof RpcError ? error.code : INTERNAL_ERROR;
      this._post({
        jsonrpc: '2.0',
        id,
        error: { code, message: messageOf(error, error) }
      });
    }
  }

  private _lastId = 0;
  private _pending = new Map<string, IPending>();
}

/** The `message` of an error (thrown, or a JSON-RPC error object), else `fallback`, as text. */
function messageOf(error: unknown, fallback: unknown): string {
  const message = isObject(error) ? error.message : undefined;
  return String(message ?? fallback);
}

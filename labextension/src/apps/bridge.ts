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

export interface IBridgeOptions {
  /** The app frame; messages from any other window are ignored. */
  frame: HTMLIFrameElement;
  /** Answer one request from the app (throw `RpcError` for a JSON-RPC error). */
  onRequest: (method: string, params: any) => Promise<any>;
  /** Take one notification from the app. */
  onNotification: (method: string, params: any) => void;
}

/** The postMessage JSON-RPC endpoint of one app frame. */
export class HostBridge {
  constructor(private readonly _options: IBridgeOptions) {
    window.addEventListener('message', this._onMessage);
  }

  /** Send a notification to the app. */
  notify(method: string, params: any = {}): void {
    this._post({ jsonrpc: '2.0', method, params });
  }

  /** Send a request to the app; resolves with its result (rejects on error or after `timeoutMs`). */
  request(method: string, params: any = {}, timeoutMs = 2000): Promise<any> {
    const id = `host-${++this._lastId}`;
    return new Promise((resolve, reject) => {
      const timer = window.setTimeout(() => {
        this._pending.delete(id);
        reject(new Error(`${method}: no answer from the app`));
      }, timeoutMs);
      this._pending.set(id, {
        resolve: (value: any) => {
          window.clearTimeout(timer);
          resolve(value);
        },
        reject: (error: any) => {
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

  private _post(message: any): void {
    // The frame's origin is opaque ("null"), so "*" is the only target origin that reaches it;
    // the window reference is what makes this go to that one frame.
    this._options.frame.contentWindow?.postMessage(message, '*');
  }

  private _onMessage = (event: MessageEvent): void => {
    const frameWindow = this._options.frame.contentWindow;
    if (!frameWindow || event.source !== frameWindow) {
      return;
    }
    const msg = event.data;
    if (!msg || typeof msg !== 'object' || msg.jsonrpc !== '2.0') {
      return;
    }
    const hasId = typeof msg.id === 'string' || typeof msg.id === 'number';
    if (typeof msg.method === 'string' && hasId) {
      void this._answer(msg.id, msg.method, msg.params ?? {});
    } else if (typeof msg.method === 'string') {
      this._options.onNotification(msg.method, msg.params ?? {});
    } else if (hasId && this._pending.has(String(msg.id))) {
      const pending = this._pending.get(String(msg.id))!;
      this._pending.delete(String(msg.id));
      if (msg.error) {
        pending.reject(new Error(String(msg.error.message ?? 'error')));
      } else {
        pending.resolve(msg.result);
      }
    }
  };

  private async _answer(
    id: string | number,
    method: string,
    params: any
  ): Promise<void> {
    try {
      const result = await this._options.onRequest(method, params);
      this._post({ jsonrpc: '2.0', id, result: result ?? {} });
    } catch (error: any) {
      const code = error instanceof RpcError ? error.code : INTERNAL_ERROR;
      this._post({
        jsonrpc: '2.0',
        id,
        error: { code, message: String(error?.message ?? error) }
      });
    }
  }

  private _lastId = 0;
  private _pending = new Map<
    string,
    { resolve: (v: any) => void; reject: (e: any) => void }
  >();
}

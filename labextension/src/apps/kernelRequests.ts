/**
 * An app's requests for its MCP server, sent to the notebook's kernel (which holds the connection and
 * enforces tool visibility) as `app.request` messages on the MCP channel, and matched with the
 * kernel's `app.response`s.
 */
import { IDisposable } from '@lumino/disposable';

import { KernelMessage } from '../messages';
import { IMcpChannel } from '../tokens';
import { RpcError } from './bridge';

/** The requests of one app (`appId`) on `channel`, until disposed. */
export class KernelRequests implements IDisposable {
  /** `notConnected` is the error's text when the channel cannot take a request. */
  constructor(
    readonly channel: IMcpChannel,
    private readonly _appId: string,
    private readonly _notConnected: string
  ) {
    channel.messageReceived.connect(this._onMessage, this);
  }

  get isDisposed(): boolean {
    return this._isDisposed;
  }

  /** Send one request; resolves with the kernel's result, rejects with its error (an `RpcError`). */
  request<T = unknown>(method: string, params: unknown): Promise<T> {
    if (this._isDisposed) {
      return Promise.reject(new Error(this._notConnected));
    }
    const requestId = `${this._nonce}-${++this._lastRequest}`;
    return new Promise<T>((resolve, reject) => {
      this._pending.set(requestId, {
        resolve: value => resolve(value as T),
        reject
      });
      const sent = this.channel.send({
        type: 'app.request',
        app_id: this._appId,
        request_id: requestId,
        method,
        params
      });
      if (!sent) {
        this._pending.delete(requestId);
        reject(new Error(this._notConnected));
      }
    });
  }

  /** Stop listening; every request still waiting fails (the app was closed). */
  dispose(): void {
    if (this._isDisposed) {
      return;
    }
    this._isDisposed = true;
    this.channel.messageReceived.disconnect(this._onMessage, this);
    for (const pending of this._pending.values()) {
      pending.reject(new Error('the app was closed'));
    }
    this._pending.clear();
  }

  private _onMessage(_: IMcpChannel, msg: KernelMessage): void {
    if (msg.type !== 'app.response' || msg.app_id !== this._appId) {
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

  private _isDisposed = false;
  private _lastRequest = 0;
  // Every open tab gets every response: ids unique across tabs keep answers apart.
  private readonly _nonce = Math.random().toString(36).slice(2);
  private _pending = new Map<
    string,
    { resolve: (value: unknown) => void; reject: (error: Error) => void }
  >();
}

/**
 * A JupyterLab notification for each consent request that waits in the followed kernel's inbox
 * (when the settings ask for them), dismissed once the request is answered.
 */
import { Notification } from '@jupyterlab/apputils';
import { TranslationBundle } from '@jupyterlab/translation';
import { IDisposable } from '@lumino/disposable';

import { IInboxItem, ISnapshot } from './messages';
import { SidebarChange, SidebarModel } from './model';
import { clip, inboxLabel, LIMITS } from './view';

/** One notification per waiting request of `model`'s inbox; "Answer in the MCP sidebar" calls `open`. */
export class InboxNotices implements IDisposable {
  constructor(
    private readonly _model: SidebarModel,
    private readonly _open: () => void,
    private readonly _trans: TranslationBundle
  ) {
    _model.changed.connect(this._onChange, this);
    this._onChange(_model, 'snapshot');
  }

  get isDisposed(): boolean {
    return this._isDisposed;
  }

  dispose(): void {
    if (!this._isDisposed) {
      this._isDisposed = true;
      this._model.changed.disconnect(this._onChange, this);
    }
  }

  private _onChange(model: SidebarModel, change: SidebarChange): void {
    if (
      change === 'snapshot' ||
      change === 'channel' ||
      change === 'settings'
    ) {
      this._update(model.settings.inboxNotifications ? model.snapshot : null);
    }
  }

  /** Show the new requests of `snapshot` and dismiss the answered ones (null: dismiss all). */
  private _update(snapshot: ISnapshot | null): void {
    const items = snapshot?.inbox ?? [];
    const ids = new Set(items.map(item => item.id));
    for (const [id, notice] of this._notices) {
      if (!ids.has(id)) {
        Notification.dismiss(notice);
        this._notices.delete(id);
      }
    }
    for (const item of items) {
      if (!this._notices.has(item.id) && !this._seen.has(item.id)) {
        this._seen.add(item.id);
        this._notices.set(item.id, this._notify(item));
      }
    }
  }

  private _notify(item: IInboxItem): string {
    const trans = this._trans;
    const title = clip(item.title || item.kind, LIMITS.label);
    return Notification.info(`${inboxLabel(item, trans)}: ${title}`, {
      autoClose: false,
      actions: [
        {
          label: trans.__('Answer in the MCP sidebar'),
          callback: () => this._open()
        }
      ]
    });
  }

  private _notices = new Map<string, string>();
  private _seen = new Set<string>();
  private _isDisposed = false;
}

/**
 * The "MCP" sidebar widget: the active notebook kernel's connections, configured servers, and the
 * inbox of consent requests. It shows the sidebar's model (model.ts; the components in components/
 * observe it), keeps its tab's badge and caption in step with the inbox, and passes the buttons'
 * work to the plugin: writing a code cell (see codegen.ts), connecting a configured server,
 * refreshing.
 */
import { TranslationBundle } from '@jupyterlab/translation';
import { ReactWidget } from '@jupyterlab/ui-components';
import React from 'react';

import { SidebarView } from './components/SidebarView';
import { TranslationContext } from './components/translation';
import { IConfiguredServer } from './messages';
import { SidebarModel } from './model';
import { IWriteOptions } from './settings';
import { pendingCount } from './view';

/** What the sidebar's buttons ask of the plugin. */
export interface ISidebarActions {
  /** Write a code cell into the active notebook, placed and run as the settings (and `options`) say. */
  writeCode(code: string, options?: IWriteOptions): Promise<void>;
  /** Connect a server from a config file (the connect-server command). */
  connect(server: IConfiguredServer): void;
  /** Ask the kernel for a fresh snapshot (the refresh command). */
  refresh(): void;
}

/** The sidebar widget; it renders and badges itself from `model`. */
export class McpSidebar extends ReactWidget {
  constructor(
    private readonly _model: SidebarModel,
    private readonly _actions: ISidebarActions,
    private readonly _trans: TranslationBundle
  ) {
    super();
    this.addClass('mcpj-sidebar');
    _model.changed.connect(this._updateTitle, this);
    this._updateTitle();
  }

  dispose(): void {
    this._model.changed.disconnect(this._updateTitle, this);
    super.dispose();
  }

  protected render(): JSX.Element {
    const actions = this._actions;
    return (
      <TranslationContext.Provider value={this._trans}>
        <SidebarView
          model={this._model}
          write={(code, options) => void actions.writeCode(code, options)}
          connect={server => actions.connect(server)}
          refresh={() => actions.refresh()}
        />
      </TranslationContext.Provider>
    );
  }

  /** The tab's badge (`data-mcpj-pending`) and caption say how many requests wait. */
  private _updateTitle(): void {
    const pending = pendingCount(this._model.snapshot);
    const title = this.title;
    if (
      (title.dataset['mcpj-pending'] ?? '') !== (pending ? String(pending) : '')
    ) {
      // a new object (Lumino re-renders on identity), keeping JupyterLab's own keys (data-id, ...)
      const { 'mcpj-pending': _, ...dataset } = title.dataset;
      title.dataset = pending
        ? { ...dataset, 'mcpj-pending': String(pending) }
        : dataset;
    }
    title.caption = pending
      ? this._trans.__('MCP: %1 waiting for you', pending)
      : this._trans.__('MCP');
  }
}

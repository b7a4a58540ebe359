/**
 * The "MCP" sidebar widget: the active notebook kernel's connections, configured servers, and the
 * inbox of consent requests. Rendering only (the components are in components/): state comes from
 * the kernel's snapshots (see view.ts), and every action either writes a code cell (see codegen.ts)
 * or answers a request on the channel.
 */
import { TranslationBundle } from '@jupyterlab/translation';
import { ReactWidget } from '@jupyterlab/ui-components';
import React from 'react';

import { SidebarView } from './components/SidebarView';
import { TranslationContext } from './components/translation';
import { IConfiguredServer } from './messages';
import { ISidebarSettings } from './settings';
import { IMcpChannel } from './tokens';

/** What the sidebar needs from the plugin. */
export interface ISidebarHost {
  /** The channel of the active notebook's kernel (null: no notebook or no kernel). */
  channel(): IMcpChannel | null;
  /** A label for the active notebook ("" when there is none). */
  notebookName(): string;
  /** Write a code cell into the active notebook, placed and run as the settings say. */
  writeCode(code: string): Promise<void>;
  /** Connect a server from a config file (the connect-server command). */
  connect(server: IConfiguredServer): void;
  /** Ask the kernel for a fresh snapshot (the refresh command). */
  refresh(): void;
  /** The current settings. */
  settings(): ISidebarSettings;
  /** The strings' translations. */
  readonly trans: TranslationBundle;
}

/** The sidebar widget; call `update()` when the host's state changes. */
export class McpSidebar extends ReactWidget {
  constructor(private readonly _host: ISidebarHost) {
    super();
    this.addClass('mcpj-sidebar');
  }

  protected render(): JSX.Element {
    const host = this._host;
    const channel = host.channel();
    return (
      <TranslationContext.Provider value={host.trans}>
        <SidebarView
          name={host.notebookName()}
          channel={channel}
          snapshot={channel?.snapshot ?? null}
          open={channel?.isOpen ?? false}
          write={code => void host.writeCode(code)}
          runs={host.settings().runCells}
          connect={server => host.connect(server)}
          refresh={() => host.refresh()}
        />
      </TranslationContext.Provider>
    );
  }
}

/**
 * The sidebar's content: a header, then either why there is nothing to show, or the inbox, the
 * filter, the connections and the configured servers of the active notebook's kernel and Find
 * servers (the MCP Registry, searched by that kernel), as the
 * sidebar's model has them (it renders again on every change of the model).
 */
import React from 'react';

import { IMPORT_CODE } from '../codegen';
import { IConfiguredServer } from '../messages';
import { SidebarModel } from '../model';
import { IWriteOptions } from '../settings';
import { connectionsView } from '../view';
import { ICellActions } from './actions';
import { ConfiguredServers } from './ConfiguredServers';
import { Connection } from './Connection';
import { FindServers } from './FindServers';
import { Inbox } from './Inbox';
import { useTrans } from './translation';
import { useModel } from './useModel';

/** What the view shows and what its buttons do. */
export interface ISidebarViewProps {
  /** The sidebar's state: notebook, channel, snapshot, settings, filter, answers. */
  model: SidebarModel;
  /** Writes cells (placed and run as the settings, and `options`, say). */
  write: (code: string, options?: IWriteOptions) => void;
  /** Connect a configured server (the connect-server command). */
  connect: (server: IConfiguredServer) => void;
  /** Ask the kernel for a fresh snapshot (the refresh command). */
  refresh: () => void;
}

/** The whole sidebar. */
export function SidebarView(props: ISidebarViewProps): JSX.Element {
  const trans = useTrans();
  const model = useModel(props.model);
  const { snapshot, channel, filter } = model;
  const runs = model.settings.runCells;
  const header = (
    <div className="mcpj-sidebar-header">
      <h2>{trans.__('MCP')}</h2>
      {model.notebook && (
        <span className="mcpj-sidebar-notebook">{model.notebook}</span>
      )}
      {model.isOpen && (
        <button
          className="mcpj-button mcpj-refresh"
          title={trans.__('Ask the kernel for a fresh snapshot')}
          onClick={props.refresh}
        >
          {trans.__('Refresh')}
        </button>
      )}
    </div>
  );
  if (!channel) {
    return (
      <>
        {header}
        <p className="mcpj-sidebar-status">
          {trans.__("Open a notebook to see its kernel's MCP connections.")}
        </p>
      </>
    );
  }
  if (!model.isOpen || !snapshot) {
    return (
      <>
        {header}
        <p className="mcpj-sidebar-status">
          {trans.__(
            'This kernel has not loaded mcp_jupyter yet. Import it and the sidebar connects by itself.'
          )}
        </p>
        <button
          className="mcpj-button mcpj-insert-import"
          onClick={() => props.write(IMPORT_CODE)}
        >
          {trans.__('Insert import')}
        </button>
      </>
    );
  }
  const actions: ICellActions = {
    write: props.write,
    runs,
    code: { magics: snapshot.magics }
  };
  const connections = connectionsView(snapshot, filter, trans);
  return (
    <>
      {header}
      <Inbox items={snapshot.inbox} model={model} />
      <div className="mcpj-filter">
        <input
          type="search"
          placeholder={trans.__('Filter tools, resources, prompts')}
          aria-label={trans.__('Filter')}
          value={filter}
          onChange={e => model.setFilter(e.target.value)}
        />
      </div>
      <section className="mcpj-connections">
        <h3>{trans.__('Connections')}</h3>
        {snapshot.connections.length === 0 && (
          <p className="mcpj-sidebar-status">
            {trans.__(
              'No connections yet: connect with mj.connect(...) or below.'
            )}
          </p>
        )}
        {connections.map(view => (
          <Connection
            key={view.name}
            view={view}
            filtering={filter.trim() !== ''}
            actions={actions}
            channel={channel}
          />
        ))}
      </section>
      <ConfiguredServers
        servers={snapshot.configured}
        connect={props.connect}
        runs={runs}
      />
      <FindServers model={model} actions={actions} />
    </>
  );
}

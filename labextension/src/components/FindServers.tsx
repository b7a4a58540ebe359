/**
 * Find servers: a search box over the MCP Registry, answered by the kernel (the browser never talks
 * to the registry), and the servers found, each with Connect: it writes the kernel's
 * `mj.registry.get(NAME).connect(...)` cell and runs it, or only writes it when connecting needs a
 * value the person gives (a secret is typed into the password field when they run the cell).
 */
import React, { useState } from 'react';

import { SidebarModel } from '../model';
import { IRegistryServerView, REGISTRY_LIMIT, registryView } from '../registry';
import { ICellActions } from './actions';
import { useTrans } from './translation';

/** The "Find servers" section: the box, what the search found (or why not), the servers. */
export function FindServers(props: {
  model: SidebarModel;
  actions: ICellActions;
}): JSX.Element {
  const trans = useTrans();
  const { model, actions } = props;
  const search = model.registry;
  const [query, setQuery] = useState(search.query);
  const view = registryView(search, actions.runs, trans);
  const submit = (event: React.FormEvent): void => {
    event.preventDefault();
    model.searchRegistry(query.trim(), REGISTRY_LIMIT);
  };
  return (
    <section
      className="mcpj-registry"
      aria-busy={search.pending}
      data-stale={view.stale || undefined}
    >
      <h3>{trans.__('Find servers')}</h3>
      <form className="mcpj-registry-search" role="search" onSubmit={submit}>
        <input
          type="search"
          placeholder={trans.__('Search the MCP Registry by name')}
          aria-label={trans.__('Find servers in the MCP Registry')}
          value={query}
          onChange={event => setQuery(event.target.value)}
        />
        <button
          type="submit"
          className="mcpj-button mcpj-registry-go"
          disabled={search.pending}
          title={trans.__(
            'The kernel searches the registry the notebook set (mj.registry.url)'
          )}
        >
          {trans.__('Search')}
        </button>
      </form>
      {view.error && (
        <div className="mcpj-error mcpj-registry-error" role="alert">
          {view.error}
        </div>
      )}
      {view.status && (
        <p className="mcpj-sidebar-status mcpj-registry-status" role="status">
          {view.status}
        </p>
      )}
      {view.servers.map(server => (
        <RegistryServer key={server.name} server={server} actions={actions} />
      ))}
    </section>
  );
}

/** One server found: title, version, description, how it runs, what it needs, and Connect. */
export function RegistryServer(props: {
  server: IRegistryServerView;
  actions: ICellActions;
}): JSX.Element {
  const trans = useTrans();
  const { server, actions } = props;
  return (
    <div
      className="mcpj-registry-server"
      data-name={server.name}
      data-run={String(server.run)}
    >
      <div className="mcpj-row">
        <span className="mcpj-name" title={server.name}>
          {server.label}
        </span>
        {server.version && (
          <span className="mcpj-tag mcpj-registry-version">
            {server.version}
          </span>
        )}
        {server.stale && (
          <span
            className="mcpj-tag mcpj-stale"
            title={trans.__(
              'From an earlier search: the registry cannot be reached now'
            )}
          >
            {trans.__('stale')}
          </span>
        )}
        <button
          className="mcpj-button mcpj-registry-connect"
          title={server.connectTitle}
          onClick={() => actions.write(server.code, { run: server.run })}
        >
          {trans.__('Connect')}
        </button>
      </div>
      {server.detail && (
        <div className="mcpj-detail mcpj-registry-name">{server.detail}</div>
      )}
      {server.description && (
        <div className="mcpj-description">{server.description}</div>
      )}
      {server.runs && (
        <div className="mcpj-detail mcpj-registry-runs">
          {trans.__('runs: %1', server.runs)}
        </div>
      )}
      {server.needs && (
        <div className="mcpj-detail mcpj-registry-needs">{server.needs}</div>
      )}
    </div>
  );
}

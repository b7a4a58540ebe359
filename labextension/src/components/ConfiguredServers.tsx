/**
 * The servers found in config files, each with a Connect button (the connect-server command).
 */
import React from 'react';

import { IConfiguredServer } from '../messages';
import { clip, LIMITS } from '../view';
import { useTrans } from './translation';

/** "Configured servers" and one row per server. */
export function ConfiguredServers(props: {
  servers: IConfiguredServer[];
  connect: (server: IConfiguredServer) => void;
  runs: boolean;
}): JSX.Element {
  const trans = useTrans();
  return (
    <section className="mcpj-configured">
      <h3>{trans.__('Configured servers')}</h3>
      {props.servers.length === 0 && (
        <p className="mcpj-sidebar-status">
          {trans.__(
            'No mcp.json, Claude Desktop, Cursor or VS Code servers found.'
          )}
        </p>
      )}
      {props.servers.map(server => (
        <div
          className="mcpj-configured-item"
          data-name={server.name}
          key={`${server.source}:${server.name}`}
        >
          <div className="mcpj-row">
            <span className="mcpj-name">{server.name}</span>
            <span className="mcpj-tag">{server.transport}</span>
            {server.disabled && (
              <span
                className="mcpj-tag"
                title={trans.__('disabled in its config file')}
              >
                {trans.__('disabled')}
              </span>
            )}
            <button
              className="mcpj-button mcpj-configured-connect"
              title={
                props.runs
                  ? trans.__('Insert and run %mcp connect')
                  : trans.__('Insert %mcp connect')
              }
              onClick={() => props.connect(server)}
            >
              {trans.__('Connect')}
            </button>
          </div>
          <div className="mcpj-detail">
            {clip(server.target, LIMITS.detail)}
          </div>
          <div className="mcpj-detail mcpj-source">
            {clip(server.source, LIMITS.detail)}
          </div>
        </div>
      ))}
    </section>
  );
}

/**
 * One connection of the kernel: its status, server, counts, error, lists and tasks.
 */
import React, { useState } from 'react';

import * as codegen from '../codegen';
import { IMcpChannel } from '../tokens';
import { IConnectionView } from '../view';
import { ICellActions } from './actions';
import { Icon } from './Icon';
import { Section } from './Section';
import { Tasks } from './Tasks';
import { useTrans } from './translation';

/** A connection, expanded until collapsed; "Explore" writes `%mcp explore NAME`. */
export function Connection(props: {
  view: IConnectionView;
  filtering: boolean;
  actions: ICellActions;
  /** The kernel's channel (Cancel on a task is a message). */
  channel: IMcpChannel | null;
}): JSX.Element {
  const trans = useTrans();
  const { view, actions } = props;
  const [open, setOpen] = useState(true);
  const status = view.status === 'alive' ? trans.__('alive') : trans.__('dead');
  return (
    <div
      className="mcpj-connection"
      data-name={view.name}
      data-status={view.status}
    >
      <div className="mcpj-row mcpj-connection-header">
        <button
          className="mcpj-toggle"
          aria-expanded={open}
          onClick={() => setOpen(!open)}
          title={open ? trans.__('Collapse') : trans.__('Expand')}
        >
          {open ? '▾' : '▸'}
        </button>
        <span className={`mcpj-dot mcpj-dot-${view.status}`} title={status} />
        <Icon icon={view.icon} />
        <span className="mcpj-name" title={view.name}>
          {view.name}
        </span>
        <span className="mcpj-tag">{view.transport}</span>
        <span className="mcpj-status">{status}</span>
        <button
          className="mcpj-button mcpj-connection-explore"
          title={
            actions.runs
              ? trans.__('Insert and run %mcp explore')
              : trans.__('Insert %mcp explore')
          }
          onClick={() =>
            actions.write(codegen.exploreCode(view.name, actions.code))
          }
        >
          {trans.__('Explore')}
        </button>
      </div>
      {open && (
        <div className="mcpj-connection-body">
          <div className="mcpj-detail mcpj-connection-server">
            {view.server}
            {view.protocol && ` · ${trans.__('protocol %1', view.protocol)}`}
          </div>
          <div className="mcpj-detail mcpj-connection-counts">
            {view.counts}
          </div>
          {view.error && <div className="mcpj-error">{view.error}</div>}
          {view.sections.map(section => (
            <Section
              key={section.kind}
              connection={view.name}
              section={section}
              filtering={props.filtering}
              actions={actions}
            />
          ))}
          <Tasks
            connection={view.name}
            tasks={view.tasks}
            channel={props.channel}
            actions={actions}
          />
        </div>
      )}
    </div>
  );
}

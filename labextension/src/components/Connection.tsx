/**
 * One connection of the kernel: its status, server, counts, error, lists and tasks.
 */
import React, { useState } from 'react';

import * as codegen from '../codegen';
import { IMcpChannel } from '../tokens';
import { IConnectionView, ITrafficView } from '../view';
import { ICellActions } from './actions';
import { Icon } from './Icon';
import { Section } from './Section';
import { Tasks } from './Tasks';
import { useTrans } from './translation';

/**
 * A connection, expanded until collapsed; "Explore" writes `%mcp explore NAME`, "Timeline" writes
 * `%mcp timeline NAME`. Its calls, errors and median latency show under the server's line.
 */
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
        <WriteButton
          className="mcpj-connection-explore"
          label={trans.__('Explore')}
          code={codegen.exploreCode(view.name, actions.code)}
          command="%mcp explore"
          actions={actions}
        />
        <WriteButton
          className="mcpj-connection-timeline"
          label={trans.__('Timeline')}
          code={codegen.timelineCode(view.name, actions.code)}
          command="%mcp timeline"
          actions={actions}
        />
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
          {view.traffic && <Traffic traffic={view.traffic} />}
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

/** "12 calls · 1 error · median 3.4 ms": the errors framed in the theme's error colour when there are any. */
function Traffic(props: { traffic: ITrafficView }): JSX.Element {
  const { traffic } = props;
  const { info } = traffic;
  return (
    <div
      className="mcpj-detail mcpj-row mcpj-connection-traffic"
      title={traffic.title}
      data-calls={info.calls}
      data-errors={info.errors}
      data-median-ms={info.median_ms ?? ''}
    >
      <span className="mcpj-traffic-calls">{traffic.calls}</span>
      <span
        className={
          info.errors > 0
            ? 'mcpj-tag mcpj-traffic-errors mcpj-traffic-failed'
            : 'mcpj-traffic-errors'
        }
      >
        {traffic.errors}
      </span>
      {traffic.median && (
        <span className="mcpj-traffic-median">{traffic.median}</span>
      )}
    </div>
  );
}

/** A connection's button that writes `code` (run or only inserted, as the setting says: its tooltip
 * names `command`). */
function WriteButton(props: {
  className: string;
  label: string;
  code: string;
  command: string;
  actions: ICellActions;
}): JSX.Element {
  const trans = useTrans();
  const { actions } = props;
  return (
    <button
      className={`mcpj-button ${props.className}`}
      title={
        actions.runs
          ? trans.__('Insert and run %1', props.command)
          : trans.__('Insert %1', props.command)
      }
      onClick={() => actions.write(props.code)}
    >
      {props.label}
    </button>
  );
}

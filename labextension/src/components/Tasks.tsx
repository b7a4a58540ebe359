/**
 * A connection's tasks: status badge, tool, arguments, elapsed time and message (the outcome once
 * ended) of each, with Cancel (a
 * `task.cancel` message: it must work while a cell waits for the task) and Result (writes
 * `mj.get_connection(NAME).task(ID).result()`, like the sidebar's other actions).
 */
import React, { useEffect, useState } from 'react';

import * as codegen from '../codegen';
import { ITaskInfo, KernelMessage } from '../messages';
import { IMcpChannel } from '../tokens';
import { clip, ITaskView, LIMITS, taskActive, taskViews } from '../view';
import { ICellActions } from './actions';
import { useTrans } from './translation';

const TICK_MS = 1000; // how often a running task's elapsed time moves on

/** The current time, moving on every second while `ticking` (a running task's elapsed time). */
function useNow(ticking: boolean): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!ticking) {
      return undefined;
    }
    setNow(Date.now());
    const timer = window.setInterval(() => setNow(Date.now()), TICK_MS);
    return () => window.clearInterval(timer);
  }, [ticking]);
  return now;
}

/** The Tasks section of connection `connection` (nothing when it knows no task). */
export function Tasks(props: {
  connection: string;
  tasks: ITaskInfo[];
  channel: IMcpChannel | null;
  actions: ICellActions;
  /** The time to show elapsed times at (tests); the clock otherwise. */
  now?: number;
}): JSX.Element | null {
  const trans = useTrans();
  const { connection, tasks, channel } = props;
  const [open, setOpen] = useState(true);
  const [cancelling, setCancelling] = useState<Set<string>>(new Set());
  const [errors, setErrors] = useState<Record<string, string>>({});
  const clock = useNow(
    props.now === undefined && tasks.some(t => taskActive(t.status))
  );
  useEffect(() => {
    if (!channel) {
      return undefined;
    }
    const onMessage = (_: IMcpChannel, msg: KernelMessage): void => {
      if (msg.type === 'task.error' && msg.connection === connection) {
        setErrors(before => ({ ...before, [msg.id]: msg.message }));
        setCancelling(
          before => new Set([...before].filter(id => id !== msg.id))
        );
      }
    };
    channel.messageReceived.connect(onMessage);
    return () => void channel.messageReceived.disconnect(onMessage);
  }, [channel, connection]);
  if (!tasks.length) {
    return null;
  }
  const cancel = (id: string): void => {
    if (channel?.send({ type: 'task.cancel', connection, id })) {
      setCancelling(before => new Set(before).add(id));
      setErrors(({ [id]: _dropped, ...rest }) => rest);
    }
  };
  const views = taskViews(tasks, props.now ?? clock, trans);
  return (
    <div className="mcpj-section mcpj-tasks" data-kind="tasks">
      <button
        className="mcpj-section-header"
        aria-expanded={open}
        onClick={() => setOpen(!open)}
      >
        {open ? '▾' : '▸'} {trans.__('Tasks')}{' '}
        <span className="mcpj-count">{tasks.length}</span>
      </button>
      {open && (
        <ul className="mcpj-items">
          {views.map(view => (
            <TaskRow
              key={view.id}
              connection={connection}
              view={view}
              actions={props.actions}
              cancelling={cancelling.has(view.id) && view.active}
              error={errors[view.id] ?? ''}
              cancel={() => cancel(view.id)}
            />
          ))}
        </ul>
      )}
    </div>
  );
}

/** One task: badge, tool, Cancel or Result; its arguments, its message, then its elapsed time and id. */
export function TaskRow(props: {
  connection: string;
  view: ITaskView;
  actions: ICellActions;
  cancelling: boolean;
  error: string;
  cancel: () => void;
}): JSX.Element {
  const trans = useTrans();
  const { view, actions } = props;
  const code = (): string => codegen.taskResultCode(props.connection, view.id);
  const resultTitle = (): string =>
    clip(
      actions.runs
        ? trans.__('Insert and run: %1', code())
        : trans.__('Insert: %1', code()),
      LIMITS.detail
    );
  return (
    <li
      className="mcpj-item mcpj-task"
      data-id={view.id}
      data-status={view.status}
    >
      <div className="mcpj-row">
        <span
          className={`mcpj-tag mcpj-task-status mcpj-task-${view.active ? 'active' : view.status}`}
          title={
            view.gone
              ? trans.__(
                  'The server no longer knows this task: its last known status'
                )
              : view.label
          }
        >
          {view.label}
        </span>
        <span className="mcpj-item-label mcpj-task-tool" title={view.tool}>
          {view.tool}
        </span>
        {view.active && (
          <button
            className="mcpj-button mcpj-task-cancel"
            disabled={props.cancelling}
            title={trans.__('Ask the server to stop this task')}
            onClick={props.cancel}
          >
            {props.cancelling ? trans.__('Cancelling…') : trans.__('Cancel')}
          </button>
        )}
        {view.hasResult && (
          <button
            className="mcpj-button mcpj-task-result"
            title={resultTitle()}
            onClick={() => actions.write(code())}
          >
            {trans.__('Result')}
          </button>
        )}
      </div>
      {view.arguments && (
        <div
          className="mcpj-detail mcpj-task-args"
          title={trans.__('Arguments: %1', view.arguments)}
        >
          {view.arguments}
        </div>
      )}
      {view.message && (
        <div className="mcpj-description mcpj-task-message">{view.message}</div>
      )}
      <div className="mcpj-detail mcpj-row">
        {view.elapsed && (
          <span className="mcpj-task-elapsed" title={trans.__('Running time')}>
            {view.elapsed}
          </span>
        )}
        <span className="mcpj-task-id" title={trans.__('Task id')}>
          {clip(view.id, LIMITS.detail)}
        </span>
      </div>
      {props.error && (
        <div className="mcpj-error mcpj-task-error">{props.error}</div>
      )}
    </li>
  );
}

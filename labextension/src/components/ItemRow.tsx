/**
 * One row of a connection's list: a tool, resource, template or prompt, with its action button.
 */
import React from 'react';

import * as codegen from '../codegen';
import { clip, IItemView, LIMITS } from '../view';
import { ICellActions } from './actions';
import { Icon } from './Icon';
import { useTrans } from './translation';

/** The code the row's button writes. */
export function itemCode(
  connection: string,
  item: IItemView,
  options: codegen.ICodeOptions
): string {
  switch (item.action) {
    case 'call':
      return codegen.callCode(connection, item.key, options);
    case 'read':
      return codegen.readCode(connection, item.key);
    default:
      return codegen.promptCode(connection, item.key, item.args, options);
  }
}

/** The row: label, "app only" badge, action button (Call, Read, Prompt), detail and description. */
export function ItemRow(props: {
  connection: string;
  item: IItemView;
  actions: ICellActions;
}): JSX.Element {
  const trans = useTrans();
  const { item, actions } = props;
  const labels = {
    call: trans.__('Call'),
    read: trans.__('Read'),
    prompt: trans.__('Prompt')
  };
  const code = (): string => itemCode(props.connection, item, actions.code);
  const title = (): string =>
    clip(
      actions.runs
        ? trans.__('Insert and run: %1', code())
        : trans.__('Insert: %1', code()),
      LIMITS.detail
    );
  return (
    <li className="mcpj-item" data-key={item.key}>
      <div className="mcpj-row">
        <Icon icon={item.icon} />
        <span className="mcpj-item-label" title={clip(item.key, LIMITS.detail)}>
          {item.label}
        </span>
        {item.appOnly && (
          <span
            className="mcpj-tag jp-mcp-badge-app"
            title={trans.__(
              'Only an MCP App may call this tool, not the model'
            )}
          >
            {trans.__('app only')}
          </span>
        )}
        {item.action && (
          <button
            className="mcpj-button mcpj-item-action"
            data-action={item.action}
            title={title()}
            onClick={() => actions.write(code())}
          >
            {labels[item.action]}
          </button>
        )}
      </div>
      {item.detail && <div className="mcpj-detail">{item.detail}</div>}
      {item.description && (
        <div className="mcpj-description">{item.description}</div>
      )}
    </li>
  );
}

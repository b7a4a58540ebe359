/**
 * One list of a connection (tools, resources, templates or prompts), collapsed until opened; a
 * filter with matches opens it.
 */
import React, { useState } from 'react';

import { ISectionView } from '../view';
import { ICellActions } from './actions';
import { ItemRow } from './ItemRow';

/** The section's header (label, count) and, when open, its rows. */
export function Section(props: {
  connection: string;
  section: ISectionView;
  filtering: boolean;
  actions: ICellActions;
}): JSX.Element | null {
  const { section, connection } = props;
  const [open, setOpen] = useState(false);
  if (section.total === 0) {
    return null;
  }
  const shown = open || (props.filtering && section.items.length > 0);
  return (
    <div className="mcpj-section" data-kind={section.kind}>
      <button
        className="mcpj-section-header"
        aria-expanded={shown}
        onClick={() => setOpen(!shown)}
      >
        {shown ? '▾' : '▸'} {section.label}{' '}
        <span className="mcpj-count">
          {props.filtering
            ? `${section.items.length}/${section.total}`
            : section.total}
        </span>
      </button>
      {shown && (
        <ul className="mcpj-items">
          {section.items.map(item => (
            <ItemRow
              key={item.key}
              connection={connection}
              item={item}
              actions={props.actions}
            />
          ))}
        </ul>
      )}
    </div>
  );
}

/**
 * The sidebar's inbox: the consent requests waiting for the person (none: nothing shown).
 */
import React from 'react';

import { IInboxItem } from '../messages';
import { inboxKey, SidebarModel } from '../model';
import { InboxItem } from './InboxItem';
import { useTrans } from './translation';

/** "Waiting for you", then one card per request. */
export function Inbox(props: {
  items: IInboxItem[];
  /** The sidebar's model: it sends the answers and knows what became of them. */
  model: SidebarModel;
}): JSX.Element | null {
  const trans = useTrans();
  if (!props.items.length) {
    return null;
  }
  return (
    <section className="mcpj-inbox">
      <h3>
        {trans.__('Waiting for you')}{' '}
        <span className="mcpj-count">{props.items.length}</span>
      </h3>
      {props.items.map(item => (
        // keyed by state too: a sampling request comes back in "review" with the model's draft
        <InboxItem key={inboxKey(item)} item={item} model={props.model} />
      ))}
    </section>
  );
}

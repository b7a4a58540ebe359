/**
 * A roots request: the folders the kernel would share, and Share / Decline / Cancel.
 */
import React from 'react';

import { AnswerAction, IRootsItem } from '../messages';
import { AnswerButtons } from './AnswerButtons';
import { useTrans } from './translation';

/** The roots listed, then the answers. */
export function RootsRequest(props: {
  item: IRootsItem;
  answer: (action: AnswerAction) => void;
  disabled: boolean;
}): JSX.Element {
  const trans = useTrans();
  const roots = Array.isArray(props.item.payload?.roots)
    ? props.item.payload.roots
    : [];
  return (
    <>
      <ul className="mcpj-roots">
        {roots.map((root, i) => (
          <li key={i} className="mcpj-detail">
            {root?.name ? `${root.name}: ` : ''}
            {String(root?.uri ?? '')}
          </li>
        ))}
      </ul>
      <AnswerButtons
        answer={props.answer}
        disabled={props.disabled}
        accept={trans.__('Share')}
      />
    </>
  );
}

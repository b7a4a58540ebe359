/**
 * Accept / Decline / Cancel of an inbox request.
 */
import React from 'react';

import { AnswerAction } from '../messages';
import { ChoiceButtons } from './ChoiceButtons';
import { useTrans } from './translation';

/** The three answers; `accept` is the accept button's text ("Accept", "Share", "Send"...). */
export function AnswerButtons(props: {
  answer: (action: AnswerAction) => void;
  disabled: boolean;
  accept: string;
  /** Only the accept button is off (a sampling request while the model answers). */
  acceptDisabled?: boolean;
}): JSX.Element {
  const trans = useTrans();
  return (
    <ChoiceButtons
      className="mcpj-row mcpj-inbox-buttons"
      choices={[
        {
          label: props.accept,
          className: 'mcpj-button mcpj-accept mcpj-inbox-accept',
          submit: true,
          disabled: props.disabled || props.acceptDisabled,
          onClick: () => props.answer('accept')
        },
        {
          label: trans.__('Decline'),
          className: 'mcpj-button mcpj-inbox-decline',
          disabled: props.disabled,
          onClick: () => props.answer('decline')
        },
        {
          label: trans.__('Cancel'),
          className: 'mcpj-button mcpj-inbox-cancel',
          disabled: props.disabled,
          onClick: () => props.answer('cancel')
        }
      ]}
    />
  );
}

/**
 * Accept / Decline / Cancel of an inbox request.
 */
import React from 'react';

import { AnswerAction } from '../messages';
import { ChoiceButtons } from './ChoiceButtons';
import { useTrans } from './translation';

/** The three answers, Cancel and Decline first and the primary one last (as JupyterLab's dialogs
 * and the in-cell cards order them); `accept` is its text ("Accept", "Share", "Send"...). */
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
          label: trans.__('Cancel'),
          className: 'mcpj-button mcpj-inbox-cancel',
          disabled: props.disabled,
          onClick: () => props.answer('cancel')
        },
        {
          label: trans.__('Decline'),
          className: 'mcpj-button mcpj-inbox-decline',
          disabled: props.disabled,
          onClick: () => props.answer('decline')
        },
        {
          label: props.accept,
          className: 'mcpj-button mcpj-accept mcpj-inbox-accept',
          submit: true,
          disabled: props.disabled || props.acceptDisabled,
          onClick: () => props.answer('accept')
        }
      ]}
    />
  );
}

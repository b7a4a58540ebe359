/**
 * A row of answer buttons, shared by the sidebar's inbox cards and the MCP Apps' consent cards.
 */
import React from 'react';

/** One button of the row. */
export interface IChoice {
  /** The text on the button. */
  label: string;
  /** Its classes (the tests and the styles find buttons by them). */
  className: string;
  /** A submit button (Enter in the card's form presses it). */
  submit?: boolean;
  disabled?: boolean;
  onClick: () => void;
}

/** The buttons, in order, in a row of class `className`. */
export function ChoiceButtons(props: {
  className: string;
  choices: IChoice[];
}): JSX.Element {
  return (
    <div className={props.className}>
      {props.choices.map(choice => (
        <button
          key={choice.className}
          type={choice.submit ? 'submit' : 'button'}
          className={choice.className}
          disabled={choice.disabled}
          onClick={e => {
            e.preventDefault(); // a submit button answers here, not through the form's submit
            choice.onClick();
          }}
        >
          {choice.label}
        </button>
      ))}
    </div>
  );
}

/**
 * An elicitation in the inbox: the server's message and its form, checked before it is sent.
 */
import React, { useState } from 'react';

import {
  collect,
  formModel,
  IFieldModel,
  initialValues,
  RawValue
} from '../form';
import { AnswerAction, IElicitationItem } from '../messages';
import { clip, LIMITS } from '../view';
import { AnswerButtons } from './AnswerButtons';
import { SchemaFields } from './SchemaFields';
import { UrlRequest } from './UrlRequest';
import { useTrans } from './translation';

/** The form of an elicitation (or its URL, in URL mode). */
export function ElicitationForm(props: {
  item: IElicitationItem;
  answer: (action: AnswerAction, content?: Record<string, unknown>) => void;
  disabled: boolean;
}): JSX.Element {
  const trans = useTrans();
  const payload = props.item.payload ?? {};
  const [fields] = useState<IFieldModel[]>(() =>
    formModel(payload.requested_schema)
  );
  const [values, setValues] = useState<Record<string, RawValue>>(() =>
    initialValues(fields)
  );
  const [errors, setErrors] = useState<Record<string, string>>({});
  const set = (key: string, value: RawValue): void =>
    setValues(v => ({ ...v, [key]: value }));
  const submit = (action: AnswerAction): void => {
    if (action !== 'accept') {
      props.answer(action);
      return;
    }
    const result = collect(fields, values, trans);
    setErrors(result.errors);
    if (Object.keys(result.errors).length === 0) {
      props.answer('accept', result.content);
    }
  };
  return (
    <form
      className="mcpj-inbox-form"
      onSubmit={e => {
        e.preventDefault();
        submit('accept');
      }}
    >
      {payload.message && (
        <p className="mcpj-inbox-message">
          {clip(payload.message, LIMITS.message)}
        </p>
      )}
      {payload.asks_for_secret && (
        <p className="mcpj-error">
          {trans.__(
            'This looks like a request for a password or key: servers should not ask for secrets.'
          )}
        </p>
      )}
      {payload.mode === 'url' && payload.url && (
        <UrlRequest url={String(payload.url)} />
      )}
      <SchemaFields
        fields={fields}
        values={values}
        set={set}
        errors={errors}
        disabled={props.disabled}
        setError={(key, error) => setErrors(e => ({ ...e, [key]: error }))}
      />
      <AnswerButtons
        answer={submit}
        disabled={props.disabled}
        accept={trans.__('Accept')}
      />
    </form>
  );
}

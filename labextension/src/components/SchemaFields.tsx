/**
 * The fields of a form built from a JSON schema (form.ts): an elicitation's requested schema, or the
 * input schema of a tool a person calls for the model. Each field is checked when the person leaves it.
 */
import React from 'react';

import { checkField, IFieldModel, RawValue } from '../form';
import { FieldInput } from './FieldInput';
import { useTrans } from './translation';

/** One label per field: the property's name as the server wrote it (its title beside it), the
 * input, the description, and the field's problem once the person has left it (or submitted). */
export function SchemaFields(props: {
  fields: IFieldModel[];
  values: Record<string, RawValue>;
  set: (key: string, value: RawValue) => void;
  errors: Record<string, string>;
  setError: (key: string, error: string) => void;
  disabled: boolean;
}): JSX.Element {
  const trans = useTrans();
  const { fields, values, errors } = props;
  return (
    <>
      {fields.map(field => (
        <label
          className="mcpj-inbox-field"
          data-key={field.key}
          key={field.key}
        >
          <span className="mcpj-field-label">
            <code className="mcpj-field-key">{field.label}</code>
            {field.required ? ' *' : ''}
            {field.title && (
              <span className="mcpj-field-title"> {field.title}</span>
            )}
          </span>
          <FieldInput
            field={field}
            value={values[field.key]}
            set={v => props.set(field.key, v)}
            disabled={props.disabled}
            onLeave={v =>
              props.setError(field.key, checkField(field, v, trans))
            }
          />
          {field.description && (
            <span className="mcpj-description">{field.description}</span>
          )}
          {errors[field.key] && (
            <span className="mcpj-error">{errors[field.key]}</span>
          )}
        </label>
      ))}
    </>
  );
}

/**
 * The input of one form field, by its kind (see form.ts).
 */
import React from 'react';

import { IFieldModel, RawValue } from '../form';

function inputType(format: string | undefined): string {
  return (
    ({ email: 'email', uri: 'url', date: 'date' } as Record<string, string>)[
      format ?? ''
    ] ?? 'text'
  );
}

/** A checkbox, a select, checkboxes for a multi-select, or a text input; `onLeave` gets the value
 * when the person leaves the input (to check it then, not at every keystroke). */
export function FieldInput(props: {
  field: IFieldModel;
  value: RawValue;
  set: (value: RawValue) => void;
  disabled: boolean;
  onLeave?: (value: RawValue) => void;
}): JSX.Element {
  const { field, value, set, disabled } = props;
  const leave = (v: RawValue): void => props.onLeave?.(v);
  switch (field.kind) {
    case 'boolean':
      return (
        <input
          type="checkbox"
          checked={value === true}
          disabled={disabled}
          onChange={e => set(e.target.checked)}
          onBlur={e => leave(e.target.checked)}
        />
      );
    case 'enum':
      return (
        <select
          value={String(value)}
          disabled={disabled}
          onChange={e => set(e.target.value)}
          onBlur={e => leave(e.target.value)}
        >
          {!field.required || value === '' ? <option value="">—</option> : null}
          {field.options.map((o, i) => (
            <option key={i} value={String(i)}>
              {o.label}
            </option>
          ))}
        </select>
      );
    case 'multi': {
      const picked = Array.isArray(value) ? value : [];
      return (
        <span className="mcpj-multi">
          {field.options.map((o, i) => (
            <label key={i}>
              <input
                type="checkbox"
                checked={picked.includes(i)}
                disabled={disabled}
                onChange={e =>
                  set(
                    e.target.checked
                      ? [...picked, i]
                      : picked.filter(p => p !== i)
                  )
                }
              />
              {o.label}
            </label>
          ))}
        </span>
      );
    }
    default: {
      const type =
        field.kind === 'number' || field.kind === 'integer'
          ? 'text'
          : inputType(field.format);
      return (
        <input
          type={type}
          value={String(value ?? '')}
          disabled={disabled}
          inputMode={
            field.kind === 'integer'
              ? 'numeric'
              : field.kind === 'number'
                ? 'decimal'
                : undefined
          }
          onChange={e => set(e.target.value)}
          onBlur={e => leave(e.target.value)}
        />
      );
    }
  }
}

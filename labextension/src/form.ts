/**
 * Forms from a JSON schema (an elicitation's requested schema, a sampling tool's input schema): the
 * schema as a list of fields, and typed values back (pure).
 *
 * MCP restricts `requestedSchema` to a flat object of primitives: string (with `format`, length
 * limits), number, integer (with bounds), boolean, and enums (`enum` + optional `enumNames`, or
 * `oneOf` of `{const, title}`; an array of such items is a multi-select). Anything else becomes a
 * text field whose content is parsed as JSON, so no request is unanswerable.
 */
import { TranslationBundle } from '@jupyterlab/translation';

import { ENGLISH } from './i18n';
import { isObject, JsonRecord } from './json';

export type FieldKind =
  'string' | 'number' | 'integer' | 'boolean' | 'enum' | 'multi' | 'json';

export interface IOption {
  value: unknown;
  label: string;
}

export interface IFieldModel {
  key: string;
  /** The property's name as the server wrote it (what the field is labelled with). */
  label: string;
  /** The schema's `title`, shown beside the name; '' when it has none or only restates the name. */
  title: string;
  description: string;
  kind: FieldKind;
  required: boolean;
  options: IOption[];
  format?: string;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  default?: unknown;
}

/** A raw value as held by an input: text, a checkbox state, or selected option indexes. */
export type RawValue = string | boolean | number[];

/** The JSON types a field can have as its own kind. */
const SCALAR_KINDS: readonly FieldKind[] = [
  'string',
  'number',
  'integer',
  'boolean'
];

/** The schema keywords a field keeps, to check the value against. */
const CHECKED_KEYWORDS = [
  'format',
  'minimum',
  'maximum',
  'minLength',
  'maxLength'
] as const;

/** The members of a schema (or of a property's schema); none when it is not an object. */
function members(schema: unknown): JsonRecord {
  return isObject(schema) ? schema : {};
}

/** The choices of an enum schema (`enum` with `enumNames`, or `oneOf`/`anyOf` of `{const, title}`). */
function options(schema: unknown): IOption[] | null {
  const { enum: values, enumNames, oneOf, anyOf } = members(schema);
  if (Array.isArray(values)) {
    const names: unknown[] = Array.isArray(enumNames) ? enumNames : [];
    return values.map((value: unknown, i: number) => ({
      value,
      label: String(names[i] ?? value)
    }));
  }
  const choices = oneOf ?? anyOf;
  if (
    Array.isArray(choices) &&
    choices.length &&
    choices.every((c: unknown) => isObject(c) && 'const' in c)
  ) {
    return choices.map((c: JsonRecord) => ({
      value: c.const,
      label: String(c.title ?? c.const)
    }));
  }
  return null;
}

/** Words of a name or title, for comparing them: `max_words`, `Max Words` and `maxWords` agree. */
function words(text: string): string {
  return text
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/[_\-\s]+/g, ' ')
    .trim()
    .toLowerCase();
}

/** The title to show beside a property's name: none when the schema has none, or when it only
 * restates the name (SDKs title `max_words` as "Max Words"). */
export function titleBeside(key: string, title: unknown): string {
  if (
    typeof title !== 'string' ||
    !title.trim() ||
    words(title) === words(key)
  ) {
    return '';
  }
  return title;
}

/** The fields of an elicitation's `requested_schema` (or a tool's `inputSchema`), in the schema's
 * property order. */
export function formModel(schema: unknown): IFieldModel[] {
  const { properties: declared, required: requiredKeys } = members(schema);
  const properties: JsonRecord =
    typeof declared === 'object' && declared !== null
      ? (declared as JsonRecord)
      : {};
  const required: unknown[] = Array.isArray(requiredKeys) ? requiredKeys : [];
  return Object.keys(properties).map(key => {
    const prop = members(properties[key]);
    const field: IFieldModel = {
      key,
      label: key,
      title: titleBeside(key, prop.title),
      description: String(prop.description ?? ''),
      kind: 'json',
      required: required.includes(key),
      options: [],
      default: prop.default
    };
    const single = options(prop);
    const multi = prop.type === 'array' ? options(prop.items) : null;
    const scalar = SCALAR_KINDS.find(kind => kind === prop.type);
    if (single) {
      field.kind = 'enum';
      field.options = single;
    } else if (multi) {
      field.kind = 'multi';
      field.options = multi;
    } else if (scalar) {
      field.kind = scalar;
    }
    for (const name of CHECKED_KEYWORDS) {
      if (prop[name] !== undefined) {
        Object.assign(field, { [name]: prop[name] });
      }
    }
    return field;
  });
}

/** The inputs' starting values (schema defaults, else empty). */
export function initialValues(fields: IFieldModel[]): Record<string, RawValue> {
  const values: Record<string, RawValue> = {};
  for (const field of fields) {
    const d = field.default;
    switch (field.kind) {
      case 'boolean':
        values[field.key] = d === true;
        break;
      case 'enum': {
        const i = field.options.findIndex(o => o.value === d);
        values[field.key] = i >= 0 ? String(i) : '';
        break;
      }
      case 'multi':
        values[field.key] = Array.isArray(d)
          ? field.options.flatMap((o, i) => (d.includes(o.value) ? [i] : []))
          : [];
        break;
      case 'json':
        values[field.key] = d === undefined ? '' : JSON.stringify(d);
        break;
      default:
        values[field.key] = d === undefined || d === null ? '' : String(d);
    }
  }
  return values;
}

/** Result of `collect`: the content to send, and an error per field key (empty when valid). */
export interface ICollected {
  content: Record<string, unknown>;
  errors: Record<string, string>;
}

/** Turn the inputs' raw values into typed content, checking what the schema asks. */
export function collect(
  fields: IFieldModel[],
  raw: Record<string, RawValue>,
  trans: TranslationBundle = ENGLISH
): ICollected {
  const content: Record<string, unknown> = {};
  const errors: Record<string, string> = {};
  for (const field of fields) {
    const result = convert(field, raw[field.key], trans);
    const error =
      'error' in result ? result.error : problem(field, result.value, trans);
    if (error) {
      errors[field.key] = error;
    } else if ('value' in result && result.value !== undefined) {
      content[field.key] = result.value;
    }
  }
  return { content, errors };
}

/** What is wrong with one field's raw value ('' when nothing): checked when the person leaves the
 * field, and again for every field on submit. */
export function checkField(
  field: IFieldModel,
  raw: RawValue | undefined,
  trans: TranslationBundle = ENGLISH
): string {
  const result = convert(field, raw, trans);
  return 'error' in result ? result.error : problem(field, result.value, trans);
}

function problem(
  field: IFieldModel,
  value: unknown,
  trans: TranslationBundle
): string {
  return value === undefined && field.required ? trans.__('required') : '';
}

type Converted = { value: unknown } | { error: string };

function convert(
  field: IFieldModel,
  value: RawValue | undefined,
  trans: TranslationBundle
): Converted {
  switch (field.kind) {
    case 'boolean':
      return { value: value === true };
    case 'multi': {
      const picked = Array.isArray(value) ? value : [];
      return {
        value:
          picked.length || field.required
            ? picked.map(i => field.options[i].value)
            : undefined
      };
    }
    case 'enum': {
      const text = String(value ?? '');
      return {
        value: text === '' ? undefined : field.options[Number(text)]?.value
      };
    }
  }
  const text = typeof value === 'string' ? value : '';
  if (text === '') {
    return { value: undefined };
  }
  if (field.kind === 'json') {
    try {
      return { value: JSON.parse(text) };
    } catch {
      return { value: text }; // a plain word is a string, as a person means it
    }
  }
  if (field.kind === 'string') {
    if (field.minLength !== undefined && text.length < field.minLength) {
      return { error: trans.__('at least %1 characters', field.minLength) };
    }
    if (field.maxLength !== undefined && text.length > field.maxLength) {
      return { error: trans.__('at most %1 characters', field.maxLength) };
    }
    return { value: text };
  }
  const number = Number(text.trim());
  if (!Number.isFinite(number)) {
    return { error: trans.__('not a number') };
  }
  if (field.kind === 'integer' && !Number.isInteger(number)) {
    return { error: trans.__('not a whole number') };
  }
  if (field.minimum !== undefined && number < field.minimum) {
    return { error: trans.__('at least %1', field.minimum) };
  }
  if (field.maximum !== undefined && number > field.maximum) {
    return { error: trans.__('at most %1', field.maximum) };
  }
  return { value: number };
}

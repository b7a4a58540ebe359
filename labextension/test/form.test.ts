import { describe, expect, it } from 'vitest';

import {
  checkField,
  collect,
  formModel,
  initialValues,
  titleBeside
} from '../src/form';

// the demo server's ask_user schema, plus the other field kinds MCP allows
const schema = {
  type: 'object',
  properties: {
    name: {
      type: 'string',
      title: 'Name',
      description: 'Your name',
      minLength: 2
    },
    color: {
      type: 'string',
      enum: ['red', 'green', 'blue'],
      enumNames: ['Red', 'Green', 'Blue']
    },
    newsletter: { type: 'boolean', default: false },
    age: { type: 'integer', minimum: 0, maximum: 150 },
    ratio: { type: 'number' },
    size: {
      type: 'string',
      oneOf: [
        { const: 's', title: 'Small' },
        { const: 'l', title: 'Large' }
      ],
      default: 'l'
    },
    tags: { type: 'array', items: { enum: ['a', 'b', 'c'] } },
    email: { type: 'string', format: 'email' }
  },
  required: ['name', 'color']
};

describe('formModel', () => {
  const fields = formModel(schema);
  it('keeps the schema order, titles, kinds and requirements', () => {
    expect(fields.map(f => [f.key, f.kind, f.required])).toEqual([
      ['name', 'string', true],
      ['color', 'enum', true],
      ['newsletter', 'boolean', false],
      ['age', 'integer', false],
      ['ratio', 'number', false],
      ['size', 'enum', false],
      ['tags', 'multi', false],
      ['email', 'string', false]
    ]);
    expect(fields[0].label).toBe('name'); // the name as the server wrote it; its title only restates it
    expect(fields[0].title).toBe('');
    expect(fields[0].description).toBe('Your name');
    expect(fields[1].options.map(o => o.label)).toEqual([
      'Red',
      'Green',
      'Blue'
    ]);
    expect(fields[5].options).toEqual([
      { value: 's', label: 'Small' },
      { value: 'l', label: 'Large' }
    ]);
    expect(fields[7].format).toBe('email');
  });

  it('starts from the defaults', () => {
    expect(initialValues(fields)).toEqual({
      name: '',
      color: '',
      newsletter: false,
      age: '',
      ratio: '',
      size: '1',
      tags: [],
      email: ''
    });
  });

  it('collects typed values', () => {
    const raw = {
      ...initialValues(fields),
      name: 'Grace Hopper',
      color: '1',
      newsletter: true,
      age: '85',
      ratio: '0.5',
      tags: [0, 2]
    };
    expect(collect(fields, raw)).toEqual({
      content: {
        name: 'Grace Hopper',
        color: 'green',
        newsletter: true,
        age: 85,
        ratio: 0.5,
        size: 'l',
        tags: ['a', 'c']
      },
      errors: {}
    });
  });

  it('reports what is wrong, per field', () => {
    const raw = {
      ...initialValues(fields),
      name: 'G',
      age: '1.5',
      ratio: 'abc'
    };
    expect(collect(fields, raw).errors).toEqual({
      name: 'at least 2 characters',
      color: 'required',
      age: 'not a whole number',
      ratio: 'not a number'
    });
    expect(
      collect(fields, {
        ...raw,
        name: 'Gr',
        color: '0',
        age: '200',
        ratio: '1'
      }).errors
    ).toEqual({
      age: 'at most 150'
    });
  });

  it('survives a schema that is not what MCP allows', () => {
    expect(formModel(null)).toEqual([]);
    const odd = formModel({ properties: { blob: { type: 'object' } } });
    expect(odd[0].kind).toBe('json');
    expect(collect(odd, { blob: '{"a": 1}' }).content).toEqual({
      blob: { a: 1 }
    });
    expect(collect(odd, { blob: 'plain words' }).content).toEqual({
      blob: 'plain words'
    });
  });

  it('survives a hostile schema: null properties, strings among the choices', () => {
    expect(formModel({ properties: null })).toEqual([]);
    const [pick] = formModel({
      properties: { pick: { oneOf: ['a', { const: 'b' }], type: 'string' } }
    });
    expect(pick.kind).toBe('string'); // not a list of {const, title}: typed in
    expect(pick.options).toEqual([]);
  });
});

describe('labels', () => {
  it('show the name as written, with a title beside it only when it says more', () => {
    const fields = formModel({
      type: 'object',
      properties: {
        a: { type: 'integer', title: 'A' },
        max_words: { type: 'integer', title: 'Max Words' },
        city: { type: 'string', title: 'Where you are' },
        units: { type: 'string' }
      }
    });
    expect(fields.map(f => [f.label, f.title])).toEqual([
      ['a', ''],
      ['max_words', ''],
      ['city', 'Where you are'],
      ['units', '']
    ]);
    expect(titleBeside('maxWords', 'Max words')).toBe('');
  });
});

describe('checkField', () => {
  const fields = formModel(schema);
  it('says what is wrong with one field, as the person leaves it', () => {
    expect(checkField(fields[0], 'G')).toBe('at least 2 characters');
    expect(checkField(fields[0], '')).toBe('required');
    expect(checkField(fields[0], 'Grace')).toBe('');
    expect(checkField(fields[3], '1.5')).toBe('not a whole number');
    expect(checkField(fields[3], '')).toBe(''); // optional and empty: nothing to say
  });
});

import { describe, expect, it } from 'vitest';

import {
  callCode,
  connectCode,
  exploreCode,
  promptCode,
  pyString,
  readCode
} from '../src/codegen';

describe('pyString', () => {
  it('is a Python literal that evaluates back to the same text', () => {
    // JSON escapes are Python escapes: quotes, backslashes, newlines, control characters
    expect(pyString('a"b\\c\nd\u0000')).toBe('"a\\"b\\\\c\\nd\\u0000"');
    expect(pyString("it's")).toBe('"it\'s"');
  });
});

describe('actions write %mcp lines for plain names', () => {
  it('call, prompt, explore, connect', () => {
    expect(callCode('demo', 'add')).toBe('%mcp form demo add');
    expect(exploreCode('demo')).toBe('%mcp explore demo');
    expect(promptCode('demo', 'simple-prompt', [])).toBe(
      '%mcp prompt demo simple-prompt'
    );
    expect(connectCode('time', '/home/me/.cursor/mcp.json')).toBe(
      '%mcp connect --config /home/me/.cursor/mcp.json time'
    );
  });

  it('loads the magics first when the kernel says %mcp is not registered', () => {
    expect(callCode('demo', 'add', { magics: false })).toBe(
      '%load_ext mcp_jupyter\n%mcp form demo add'
    );
    expect(callCode('demo', 'add', { magics: true })).toBe(
      '%mcp form demo add'
    );
  });

  it('a prompt with required arguments gets its form', () => {
    expect(
      promptCode('demo', 'greeting', [{ name: 'name', required: true }])
    ).toBe(
      'import mcp_jupyter as mj\nmj.get_connection("demo").prompts["greeting"].form()'
    );
  });
});

describe('hostile names and URIs are written as Python string literals', () => {
  const hostile = [
    'my server', // a space would split the magic's words
    'x$HOME', // the magic expands $var
    'a{__import__("os").system("id")}', // ...and {expr}
    'quote\'and"double',
    'line\nbreak',
    '-h' // would be read as an option
  ];
  for (const name of hostile) {
    it(`call ${JSON.stringify(name)}`, () => {
      const code = callCode(name, name);
      expect(code).not.toContain('%mcp');
      expect(code).toBe(
        `import mcp_jupyter as mj\nmj.get_connection(${JSON.stringify(name)}).tools[${JSON.stringify(name)}].form()`
      );
      // the code is two lines: nothing in the name can start a new statement
      expect(code.split('\n')).toHaveLength(2);
    });
    it(`explore/connect/prompt ${JSON.stringify(name)}`, () => {
      expect(exploreCode(name)).toContain(
        `mj.get_connection(${JSON.stringify(name)}).explore()`
      );
      expect(connectCode(name, '/tmp/mcp.json')).toBe(
        `import mcp_jupyter as mj\nmj.connect_config("/tmp/mcp.json", names=[${JSON.stringify(name)}])`
      );
      expect(promptCode('demo', name)).toContain(
        `.prompts[${JSON.stringify(name)}].form()`
      );
    });
  }

  it('read always uses Python, whatever the URI holds', () => {
    expect(readCode('demo', 'demo://data.csv')).toBe(
      'import mcp_jupyter as mj\nmj.get_connection("demo").read("demo://data.csv")'
    );
    const uri = 'file:///tmp/a b/"x".txt?q={y}&z=$HOME\n';
    expect(readCode('demo', uri)).toBe(
      `import mcp_jupyter as mj\nmj.get_connection("demo").read(${JSON.stringify(uri)})`
    );
  });

  it('a config path with spaces is not split', () => {
    expect(connectCode('time', '/home/me/My Files/mcp.json')).toBe(
      'import mcp_jupyter as mj\nmj.connect_config("/home/me/My Files/mcp.json", names=["time"])'
    );
  });
});

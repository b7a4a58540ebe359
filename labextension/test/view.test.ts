import { describe, expect, it } from 'vitest';

import { IConnectionInfo, ISnapshot } from '../src/messages';
import { svgRefusal } from '../src/svg';
import {
  clip,
  connectionsView,
  draftToolCalls,
  iconView,
  inboxLabel,
  samplingTools,
  LIMITS,
  matches,
  pendingCount,
  plural,
  samplingMessages
} from '../src/view';

const demo: IConnectionInfo = {
  name: 'demo',
  transport: 'stdio',
  target: 'python -m mcp_jupyter.demo',
  server: { name: 'mcp-jupyter-demo', version: '1.0.0' },
  protocol_version: '2025-11-25',
  alive: true,
  error: null,
  counts: { tools: 2, resources: 1, templates: 1, prompts: 1 },
  tools: [
    {
      name: 'add',
      title: 'Add two integers',
      description: 'Adds a and b',
      has_app: false
    },
    { name: 'weather', title: null, description: 'Made-up weather for a city' }
  ],
  resources: [
    {
      uri: 'demo://data.csv',
      name: 'data.csv',
      description: 'Sample data',
      mime_type: 'text/csv'
    }
  ],
  templates: [
    {
      uri_template: 'demo://items/{item_id}',
      name: 'item',
      description: 'Catalog item'
    }
  ],
  prompts: [
    {
      name: 'greeting',
      title: 'Greeting',
      description: 'A greeting',
      arguments: [{ name: 'name', required: true }]
    }
  ]
};

const snapshot: ISnapshot = {
  connections: [
    demo,
    {
      ...demo,
      name: 'dead',
      alive: false,
      error: 'server exited (code 1)',
      tools: [],
      counts: { tools: 0, resources: 0, templates: 0, prompts: 0 },
      resources: [],
      templates: [],
      prompts: []
    }
  ],
  configured: [],
  inbox: [
    {
      id: '1',
      kind: 'elicitation',
      connection: 'demo',
      title: 'Who are you?',
      created: 0,
      payload: {}
    }
  ]
};

describe('connectionsView', () => {
  it('describes each connection', () => {
    const [view, dead] = connectionsView(snapshot);
    expect(view).toMatchObject({
      name: 'demo',
      status: 'alive',
      server: 'mcp-jupyter-demo 1.0.0',
      protocol: '2025-11-25',
      counts: '2 tools · 1 resource · 1 template · 1 prompt'
    });
    expect(view.sections.map(s => [s.kind, s.total, s.items.length])).toEqual([
      ['tools', 2, 2],
      ['resources', 1, 1],
      ['templates', 1, 1],
      ['prompts', 1, 1]
    ]);
    expect(view.sections[0].items[0]).toMatchObject({
      key: 'add',
      label: 'Add two integers',
      detail: 'add',
      action: 'call'
    });
    expect(view.sections[1].items[0]).toMatchObject({
      key: 'demo://data.csv',
      detail: 'demo://data.csv · text/csv',
      action: 'read'
    });
    expect(view.sections[2].items[0].action).toBeNull();
    expect(view.sections[3].items[0]).toMatchObject({
      detail: 'greeting (name)',
      action: 'prompt'
    });
    expect(dead).toMatchObject({
      status: 'dead',
      error: 'server exited (code 1)'
    });
  });

  it('filters items by name, title and description, every word', () => {
    const [view] = connectionsView(snapshot, 'CITY weather');
    expect(view.sections[0].items.map(i => i.key)).toEqual(['weather']);
    expect(view.sections[1].items).toEqual([]);
    // a connection without matches is hidden; a match on the connection's name keeps all its items
    expect(connectionsView(snapshot, 'nothing-matches')).toEqual([]);
    expect(connectionsView(snapshot, 'dead').map(v => v.name)).toEqual([
      'dead'
    ]);
  });

  it('handles an empty snapshot', () => {
    expect(connectionsView(null)).toEqual([]);
    expect(pendingCount(null)).toBe(0);
    expect(pendingCount(snapshot)).toBe(1);
  });
});

describe('small helpers', () => {
  it('plural', () => {
    expect(plural(1, 'tools')).toBe('1 tool');
    expect(plural(0, 'prompts')).toBe('0 prompts');
  });
  it('matches', () => {
    expect(matches('', 'x')).toBe(true);
    expect(matches('a b', 'A', 'xb')).toBe(true);
    expect(matches('a c', 'A', 'xb')).toBe(false);
  });
  it('samplingMessages reads text and names other blocks', () => {
    expect(
      samplingMessages({
        messages: [
          { role: 'user', content: { type: 'text', text: 'Summarize' } },
          {
            role: 'user',
            content: [
              { type: 'image', data: '...' },
              { type: 'text', text: 'this' }
            ]
          }
        ]
      })
    ).toEqual([
      { role: 'user', text: 'Summarize' },
      { role: 'user', text: '[image]\nthis' }
    ]);
    expect(samplingMessages(undefined)).toEqual([]);
    // the kernel's flat message views
    expect(
      samplingMessages({
        messages: [
          { role: 'user', type: 'text', text: 'Hi' },
          { role: 'user', type: 'image' }
        ]
      })
    ).toEqual([
      { role: 'user', text: 'Hi' },
      { role: 'user', text: '[image]' }
    ]);
  });
  it('inboxLabel', () => {
    expect(inboxLabel(snapshot.inbox[0])).toBe('demo asks you');
  });
});

describe('long server strings are clipped', () => {
  it('clip', () => {
    expect(clip('abc', 3)).toBe('abc');
    expect(clip('abcdef', 3)).toBe('abc… (3 more characters)');
    expect(clip(null, 3)).toBe('');
  });
  it('a megabyte description does not reach the page whole', () => {
    const huge = {
      ...demo,
      tools: [{ name: 'x'.repeat(1000), description: 'A'.repeat(1_048_576) }]
    };
    const [view] = connectionsView({
      connections: [huge],
      configured: [],
      inbox: []
    });
    const item = view.sections[0].items[0];
    expect(item.key).toHaveLength(1000); // the real name still goes into the code
    expect(item.label.length).toBeLessThan(LIMITS.label + 40);
    expect(item.description.length).toBeLessThan(LIMITS.description + 40);
    const long = samplingMessages({
      messages: [{ role: 'user', type: 'text', text: 'B'.repeat(100_000) }]
    });
    expect(long[0].text.length).toBeLessThan(LIMITS.message + 40);
  });
});

describe('iconView', () => {
  const png = 'data:image/png;base64,iVBORw0KGgo=';

  it("draws a small data: image and an https icon of the server's own origin", () => {
    expect(iconView({ src: png }, null)).toEqual({ src: png });
    expect(
      iconView({ src: 'https://mcp.example/i.png' }, 'https://mcp.example/mcp')
    ).toEqual({
      src: 'https://mcp.example/i.png'
    });
  });

  it('names, never loads, anything else (re-checking what the kernel sent)', () => {
    const notes = [
      iconView(
        { src: 'https://evil.example/i.png' },
        'https://mcp.example/mcp'
      ),
      iconView({ src: 'https://evil.example/i.png' }, null),
      iconView({ src: 'http://mcp.example/i.png' }, 'http://mcp.example/mcp'),
      iconView({ src: 'javascript:alert(1)' }, null),
      iconView({ src: 'file:///etc/passwd' }, null),
      iconView({ src: 'data:text/html;base64,PHNjcmlwdD4=' }, null),
      iconView({ src: `data:image/svg+xml;base64,${'A'.repeat(70_000)}` }, null)
    ];
    for (const view of notes) {
      expect(view && 'src' in view).toBe(false);
    }
    expect(notes[0]).toEqual({ note: 'icon not loaded: evil.example' });
    expect(
      iconView({ note: 'icon not loaded: an SVG with script' }, null)
    ).toEqual({
      note: 'icon not loaded: an SVG with script'
    });
    expect(iconView(null, null)).toBeNull();
  });

  it('gives rows and the connection their icons', () => {
    const [view] = connectionsView({
      connections: [
        {
          ...demo,
          server: { ...demo.server!, icon: { src: png } },
          tools: [{ name: 'a', icon: { src: png } }]
        }
      ],
      configured: [],
      inbox: []
    });
    expect(view.icon).toEqual({ src: png });
    expect(view.sections[0].items[0].icon).toEqual({ src: png });
  });
});

describe('sampling with tools', () => {
  it("lists the offered tools and the draft's tool calls as text", () => {
    const payload = {
      tools: [{ name: 'get_weather', description: 'The weather <b>now</b>' }],
      tool_choice: 'auto' as const,
      state: 'review' as const,
      draft: {
        text: '',
        model: 'tiny-model',
        tool_calls: [
          { id: 'c1', name: 'get_weather', input: { city: 'Paris' } }
        ]
      }
    };
    expect(samplingTools(payload)).toEqual([
      { name: 'get_weather', detail: 'The weather <b>now</b>' }
    ]);
    expect(draftToolCalls(payload)).toEqual([
      { name: 'get_weather', detail: '{"city":"Paris"}' }
    ]);
    expect(samplingTools({})).toEqual([]);
    expect(draftToolCalls({ draft: { text: 'x' } })).toEqual([]);
  });
});

describe('svgRefusal: an SVG with script is refused in any encoding the browser reads', () => {
  const SCRIPT =
    "<svg xmlns='http://www.w3.org/2000/svg'><script>alert(1)</script></svg>";
  const CIRCLE =
    "<svg xmlns='http://www.w3.org/2000/svg'><circle r='5'/></svg>";
  const base64 = (bytes: number[]): string =>
    btoa(String.fromCharCode(...bytes));
  const utf16le = (text: string, bom = true): number[] => {
    const out = bom ? [0xff, 0xfe] : [];
    for (const ch of text) {
      out.push(ch.charCodeAt(0) & 0xff, ch.charCodeAt(0) >> 8);
    }
    return out;
  };
  const utf16be = (text: string): number[] =>
    utf16le(text, false).map((_, i, all) => all[i ^ 1]);
  const svg = (bytes: number[], params = ';base64'): string =>
    `data:image/svg+xml${params},${base64(bytes)}`;
  const ascii = (text: string): number[] => [...text].map(c => c.charCodeAt(0));

  it('refuses script in UTF-16 (with or without a mark), behind a charset, an escape or a reference', () => {
    const refused = [
      svg(utf16le(SCRIPT)),
      svg(utf16be(SCRIPT)),
      svg(utf16le(SCRIPT, false), ';charset=utf-16le;base64'),
      svg(
        ascii(
          "<?xml version='1.0' encoding='ISO-2022-JP'?><svg><scr\x1b(Bipt>x</script></svg>"
        )
      ),
      "data:image/svg+xml,<svg><a href='&#106;avascript:alert(1)'/></svg>",
      "data:image/svg+xml,<!DOCTYPE svg [<!ENTITY x 'y'>]><svg/>"
    ];
    for (const src of refused) {
      expect(svgRefusal(src)).toBe('script');
      expect(iconView({ src }, null)).toEqual({
        note: 'icon not loaded: an SVG with script'
      });
    }
  });

  it('draws a clean SVG in any of those encodings, and never looks into other images', () => {
    expect(svgRefusal(svg(utf16le(CIRCLE)))).toBeNull();
    expect(svgRefusal(svg(ascii(CIRCLE)))).toBeNull();
    expect(iconView({ src: svg(utf16le(CIRCLE)) }, null)).toEqual({
      src: svg(utf16le(CIRCLE))
    });
    expect(svgRefusal('data:image/png;base64,PHNjcmlwdD4=')).toBeNull(); // "<script>" as PNG bytes: not an SVG
    expect(
      svgRefusal(
        svg(ascii("<?xml version='1.0' encoding='x-nonesuch'?><svg/>"))
      )
    ).toBe('encoding');
    expect(svgRefusal('data:image/svg+xml;base64,@@@')).toBe('base64');
  });
});

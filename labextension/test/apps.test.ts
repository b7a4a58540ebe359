import { describe, expect, it } from 'vitest';

import {
  allowAttribute,
  frameHeight,
  hostCapabilities,
  linkUrl,
  MAX_HEIGHT,
  MIN_HEIGHT,
  messageText,
  sandboxUrl
} from '../src/apps/protocol';

describe('sandboxUrl', () => {
  it('points at the route under the base URL with the declared CSP as JSON', () => {
    const url = sandboxUrl('/user/ada/', {
      connectDomains: ['https://api.example.com']
    });
    expect(url.startsWith('/user/ada/mcp-jupyter/apps/sandbox?csp=')).toBe(
      true
    );
    const csp = JSON.parse(decodeURIComponent(url.split('?csp=')[1]));
    expect(csp).toEqual({ connectDomains: ['https://api.example.com'] });
  });

  it('sends an empty object (the restrictive default) for a missing or malformed CSP', () => {
    for (const csp of [null, undefined, 'x', ['https://a.example.com']]) {
      expect(sandboxUrl('/', csp)).toBe('/mcp-jupyter/apps/sandbox?csp=%7B%7D');
    }
    expect(sandboxUrl('/lab', null)).toBe(
      '/lab/mcp-jupyter/apps/sandbox?csp=%7B%7D'
    );
  });
});

describe('allowAttribute', () => {
  it('maps the spec permissions and ignores anything else', () => {
    expect(
      allowAttribute({ camera: {}, clipboardWrite: {}, 'usb; fullscreen': {} })
    ).toBe('camera; clipboard-write');
    expect(allowAttribute(null)).toBe('');
  });
});

describe('frameHeight', () => {
  it('clamps the height an app asks for', () => {
    expect(frameHeight(123.2)).toBe(124);
    expect(frameHeight(1)).toBe(MIN_HEIGHT);
    expect(frameHeight(1e9)).toBe(MAX_HEIGHT);
    expect(frameHeight('200')).toBe(200);
    expect(frameHeight(undefined)).toBeNull();
    expect(frameHeight('tall')).toBeNull();
  });
});

describe('linkUrl', () => {
  it('takes only absolute http(s) URLs', () => {
    expect(linkUrl({ url: 'https://example.com/a?b=1' })).toBe(
      'https://example.com/a?b=1'
    );
    expect(linkUrl({ url: 'http://localhost:8000' })).toBe(
      'http://localhost:8000/'
    );
    for (const url of [
      'javascript:alert(1)',
      'data:text/html,x',
      'file:///etc/passwd',
      '/relative',
      ''
    ]) {
      expect(linkUrl({ url })).toBeNull();
    }
    expect(linkUrl(null)).toBeNull();
  });
});

describe('messageText', () => {
  it('shows text blocks and names the others', () => {
    const content = [
      { type: 'text', text: 'hello' },
      { type: 'image', data: 'xx' }
    ];
    expect(messageText(content)).toBe('hello\n[image]');
    expect(messageText('nope')).toBe('');
  });
});

describe('hostCapabilities', () => {
  it('offers what the host forwards and echoes the sandbox it applied', () => {
    const caps = hostCapabilities(
      { connectDomains: ['https://a.example.com'] },
      null
    );
    expect(Object.keys(caps)).toEqual(
      expect.arrayContaining([
        'openLinks',
        'serverTools',
        'serverResources',
        'logging',
        'message'
      ])
    );
    expect(caps).not.toHaveProperty('sampling');
    expect(caps).not.toHaveProperty('downloadFile');
    expect(caps.sandbox).toHaveProperty('csp', {
      connectDomains: ['https://a.example.com']
    });
  });
});

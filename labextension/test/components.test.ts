import React from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';

import { AppConsentCard, AppNotice } from '../src/components/AppConsentCard';
import { ItemRow } from '../src/components/ItemRow';
import { IConnectionInfo } from '../src/messages';
import { connectionView } from '../src/view';

const connection: IConnectionInfo = {
  name: 'pdf',
  transport: 'stdio',
  target: 'npx pdf',
  server: { name: 'pdf', version: '1' },
  protocol_version: null,
  alive: true,
  error: null,
  counts: { tools: 3, resources: 0, templates: 0, prompts: 0 },
  tools: [
    { name: 'display_pdf', has_app: true, visibility: ['model', 'app'] },
    { name: 'read_pdf_bytes', visibility: ['app'] },
    { name: 'list_pdfs' }
  ],
  resources: [],
  templates: [],
  prompts: []
};

function row(key: string, runs = true): string {
  const item = connectionView(connection).sections[0].items.find(i => i.key === key)!;
  const actions = { write: () => undefined, runs, code: { magics: true } };
  return renderToStaticMarkup(React.createElement(ItemRow, { connection: 'pdf', item, actions }));
}

describe('ItemRow', () => {
  it('badges a tool only an app may call', () => {
    expect(row('read_pdf_bytes')).toContain('<span class="mcpj-tag jp-mcp-badge-app"');
    expect(row('read_pdf_bytes')).toContain('>app only</span>');
    expect(row('display_pdf')).not.toContain('jp-mcp-badge-app'); // the model may call it too
    expect(row('list_pdfs')).not.toContain('jp-mcp-badge-app'); // no visibility: both may
  });

  it('says in its tooltip whether the written cell runs (the setting)', () => {
    expect(row('list_pdfs', true)).toContain('title="Insert and run: %mcp form pdf list_pdfs"');
    expect(row('list_pdfs', false)).toContain('title="Insert: %mcp form pdf list_pdfs"');
    expect(row('list_pdfs')).toMatch(/data-action="call"[^>]*>Call<\/button>/);
  });
});

describe('AppConsentCard', () => {
  it('keeps the classes the browser tests and styles use, and shows server text as text', () => {
    const html = renderToStaticMarkup(
      React.createElement(AppConsentCard, {
        consent: {
          id: 1,
          kind: 'message',
          question: 'Viewer (pdf): The app wants to send this message:',
          detail: '<img src=x onerror=alert(1)>',
          allowLabel: 'Send',
          answer: () => undefined
        }
      })
    );
    expect(html).toContain('class="mcpj-app-consent mcpj-app-consent-message"');
    expect(html).toContain('<pre class="mcpj-app-consent-detail">&lt;img src=x onerror=alert(1)&gt;</pre>');
    expect(html).toContain('class="jp-mod-styled jp-mod-accept mcpj-app-allow">Send</button>');
    expect(html).toContain('class="jp-mod-styled jp-mod-reject mcpj-app-deny">Deny</button>');
  });

  it('renders the placeholder with its reason', () => {
    const html = renderToStaticMarkup(
      React.createElement(AppNotice, { notice: { kind: 'placeholder', reason: 'restarted', title: 'MCP App', text: 'gone' } })
    );
    expect(html).toBe(
      '<div class="mcpj-app-placeholder" data-reason="restarted"><div class="mcpj-app-placeholder-title">MCP App</div>' +
        '<div class="mcpj-app-placeholder-note">gone</div></div>'
    );
  });
});

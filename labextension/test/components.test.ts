import React from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';

import { McpChannels } from '../src/channel';
import { AppConsentCard, AppNotice } from '../src/components/AppConsentCard';
import { ItemRow } from '../src/components/ItemRow';
import { SamplingReview } from '../src/components/SamplingReview';
import { SidebarView } from '../src/components/SidebarView';
import { IConnectionInfo, ISamplingItem } from '../src/messages';
import { SidebarModel } from '../src/model';
import { connectionView } from '../src/view';
import { ELICITATION, kernelStub, page, settle, snapshot } from './kernel';

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
  const item = connectionView(connection).sections[0].items.find(
    i => i.key === key
  )!;
  const actions = { write: () => undefined, runs, code: { magics: true } };
  return renderToStaticMarkup(
    React.createElement(ItemRow, { connection: 'pdf', item, actions })
  );
}

describe('ItemRow', () => {
  it('badges a tool only an app may call', () => {
    expect(row('read_pdf_bytes')).toContain(
      '<span class="mcpj-tag jp-mcp-badge-app"'
    );
    expect(row('read_pdf_bytes')).toContain('>app only</span>');
    expect(row('display_pdf')).not.toContain('jp-mcp-badge-app'); // the model may call it too
    expect(row('list_pdfs')).not.toContain('jp-mcp-badge-app'); // no visibility: both may
  });

  it('says in its tooltip whether the written cell runs (the setting)', () => {
    expect(row('list_pdfs', true)).toContain(
      'title="Insert and run: %mcp form pdf list_pdfs"'
    );
    expect(row('list_pdfs', false)).toContain(
      'title="Insert: %mcp form pdf list_pdfs"'
    );
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
    expect(html).toContain(
      '<pre class="mcpj-app-consent-detail">&lt;img src=x onerror=alert(1)&gt;</pre>'
    );
    expect(html).toContain(
      'class="jp-mod-styled jp-mod-accept mcpj-app-allow">Send</button>'
    );
    expect(html).toContain(
      'class="jp-mod-styled jp-mod-reject mcpj-app-deny">Deny</button>'
    );
  });

  it('renders the placeholder with its reason', () => {
    const html = renderToStaticMarkup(
      React.createElement(AppNotice, {
        notice: {
          kind: 'placeholder',
          reason: 'restarted',
          title: 'MCP App',
          text: 'gone'
        }
      })
    );
    expect(html).toBe(
      '<div class="mcpj-app-placeholder" data-reason="restarted"><div class="mcpj-app-placeholder-title">MCP App</div>' +
        '<div class="mcpj-app-placeholder-note">gone</div></div>'
    );
  });
});

describe('SamplingReview', () => {
  const item: ISamplingItem = {
    id: 's1',
    kind: 'sampling',
    connection: 'demo',
    title: 'Weather in Oslo?',
    created: 0,
    payload: {
      system_prompt: 'Use the get_weather tool.',
      messages: [{ role: 'user', type: 'text', text: 'Weather in Oslo?' }],
      needs_human: true,
      state: 'waiting',
      tools: [
        {
          name: 'get_weather',
          description: 'The weather',
          input_schema: { type: 'object' }
        }
      ],
      tool_choice: 'auto'
    }
  };
  const html = (i: ISamplingItem): string =>
    renderToStaticMarkup(
      React.createElement(SamplingReview, {
        item: i,
        answer: () => undefined,
        disabled: false
      })
    );

  it('reads top to bottom: system prompt, messages, what to do, the reply, then the buttons', () => {
    const text = html(item);
    const at = (needle: string): number => {
      const index = text.indexOf(needle);
      expect(index, needle).toBeGreaterThanOrEqual(0);
      return index;
    };
    const order = [
      'data-role="system"',
      'data-role="user"',
      'mcpj-sampling-tools',
      'mcpj-sampling-instructions',
      'mcpj-sampling-reply-kind',
      'data-key="reply"',
      'mcpj-inbox-cancel',
      'mcpj-inbox-decline',
      'mcpj-inbox-accept'
    ].map(at);
    expect(order).toEqual([...order].sort((a, b) => a - b));
    expect(text).toContain('a call of get_weather');
  });

  it('offers no tool call when the request forbids one', () => {
    const none = {
      ...item,
      payload: { ...item.payload, tool_choice: 'none' as const }
    };
    expect(html(none)).not.toContain('mcpj-sampling-reply-kind');
  });
});

describe('SidebarView', () => {
  const render = (model: SidebarModel): string =>
    renderToStaticMarkup(
      React.createElement(SidebarView, {
        model,
        write: () => undefined,
        connect: () => undefined,
        refresh: () => undefined
      })
    );
  it("shows the model's notebook, inbox and answers as they are now", async () => {
    const model = new SidebarModel(new McpChannels(page));
    expect(render(model)).toContain('Open a notebook to see');

    const { kernel, deliver } = kernelStub();
    model.follow(kernel as never, 'demo.ipynb');
    await settle();
    expect(render(model)).toContain('This kernel has not loaded mcp_jupyter');

    deliver(snapshot([ELICITATION], [connection]));
    model.setFilter('list_pdfs');
    const before = render(model);
    expect(before).toContain(
      '<span class="mcpj-sidebar-notebook">demo.ipynb</span>'
    );
    expect(before).toContain('data-id="e1"');
    expect(before).toContain('value="list_pdfs"');
    expect(before).not.toContain('mcpj-inbox-sent');

    model.answer(model.inbox[0], 'accept', { name: 'A' });
    expect(render(model)).toContain('Sent: accept');
    deliver({
      type: 'answer.error',
      id: 'e1',
      errors: [{ path: ['name'], message: 'too short' }]
    });
    const refused = render(model);
    expect(refused).not.toContain('mcpj-inbox-sent');
    expect(refused).toContain('The kernel refused the answer: name: too short');
  });
});

import React from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';

import { AppOnlyBadge } from '../src/badges';
import { APP_ONLY_TITLE, connectionsView } from '../src/view';

describe('AppOnlyBadge', () => {
  it('says "app only" next to a tool whose visibility leaves out the model, and nothing otherwise', () => {
    const [view] = connectionsView({
      connections: [
        {
          name: 'pdf',
          transport: 'stdio',
          target: 'node dist/index.js --stdio',
          server: null,
          protocol_version: null,
          alive: true,
          error: null,
          counts: { tools: 2, resources: 0, templates: 0, prompts: 0 },
          tools: [
            { name: 'read_pdf_bytes', visibility: ['app'] },
            { name: 'display_pdf', visibility: ['model', 'app'] }
          ],
          resources: [],
          templates: [],
          prompts: []
        }
      ],
      configured: [],
      inbox: []
    });
    const [appOnly, both] = view.sections[0].items;
    const html = renderToStaticMarkup(<AppOnlyBadge item={appOnly} />);
    expect(html).toContain('class="mcpj-tag mcpj-app-only"');
    expect(html).toContain('>app only</span>');
    expect(html).toContain(`title="${APP_ONLY_TITLE.replace(/'/g, '&#x27;')}"`);
    expect(renderToStaticMarkup(<AppOnlyBadge item={both} />)).toBe('');
  });
});

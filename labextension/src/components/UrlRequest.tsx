/**
 * URL-mode elicitation: the whole URL and its host; only https opens (in a new, unlinked tab).
 */
import React from 'react';

import { clip, LIMITS } from '../view';
import { useTrans } from './translation';

/** The URL a server asks the person to open. */
export function UrlRequest(props: { url: string }): JSX.Element {
  const trans = useTrans();
  let parsed: URL | null = null;
  try {
    parsed = new URL(props.url);
  } catch {
    parsed = null;
  }
  const https = parsed?.protocol === 'https:';
  return (
    <div className="mcpj-inbox-url">
      <div className="mcpj-detail">
        {trans.__('Opens')}{' '}
        <strong>{parsed?.host ?? trans.__('an invalid URL')}</strong>:
      </div>
      <pre>{clip(props.url, LIMITS.message)}</pre>
      {https ? (
        <button
          type="button"
          className="mcpj-button mcpj-inbox-open"
          onClick={() =>
            window.open(props.url, '_blank', 'noopener,noreferrer')
          }
        >
          {trans.__('Open in a new tab')}
        </button>
      ) : (
        <div className="mcpj-error">
          {trans.__('Only https URLs are opened.')}
        </div>
      )}
    </div>
  );
}

/**
 * Small badges of the sidebar's rows, kept apart from sidebar.tsx so they render (and are tested)
 * without JupyterLab.
 */
import React from 'react';

import { APP_ONLY_TITLE, IItemView } from './view';

/** "app only" next to a tool the server meant for its MCP App (visibility without "model"). */
export function AppOnlyBadge(props: { item: Pick<IItemView, 'appOnly'> }): JSX.Element | null {
  if (!props.item.appOnly) {
    return null;
  }
  return (
    <span className="mcpj-tag mcpj-app-only" title={APP_ONLY_TITLE}>
      app only
    </span>
  );
}

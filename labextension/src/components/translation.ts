/**
 * The translation bundle of the rendered tree: components read it with `useTrans()`; the widget
 * that renders them provides the one from JupyterLab's `ITranslator`.
 */
import { TranslationBundle } from '@jupyterlab/translation';
import React, { useContext } from 'react';

import { ENGLISH } from '../i18n';

/** Provides the bundle to the components below it (English when nothing provides one). */
export const TranslationContext =
  React.createContext<TranslationBundle>(ENGLISH);

/** The bundle of `mcp_jupyter` strings for this component. */
export function useTrans(): TranslationBundle {
  return useContext(TranslationContext);
}

/**
 * Whether JupyterLab shows a light or a dark theme, as the kernel (hello, `theme`) and the MCP Apps
 * (their host context) are told.
 */
import type { IThemeManager } from '@jupyterlab/apputils';

import { Theme } from './messages';

/** The theme the page shows: JupyterLab's theme manager sets `data-jp-theme-light` on `<body>` for
 * every theme, light or dark, once it is loaded. */
export function bodyTheme(): Theme {
  return document.body.dataset.jpThemeLight === 'false' ? 'dark' : 'light';
}

/** The theme the theme manager has chosen (the page's, without a theme manager). */
export function currentTheme(themes: IThemeManager | null): Theme {
  if (themes?.theme) {
    return themes.isLight(themes.theme) ? 'light' : 'dark';
  }
  return bodyTheme();
}

/**
 * How an app matches JupyterLab's look: the theme (light or dark) and JupyterLab's theme variables
 * under the MCP Apps spec's names, sent in the host context of `ui/initialize` and again, in
 * `ui/notifications/host-context-changed`, whenever JupyterLab's theme changes.
 */
import { Theme } from '../messages';

/** Host style variables (spec names) taken from JupyterLab's theme variables. */
export const STYLE_VARIABLES: Readonly<Record<string, string>> = {
  '--color-background-primary': '--jp-layout-color0',
  '--color-background-secondary': '--jp-layout-color1',
  '--color-background-tertiary': '--jp-layout-color2',
  '--color-text-primary': '--jp-ui-font-color0',
  '--color-text-secondary': '--jp-ui-font-color1',
  '--color-text-tertiary': '--jp-ui-font-color2',
  '--color-border-primary': '--jp-border-color0',
  '--color-border-secondary': '--jp-border-color1',
  '--color-text-danger': '--jp-error-color1',
  '--color-text-success': '--jp-success-color1',
  '--color-text-warning': '--jp-warn-color1',
  '--font-sans': '--jp-ui-font-family',
  '--font-mono': '--jp-code-font-family'
};

/** Where the variables are read from: the page's computed style (`getComputedStyle(document.body)`). */
export type StyleSource = Pick<CSSStyleDeclaration, 'getPropertyValue'>;

/** The look an app is told about. */
export interface ILook {
  theme: Theme;
  styles: { variables: Record<string, string> };
}

/** The spec's style variables that JupyterLab's theme sets in `style` (unset ones are left out). */
export function hostStyles(style: StyleSource): Record<string, string> {
  const variables: Record<string, string> = {};
  for (const [spec, jp] of Object.entries(STYLE_VARIABLES)) {
    const value = style.getPropertyValue(jp).trim();
    if (value) {
      variables[spec] = value;
    }
  }
  return variables;
}

/** The look of a page in `theme` whose computed style is `style`. */
export function look(theme: Theme, style: StyleSource): ILook {
  return { theme, styles: { variables: hostStyles(style) } };
}

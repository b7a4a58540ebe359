/**
 * Keys typed in mcp_jupyter's widgets stay in them (ipywidgets#3912).
 *
 * A notebook in command mode turns plain keys into cell operations: `A`/`B` insert a cell, `D D`
 * deletes one, `X` cuts it, `M` makes it Markdown, arrows move to another cell. Their shortcuts'
 * selector is `.jp-Notebook.jp-mod-commandMode:not(.jp-mod-readWrite) :focus`: a focused text box is
 * read-write and safe, but a focused dropdown, button or checkbox in an output is not. A person who
 * tabs to a form's dropdown and types "i" for "imperial" inserts a cell, and the arrow keys move the
 * notebook's cursor instead of the choice.
 *
 * JupyterLab and Notebook 7 process shortcuts in a keydown listener on `document`, in the bubbling
 * phase. One listener on `document.body` (which the event passes just before `document`) stops the
 * keys a control uses itself, when they come from inside one of our widgets in a notebook, so the
 * control gets them and no cell changes. Keys with Ctrl, Alt or Meta, and Escape, Tab and Shift+Enter,
 * still reach JupyterLab: a person expects Shift+Enter to run the cell and Ctrl+S to save wherever
 * the focus is. (`data-lm-suppress-shortcuts` on our widgets would stop those too.)
 */

/** Our widgets: every ipywidget mcp_jupyter renders carries an `mcpj-*` class (forms, cards, explorer...). */
export const OUR_WIDGETS = '[class*="mcpj-"]';

/** Where typed keys become notebook shortcuts. */
export const NOTEBOOK = '.jp-Notebook';

/** Keys a dropdown, list, button or checkbox acts on, besides the printable ones (letters, digits, space). */
const CONTROL_KEYS = new Set([
  'ArrowUp',
  'ArrowDown',
  'ArrowLeft',
  'ArrowRight',
  'Home',
  'End',
  'PageUp',
  'PageDown',
  'Backspace',
  'Delete'
]);

/** The parts of a keydown that decide whether it is typing. */
export interface IKeyLike {
  key: string;
  ctrlKey: boolean;
  altKey: boolean;
  metaKey: boolean;
  shiftKey: boolean;
}

/**
 * Whether a key is typing for the focused control rather than a command for the application:
 * a printable character (with or without Shift), a navigation key, or a plain Enter (which presses
 * a button). Anything with Ctrl, Alt or Meta, and Escape, Tab, Shift+Enter, function keys, are commands.
 */
export function isTypingKey(event: IKeyLike): boolean {
  if (event.ctrlKey || event.altKey || event.metaKey) {
    return false;
  }
  if (event.key === 'Enter') {
    return !event.shiftKey;
  }
  return event.key.length === 1 || CONTROL_KEYS.has(event.key);
}

/** Whether `target` is inside one of our widgets in a notebook (where plain keys are shortcuts). */
export function inOurWidget(target: EventTarget | null): boolean {
  const element = target instanceof Element ? target : null;
  const widget = element?.closest(OUR_WIDGETS);
  return !!widget && !!widget.closest(NOTEBOOK);
}

/** The keydown listener: stop typing keys from our widgets before the application's shortcuts see them. */
export function keepTypingInOurWidgets(event: KeyboardEvent): void {
  if (isTypingKey(event) && inOurWidget(event.target)) {
    event.stopPropagation();
  }
}

/** Install the listener on `body` (default `document.body`); returns a function that removes it. */
export function installKeyGuard(body: HTMLElement = document.body): () => void {
  body.addEventListener('keydown', keepTypingInOurWidgets);
  return () => body.removeEventListener('keydown', keepTypingInOurWidgets);
}

/**
 * Writing the sidebar's code into the notebook: a new code cell where the settings say (below the
 * active cell, or at the end), run at once unless the settings say insert only (or the cell needs a
 * value the person gives when running it: Connect on a registry server that needs a secret).
 */
import { NotebookActions, NotebookPanel } from '@jupyterlab/notebook';

import { cellPlan, ISidebarSettings, IWriteOptions } from './settings';

/** Write `code` into a new code cell of `panel` (placed and run as `settings` and `options` say). */
export async function writeCell(
  panel: NotebookPanel,
  code: string,
  settings: ISidebarSettings,
  options: IWriteOptions = {}
): Promise<void> {
  const notebook = panel.content;
  const plan = cellPlan(
    settings,
    notebook.activeCellIndex,
    notebook.widgets.length,
    options
  );
  if (plan.index > 0) {
    notebook.activeCellIndex = plan.index - 1;
    NotebookActions.insertBelow(notebook); // the new cell becomes the active one
  } else {
    NotebookActions.insertAbove(notebook);
  }
  if (notebook.activeCell?.model.type !== 'code') {
    NotebookActions.changeCellType(notebook, 'code');
  }
  notebook.activeCell?.model.sharedModel.setSource(code);
  if (plan.run) {
    await NotebookActions.run(notebook, panel.sessionContext);
  }
}

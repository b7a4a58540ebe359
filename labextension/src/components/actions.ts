/**
 * What the sidebar's buttons do: write a cell (placed and run as the settings say).
 */
import { ICodeOptions } from '../codegen';
import { IWriteOptions } from '../settings';

/** The actions passed down the sidebar's tree. */
export interface ICellActions {
  /** Write `code` into a new cell of the active notebook (and run it when `runs`, unless `options`
   * ask to only insert it). */
  write(code: string, options?: IWriteOptions): void;
  /** Whether written cells run at once (the "run the written cell" setting): the tooltips say so. */
  runs: boolean;
  /** Options of the code generators (the kernel's `magics` flag). */
  code: ICodeOptions;
}

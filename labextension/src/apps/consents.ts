/**
 * The questions an app's requests wait on ("open this link?", "send this message?"), shown as
 * consent cards above the app (components/AppConsentCard.tsx) and answered there.
 */
import { ISignal, Signal } from '@lumino/signaling';

import { IAppConsent } from '../components/AppConsentCard';

/** What to ask: everything of a card but its id and its answer. */
export type ConsentQuestion = Omit<IAppConsent, 'id' | 'answer'>;

/** The cards waiting, oldest first; `changed` fires when one is added or answered. */
export class ConsentQueue {
  /** Emitted with the cards waiting after each change. */
  get changed(): ISignal<this, readonly IAppConsent[]> {
    return this._changed;
  }

  /** The cards waiting, oldest first. */
  get consents(): readonly IAppConsent[] {
    return this._consents;
  }

  /** Show a card; resolves true when the person allows, false when they deny. */
  ask(question: ConsentQuestion): Promise<boolean> {
    return new Promise(resolve => {
      const consent: IAppConsent = {
        ...question,
        id: ++this._lastId,
        answer: allowed => {
          // a second answer (a second click) changes nothing: the promise has settled
          this._consents = this._consents.filter(c => c !== consent);
          this._changed.emit(this._consents);
          resolve(allowed);
        }
      };
      this._consents = [...this._consents, consent];
      this._changed.emit(this._consents);
    });
  }

  /** Deny every card (the app is gone: nothing was allowed). */
  denyAll(): void {
    const waiting = this._consents;
    this._consents = [];
    waiting.forEach(consent => consent.answer(false));
    this._changed.emit(this._consents);
  }

  private _consents: IAppConsent[] = [];
  private _lastId = 0;
  private _changed = new Signal<this, readonly IAppConsent[]>(this);
}

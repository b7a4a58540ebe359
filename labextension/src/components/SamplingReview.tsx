/**
 * A sampling request: read the messages, then Approve (the kernel asks the model). The request then
 * comes back in state "review" with the model's draft: Send it. With the human provider
 * (`needs_human`) the person writes the reply.
 */
import React, { useState } from 'react';

import { AnswerAction, ISamplingItem } from '../messages';
import { clip, draftToolCalls, LIMITS, samplingMessages, samplingTools } from '../view';
import { AnswerButtons } from './AnswerButtons';
import { useTrans } from './translation';

/** The messages, the draft (in review) and the answer buttons of a sampling request. */
export function SamplingReview(props: {
  item: ISamplingItem;
  answer: (action: AnswerAction, content?: Record<string, unknown>) => void;
  disabled: boolean;
}): JSX.Element {
  const trans = useTrans();
  const payload = props.item.payload ?? {};
  const [reply, setReply] = useState('');
  const draft = payload.state === 'review' ? payload.draft : null;
  const generating = payload.state === 'generating';
  const human = payload.needs_human && !draft;
  const accept = (action: AnswerAction): void =>
    action === 'accept' && human ? props.answer(action, { text: reply }) : props.answer(action);
  return (
    <div className="mcpj-sampling">
      {payload.system_prompt && (
        <div className="mcpj-sampling-message" data-role="system">
          <span className="mcpj-field-label">system</span>
          <pre>{clip(payload.system_prompt, LIMITS.message)}</pre>
        </div>
      )}
      {samplingMessages(payload).map((m, i) => (
        <div className="mcpj-sampling-message" data-role={m.role} key={i}>
          <span className="mcpj-field-label">{m.role}</span>
          <pre>{m.text}</pre>
        </div>
      ))}
      {samplingTools(payload).length > 0 && (
        <div className="mcpj-sampling-tools">
          <span className="mcpj-field-label">
            {payload.tool_choice === 'required'
              ? trans.__('Tools offered to the model (it must call one; the server runs them)')
              : payload.tool_choice === 'none'
                ? trans.__('Tools shown to the model (it may not call them)')
                : trans.__('Tools offered to the model (the server runs them)')}
          </span>
          <ul>
            {samplingTools(payload).map((t, i) => (
              <li key={i} data-tool={t.name}>
                <code>{t.name}</code> <span className="mcpj-detail">{t.detail}</span>
              </li>
            ))}
          </ul>
        </div>
      )}
      {payload.max_tokens ? (
        <div className="mcpj-detail">{trans.__('at most %1 tokens', String(payload.max_tokens))}</div>
      ) : null}
      {payload.error && <div className="mcpj-error">{String(payload.error)}</div>}
      {draft && (
        <div className="mcpj-sampling-draft">
          <span className="mcpj-field-label">
            {trans.__('answer from %1', String(draft.model ?? trans.__('the model')))}
          </span>
          {draft.text && <pre>{clip(draft.text, LIMITS.message)}</pre>}
          {draftToolCalls(payload).map((c, i) => (
            <div className="mcpj-sampling-tool-call" data-tool={c.name} key={i}>
              {trans.__('The model asks the server to run %1 with %2', c.name, c.detail)}
            </div>
          ))}
        </div>
      )}
      {human && (
        <label className="mcpj-inbox-field" data-key="reply">
          <span className="mcpj-field-label">{trans.__('Your reply')}</span>
          <textarea value={reply} disabled={props.disabled} onChange={e => setReply(e.target.value)} />
        </label>
      )}
      {generating && <div className="mcpj-detail mcpj-sampling-generating">{trans.__('The model is answering…')}</div>}
      <AnswerButtons answer={accept} disabled={props.disabled} acceptDisabled={generating}
        accept={draft ? trans.__('Send') : human ? trans.__('Reply') : trans.__('Approve')} />
    </div>
  );
}
